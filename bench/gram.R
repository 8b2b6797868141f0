# Benchmark of the clipped Gram pass behind every family (second_moment(),
# the thresholding releases and their CV, Sheffet's fast paths). Run from the
# package root with dpcov installed:  Rscript bench/gram.R
# Baseline: the plain-R computation, rows scaled to norm <= B then crossprod()
# (R's reference BLAS here). Prints seconds and ratios.
suppressPackageStartupMessages(library(dpcov))
time_it <- function(expr, reps = 5L) {
  f <- substitute(expr)
  env <- parent.frame()
  min(vapply(seq_len(reps), function(i) system.time(eval(f, env))[["elapsed"]], numeric(1)))
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
  stopifnot(isTRUE(all.equal(dpcov:::clipped_gram_cpp(x, 1)$gram, plain_r(x, 1))))
  t_cpp <- time_it(dpcov:::clipped_gram_cpp(x, 1))
  t_sm <- time_it(second_moment(x, clip = 1))
  t_r <- time_it(plain_r(x, 1), 3)
  data.frame(n = n, p = p, clipped_gram_cpp = t_cpp, second_moment = t_sm, plain_R = t_r,
             ratio = t_r / t_sm)
}))
cat("\n## Clipped Gram: second_moment() against plain R (scale rows, crossprod)\n")
print(res, digits = 3, row.names = FALSE)
cat("\nMachine:", R.version.string, "|", parallel::detectCores(), "cores |",
    sessionInfo()$BLAS, "\n")
