# The PSD projection (inst/include/dpcov/threshold.h, psd_project()) before
# and after the eleventh audit's change: a mostly negative matrix is rebuilt
# from its positive eigenvalues (fewer rank-one updates than subtracting the
# negative part), and the subtraction path sets a variance its cancellation
# left below 0 to 0 (O(p)). The old function is compiled here from its
# source; both are timed in one process, interleaved, on symmetric matrices
# whose share of negative eigenvalues is 10%, 50% and 90%.
#   Rscript bench/psd-project.R
suppressPackageStartupMessages({library(dpcov); library(Rcpp)})
cppFunction(depends = "RcppEigen", includes = "#include <RcppEigen.h>", code = '
Eigen::MatrixXd old_psd(const Eigen::Map<Eigen::MatrixXd> A) {
  using namespace Eigen;
  const MatrixXd S = 0.5 * A + 0.5 * A.transpose();
  SelfAdjointEigenSolver<MatrixXd> es(S);
  const VectorXd& lam = es.eigenvalues();
  Index neg = 0;
  for (Index i = 0; i < lam.size(); ++i) if (lam(i) < 0.0) ++neg;
  if (neg == 0) return S;
  const MatrixXd& V = es.eigenvectors();
  MatrixXd out = S;
  for (Index i = 0; i < lam.size(); ++i)
    if (lam(i) < 0.0) out.noalias() -= lam(i) * V.col(i) * V.col(i).transpose();
  return 0.5 * out + 0.5 * out.transpose();
}')
new_psd <- function(A) dpcov:::psd_project_cpp(A)$matrix
set.seed(1)
rows <- list()
for (p in c(50, 200, 500)) for (share in c(0.1, 0.5, 0.9)) {
  Q <- qr.Q(qr(matrix(rnorm(p * p), p)))
  lam <- c(-runif(round(share * p), 1, 2), runif(p - round(share * p), 1, 2))
  A <- Q %*% (lam * t(Q))
  stopifnot(isTRUE(all.equal(old_psd(A), new_psd(A), tolerance = 1e-8)))
  reps <- 11
  k <- c(`50` = 200, `200` = 5, `500` = 1)[[as.character(p)]]   # calls per timing
  t_old <- t_new <- numeric(reps)
  for (r in seq_len(reps)) {   # interleaved
    t_old[r] <- system.time(for (i in seq_len(k)) old_psd(A))[["elapsed"]] / k
    t_new[r] <- system.time(for (i in seq_len(k)) new_psd(A))[["elapsed"]] / k
  }
  rows[[length(rows) + 1]] <- data.frame(p = p, negative_share = share, old_ms = 1000 * median(t_old),
                                         new_ms = 1000 * median(t_new), new_over_old = median(t_new) / median(t_old))
}
out <- do.call(rbind, rows)
print(format(out, digits = 3), row.names = FALSE)
