# Sampling uncertainty of bench/peers.R's ratios (run after it, from the
# package root): for each cell and metric, the ratio of dpcov's median error
# to the best peer's median (textbook, textbook box, DPpack), with a 95%
# percentile bootstrap interval (2000 resamples of the repetitions, each
# method resampled on its own). Metrics: relative Frobenius and spectral
# error, the largest principal angle, the correlation error, and the
# regression's relative slope error (DPCOV_CI_METRICS, comma-separated;
# default all). Reads bench/peers-results.rds; prints markdown tables.
r <- readRDS("bench/peers-results.rds")
metrics <- strsplit(Sys.getenv("DPCOV_CI_METRICS", "frob,spec,cor,angle,slope_err"), ",")[[1]]
peers <- c("textbook", "textbook box", "DPpack")
B <- 2000L
for (metric in metrics) {
  res <- if (metric == "slope_err") r$lm else r$cov
  set.seed(191)
  rows <- list()
  for (ds in unique(res$dataset)) for (eps in sort(unique(res$epsilon))) {
    cell <- res[res$dataset == ds & res$epsilon == eps, ]
    err <- split(cell[[metric]], cell$method)
    ratio <- function(e, who) stats::median(e[[who]]) / min(vapply(peers, function(m) stats::median(e[[m]]), 0))
    boot <- replicate(B, {
      e <- lapply(err, function(v) v[sample.int(length(v), replace = TRUE)])
      c(ratio(e, "dpcov bounds"), ratio(e, "dpcov default"))
    })
    ci <- apply(boot, 1, stats::quantile, c(0.025, 0.975))
    rows[[length(rows) + 1L]] <- sprintf("| %s | %s | %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) |", ds, format(eps),
      format(cell$n[1] * eps), ratio(err, "dpcov bounds"), ci[1, 1], ci[2, 1],
      ratio(err, "dpcov default"), ci[1, 2], ci[2, 2])
  }
  cat(sprintf("%s, %d repetitions per cell\n\n", metric, max(res$rep)))
  cat("| data | epsilon | n epsilon | bounds / best peer (95% bootstrap) | default / best peer (95% bootstrap) |\n")
  cat("|---|---|---|---|---|\n")
  cat(unlist(rows), sep = "\n")
  cat("\n\n")
}
