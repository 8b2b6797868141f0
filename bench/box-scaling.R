# How the noise is spread over the columns, with public bounds: the textbook
# mechanism (bench/peers.R's textbook_cov()) run on the data with column j
# multiplied by a_j and the result divided by a_i a_j, for a = 1 (raw units,
# "textbook"), a = 1/w (the unit box, w the public widths) and a = w^(-1/2)
# (which minimises the total raw-unit Frobenius noise), beside dp_cov() with
# the bounds. Median relative Frobenius / spectral error against cov() (divisor
# n) and the Frobenius error of the implied correlation matrix; replace-one,
# delta 1e-6, 60 releases per cell (DPCOV_BENCH_REPS), seed 1.
# Run from the package sources: Rscript bench/box-scaling.R (about 5 minutes).
source("bench/peers-setup.R")
suppressPackageStartupMessages(library(dpcov))
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "60"))
boston <- MASS::Boston[, c("crim", "zn", "indus", "nox", "rm", "age", "dis", "tax", "ptratio", "black", "lstat", "medv")]
datasets$boston <- list(name = "Boston", x = as.matrix(boston), bounds = data.frame(
  lower = c(0, 0, 0, 0.3, 3, 0, 1, 0, 10, 0, 0, 0), upper = c(100, 100, 30, 0.9, 9, 100, 13, 1000, 25, 400, 40, 50),
  row.names = names(boston)))
errs <- function(S, truth) {
  c(fro = norm(S - truth, "F") / norm(truth, "F"), spec = norm(S - truth, "2") / norm(truth, "2"),
    cor = norm(cov2cor(psd(S) + diag(1e-12, nrow(S))) - cov2cor(truth), "F") / norm(cov2cor(truth), "F"))
}
scaled <- function(x, l, u, e, d, a) textbook_cov(x * rep(a, each = nrow(x)), l * a, u * a, e, d) / tcrossprod(a)
set.seed(1)
out <- NULL
for (nm in names(datasets)) {
  x <- datasets[[nm]]$x
  bb <- datasets[[nm]]$bounds[colnames(x), ]
  l <- bb$lower; u <- bb$upper; w <- u - l
  truth <- cov(x) * (nrow(x) - 1) / nrow(x)
  for (e in c(0.25, 1, 4)) {
    R <- replicate(reps, suppressWarnings(c(
      raw = errs(scaled(x, l, u, e, 1e-6, rep(1, length(w))), truth),
      box = errs(scaled(x, l, u, e, 1e-6, 1 / w), truth),
      sqrt = errs(scaled(x, l, u, e, 1e-6, 1 / sqrt(w)), truth),
      dpcov = errs(unclass(dp_cov(x, e, 1e-6, lower = l, upper = u, neighbor = "replace-one"))$estimate, truth))))
    out <- rbind(out, data.frame(set = nm, eps = e, t(apply(R, 1, median))))
  }
}
print(out, digits = 3, row.names = FALSE)
