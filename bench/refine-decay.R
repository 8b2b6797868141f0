# dp_cov()'s default (private per-column bounds, no bounds given): the decay
# of the bounds refinement's base measure (column_bounds_refine_decay, see
# ?dp_column_bounds, "Refinement"), the package's 0.5 against 0.25 (not
# adopted: see bench/RESULTS.md). Median relative
# Frobenius error over DPCOV_BENCH_REPS releases per cell (default 60),
# replace-one, delta 1e-6, on bench/peers.R's data sets, the two settings
# interleaved within each repetition, divided by the best public-bounds
# peer's median of the saved run (inst/extdata/peers-summary.csv). Also the
# median private upper bound of the sparse-tailed columns (diamonds' price,
# quakes' stations). Run from the package sources:
#   Rscript bench/refine-decay.R
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "60"))
decays <- c(0.5, 0.25)
summ <- utils::read.csv("inst/extdata/peers-summary.csv")
best <- stats::aggregate(frob ~ dataset + epsilon, summ[summ$method %in% c("textbook", "textbook box", "DPpack"), ], min)
tail_col <- c(diamonds = "price", penguins = "body_mass_g", quakes = "stations")
set.seed(13)
out <- list()
for (ds in names(datasets)) {
  x <- datasets[[ds]]$x
  n <- nrow(x)
  S <- stats::cov(x) * (n - 1) / n
  for (eps in epsilons) for (r in seq_len(reps)) for (k in decays) {
    utils::assignInNamespace("column_bounds_refine_decay", k, "dpcov")
    rel <- suppressWarnings(dp_cov(x, eps, delta, neighbor = neighbor))
    out[[length(out) + 1L]] <- data.frame(dataset = ds, epsilon = eps, decay = k,
                                          err = norm(rel$estimate - S, "F") / norm(S, "F"),
                                          upper = rel$params$bounds[tail_col[[ds]], "upper"])
  }
  message(ds, " done")
}
res <- do.call(rbind, out)
a <- stats::aggregate(cbind(err, upper) ~ dataset + epsilon + decay, res, stats::median)
a <- merge(a, best, by = c("dataset", "epsilon"))
a$ratio <- a$err / a$frob
w <- stats::reshape(a[c("dataset", "epsilon", "decay", "ratio", "upper")], direction = "wide",
                    idvar = c("dataset", "epsilon"), timevar = "decay")
w <- w[order(w$dataset, w$epsilon), ]
cat(sprintf("dpcov %s, %d releases per cell and setting\n\n", utils::packageVersion("dpcov"), reps))
cat("| data | epsilon | n epsilon | default / best peer, decay 0.5 | decay 0.25 | median upper bound of the tail column, 0.5 | 0.25 |\n")
cat("|---|---|---|---|---|---|---|\n")
nn <- vapply(datasets, function(D) nrow(D$x), 0)
for (i in seq_len(nrow(w))) {
  cat(sprintf("| %s (%s) | %s | %s | %.2f | %.2f | %s | %s |\n", w$dataset[i], tail_col[[w$dataset[i]]], format(w$epsilon[i]),
              format(nn[[w$dataset[i]]] * w$epsilon[i]), w$ratio.0.5[i], w$ratio.0.25[i],
              format(signif(w$upper.0.5[i], 3)), format(signif(w$upper.0.25[i], 3))))
}
