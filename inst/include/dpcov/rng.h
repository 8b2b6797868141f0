// All randomness in dpcov comes from R's generator, so set.seed() reproduces
// every result. Callers must hold an Rcpp::RNGScope (Rcpp exports do), and
// must never call these from a thread other than R's.
#ifndef DPCOV_RNG_H
#define DPCOV_RNG_H

#include <RcppEigen.h>

namespace dpcov {

inline double draw_norm() { return R::norm_rand(); }
inline double draw_unif() { return R::unif_rand(); }
inline double draw_exp() { return R::exp_rand(); }
inline double draw_chisq(double df) { return R::rchisq(df); }

// Laplace(0, scale): an exponential of mean `scale` with a fair random sign.
inline double draw_laplace(double scale) {
  const double e = R::exp_rand() * scale;
  return R::unif_rand() < 0.5 ? -e : e;
}

}  // namespace dpcov

#endif
