// All randomness in dpcov comes from R's generator, so set.seed() reproduces
// every result. Callers must hold an Rcpp::RNGScope (Rcpp exports do), and
// must never call these from a thread other than R's.
#ifndef DPCOV_RNG_H
#define DPCOV_RNG_H

#include <RcppEigen.h>
#include <cmath>

namespace dpcov {

// How many calls of an export that draws from R's RNG this session has made
// (each such export calls note_draw() first): the budget's refund rule asks
// whether a failed call drew anything (R/budget.R), without reading R's RNG
// state.
inline double& draw_calls() {
  static double n = 0;
  return n;
}
inline void note_draw() { draw_calls() += 1; }

inline double draw_norm() { return R::norm_rand(); }
inline double draw_unif() { return R::unif_rand(); }
inline double draw_chisq(double df) { return R::rchisq(df); }

// A uniform on (0, 1) fine near 0 (as fine_uniform() in R/privacy.R): R's
// uniform, and where it falls in the lowest cell [0, 2^-30) (probability
// 2^-30 under every RNG kind: Mersenne-Twister's uniforms are multiples of
// 2^-32, Knuth-TAOCP's of 2^-30) a second one for the point in it. The
// exponential's tail then reaches 43.7 instead of exp_rand()'s 22.2: a
// truncated tail is where the two neighbours' probability ratio stops being
// bounded (Mironov 2012 on floating-point samplers).
inline double draw_fine_uniform() {
  const double u = R::unif_rand();
  return u < std::ldexp(1.0, -30) ? std::ldexp(R::unif_rand(), -30) : u;
}

// Laplace(0, scale): an exponential of mean `scale` (by inversion of a fine
// uniform) with a fair random sign.
inline double draw_laplace(double scale) {
  const double e = -std::log(draw_fine_uniform()) * scale;
  return R::unif_rand() < 0.5 ? -e : e;
}

// Standard normals by Marsaglia's polar method on R's uniforms: exact in
// distribution, 1.27 uniforms and one log per draw against norm_rand()'s two
// uniforms and a qnorm() (inversion), about 1.8x faster. For bulk draws whose
// stream need not match rnorm(): the simulated mechanism noise inside
// cross-validation. Noise in a release always comes from draw_norm().
class PolarNormal {
 public:
  double operator()() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * R::unif_rand() - 1.0;
      v = 2.0 * R::unif_rand() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
  }

 private:
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace dpcov

#endif
