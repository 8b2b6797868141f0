# CoinPress (Biswas, Dong, Kamath and Ullman, NeurIPS 2020) against dp_cov()'s
# default, on the benchmark's data sets and Boston: the unknown-range
# covariance estimator the issue named, written plainly here (not package
# code) to see whether it should be the default. Run from the package
# sources: Rscript bench/coinpress.R (about 10 minutes; DPCOV_BENCH_REPS
# releases per cell, default 20).
#
# The estimator (their Algorithm for covariance, zCDP): the rows paired at
# random, d_i = (x_2i - x_2i-1) / sqrt(2) (mean 0, covariance Sigma; h =
# floor(n / 2) of them, and replacing one row changes one d_i); a prior
# I <= Sigma / L <= u I; A_0 = I / sqrt(u L); each of t steps whitens (W = D A),
# clips the rows of W to the Gaussian tail radius gamma = sqrt(p +
# 2 sqrt(p log 10) + 2 log 10), releases Z = W'W / h plus symmetric Gaussian
# noise (upper triangle sd gamma^2 / (h sqrt(rho_k)): its L2 sensitivity is at
# most sqrt(2) gamma^2 / h under replace-one), projects it to the PSD cone and
# sets A <- (Z + eta I)^(-1/2) A, eta = (2 sqrt(p / h) + p / h) / 2; the
# estimate is A^-1 Z_t A^-1 with A before the last step. Budget: rho from
# (epsilon, delta) by dpcov's conversion (Canonne, Kamath and Steinke 2020),
# 3/4 to the last step and the rest split evenly over the others (their
# experiments' split). Replace-one neighbours, as dp_cov()'s default here.
#
# Two priors:
# * "CoinPress, data-free": what a user without bounds can give, matching the
#   default's own data-free search range (+/- 1e6): variances between 1e-4
#   and 1e12, so L = 1e-4, u = 1e16; t = 6 or 12 steps.
# * "CoinPress on private scales": a quarter of rho to dp_column_bounds()
#   (the default's per-column bounds), each column divided by its private
#   bounds' width, so every variance is at most 1/4 when the bounds hold the
#   column: L = 1e-4, u = p / (4 L); t = 4 or 2 steps with the rest of rho.
source("bench/peers-setup.R")
suppressPackageStartupMessages(library(dpcov))
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "20"))
zcdp_rho <- getFromNamespace("zcdp_rho", "dpcov")
zcdp_epsilon <- getFromNamespace("zcdp_epsilon", "dpcov")

msqrt_inv <- function(M) {
  e <- eigen((M + t(M)) / 2, symmetric = TRUE)
  e$vectors %*% (1 / sqrt(pmax(e$values, 1e-300)) * t(e$vectors))
}

coinpress_cov <- function(x, rho, L, u, t) {
  n <- nrow(x)
  p <- ncol(x)
  h <- n %/% 2
  idx <- sample.int(n, 2 * h)
  D <- (x[idx[2 * seq_len(h)], , drop = FALSE] - x[idx[2 * seq_len(h) - 1], , drop = FALSE]) / sqrt(2)
  gamma <- sqrt(p + 2 * sqrt(p * log(10)) + 2 * log(10))
  eta <- (2 * sqrt(p / h) + p / h) / 2
  rhos <- if (t == 1) rho else c(rep(rho / 4 / (t - 1), t - 1), 3 * rho / 4)
  A <- diag(p) / sqrt(u * L)
  for (k in seq_len(t)) {
    W <- D %*% A
    nr <- sqrt(rowSums(W^2))
    W <- W * pmin(1, gamma / pmax(nr, 1e-300))
    E <- matrix(0, p, p)
    E[upper.tri(E, diag = TRUE)] <- rnorm(p * (p + 1) / 2, 0, gamma^2 / (h * sqrt(rhos[k])))
    E <- E + t(E) - diag(diag(E), p)
    Z <- psd(crossprod(W) / h + E)
    if (k < t) A <- msqrt_inv(Z + eta * diag(p)) %*% A
  }
  Ai <- solve(A)
  S <- Ai %*% Z %*% t(Ai)
  S <- (S + t(S)) / 2
  dimnames(S) <- list(colnames(x), colnames(x))
  S
}

