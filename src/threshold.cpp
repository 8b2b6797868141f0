// Thin exports of the thresholding core (inst/include/dpcov/threshold.h).
// Arguments are validated in R (R/threshold.R).
#include <dpcov/threshold.h>

// [[Rcpp::export(rng = false)]]
Eigen::MatrixXd hard_threshold_cpp(const Eigen::Map<Eigen::MatrixXd> A, double t, bool keep_diag) {
  return dpcov::hard_threshold(A, t, keep_diag);
}

// [[Rcpp::export(rng = false)]]
Rcpp::List psd_project_cpp(const Eigen::Map<Eigen::MatrixXd> A) {
  Eigen::Index neg = 0;
  Eigen::MatrixXd out = dpcov::psd_project(A, &neg);
  return Rcpp::List::create(Rcpp::Named("matrix") = out,
                            Rcpp::Named("n_negative") = static_cast<double>(neg));
}

// [[Rcpp::export]]
Eigen::MatrixXd ldp_report_sum_cpp(const Eigen::Map<Eigen::MatrixXd> X, double clip, double sd) {
  dpcov::note_draw();
  return dpcov::ldp_report_sum(X, clip, sd);
}

// [[Rcpp::export(rng = false)]]
Eigen::VectorXd threshold_losses_cpp(const Eigen::Map<Eigen::MatrixXd> A,
                                     const Eigen::Map<Eigen::MatrixXd> H,
                                     std::vector<double> t_sorted, bool keep_diag) {
  return dpcov::threshold_losses(A, H, t_sorted, keep_diag);
}

// [[Rcpp::export]]
Eigen::VectorXd cv_threshold_cpp(const Eigen::Map<Eigen::MatrixXd> X, std::vector<int> fold, int K,
                                 double clip, const Eigen::Map<Eigen::MatrixXd> thresholds,
                                 const Eigen::Map<Eigen::VectorXd> noise_sd, bool keep_diag,
                                 bool downdate) {
  dpcov::note_draw();
  for (int f : fold)
    if (f < 0 || f >= K) Rcpp::stop("fold index out of range");
  return dpcov::cv_threshold(X, fold, K, clip, thresholds, noise_sd, keep_diag, downdate);
}
