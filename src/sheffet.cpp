// Thin exports for Sheffet's mechanisms (R/wishart.R) and study (R/sheffet-study.R).
#include <dpcov/sheffet.h>

// [[Rcpp::export]]
Eigen::MatrixXd wishart_factor_draw_cpp(const Eigen::Map<Eigen::MatrixXd> S, double df, bool exact) {
  dpcov::note_draw();
  return dpcov::wishart_factor_draw(S, df, exact);
}

// [[Rcpp::export]]
Eigen::MatrixXd jl_project_gram_cpp(const Eigen::Map<Eigen::MatrixXd> A, double clip, double w, double r) {
  dpcov::note_draw();
  return dpcov::jl_project_gram(A, clip, w, static_cast<Eigen::Index>(r));
}

// [[Rcpp::export]]
Eigen::MatrixXd wishart_outer_sum_cpp(int d, double k, double scale) {
  dpcov::note_draw();
  return dpcov::wishart_outer_sum(d, static_cast<Eigen::Index>(k), scale);
}

// [[Rcpp::export]]
double laplace_draw_cpp(double scale) {
  dpcov::note_draw();
  return dpcov::draw_laplace(scale);
}

// [[Rcpp::export]]
Rcpp::List simulate_regression_gram_cpp(double n, const Eigen::Map<Eigen::MatrixXd> Beta,
                                        double noise_sd, double clip) {
  dpcov::note_draw();
  dpcov::ClippedGram acc = dpcov::simulate_regression_gram(static_cast<Eigen::Index>(n), Beta, noise_sd, clip);
  return Rcpp::List::create(Rcpp::Named("gram") = acc.result(),
                            Rcpp::Named("n") = static_cast<double>(acc.n()),
                            Rcpp::Named("n_clipped") = static_cast<double>(acc.n_clipped()));
}

// Monte Carlo mean and sd of ||N|| over `reps` draws from the fixed stream
// seeded with `seed` (a whole number below 2^53; the default is the stream of
// the Monte Carlo shift before the table). Internal: for
// analyze_gauss_shift(reps = ), tools/shift-table.R and the tests.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector expected_sym_gaussian_norm_cpp(int p, int reps, double seed = 20160219) {
  double sd = NAN;
  // interruptible (and subject to setTimeLimit()): a long Monte Carlo can be stopped
  const double m = dpcov::expected_sym_gaussian_norm(p, reps, static_cast<std::uint64_t>(seed), &sd,
                                                     [] { Rcpp::checkUserInterrupt(); });
  return Rcpp::NumericVector::create(Rcpp::Named("mean") = m, Rcpp::Named("sd") = sd);
}
