# Benchmarks of Sheffet's mechanisms: exact Bartlett fast paths against the
# literal constructions they replace. Run from the package root with dpcov
# installed:  Rscript bench/sheffet.R
library(dpcov)

time_it <- function(expr, reps) {
  expr <- substitute(expr)
  env <- parent.frame()
  invisible(eval(expr, env))  # warm-up
  t <- system.time(for (i in seq_len(reps)) eval(expr, env))[["elapsed"]]
  t / reps
}

row <- function(task, fast, slow) {
  data.frame(task = task, fast_s = signif(fast, 3), explicit_s = signif(slow, 3),
             ratio = round(slow / fast, 1))
}

cat("machine:", R.version.string, "|", parallel::detectCores(), "cores |",
    sub("model name\\s*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    "\nload average at start:", readLines("/proc/loadavg"), "\n\n")

set.seed(1)
d <- 22
B <- sqrt(2.5 * d)
delta <- exp(-9)

# 1. Algorithm 3 at eps = 0.05: Bartlett W_d(B^2 I, k) vs the sum of k outer products
x_small <- sheffet_data(2^12)
s_small <- second_moment(x_small, B)
k <- sheffet_wishart_k(d, 0.05, delta)
fast3 <- time_it(wishart_noise(s_small, 0.05, delta, B), 200)
slow3 <- time_it(wishart_noise(s_small, 0.05, delta, B, method = "explicit"), 5)
res <- row(sprintf("Alg. 3, eps = 0.05 (k = %d), d = 22", k), fast3, slow3)

# 2. Algorithm 1 at n = 2^20, d = 22, r = 2d: Bartlett from the data vs the
#    streamed r x (n + d) projection (both start from the data matrix).
x_big <- sheffet_data(2^20)
fast1 <- time_it(jl_ridge(x_big, 0.1, delta, B), 3)
slow1 <- time_it(jl_ridge(x_big, 0.1, delta, B, method = "explicit"), 1)
res <- rbind(res, row("Alg. 1, n = 2^20, d = 22, r = 44 (from data)", fast1, slow1))
s_big <- second_moment(x_big, B)
fast1s <- time_it(jl_ridge(s_big, 0.1, delta, B), 200)
res <- rbind(res, row("Alg. 1, same, fast path from second_moment()", fast1s, slow1))
rm(x_big)

print(res, row.names = FALSE)

# 3. The full Figure 1-4 grid (n = 2^14..2^25, 6 epsilon, 15 reps, all
#    estimators): its wall time is recorded by tools/reproduce-sheffet.R.
f <- system.file("extdata", "sheffet-single.rds", package = "dpcov")
if (nzchar(f)) {
  st <- readRDS(f)
  cat(sprintf("\nFull Figure 1-4 grid (saved run): %.0f s wall, %s workers\n",
              attr(st, "elapsed"), attr(st, "session")$workers))
}
f5 <- system.file("extdata", "sheffet-multiple.rds", package = "dpcov")
if (nzchar(f5)) {
  st <- readRDS(f5)
  cat(sprintf("Figure 5 grid (saved run): %.0f s wall, %s workers\n",
              attr(st, "elapsed"), attr(st, "session")$workers))
}
# one replication of the Figure 4 grid, sequential, in this process
future::plan(future::sequential)
t_rep <- system.time(sheffet_study("single", n = 2^(14:25), epsilon = c(0.05, 0.1, 0.15, 0.2, 0.25, 0.5),
                                   reps = 1))[["elapsed"]]
cat(sprintf("One replication of the Figure 1-4 grid, sequential: %.1f s (x 15 reps = %.1f min on one core)\n",
            t_rep, 15 * t_rep / 60))
