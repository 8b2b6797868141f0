# Default split of dp_cov() with public per-column bounds (R/box.R): the
# share of epsilon and delta for the mean that minimises the error of the
# covariance, relative to the best split of each setting. Mixed-unit data:
# one column in the 1e4 range (log-normal, a price), the others about 1
# (normal, uniform, a 1-5 scale), bounds wider than the data as users know
# them. Error: Frobenius norm of the covariance error in standardised units,
# D^-1/2 (C_hat - C) D^-1/2 with D the true variances (scale-free, so the
# price does not swamp the other columns). Run: Rscript bench/box-split.R
suppressMessages(library(dpcov))
sim_data <- function(n, p) {
  z <- matrix(rnorm(n * p), n, p) %*% chol(0.5 * diag(p) + 0.5)
  x <- cbind(price = pmin(exp(8 + 0.8 * z[, 1]), 3e4), sapply(2:p, function(j) switch(1 + j %% 3,
    1 + 0.3 * z[, j], round(pmin(pmax(3 + z[, j], 1), 5)), 10 + 2 * z[, j])))
  colnames(x) <- c("price", paste0("v", 2:p))
  lo <- c(0, sapply(2:p, function(j) switch(1 + j %% 3, -1, 1, 0)))
  hi <- c(3e4, sapply(2:p, function(j) switch(1 + j %% 3, 3, 5, 20)))
  list(x = x, lower = lo, upper = hi)
}
std_err <- function(C, truth) { d <- 1 / sqrt(diag(truth)); norm((C - truth) * tcrossprod(d), "F") }
splits <- c(0.05, 0.1, 0.15, 0.2, 0.25, 0.35, 0.5, 0.6)
reps <- as.integer(Sys.getenv("REPS", "15"))
set.seed(20261124)
rows <- list()
for (n in c(1000, 10000, 50000)) for (p in c(4, 8)) {
  d <- sim_data(n, p)
  truth <- cov(pmin(pmax(d$x, rep(d$lower, each = n)), rep(d$upper, each = n))) * (n - 1) / n
  for (eps in c(0.25, 1, 4)) {
    err <- sapply(splits, function(s) median(replicate(reps, std_err(
      dp_cov(d$x, eps, 1e-6, lower = d$lower, upper = d$upper, split = s)$estimate, truth))))
    rows[[length(rows) + 1]] <- data.frame(n = n, p = p, eps = eps, split = splits, err = err, rel = err / min(err))
  }
}
res <- do.call(rbind, rows)
agg <- aggregate(rel ~ split, res, mean)
print(agg)
print(reshape(res[, c("n", "p", "eps", "split", "rel")], idvar = c("n", "p", "eps"), timevar = "split", direction = "wide"), digits = 3)
