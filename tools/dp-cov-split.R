# Chooses dp_cov()'s default budget split by measured error: the Frobenius
# error of dp_cov() against stats::cov() for a grid of splits (the share of
# epsilon and delta spent on the private mean), over n, p and epsilon, on data
# with means 50 and unit variances (AR(1) correlation 0.5). The bounds are the
# oracle 0.99 quantiles of the raw and the centred row norms (the same for
# every split, so the comparison is fair). Writes a markdown table to stdout.
#   Rscript tools/dp-cov-split.R [reps]   (a few minutes at reps = 5)
suppressPackageStartupMessages(library(dpcov))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 10L
splits <- c(0.1, 0.25, 0.35, 0.5, 0.6, 0.7, 0.8)
grid <- expand.grid(epsilon = c(0.5, 1, 2), p = c(5, 20), n = c(1000, 10000, 1e5))
delta <- 1e-6
set.seed(20240611)
rows <- list()
for (g in seq_len(nrow(grid))) {
  n <- grid$n[g]; p <- grid$p[g]; eps <- grid$epsilon[g]
  Sigma <- 0.5^abs(outer(seq_len(p), seq_len(p), "-"))
  err <- matrix(NA_real_, reps, length(splits))
  for (r in seq_len(reps)) {
    x <- matrix(rnorm(n * p), n, p) %*% chol(Sigma) + 50
    truth <- stats::cov(x)
    clip_mean <- unname(stats::quantile(sqrt(rowSums(x^2)), 0.99))
    clip <- unname(stats::quantile(sqrt(rowSums(sweep(x, 2, colMeans(x))^2)), 0.99))
    for (k in seq_along(splits)) {
      est <- dp_cov(x, eps, delta, clip = clip, clip_mean = clip_mean, split = splits[k])$estimate
      err[r, k] <- norm(est - truth, "F")
    }
  }
  rows[[g]] <- data.frame(n = n, p = p, epsilon = eps, t(colMeans(err)), scale = norm(Sigma, "F"))
}
tab <- do.call(rbind, rows)
useful <- tab$scale
tab$scale <- NULL
names(tab)[-(1:3)] <- paste0("split_", splits)
# relative error: each row divided by its minimum, then averaged over the
# settings where some split gives a useful estimate (error below ||Sigma||_F;
# elsewhere n is too small for means of 50 and every split returns noise)
rel <- as.matrix(tab[, -(1:3)]) / apply(tab[, -(1:3)], 1, min)
rel <- rel[apply(tab[, -(1:3)], 1, min) < useful, , drop = FALSE]
cat("Mean Frobenius error of dp_cov() against stats::cov() (", reps, " data sets per setting, delta = 1e-6)\n\n", sep = "")
cat("| n | p | epsilon |", paste(splits, collapse = " | "), "| best |\n")
cat("|", paste(rep("---", 4 + length(splits)), collapse = " | "), "|\n")
for (i in seq_len(nrow(tab))) {
  e <- unlist(tab[i, -(1:3)])
  cat("|", tab$n[i], "|", tab$p[i], "|", tab$epsilon[i], "|", paste(formatC(e, digits = 3, format = "g"), collapse = " | "),
      "|", splits[which.min(e)], "|\n")
}
cat("\nError relative to the best split of each setting, averaged over the", nrow(rel),
    "settings where the best error is below ||Sigma||_F:\n\n")
cat("|", paste(splits, collapse = " | "), "|\n|", paste(rep("---", length(splits)), collapse = " | "), "|\n")
cat("|", paste(formatC(colMeans(rel), digits = 3, format = "f"), collapse = " | "), "|\n")
