// All randomness in dpcov comes from R's generator, so set.seed() reproduces
// every result. Callers must hold an Rcpp::RNGScope (Rcpp exports do), and
// must never call these from a thread other than R's.
#ifndef DPCOV_RNG_H
#define DPCOV_RNG_H

#include <RcppEigen.h>
#include <cmath>
#include <limits>

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

// The draws below take their uniforms from `unif` (R's unif_rand() in every
// release; a given sequence in the tests, which reach branches R's generator
// takes once in 2^30 or 4e11 draws).

// An exponential(1) with no upper limit: -log of a uniform refined without
// limit near 0. Where the uniform falls in the lowest cell [0, 2^-30)
// (probability 2^-30 under R's default generators; 0.75 * 2^-30 under
// L'Ecuyer-CMRG, whose uniforms are k / (m1 + 1)), the point lies uniformly
// inside it: the next uniform places it, 30 bits further down, so
// -log U = 30 ln 2 - log U', again and again.
template <typename Unif>
inline double exp_unbounded_from(Unif&& unif) {
  const double cell = std::ldexp(1.0, -30);
  double shift = 0.0;
  for (;;) {
    const double u = unif();
    if (u >= cell) return shift - std::log(u);
    shift += 30.0 * M_LN2;
  }
}
inline double draw_exp_unbounded() { return exp_unbounded_from(R::unif_rand); }

// Laplace(0, scale): an exponential of mean `scale` with no upper limit,
// with a fair random sign.
inline double draw_laplace(double scale) {
  const double e = draw_exp_unbounded() * scale;
  return R::unif_rand() < 0.5 ? -e : e;
}

// A standard normal conditioned on Z > t (t > 0), exactly: Marsaglia's (1964)
// tail method, x = sqrt(t^2 + 2E) accepted with probability t / x.
template <typename Unif>
inline double normal_tail_from(double t, Unif&& unif) {
  for (;;) {
    const double x = std::sqrt(t * t + 2.0 * exp_unbounded_from(unif));
    if (unif() * x < t) return x;
  }
}
inline double draw_normal_tail(double t) { return normal_tail_from(t, R::unif_rand); }

// Beyond this many standard deviations an inversion draw is replaced.
const double kNormalTail = 7.0;

// One N(0, 1). R's inversion, as norm_rand() computes it under the default
// normal kind "Inversion" (so set.seed() reproduces rnorm()'s values until a
// draw falls beyond 7 sd, whose tail draw takes further uniforms), from
// R's uniforms whatever RNGkind()'s normal kind (Box-Muller's draws stop at
// 6.76 sd, Ahrens-Dieter's at about 6.3), except that a draw beyond +-7
// (probability 2.6e-12) is replaced by an exact draw from the normal's tail
// beyond 7, with the same sign. The inversion's uniform has a grid of 2^-53
// near 1, so it never exceeds 8.21: under a neighbour whose mean is Delta
// higher, outputs beyond 8.21 sd above the first mean would have probability
// Pr(Z > 8.21 - Delta/sigma) against 0, which adds to delta at every epsilon
// (more than delta itself at epsilon 20 with delta 1e-10). The tail draw has
// no such limit.
template <typename Unif>
inline double normal_from(Unif&& unif) {
  const double big = 134217728.0;  // 2^27, R's constant (snorm.c, INVERSION)
  double u = unif();
  u = static_cast<int>(big * u) + unif();
  const double z = R::qnorm(u / big, 0.0, 1.0, 1, 0);
  if (std::fabs(z) <= kNormalTail) return z;
  const double x = normal_tail_from(kNormalTail, unif);
  return z < 0 ? -x : x;
}
inline double draw_norm() { return normal_from(R::unif_rand); }

// R's chi-square, rchisq(): 2 Gamma(df / 2) by Ahrens and Dieter, as
// stats::rWishart draws it (the samplers rwishart() and riwishart() keep its
// stream). Not for mechanism noise: its gamma takes values below the mean
// from norm_rand(), so for shape a >= 1 the chi-square never falls below
// about 2 (sqrt(a - 1/2) - 4.39)^2, and for one degree of freedom it lies in
// [3.8e-20, 42.6] (32-bit uniforms); it follows RNGkind()'s normal kind; and
// it is +Inf when norm_rand() is (probability 2^-54 under Mersenne-Twister).
inline double draw_chisq(double df) { return R::rchisq(df); }

// Marsaglia and Tsang's (2000) method for Gamma(a, 1), a >= 1, on
// normal_from()'s normals (the normal's whole range), accepting x when
// log U < x^2/2 + d - d v + d log v with -log U an exponential with no
// upper limit (so small acceptance probabilities are not cut either). Its
// lower end, d (2^-53)^3 (1 + c x rounds to at least one ulp), has
// probability about (d 2^-159)^a / Gamma(a + 1): below 1e-308 from a = 7.
template <typename Unif>
inline double gamma_mt_from(double a, Unif&& unif) {
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal_from(unif);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    if (-exp_unbounded_from(unif) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

// A Gamma(a, 1) draw with neither tail cut: gamma_mt_from(), and below shape
// kGammaBoost Gamma(a + 1) U^(1/a) = Gamma(a + 1) exp(-E / a) with E
// unbounded, whose lower tail has no end. NaN for a shape that is not a
// positive number (the callers validate theirs; this keeps a bad one from
// looping for ever).
const double kGammaBoost = 8.0;
template <typename Unif>
inline double gamma_from(double a, Unif&& unif) {
  if (!(a > 0.0) || !std::isfinite(a)) return std::numeric_limits<double>::quiet_NaN();
  if (a >= kGammaBoost) return gamma_mt_from(a, unif);
  const double g = gamma_mt_from(a + 1.0, unif);
  return g * std::exp(-exp_unbounded_from(unif) / a);
}

// The chi-square of the mechanisms' Wishart noise (Sheffet's Algorithms
// 1-5): 2 Gamma(df / 2) with neither tail cut, whatever RNGkind()'s normal
// kind. R's rchisq()'s ends would add to delta: outputs a neighbour's shift
// moves past them are possible under one data set only (an audit measured
// 1e-11 to 1e-9 for Algorithm 5 at k0 = d, whose last chi-square has one
// degree of freedom).
inline double draw_chisq_exact(double df) { return 2.0 * gamma_from(0.5 * df, R::unif_rand); }





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
