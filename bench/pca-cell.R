# One cell of bench/peers.R's principal-angle table with many releases: the
# largest principal angle (degrees) between the top-2 eigenspaces of the
# data's covariance and of dp_pca() with the public bounds (its default,
# tightened by the rule for principal axes, and tighten = FALSE), the
# textbook, the textbook box and DPpack; the ratio of dp_pca()'s median to
# the best peer's with a 95% bootstrap interval. Replace-one, delta = 1e-6.
# Environment: DPCOV_BENCH_SET (default penguins), DPCOV_BENCH_EPS (2),
# DPCOV_BENCH_REPS (1000). Run from the package sources: Rscript bench/pca-cell.R
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
library(dpcov); options(dpcov.noise_warning = FALSE)
ds <- Sys.getenv("DPCOV_BENCH_SET", "penguins")
eps <- as.numeric(Sys.getenv("DPCOV_BENCH_EPS", "2"))
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "1000"))
D <- datasets[[ds]]; x <- D$x; n <- nrow(x); b <- D$bounds[colnames(x), ]; S <- stats::cov(x) * (n - 1) / n
pca <- function(...) dp_pca(x, epsilon = eps, delta = delta, lower = b$lower, upper = b$upper, neighbor = "replace-one", ...)
set.seed(2024)
res <- t(replicate(reps, c(
  "dp_pca (default)" = rotation_angle(pca()$rotation, S),
  "dp_pca (tighten = FALSE)" = rotation_angle(pca(tighten = FALSE)$rotation, S),
  "textbook" = top_angle(textbook_cov(x, b$lower, b$upper, eps, delta), S),
  "textbook box" = top_angle(textbook_box_cov(x, b$lower, b$upper, eps, delta), S),
  "DPpack" = if (has_dppack) top_angle(dppack_cov(x, b$lower, b$upper, eps), S) else NA_real_)))
med <- apply(res, 2, stats::median, na.rm = TRUE)
peers <- c("textbook", "textbook box", "DPpack")
set.seed(1)
boot <- replicate(2000, {
  i <- sample(reps, replace = TRUE); j <- sample(reps, replace = TRUE)
  stats::median(res[i, 1]) / min(apply(res[j, peers, drop = FALSE], 2, stats::median, na.rm = TRUE), na.rm = TRUE)
})
cat(sprintf("dpcov %s, %s at epsilon %s, %d releases per method, replace-one, delta = %g\n\n",
            utils::packageVersion("dpcov"), ds, format(eps), reps, delta))
print(round(med, 2))
cat(sprintf("\ndp_pca (default) / best peer: %.2f (95%% bootstrap %.2f-%.2f)\n", med[[1]] / min(med[peers], na.rm = TRUE),
            stats::quantile(boot, 0.025), stats::quantile(boot, 0.975)))
