# The private default's bounds with and without the tails' coarse bins
# (dp_column_bounds(): the first tail point in two choices, a unit bin of the
# tail axis then the point in a window of it, instead of one continuous
# choice over the whole axis). Run once per build, the same seeds:
#   R_LIBS=<build> Rscript bench/tail-bins.R
# Per data set of bench/peers.R and epsilon, DPCOV_BENCH_REPS (default 100)
# releases of each, every argument at its default but neighbor = "replace-one"
# (as in bench/peers.R), delta = 1e-6:
#   overshoot   share of dp_column_bounds(x, epsilon / 2, delta / 2) (the
#               default's bounds step) whose upper bound of some column is
#               more than a fifth of the column's range beyond its maximum
#               (or the lower likewise), and the worst such distance in
#               units of the range;
#   cov         dp_cov()'s relative Frobenius error of the covariance and of
#               the correlation, median and 90th percentile;
#   slopes      dp_lm()'s relative slope error against lm(), median and 90th
#               percentile (B = 0: the point estimate only).
# Not a private output: errors against the data's own statistics.
source("bench/peers-setup.R")  # data sets, bounds, metrics
options(dpcov.noise_warning = FALSE, warn = -1)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "100"))
cat(sprintf("dpcov %s (%s choices per column), %d releases per cell, replace-one, delta = %g\n\n",
            utils::packageVersion("dpcov"), dpcov:::column_bounds_choices, reps, delta))
rows <- list()
for (ds in names(datasets)) {
  D <- datasets[[ds]]
  x <- D$x
  S <- stats::cov(x) * (nrow(x) - 1) / nrow(x)
  rng <- apply(x, 2, function(v) diff(range(v)))
  xcols <- all.vars(D$formula)[-1]
  ref <- stats::coef(stats::lm(D$formula, D$data))[xcols]
  for (eps in epsilons) {
    set.seed(1000 * match(ds, names(datasets)) + 10 * eps)
    over <- t(replicate(reps, {
      b <- dp_column_bounds(x, eps / 2, delta / 2, neighbor = "replace-one")$bounds
      d <- pmax(b$upper - apply(x, 2, max), apply(x, 2, min) - b$lower, 0) / rng
      c(any = any(d > 0.2), worst = max(d))
    }))
    m <- t(replicate(reps, {
      est <- dp_cov(x, eps, delta, neighbor = "replace-one")$estimate
      f <- dp_lm(D$formula, D$data, eps, delta, neighbor = "replace-one", B = 0)
      c(frob = norm(est - S, "F") / norm(S, "F"),
        cor = norm(cor_of(est) - cor_of(S), "F") / norm(cor_of(S), "F"),
        slope = sqrt(sum((stats::coef(f)[xcols] - ref)^2)) / sqrt(sum(ref^2)))
    }))
    q <- function(v, p) unname(stats::quantile(v, p, na.rm = TRUE))
    rows[[length(rows) + 1L]] <- data.frame(
      data = ds, epsilon = eps, overshoot = mean(over[, "any"]), worst = max(over[, "worst"]),
      frob = q(m[, "frob"], 0.5), frob90 = q(m[, "frob"], 0.9), cor = q(m[, "cor"], 0.5), cor90 = q(m[, "cor"], 0.9),
      slope = q(m[, "slope"], 0.5), slope90 = q(m[, "slope"], 0.9))
    message(ds, " ", eps)
  }
}
options(width = 200)
print(format(do.call(rbind, rows), digits = 3), row.names = FALSE)
