# Draws per second: dpcov::rwishart vs stats::rWishart, and dpcov::riwishart vs
# inverting stats::rWishart draws of Psi^{-1}. One R process; prints a ratio table.
# Run: Rscript bench/samplers.R   (with dpcov installed)
suppressMessages(library(dpcov))

# Seconds per call: the best of 5 rounds of at least 0.1 s each (the minimum is
# the least disturbed by other processes on a shared machine).
time_it <- function(f, rounds = 5, min_time = 0.1) {
  best <- Inf
  for (r in seq_len(rounds)) {
    reps <- 0L; t0 <- proc.time()[["elapsed"]]
    repeat {
      f(); reps <- reps + 1L
      el <- proc.time()[["elapsed"]] - t0
      if (el >= min_time) break
    }
    best <- min(best, el / reps)
  }
  best
}

inv_rwishart <- function(n, df, Psi) {
  W <- stats::rWishart(n, df, solve(Psi))
  for (k in seq_len(n)) W[, , k] <- chol2inv(chol(W[, , k]))
  W
}

set.seed(1)
rows <- list()
for (p in c(5, 22, 100)) for (df in c(p + 1, 1e5)) {
  S <- 0.3^abs(outer(1:p, 1:p, "-")) + diag(p)
  n <- if (p == 100) 50 else if (p == 22) 500 else 5000
  t_ours <- time_it(function() rwishart(n, df, S))
  t_base <- time_it(function() stats::rWishart(n, df, S))
  t_iours <- time_it(function() riwishart(n, df, S))
  t_inv <- time_it(function() inv_rwishart(n, df, S))
  rows[[length(rows) + 1]] <- data.frame(
    p = p, df = df,
    wishart_per_s = round(n / t_ours), rWishart_per_s = round(n / t_base),
    speedup_W = round(t_base / t_ours, 2),
    iwishart_per_s = round(n / t_iours), inverted_per_s = round(n / t_inv),
    speedup_IW = round(t_inv / t_iours, 2))
}
res <- do.call(rbind, rows)
print(res, row.names = FALSE)
cat("\nR", R.version$major, ".", R.version$minor, "; BLAS:", extSoftVersion()[["BLAS"]], "\n", sep = "")
