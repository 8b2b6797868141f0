# The cost of the mechanisms' chi-squares with neither tail cut (rng.h
# draw_chisq_exact(): Marsaglia and Tsang on draw_norm() with an unbounded
# exponential for the acceptance) against R's rchisq() (what the Wishart
# mechanisms drew before), one million draws per cell, interleaved in one
# process; then one wishart_noise() release (p chi-squares and p(p-1)/2
# normals per Bartlett factor) against the same mechanism's draw with
# rchisq() (dpcov:::wishart_factor_draw_cpp(..., exact = FALSE)).
# Rscript bench/chisq-exact.R
library(dpcov)
ns <- asNamespace("dpcov")
set.seed(1)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "11"))
rows <- list()
for (df in c(1, 10, 1e3, 1e6)) {
  t_new <- t_old <- numeric(reps)
  for (r in seq_len(reps)) {
    t_new[r] <- system.time(ns$chisq_exact_cpp(1e6, df))[["elapsed"]]
    t_old[r] <- system.time(stats::rchisq(1e6, df))[["elapsed"]]
  }
  rows[[length(rows) + 1L]] <- data.frame(df = df, exact_s = median(t_new), rchisq_s = median(t_old),
                                          ratio = median(t_new) / median(t_old))
}
cat("One million chi-square draws (median seconds):\n")
print(do.call(rbind, rows), digits = 3)
rows <- list()
for (p in c(10L, 100L, 500L)) {
  S <- diag(2, p)
  m <- ceiling(2e6 / p^2)  # draws per timing, so that each takes a measurable time
  t_new <- t_old <- numeric(reps)
  for (r in seq_len(reps)) {
    t_new[r] <- system.time(for (i in seq_len(m)) ns$wishart_factor_draw_cpp(S, 5e4, TRUE))[["elapsed"]]
    t_old[r] <- system.time(for (i in seq_len(m)) ns$wishart_factor_draw_cpp(S, 5e4, FALSE))[["elapsed"]]
  }
  rows[[length(rows) + 1L]] <- data.frame(p = p, draws = m, exact_ms = 1e3 * median(t_new) / m,
                                          rchisq_ms = 1e3 * median(t_old) / m, ratio = median(t_new) / median(t_old))
}
cat("\nOne Wishart noise draw W_p(4 I, 5e4) (Algorithm 3's, median milliseconds per draw):\n")
print(do.call(rbind, rows), digits = 3)
