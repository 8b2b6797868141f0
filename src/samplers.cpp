// Thin exports of the Wishart and inverse-Wishart samplers. Inputs are
// validated in R (R/samplers.R); only cheap invariants are re-checked here.
#include <dpcov/wishart.h>

using Eigen::Map;
using Eigen::MatrixXd;

namespace {

Rcpp::NumericVector draw_array(int n, double df, const Map<MatrixXd>& S, bool chol,
                               bool inverse, bool exact) {
  const int p = static_cast<int>(S.rows());
  if (S.cols() != p) Rcpp::stop("scale matrix must be square");
  MatrixXd L;
  if (!dpcov::lower_cholesky(S, L)) Rcpp::stop("scale matrix is not positive definite");
  // every entry of every slice is written below: skip Rcpp's zero fill
  Rcpp::NumericVector out(Rcpp::no_init(static_cast<R_xlen_t>(p) * p * n));
  out.attr("dim") = Rcpp::IntegerVector::create(p, p, n);
  dpcov::WishartSampler sampler(L, df, exact);
  int failed = 0;
  for (int k = 0; k < n; ++k) {
    Map<MatrixXd> slice(out.begin() + static_cast<R_xlen_t>(k) * p * p, p, p);
    if (inverse) {
      if (!sampler.inverse_wishart(chol, slice)) ++failed;
    } else {
      sampler.wishart(chol, slice);
    }
  }
  // the number of inverse-Wishart draws that cannot be represented (see
  // WishartSampler::inverse_wishart()); the R callers refuse them
  if (inverse) out.attr("failed") = failed;
  return out;
}

}  // namespace

// [[Rcpp::export]]
Rcpp::NumericVector rwishart_cpp(int n, double df, const Eigen::Map<Eigen::MatrixXd> Sigma, bool chol) {
  dpcov::note_draw();
  return draw_array(n, df, Sigma, chol, false, false);
}

// `exact`: chi-squares with neither tail cut (Sheffet's Algorithms 4 and 5);
// riwishart() keeps stats::rWishart's (R's rchisq()).
// [[Rcpp::export]]
Rcpp::NumericVector riwishart_cpp(int n, double df, const Eigen::Map<Eigen::MatrixXd> Psi, bool chol, bool exact) {
  dpcov::note_draw();
  return draw_array(n, df, Psi, chol, true, exact);
}

// The samplers' own positive-definiteness test (Eigen's LLT), so that R's
// checks and decisions use the criterion the samplers will apply: base::chol()
// (LAPACK, upper triangle) and LLT (lower triangle) disagree at the boundary.
// [[Rcpp::export(rng = false)]]
bool is_pd_cpp(const Eigen::Map<Eigen::MatrixXd> S) {
  if (S.rows() != S.cols()) return false;
  MatrixXd L;
  return dpcov::lower_cholesky(S, L);
}
