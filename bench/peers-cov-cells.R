# bench/peers.R's covariance cells with more releases: dp_cov() with the
# public bounds (its default tighten = FALSE: the public box) against the
# three peers, relative Frobenius and spectral error, for every data set and
# epsilon of bench/peers.R, with a 95% percentile bootstrap interval of the
# ratio of dpcov's median to the best peer's (each method resampled on its
# own). The 200-release cells of bench/peers.R move by 10-30% between runs
# (a run's random stream follows every method before it), which is enough
# to flip a ratio near 1; this script runs only these four methods, so it
# affords more releases. Run from the package sources:
#   DPCOV_BENCH_REPS=1000 Rscript bench/peers-cov-cells.R
# DPCOV_CELLS_METRIC=angle instead compares the largest principal angle
# between the top-2 eigenspaces, dpcov's from dp_pca() with the public bounds
# (its own release, with its default tightening rule), as bench/peers.R does;
# DPCOV_BENCH_SETS and DPCOV_CELLS_EPS (comma-separated) select cells;
# DPCOV_CELLS_WEIGHTS=frobenius runs dp_cov(box_weights = "frobenius") for
# the covariance cells instead of the default "equal".
source("bench/peers-setup.R")
library(dpcov); options(dpcov.noise_warning = FALSE)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "200"))
angle <- identical(Sys.getenv("DPCOV_CELLS_METRIC"), "angle")
cell_eps <- Sys.getenv("DPCOV_CELLS_EPS")
if (nzchar(cell_eps)) epsilons <- as.numeric(strsplit(cell_eps, ",")[[1]])
metric_names <- if (angle) "angle" else c("frob", "spec")
weights <- Sys.getenv("DPCOV_CELLS_WEIGHTS", "equal")
methods <- c(if (angle) "dp_pca bounds" else if (weights == "equal") "dpcov bounds" else paste0("dpcov bounds (", weights, ")"),
             "textbook", "textbook box", "DPpack")
set.seed(1919)
rows <- list()
for (ds in names(datasets)) {
  D <- datasets[[ds]]; x <- D$x; n <- nrow(x); b <- D$bounds[colnames(x), ]
  S <- stats::cov(x) * (n - 1) / n
  for (eps in epsilons) {
    err <- matrix(NA_real_, reps, length(metric_names) * length(methods))
    for (r in seq_len(reps)) {
      own <- if (angle) {
        rotation_angle(dp_pca(x, epsilon = eps, delta = delta, lower = b$lower, upper = b$upper,
                              neighbor = "replace-one")$rotation, S)
      } else dp_cov(x, eps, delta, lower = b$lower, upper = b$upper, neighbor = "replace-one", box_weights = weights)$estimate
      est <- list(
        textbook_cov(x, b$lower, b$upper, eps, delta),
        textbook_box_cov(x, b$lower, b$upper, eps, delta),
        dppack_cov(x, b$lower, b$upper, eps))
      peer <- unlist(lapply(est, function(A) cov_metrics(A, S)[metric_names]))
      err[r, ] <- if (angle) c(own, peer) else c(cov_metrics(own, S)[metric_names], peer)
    }
    for (k in seq_along(metric_names)) {
      e <- err[, (seq_along(methods) - 1L) * length(metric_names) + k, drop = FALSE]
      med <- apply(e, 2, stats::median)
      boot <- replicate(2000, {
        m <- apply(e, 2, function(v) stats::median(sample(v, replace = TRUE)))
        m[1] / min(m[-1])
      })
      rows[[length(rows) + 1]] <- data.frame(data = ds, epsilon = eps, metric = metric_names[k],
                                             dpcov = med[1], best_peer = min(med[-1]),
                                             best = methods[-1][which.min(med[-1])], ratio = med[1] / min(med[-1]),
                                             lo = stats::quantile(boot, 0.025), hi = stats::quantile(boot, 0.975))
    }
    message(ds, " ", eps)
  }
}
res <- do.call(rbind, rows)
cat(sprintf("\n%d releases per cell\n\n| data | epsilon | metric | %s | best peer | ratio (95%% bootstrap) |\n|---|---|---|---|---|---|\n", reps,
            methods[1]))
cat(sprintf("| %s | %g | %s | %.3g | %.3g (%s) | %.2f (%.2f-%.2f) |\n", res$data, res$epsilon, res$metric, res$dpcov,
            res$best_peer, res$best, res$ratio, res$lo, res$hi), sep = "")
