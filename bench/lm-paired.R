# dp_lm()'s slopes with public bounds against the peers, paired and with
# many releases: per repetition one dp_lm() release (B = 0; its
# `regularization$least_squares` is the unshrunk fit from the same release)
# and one release of each peer, as in bench/peers.R (same data sets, public
# bounds, replace-one, delta 1e-6). Prints median relative slope errors
# against lm() and dpcov's ratio to the best peer. DPCOV_BENCH_REPS
# (default 1000) releases per cell, DPCOV_BENCH_SETS as for bench/peers.R.
# Run from the package sources: Rscript bench/lm-paired.R
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
library(dpcov); options(dpcov.noise_warning = FALSE)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "1000"))
set.seed(12); out <- list()
for (ds in names(datasets)) {
  D <- datasets[[ds]]
  vars <- all.vars(D$formula); xcols <- vars[-1]; ycol <- vars[1]
  bl <- D$bounds[c(xcols, ycol), ]
  lo <- setNames(bl$lower, c(xcols, ycol)); up <- setNames(bl$upper, c(xcols, ycol))
  ref <- coef(lm(D$formula, D$data))[xcols]
  se <- function(b) sqrt(sum((b - ref)^2)) / sqrt(sum(ref^2))
  XY <- as.matrix(D$data[c(xcols, ycol)])
  for (eps in epsilons) for (r in 1:reps) {
    f <- suppressWarnings(dp_lm(D$formula, D$data, eps, delta, lower = lo, upper = up, neighbor = "replace-one", B = 0))
    out[[length(out) + 1]] <- data.frame(ds = ds, eps = eps, adaptive = se(coef(f)[xcols]), none = se(f$regularization$least_squares[xcols]),
      dppack = se(cov_slopes(dppack_cov(XY, bl$lower, bl$upper, eps))),
      tbox = se(cov_slopes(textbook_box_cov(XY, bl$lower, bl$upper, eps, delta))),
      tb = se(cov_slopes(textbook_cov(XY, bl$lower, bl$upper, eps, delta))))
  }
}
res <- do.call(rbind, out)
options(width = 200)
agg <- aggregate(. ~ ds + eps, res, median); agg$ratio <- agg$adaptive / pmin(agg$dppack, agg$tbox, agg$tb)
print(agg, digits = 3)
