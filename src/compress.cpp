// Thin exports of the compression release (inst/include/dpcov/compress.h).
// Inputs are validated, and X'X/n normalised, in R (R/compress.R).
#include <dpcov/compress.h>

using Eigen::MatrixXd;
using Eigen::VectorXd;

// X'X in one pass (symmetric rank-k update).
// [[Rcpp::export(rng = false)]]
Eigen::MatrixXd crossprod_cpp(const Eigen::Map<Eigen::MatrixXd> X) {
  return dpcov::crossprod_lower(X);
}

// One accepted compressed matrix, or a 0 x 0 matrix when all `max_tries`
// draws were discarded. The gram path uses only S (the normalised X'X / n);
// the explicit path uses X and the column scales. The number of discarded
// draws is not returned.
// [[Rcpp::export]]
Eigen::MatrixXd compress_draw_cpp(const Eigen::Map<Eigen::MatrixXd> S,
                                  const Eigen::Map<Eigen::MatrixXd> X,
                                  const Eigen::Map<Eigen::VectorXd> scales, int m,
                                  bool truncate, const Eigen::Map<Eigen::MatrixXd> reference,
                                  double threshold, int max_tries, double affine_sd,
                                  bool explicit_path, int block_cols) {
  const MatrixXd ref(reference);
  MatrixXd C;
  bool ok;
  if (explicit_path) {
    if (X.cols() != scales.size()) Rcpp::stop("scales must have one entry per column of X");
    dpcov::ExplicitCompressor comp(X, VectorXd(scales), block_cols);
    ok = dpcov::compress_truncated(comp, m, truncate, ref, threshold, max_tries, affine_sd, C);
  } else {
    if (S.rows() != S.cols()) Rcpp::stop("S must be square");
    dpcov::GramCompressor comp{MatrixXd(S)};
    ok = dpcov::compress_truncated(comp, m, truncate, ref, threshold, max_tries, affine_sd, C);
  }
  if (!ok) C.resize(0, 0);
  return C;
}

// Per column: 0 = varies, 1 = all zero, 2 = constant non-zero. One pass,
// no n x p temporaries.
// [[Rcpp::export(rng = false)]]
Rcpp::IntegerVector column_constancy_cpp(const Eigen::Map<Eigen::MatrixXd> X) {
  Rcpp::IntegerVector out(X.cols());
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const double first = X(0, j);
    bool constant = true;
    for (Eigen::Index i = 1; i < X.rows() && constant; ++i) constant = X(i, j) == first;
    out[j] = constant ? (first == 0 ? 1 : 2) : 0;
  }
  return out;
}

// The symmetric PSD square root, exported for tests against a plain-R reference.
// [[Rcpp::export(rng = false)]]
Eigen::MatrixXd psd_sqrt_cpp(const Eigen::Map<Eigen::MatrixXd> S) {
  return dpcov::psd_sqrt(MatrixXd(S));
}
