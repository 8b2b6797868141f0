# Benchmark of the clipped Gram pass behind every family (second_moment(),
# the thresholding releases and their CV, Sheffet's fast paths). Run from the
# package root with dpcov installed:  Rscript bench/gram.R
# second_moment() (input checks + kernel, with NA/NaN/Inf detected inside the
# kernel's pass) against the bare C++ kernel clipped_gram_cpp() called
# directly, timed in turn within each of 15 rounds (order alternating); the
# table gives median seconds and the median per-round ratio. Plain R (rows
# scaled to norm <= B, then crossprod() with R's reference BLAS) for scale.
suppressPackageStartupMessages(library(dpcov))
elapsed <- function(f) {
  t0 <- proc.time()[["elapsed"]]
  f()
  proc.time()[["elapsed"]] - t0
}
plain_r <- function(x, B) {
  s <- pmin(1, B / sqrt(rowSums(x^2)))
  crossprod(x * s)
}
set.seed(1)
shapes <- data.frame(n = c(2000, 2^16, 2^20), p = c(500, 200, 20))
res <- do.call(rbind, lapply(seq_len(nrow(shapes)), function(i) {
  n <- shapes$n[i]; p <- shapes$p[i]
  x <- matrix(rnorm(n * p), n, p) / sqrt(p)   # about half the rows clipped at B = 1
  stopifnot(isTRUE(all.equal(second_moment(x, clip = 1)$gram, plain_r(x, 1), check.attributes = FALSE)))
  rounds <- 15
  t <- matrix(0, rounds, 2)
  for (r in seq_len(rounds)) {
    if (r %% 2) {
      t[r, 1] <- elapsed(function() dpcov:::clipped_gram_cpp(x, 1))
      t[r, 2] <- elapsed(function() second_moment(x, clip = 1))
    } else {
      t[r, 2] <- elapsed(function() second_moment(x, clip = 1))
      t[r, 1] <- elapsed(function() dpcov:::clipped_gram_cpp(x, 1))
    }
  }
  t_r <- median(replicate(3, elapsed(function() plain_r(x, 1))))
  data.frame(n = n, p = p, kernel_s = median(t[, 1]), second_moment_s = median(t[, 2]),
             second_moment_over_kernel = median(t[, 2] / t[, 1]), plain_R_s = t_r,
             plain_R_over_second_moment = t_r / median(t[, 2]))
}))
cat("\n## Clipped Gram: second_moment() against the bare kernel and plain R\n")
print(res, digits = 3, row.names = FALSE)
cat("\nMachine:", R.version.string, "|", parallel::detectCores(), "cores |",
    sessionInfo()$BLAS, "| load average:", readLines("/proc/loadavg"), "\n")
