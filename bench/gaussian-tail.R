# The cost of the normal's full range (rng.h draw_norm(): a draw beyond 7 sd
# replaced by an exact tail draw): the symmetric noise of a p x p release
# against rnorm() of the same count (norm_rand() alone, what the draws were
# before), interleaved in one process. Rscript bench/gaussian-tail.R
library(dpcov)
ns <- asNamespace("dpcov")
set.seed(1)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "15"))
rows <- list()
for (p in c(200L, 1000L, 2000L)) {
  k <- p * (p + 1) / 2
  t_new <- t_old <- numeric(reps)
  for (r in seq_len(reps)) {
    t_new[r] <- system.time(ns$symmetric_gaussian_cpp(p, 1))[["elapsed"]]
    t_old[r] <- system.time(stats::rnorm(k))[["elapsed"]]
  }
  rows[[length(rows) + 1L]] <- data.frame(p = p, draws = k, symmetric_gaussian_s = median(t_new),
                                          rnorm_s = median(t_old), ratio = median(t_new) / median(t_old))
}
print(do.call(rbind, rows), digits = 3)
