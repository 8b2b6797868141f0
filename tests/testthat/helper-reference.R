# Plain-R references that consume R's RNG in the same order as the C++ core.

# An exponential with no upper limit, as the package draws it: -log of a
# uniform refined near 0 (a draw in [0, 2^-30) places the point 30 bits
# further down, from the next draw).
ref_exp_unbounded <- function() {
  shift <- 0
  repeat {
    u <- runif(1)
    if (u >= 2^-30) return(shift - log(u))
    shift <- shift + 30 * log(2)
  }
}

# The mechanisms' chi-square: 2 Gamma(df / 2) by Marsaglia and Tsang (2000),
# on rnorm() (the package's normal equals it until a draw falls beyond 7 sd)
# and an unbounded exponential for the acceptance; boosted once below shape 8.
ref_gamma <- function(a) {
  if (a < 8) return(ref_gamma_mt(a + 1) * exp(-ref_exp_unbounded() / a))
  ref_gamma_mt(a)
}
ref_gamma_mt <- function(a) {
  d <- a - 1 / 3
  c <- 1 / sqrt(9 * d)
  repeat {
    repeat {
      x <- rnorm(1)
      v <- 1 + c * x
      if (v > 0) break
    }
    v <- v^3
    if (-ref_exp_unbounded() < 0.5 * x^2 + d * (1 - v + log(v))) return(d * v)
  }
}
ref_chisq_exact <- function(df) 2 * ref_gamma(df / 2)

# Lower Bartlett factor: row j gets sqrt(chisq(df - j)) then N(0,1) below the
# diagonal; the chi-square R's rchisq() (the samplers, as stats::rWishart) or,
# `exact`, the mechanisms' (ref_chisq_exact()).
ref_bartlett <- function(p, df, exact = FALSE) {
  T <- matrix(0, p, p)
  for (j in seq_len(p)) {
    T[j, j] <- sqrt(if (exact) ref_chisq_exact(df - (j - 1)) else rchisq(1, df - (j - 1)))
    if (j > 1) for (i in seq_len(j - 1)) T[j, i] <- rnorm(1)
  }
  T
}

ref_rwishart <- function(n, df, Sigma, exact = FALSE) {
  L <- t(chol(Sigma))
  p <- nrow(Sigma)
  vapply(seq_len(n), function(k) {
    F <- L %*% ref_bartlett(p, df, exact)
    F %*% t(F)
  }, matrix(0, p, p))
}

ref_riwishart <- function(n, df, Psi, exact = FALSE) {
  R <- t(chol(Psi))
  p <- nrow(Psi)
  vapply(seq_len(n), function(k) {
    U <- ref_bartlett(p, df, exact)[p:1, p:1]
    F <- R %*% t(solve(U))
    F %*% t(F)
  }, matrix(0, p, p))
}

ref_clipped_gram <- function(x, clip) {
  norms <- sqrt(rowSums(x^2))
  s <- ifelse(norms > clip, clip / norms, 1)
  crossprod(x * s)
}

# A fixed, well-conditioned scale matrix.
test_scale <- function(p, rho = 0.4) {
  S <- rho^abs(outer(seq_len(p), seq_len(p), "-"))
  diag(S) <- diag(S) + seq_len(p) / p
  S
}

# The package's draws for its exponential mechanisms, in plain R: uniforms
# fine near 0 (runif(), and for those below 2^-30 a second draw for the
# point in [0, 2^-30), after all of the first), the Gumbel-max trick's
# Gumbel noise from them, and the two-sided geometric by inversion (rate =
# -log alpha). (The package refines further where the second draw falls in
# the lowest cell again, at probability 2^-60: never under these tests' seeds.)
ref_fine_uniform <- function(k) {
  u <- runif(k)
  low <- which(u < 2^-30)
  if (length(low)) u[low] <- runif(length(low)) * 2^-30
  u
}
ref_gumbel <- function(k) -log(-log1p(-ref_fine_uniform(k)))
ref_geometric2 <- function(rate) {
  # uniforms fine near 0, then for each a last draw placing its point
  # inside its 2^-32 cell (2^-62 for one descended once: the package's cell
  # of 2^-32 at its level, scaled by 2^-30), after all of the first
  u <- ref_fine_uniform(2)
  low <- u < 2^-30
  u <- u + runif(2) * ifelse(low, 2^-62, 2^-32)
  g <- floor(-log(u) / rate)
  g[1] - g[2]
}
# the exponential of the package's Laplace draw (C++), by inversion of a fine uniform
ref_exp <- function() -log(ref_fine_uniform(1))
