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
  dpcov::note_draw();
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

// One pass over X, no n x p temporaries. Per column: 0 = finite and varying,
// 1 = all zero, 2 = constant non-zero, 3 = contains NA/NaN, 4 = contains
// +-Inf (3 wins over 4).
// [[Rcpp::export(rng = false)]]
Rcpp::IntegerVector scan_columns_cpp(const Eigen::Map<Eigen::MatrixXd> X) {
  Rcpp::IntegerVector out(X.cols());
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const double* col = X.col(j).data();
    const double first = col[0];
    bool constant = true, nan = false, inf = false;
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const double v = col[i];
      if (std::isnan(v)) nan = true;
      else if (std::isinf(v)) inf = true;
      constant = constant && v == first;
    }
    out[j] = nan ? 3 : inf ? 4 : constant ? (first == 0 ? 1 : 2) : 0;
  }
  return out;
}

// The symmetric PSD square root, exported for tests against a plain-R reference.
// [[Rcpp::export(rng = false)]]
Eigen::MatrixXd psd_sqrt_cpp(const Eigen::Map<Eigen::MatrixXd> S) {
  return dpcov::psd_sqrt(MatrixXd(S));
}
