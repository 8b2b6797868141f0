// Thin exports of the Gaussian noise draws.
#include <dpcov/noise.h>
#include <cstdio>
#include <random>
#include <string>

// [[Rcpp::export]]
Eigen::MatrixXd symmetric_gaussian_cpp(int p, double sd) {
  dpcov::note_draw();
  return dpcov::symmetric_gaussian(p, sd);
}

// The polar-method stream used for cross-validation's simulated noise.
// [[Rcpp::export]]
Eigen::VectorXd polar_normals_cpp(int n) {
  dpcov::note_draw();
  dpcov::PolarNormal normal;
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; ++i) z(i) = normal();
  return z;
}

// The count of drawing calls (dpcov::note_draw()), for the refund rule.
// [[Rcpp::export(rng = false)]]
double draw_calls_cpp() {
  return dpcov::draw_calls();
}

// n draws of a standard normal conditioned on Z > t (t > 0), as draw_norm()
// replaces the inversion's draws beyond 7 sd.
// [[Rcpp::export]]
Eigen::VectorXd normal_tail_cpp(int n, double t) {
  dpcov::note_draw();
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x(i) = dpcov::draw_normal_tail(t);
  return x;
}

// n standard normals by draw_norm(): the noise drawn in R (the noisy means,
// the local reports) comes from here, as the C++ mechanisms' does.
// [[Rcpp::export]]
Eigen::VectorXd standard_normals_cpp(int n) {
  dpcov::note_draw();
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; ++i) z(i) = dpcov::draw_norm();
  return z;
}

// The draws of `what` ("normal", "exp", "tail7" or "gamma", the last of
// shape `shape`) from the given uniforms, in order, for the tests: the
// branches R's generator reaches once in 2^30 or 4e11 draws (the
// exponential's refinement, the normal's replaced tail) and the tails no
// seed reaches (the gamma's). Running out of uniforms is an error.
// [[Rcpp::export(rng = false)]]
double draw_from_uniforms_cpp(Rcpp::NumericVector u, std::string what, double shape = 1.0) {
  for (R_xlen_t k = 0; k < u.size(); ++k)
    if (!(u[k] > 0.0 && u[k] < 1.0)) Rcpp::stop("uniforms must lie in (0, 1)");
  R_xlen_t i = 0;
  auto unif = [&]() {
    if (i >= u.size()) Rcpp::stop("out of uniforms");
    return static_cast<double>(u[i++]);
  };
  if (what == "normal") return dpcov::normal_from(unif);
  if (what == "exp") return dpcov::exp_unbounded_from(unif);
  if (what == "tail7") return dpcov::normal_tail_from(dpcov::kNormalTail, unif);
  if (what == "gamma") {
    if (!(shape > 0.0 && std::isfinite(shape))) Rcpp::stop("`shape` must be a positive number");
    return dpcov::gamma_from(shape, unif);
  }
  Rcpp::stop("`what` must be \"normal\", \"exp\", \"tail7\" or \"gamma\"");
}

// n chi-square(df) draws with neither tail cut (the mechanisms' Wishart
// chi-squares, draw_chisq_exact()), for the tests and benchmarks.
// [[Rcpp::export]]
Eigen::VectorXd chisq_exact_cpp(int n, double df) {
  dpcov::note_draw();
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x(i) = dpcov::draw_chisq_exact(df);
  return x;
}

// A random 128-bit token (32 hex digits) from the system's entropy source
// (std::random_device), not from R's generator: set.seed() streams are
// untouched, and a token says nothing of the process, the time or the
// releases made before it. Names releases for budgets (R/budget.R).
// [[Rcpp::export(rng = false)]]
std::string random_token_cpp() {
  std::random_device rd;
  char buf[33];
  for (int k = 0; k < 4; ++k) std::snprintf(buf + 8 * k, 9, "%08x", static_cast<unsigned int>(rd()));
  return std::string(buf, 32);
}
