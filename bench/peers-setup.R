# Shared by the studies that reuse bench/peers.R's data sets, public bounds,
# baselines and metrics: everything in bench/peers.R before `method_names`,
# evaluated in the global environment (not its run). Also box3raw(), a
# plain-R copy of dpcov's three-block box mechanism used by the regression
# studies. Source it from the package sources: source("bench/peers-setup.R").
local({
  peers <- parse("bench/peers.R", keep.source = FALSE)
  src <- vapply(peers, function(e) paste(deparse(e), collapse = "\n"), "")
  stop_at <- grep("^method_names <- ", src)[1]
  for (e in peers[seq_len(stop_at - 1L)]) eval(e, globalenv())
})

# The box mechanism of dp_cov(x, lower =, upper =) in plain R (replace-one):
# the rows clamped and mapped to the centred unit box, the column sums, the
# Gram's diagonal and its off-diagonal with Gaussian noise at the shares sm
# (mean), sdg (diagonal) and the rest (off-diagonal) of the squared
# sensitivity-to-noise ratio; returns the noisy centred covariance on the box
# scale, with the box widths (attribute "w") and the Gram's entry noise sds
# divided by n (attribute "sig": off-diagonal o, diagonal d).
box3raw <- function(x, lower, upper, eps, delta, sm = 0.4, sdg = 0.2) {
  n <- nrow(x); p <- ncol(x)
  m0 <- (lower + upper) / 2; w <- upper - lower
  z <- pmin(pmax((x - rep(m0, each = n)) / rep(w, each = n), -0.5), 0.5)
  mu <- analytic_ratio(eps, delta)
  C <- sqrt(p) / 2
  sig_m <- 2 * C / (sqrt(sm) * mu); sig_d <- (sqrt(p) / 4) / (sqrt(sdg) * mu); sig_o <- C^2 / (sqrt(1 - sm - sdg) * mu)
  mhat <- pmin(pmax((colSums(z) + rnorm(p, 0, sig_m)) / n, -0.5), 0.5)
  E <- matrix(0, p, p); E[upper.tri(E)] <- rnorm(p * (p - 1) / 2, 0, sig_o); E <- E + t(E); diag(E) <- rnorm(p, 0, sig_d)
  S <- (crossprod(z) + E) / n - tcrossprod(mhat) + diag((sig_m / n)^2, p)
  attr(S, 'w') <- w; attr(S, "sig") <- c(o = sig_o / n, d = sig_d / n); S
}

# One cell's model from a data set of bench/peers.R (`D`), for the studies
# that compare releases on it: the columns `x` (n rows) and their public
# bounds `b`, the exact covariance `S` (divisor n), the regression's
# features `xcols` and response `ycol` with their bounds `bl` (response
# last) and as named vectors `lo`/`up` for dp_lm(), lm()'s slopes `ref` and
# `se()`, a slope vector's relative L2 error against them. Scripts put the
# fields in their environment: list2env(model_cell(D), environment()).
model_cell <- function(D) {
  x <- D$x
  n <- nrow(x)
  vars <- all.vars(D$formula)
  xcols <- vars[-1]
  ycol <- vars[1]
  bl <- D$bounds[c(xcols, ycol), ]
  ref <- stats::coef(stats::lm(D$formula, D$data))[xcols]
  list(x = x, n = n, b = D$bounds[colnames(x), ], S = stats::cov(x) * (n - 1) / n, xcols = xcols, ycol = ycol,
       bl = bl, lo = setNames(bl$lower, c(xcols, ycol)), up = setNames(bl$upper, c(xcols, ycol)), ref = ref,
       se = function(beta) sqrt(sum((beta - ref)^2)) / sqrt(sum(ref^2)))
}
