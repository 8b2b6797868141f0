# The default's budget share of the private bounds (bound_share; the bounds take
# twice it) on MASS::Boston at epsilon 4, 8 and 16 and on quakes at 2 and 4
# (the benchmark's default cells with n epsilon >= 2000 there): median relative
# Frobenius and spectral error of dp_cov()'s default, replace-one, delta 1e-6,
# REPS releases per cell (default 20), SHARES (default 0.25, 0.35, 0.45). A
# study, not a method of the package. Run from the package sources:
#   REPS=50 SHARES=0.25,0.3,0.35 Rscript bench/boston-share.R
source("bench/peers-setup.R")
suppressPackageStartupMessages(library(dpcov))
reps <- as.integer(Sys.getenv("REPS", "20"))
boston <- as.matrix(MASS::Boston[, c("crim", "zn", "indus", "nox", "rm", "age", "dis", "tax", "ptratio", "black", "lstat", "medv")])
errors <- function(S, truth) c(fro = norm(S - truth, "F") / norm(truth, "F"), spec = norm(S - truth, "2") / norm(truth, "2"))
truth_of <- function(x) stats::cov(x) * (nrow(x) - 1) / nrow(x)
sets <- list(boston = boston, quakes = as.matrix(datasets::quakes))
cells <- list(boston = c(4, 8, 16), quakes = c(2, 4))
shares <- as.numeric(strsplit(Sys.getenv("SHARES", "0.25,0.35,0.45"), ",")[[1]])
for (ds in names(sets)) { x <- sets[[ds]]; truth <- truth_of(x)
  for (eps in cells[[ds]]) for (bs in shares) {
    E <- sapply(seq_len(reps), function(k) { set.seed(100 + k)
      errors(unclass(suppressWarnings(dp_cov(x, eps, 1e-6, neighbor = "replace-one", bound_share = bs)))$estimate, truth) })
    m <- apply(E, 1, median)
    cat(sprintf("%s eps %g share %.2f: fro %.3f spec %.3f\n", ds, eps, bs, m[1], m[2]))
  }
}
