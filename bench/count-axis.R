# The default's private bounds under add/remove (the default notion): the
# refinement's axis after a capped first stage, chosen from a noisy count
# (one more exponential mechanism of the bounds' budget) as it is chosen from
# n where n is public. Per cell (bench/peers.R's data sets and models, the
# cells where the first stage is capped or near it), DPCOV_BENCH_REPS
# releases (default 300), each of dp_cov(x, epsilon, 1e-6) and dp_lm(formula,
# data, epsilon, 1e-6, B = 100), both with every default (add/remove): the
# median relative Frobenius error against cov() (divisor n), the median
# relative L2 error of the slopes against lm(), and the share of the 95%
# intervals that cover lm()'s slopes. Run it once per build to compare (the
# seeds are the same): R_LIBS=<build> Rscript bench/count-axis.R
Sys.setenv(DPCOV_BENCH_SETS = "penguins,quakes")
source("bench/peers-setup.R")  # data sets, models
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "300"))
cells <- list(penguins = c(1, 2, 4), quakes = c(0.5, 1, 2))
cat(sprintf("dpcov %s (%s), %d releases per cell, add/remove, delta 1e-6\n\n",
            as.character(utils::packageVersion("dpcov")), Sys.getenv("DPCOV_BENCH_LABEL", "this build"), reps))
cat("| data | epsilon | covariance, Frobenius | slopes | coverage |\n|---|---|---|---|---|\n")
for (ds in names(cells)) {
  D <- datasets[[ds]]
  x <- D$x
  n <- nrow(x)
  S <- stats::cov(x) * (n - 1) / n
  xcols <- all.vars(D$formula)[-1]
  ref <- stats::coef(stats::lm(D$formula, D$data))[xcols]
  for (eps in cells[[ds]]) {
    res <- vapply(seq_len(reps), function(r) {
      set.seed(1000 * r + 7)
      a <- suppressWarnings(dp_cov(x, eps, 1e-6))$estimate
      set.seed(1000 * r + 9)
      f <- suppressWarnings(dp_lm(D$formula, D$data, eps, 1e-6, B = 100))
      ci <- suppressWarnings(stats::confint(f))[xcols, , drop = FALSE]
      c(norm(a - S, "F") / norm(S, "F"), sqrt(sum((stats::coef(f)[xcols] - ref)^2) / sum(ref^2)),
        mean(ci[, 1] <= ref & ref <= ci[, 2]))
    }, numeric(3))
    cat(sprintf("| %s | %s | %.3g | %.3g | %.1f%% |\n", ds, format(eps), stats::median(res[1, ]),
                stats::median(res[2, ]), 100 * mean(res[3, ])))
  }
}
