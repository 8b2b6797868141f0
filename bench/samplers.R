# Wishart draws: dpcov::rwishart vs stats::rWishart for identity, diagonal and
# dense scales, and dpcov::riwishart vs inverting stats::rWishart draws of
# Psi^{-1}. One R process; the two sides of each comparison are timed in turn
# within every round (order alternating), and the table gives each side's
# median time and the median of the per-round ratios, so that a busy spell of
# the shared machine hits both sides.
# Run: Rscript bench/samplers.R   (with dpcov installed)
suppressMessages(library(dpcov))

elapsed <- function(f) {
  t0 <- proc.time()[["elapsed"]]
  f()
  proc.time()[["elapsed"]] - t0
}
# Median seconds of a and b over `rounds` interleaved rounds, and the median
# per-round ratio b / a (> 1: a is faster).
race <- function(a, b, rounds = 15) {
  t <- matrix(0, rounds, 2)
  for (r in seq_len(rounds)) {
    if (r %% 2) {
      t[r, 1] <- elapsed(a); t[r, 2] <- elapsed(b)
    } else {
      t[r, 2] <- elapsed(b); t[r, 1] <- elapsed(a)
    }
  }
  c(a = median(t[, 1]), b = median(t[, 2]), ratio = median(t[, 2] / t[, 1]))
}
inv_rwishart <- function(n, df, Psi) {
  W <- stats::rWishart(n, df, solve(Psi))
  for (k in seq_len(n)) W[, , k] <- chol2inv(chol(W[, , k]))
  W
}
draws <- function(p) if (p == 100) 200 else if (p == 22) 5000 else 80000
scales <- function(p) list(
  identity = diag(p),
  diagonal = diag(seq(0.5, 2, length.out = p)),
  dense = 0.3^abs(outer(1:p, 1:p, "-")) + diag(p))

set.seed(1)
rows <- list()
for (p in c(5, 22, 100)) for (df in c(p + 1, 1e5)) for (kind in c("identity", "diagonal", "dense")) {
  S <- scales(p)[[kind]]
  n <- draws(p)
  r <- race(function() rwishart(n, df, S), function() stats::rWishart(n, df, S))
  rows[[length(rows) + 1]] <- data.frame(
    p = p, df = df, scale = kind, n = n,
    rwishart_s = signif(r[["a"]], 3), rWishart_s = signif(r[["b"]], 3),
    speedup = round(r[["ratio"]], 2))
}
cat("## rwishart() vs stats::rWishart() (speedup = median per-round rWishart / rwishart)\n")
print(do.call(rbind, rows), row.names = FALSE)

rows <- list()
for (p in c(5, 22, 100)) for (df in c(p + 1, 1e5)) {
  S <- scales(p)$dense
  n <- draws(p) / 5
  r <- race(function() riwishart(n, df, S), function() inv_rwishart(n, df, S), rounds = 7)
  rows[[length(rows) + 1]] <- data.frame(
    p = p, df = df, n = n, riwishart_s = signif(r[["a"]], 3),
    inverted_rWishart_s = signif(r[["b"]], 3), speedup = round(r[["ratio"]], 2))
}
cat("\n## riwishart() vs inverting stats::rWishart() draws of solve(Psi), dense Psi\n")
print(do.call(rbind, rows), row.names = FALSE)
cat("\nR ", R.version$major, ".", R.version$minor, "; BLAS: ", extSoftVersion()[["BLAS"]],
    "; load average: ", readLines("/proc/loadavg"), "\n", sep = "")
