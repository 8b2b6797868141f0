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
