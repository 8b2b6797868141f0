// Thin exports of the Gaussian noise draws.
#include <dpcov/noise.h>

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

// n draws of a standard normal conditioned on Z > t (the tail that replaces
// norm_rand()'s draws beyond 7 sd; R-level noise uses it after rnorm()).
// [[Rcpp::export]]
Eigen::VectorXd normal_tail_cpp(int n, double t) {
  dpcov::note_draw();
  Eigen::VectorXd x(n);
  for (int i = 0; i < n; ++i) x(i) = dpcov::draw_normal_tail(t);
  return x;
}