coinpress_scaled <- function(x, eps, delta, share = 0.25, t = 4) {
  rho <- zcdp_rho(eps, delta)
  # the bounds' (epsilon, delta) with zCDP rho share * rho
  b <- suppressWarnings(dp_column_bounds(x, zcdp_epsilon(share * rho, delta), delta, neighbor = "replace-one"))
  w <- b$bounds$upper - b$bounds$lower
  z <- x / rep(w, each = nrow(x))
  L <- 1e-4
  S <- coinpress_cov(z, (1 - share) * rho, L, ncol(x) / 4 / L, t) * tcrossprod(w)
  dimnames(S) <- list(colnames(x), colnames(x))
  S
}

boston <- as.matrix(MASS::Boston[, c("crim", "zn", "indus", "nox", "rm", "age", "dis", "tax", "ptratio", "black",
                                     "lstat", "medv")])
boston_b <- data.frame(lower = c(0, 0, 0, 0.3, 3, 0, 1, 0, 10, 0, 0, 0),
                       upper = c(100, 100, 30, 0.9, 9, 100, 13, 1000, 25, 400, 40, 50), row.names = colnames(boston))
cells <- list()
for (ds in names(datasets)) for (e in c(0.25, 1, 4)) cells[[length(cells) + 1L]] <- list(ds, datasets[[ds]]$x, datasets[[ds]]$bounds, e)
for (e in c(4, 16)) cells[[length(cells) + 1L]] <- list("Boston", boston, boston_b, e)

err <- function(S, truth) c(fro = norm(S - truth, "F") / norm(truth, "F"), spec = spec(S - truth) / spec(truth))
out <- NULL
for (cl in cells) {
  x <- cl[[2]]
  b <- cl[[3]][colnames(x), ]
  eps <- cl[[4]]
  truth <- stats::cov(x) * (nrow(x) - 1) / nrow(x)
  rho <- zcdp_rho(eps, 1e-6)
  E <- sapply(seq_len(reps), function(k) {
    set.seed(1000 * k + 7)
    c(default = err(unclass(suppressWarnings(dp_cov(x, eps, 1e-6, neighbor = "replace-one")))$estimate, truth),
      cp_free6 = err(coinpress_cov(x, rho, 1e-4, 1e16, 6), truth),
      cp_free12 = err(coinpress_cov(x, rho, 1e-4, 1e16, 12), truth),
      cp_scaled = err(coinpress_scaled(x, eps, 1e-6), truth),
      cp_scaled2 = err(coinpress_scaled(x, eps, 1e-6, t = 2), truth),
      textbook = err(textbook_cov(x, b$lower, b$upper, eps, 1e-6), truth))
  })
  m <- apply(E, 1, median)
  out <- rbind(out, data.frame(data = cl[[1]], epsilon = eps, n_epsilon = nrow(x) * eps,
                               metric = c("frobenius", "spectral"),
                               default = m[c("default.fro", "default.spec")],
                               coinpress_free_t6 = m[c("cp_free6.fro", "cp_free6.spec")],
                               coinpress_free_t12 = m[c("cp_free12.fro", "cp_free12.spec")],
                               coinpress_private_scales_t4 = m[c("cp_scaled.fro", "cp_scaled.spec")],
                               coinpress_private_scales_t2 = m[c("cp_scaled2.fro", "cp_scaled2.spec")],
                               textbook_public_bounds = m[c("textbook.fro", "textbook.spec")]))
  cat(cl[[1]], eps, "done\n")
}
rownames(out) <- NULL
cat("\nMedian relative error over", reps, "releases (replace-one, delta 1e-6)\n")
print(out, digits = 3, row.names = FALSE)
