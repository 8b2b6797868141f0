# dp_cov()'s box path against the textbook baselines of bench/peers.R, and
# the default `split` of the box path's joint calibration (the mean's share
# of the squared sensitivity-to-noise ratio; see ?dp_cov, "Default split
# with bounds"). Median relative Frobenius error against cov() (divisor n)
# over DPCOV_BENCH_REPS repetitions (default 20), replace-one, delta 1e-6,
# on bench/peers.R's data sets and public bounds, methods interleaved within
# each repetition. Run from the package sources:
#   Rscript bench/box-joint.R            (splits 0.05, 0.1, 0.2, 0.3 and the default)
# With DPCOV_JOINT_SPLITS=default only the default split runs (e.g. against
# an older installed dpcov, for a before/after table).
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "20"))
splits <- Sys.getenv("DPCOV_JOINT_SPLITS", "0.05,0.1,0.2,0.3,default")
splits <- strsplit(splits, ",")[[1]]
epsilons <- c(0.25, 1, 4)
set.seed(20)
out <- list()
for (ds in names(datasets)) {
  D <- datasets[[ds]]
  x <- D$x
  n <- nrow(x)
  b <- D$bounds[colnames(x), ]
  S <- stats::cov(x) * (n - 1) / n
  for (eps in epsilons) for (r in seq_len(reps)) {
    ests <- list()
    for (s in splits) {
      args <- list(x, eps, delta, lower = b$lower, upper = b$upper, neighbor = neighbor)
      if (s != "default") args$split <- as.numeric(s)
      ests[[paste("dpcov split", s)]] <- suppressWarnings(do.call(dp_cov, args)$estimate)
    }
    ests$textbook <- textbook_cov(x, b$lower, b$upper, eps, delta)
    ests[["textbook box"]] <- textbook_box_cov(x, b$lower, b$upper, eps, delta)
    for (m in names(ests)) {
      out[[length(out) + 1L]] <- data.frame(dataset = ds, epsilon = eps, method = m,
                                            frob = norm(ests[[m]] - S, "F") / norm(S, "F"))
    }
  }
}
res <- do.call(rbind, out)
tab <- stats::aggregate(frob ~ dataset + epsilon + method, res, stats::median)
wide <- stats::reshape(tab, idvar = c("dataset", "epsilon"), timevar = "method", direction = "wide")
names(wide) <- sub("^frob\\.", "", names(wide))
print(wide[order(wide$dataset, wide$epsilon), ], digits = 3, row.names = FALSE)
# each split's error over the best split's, per setting, averaged
dp <- grep("^dpcov split [0-9.]+$", names(wide), value = TRUE)
if (length(dp) > 1L) {
  rel <- as.matrix(wide[dp]) / apply(as.matrix(wide[dp]), 1, min)
  cat("\nerror over the best split's, mean over the settings:\n")
  print(round(colMeans(rel), 3))
}
