# How the box's noise is shared among columns: a plain-R prototype (not
# package code) of dp_cov()'s box path with per-column weights g, each box
# row z_j = g_j (x_j - m_j) / w_j in [-g_j / 2, g_j / 2] (x clamped to the
# public bounds [l_j, u_j], m_j their midpoint, w_j their width), against
# the package's dp_cov() with the same bounds and the peers of
# bench/peers.R. The sensitivities follow R/privacy.R's box_joint_sigmas()
# with the unit box's constants replaced by the weights' (replace-one): the
# row norm bound C = |g| / 2 (sums 2C), the Gram's diagonal
# sqrt(sum g_j^4) / 4, its strict upper triangle C^2; shares 0.4, 0.2, 0.4.
# g = 1 is the package's unit box (every column's noise proportional to its
# width); g_j = sqrt(w_j / max w) minimises the noise's expected Frobenius
# norm in the data's units (the noise on entry (i, j) is proportional to
# C^2 w_i w_j / (g_i g_j), and (sum g_j^2)(sum w_j^2 / g_j^2) is least at
# g_j^2 proportional to w_j, by Cauchy-Schwarz); g_j = w_j / max w is the
# textbook's raw-unit ball. dp_cov(box_weights = "frobenius") is the package's
# square-root weighting (column dp_cov_frob). Run from the package sources:
# REPS=100 Rscript bench/box-weights.R (about 5 minutes).
source("bench/peers-setup.R")
suppressPackageStartupMessages(library(dpcov))
reps <- as.integer(Sys.getenv("REPS", "100"))
box3w <- function(x, lower, upper, eps, delta, g, sm = 0.4, sdg = 0.2) {
  n <- nrow(x); p <- ncol(x)
  m0 <- (lower + upper) / 2; w <- upper - lower
  z <- pmin(pmax((x - rep(m0, each = n)) / rep(w, each = n), -0.5), 0.5) * rep(g, each = n)
  mu <- analytic_ratio(eps, delta)
  C <- sqrt(sum(g^2)) / 2
  sig_m <- 2 * C / (sqrt(sm) * mu); sig_d <- (sqrt(sum(g^4)) / 4) / (sqrt(sdg) * mu); sig_o <- C^2 / (sqrt(1 - sm - sdg) * mu)
  mhat <- pmin(pmax((colSums(z) + rnorm(p, 0, sig_m)) / n, -g / 2), g / 2)
  E <- matrix(0, p, p); E[upper.tri(E)] <- rnorm(p * (p - 1) / 2, 0, sig_o); E <- E + t(E); diag(E) <- rnorm(p, 0, sig_d)
  S <- (crossprod(z) + E) / n - tcrossprod(mhat)
  S <- psd(S)
  S * tcrossprod(w / g)
}
boston <- as.matrix(MASS::Boston[, c("crim", "zn", "indus", "nox", "rm", "age", "dis", "tax", "ptratio", "black", "lstat", "medv")])
datasets$boston <- list(x = boston, bounds = data.frame(lower = c(0, 0, 0, 0.3, 3, 0, 1, 0, 10, 0, 0, 0),
  upper = c(100, 100, 30, 0.9, 9, 100, 13, 1000, 25, 400, 40, 50), row.names = colnames(boston)))
cells <- list(c("penguins", 0.25), c("penguins", 0.5), c("penguins", 2), c("diamonds", 0.25), c("diamonds", 0.5), c("quakes", 0.25), c("quakes", 1),
              c("boston", 0.25), c("boston", 1), c("boston", 4))
for (cl in cells) {
  D <- datasets[[cl[1]]]; eps <- as.numeric(cl[2]); x <- D$x; b <- D$bounds[colnames(x), ]
  S <- cov(x) * (nrow(x) - 1) / nrow(x); w <- b$upper - b$lower
  gs <- list(unit = rep(1, ncol(x)), sqrtw = sqrt(w / max(w)), w = w / max(w))
  M <- sapply(seq_len(reps), function(k) {
    set.seed(k)
    c(sapply(gs, function(g) cov_metrics(box3w(x, b$lower, b$upper, eps, 1e-6, g), S)),
      cov_metrics(unclass(suppressWarnings(dp_cov(x, eps, 1e-6, neighbor = "replace-one", bounds = b)))$estimate, S),
      cov_metrics(unclass(suppressWarnings(dp_cov(x, eps, 1e-6, neighbor = "replace-one", bounds = b,
                                                  box_weights = "frobenius")))$estimate, S),
      cov_metrics(textbook_cov(x, b$lower, b$upper, eps, 1e-6), S),
      cov_metrics(textbook_box_cov(x, b$lower, b$upper, eps, 1e-6), S))
  })
  med <- matrix(apply(M, 1, median), 4)
  dimnames(med) <- list(c("frob", "spec", "cor", "angle"), c(paste0("g_", names(gs)), "dp_cov", "dp_cov_frob", "textbook", "textbook_box"))
  cat("\n", cl[1], eps, "\n"); print(signif(med, 3))
}
