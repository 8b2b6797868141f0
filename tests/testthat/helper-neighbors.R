# Brute-force search of neighbouring data sets on transformed rows.
#
# A mechanism adds noise to a statistic f(D) of the records D after a public
# map (centring at a released mean, an intercept column, a formula's terms,
# a scale). The neighbour relation is about records, so the search builds the
# neighbour D' from D at the level of records and applies the map to both:
#  * "replace-one": one record replaced by another record;
#  * "zero-out": one record replaced by the all-zero record;
#  * "add-remove": one record added or removed.
# D and the replacements are drawn from a candidate set that holds the
# extreme records a worst case needs (long rows along the axes, along and
# against a given direction, orthogonal to it, random long and short rows,
# the zero record). neighbor_search() returns the largest ||f(D) - f(D')||
# (Frobenius for matrices, L2 for vectors) it finds.

# Candidate records in dimension p: `scale` is "long" (every row is clipped
# when scale >> the bound), `toward` an optional direction of interest (the
# released mean, the intercept's axis).
neighbor_candidates <- function(p, scale, toward = NULL, n_random = 12L) {
  e <- diag(p)
  rows <- rbind(e, -e)
  if (!is.null(toward) && sum(toward^2) > 0) {
    u <- toward / sqrt(sum(toward^2))
    # a unit vector orthogonal to u (Gram-Schmidt on the axes)
    o <- NULL
    for (j in seq_len(p)) {
      v <- e[j, ] - sum(e[j, ] * u) * u
      if (sum(v^2) > 1e-6) { o <- v / sqrt(sum(v^2)); break }
    }
    rows <- rbind(rows, u, -u, o, -o, (u + o) / sqrt(2))
  }
  rnd <- matrix(stats::rnorm(n_random * p), n_random, p)
  rnd <- rnd / sqrt(rowSums(rnd^2))
  rbind(rows * scale, rnd * scale, rnd[1:3, , drop = FALSE] * scale / 50, 0)
}

# The largest change of f over neighbours of data sets built from `base`
# rows plus each candidate (D = rbind(base, c1)), under `notion`.
neighbor_search <- function(f, base, cand, notion) {
  nrm <- function(a) sqrt(sum(a^2))
  best <- 0
  zero <- rep(0, ncol(cand))
  for (i in seq_len(nrow(cand))) {
    D <- rbind(base, cand[i, ])
    fD <- f(D)
    k <- nrow(D)  # the record that changes: the candidate row
    if (notion == "zero-out") {
      D2 <- D
      D2[k, ] <- zero
      best <- max(best, nrm(fD - f(D2)))
    } else if (notion == "add-remove") {
      best <- max(best, nrm(fD - f(D[-k, , drop = FALSE])))
    } else {
      for (j in seq_len(nrow(cand))) {
        D2 <- D
        D2[k, ] <- cand[j, ]
        best <- max(best, nrm(fD - f(D2)))
      }
    }
  }
  best
}

# Rows clipped to L2 norm B, as the kernels clip them.
clip_rows <- function(A, B) {
  if (!nrow(A)) return(A)
  nr <- sqrt(rowSums(A^2))
  A * ifelse(nr > B, B / nr, 1)
}

# The sensitivity a Gaussian release was calibrated for: its noise sd over the
# sd of unit sensitivity at the same (epsilon, delta).
stated_sensitivity <- function(sigma, epsilon, delta) {
  sigma / gaussian_sigma(1, epsilon, delta)
}
