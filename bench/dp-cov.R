# Error of dp_cov() against stats::cov() (issue 11, bench). Run from the
# package root with dpcov installed:  Rscript bench/dp-cov.R
# Prints a markdown table; bench/RESULTS.md (section "dp_cov() against stats::cov()") records a run.
#
# Error: ||Sigma_hat - S||_F / ||S||_F, S = cov(x) * (n - 1) / n (divisor n),
# mean over `reps` releases of one simulated data set per (n, p). All releases
# under replace-one neighbours (n public), so that the naive baseline, which
# divides by the true n, is compared on the same footing.
#
# Methods:
#   dp_cov private   dp_cov() defaults: clip_mean and clip chosen privately
#                    (dp_clip_bound(), bound_share = 0.1 each), split = 0.6
#   dp_cov fixed     dp_cov() with clip_mean and clip from the data-generating
#                    scale (public here), split = 0.6
#   naive            "per-entry noise after private centring with the even
#                    split": the Gaussian mechanism on the clipped column sums
#                    with half of (epsilon, delta), then Analyze Gauss on the
#                    rows centred at that mean with the other half, divided by
#                    n; same fixed bounds; no correction for the mean's noise
#                    and no PSD projection (what one writes without dp_cov()).
suppressPackageStartupMessages(library(dpcov))
set.seed(11)
reps <- 3L
delta <- 1e-6
epsilons <- c(0.1, 0.5, 1, 2)
ns <- c(1e3, 1e4, 1e5)
ps <- c(10, 50)

# Gaussian data with means in [5, 10], standard deviations in [0.5, 2] and
# AR(1) correlation 0.5 between neighbouring columns.
model <- function(p) {
  sd <- seq(0.5, 2, length.out = p)
  R <- 0.5^abs(outer(seq_len(p), seq_len(p), "-"))
  list(mu = seq(5, 10, length.out = p), Sigma = R * tcrossprod(sd))
}
simulate <- function(n, m) {
  p <- length(m$mu)
  sweep(matrix(stats::rnorm(n * p), n, p) %*% chol(m$Sigma), 2L, m$mu, "+")
}
# Public bounds from the generating distribution: the centred norm is about
# sqrt(tr Sigma); 1.5 times that clips few rows. The raw rows add ||mu||.
fixed_bounds <- function(m) {
  clip <- 1.5 * sqrt(sum(diag(m$Sigma)))
  c(clip = clip, clip_mean = sqrt(sum(m$mu^2)) + clip)
}

naive_cov <- function(x, epsilon, delta, clip, clip_mean) {
  n <- nrow(x)
  norms <- sqrt(rowSums(x^2))
  sums <- colSums(x * pmin(1, clip_mean / norms))
  # replace-one: one row moves the clipped sum by at most 2 * clip_mean
  sigma <- gaussian_sigma(2 * clip_mean, epsilon / 2, delta / 2)
  center <- (sums + stats::rnorm(ncol(x), 0, sigma)) / n
  ag <- analyze_gauss(sweep(x, 2L, center), epsilon / 2, delta / 2, clip = clip,
                      neighbor = "replace-one")
  ag$estimate / n   # scale "sum" under replace-one: the noisy centred A'A
}

rel_err <- function(est, S) norm(est - S, "F") / norm(S, "F")
rows <- list()
t0 <- proc.time()[["elapsed"]]
for (p in ps) {
  m <- model(p)
  fb <- fixed_bounds(m)
  for (n in ns) {
    x <- simulate(n, m)
    S <- stats::cov(x) * (n - 1) / n
    for (eps in epsilons) {
      e <- replicate(reps, c(
        private = rel_err(dp_cov(x, eps, delta, neighbor = "replace-one")$estimate, S),
        fixed = rel_err(dp_cov(x, eps, delta, clip = fb[["clip"]], clip_mean = fb[["clip_mean"]],
                               neighbor = "replace-one")$estimate, S),
        naive = rel_err(naive_cov(x, eps, delta, fb[["clip"]], fb[["clip_mean"]]), S)))
      rows[[length(rows) + 1L]] <- data.frame(p = p, n = n, epsilon = eps,
                                              private = mean(e["private", ]),
                                              private_max = max(e["private", ]),
                                              fixed = mean(e["fixed", ]), naive = mean(e["naive", ]))
    }
  }
}
elapsed <- proc.time()[["elapsed"]] - t0
res <- do.call(rbind, rows)
res$naive_over_fixed <- res$naive / res$fixed

fmt <- function(v) formatC(v, digits = 3, format = "g")
cat("| p | n | epsilon | dp_cov, private bounds (mean) | (max of", reps, ") | dp_cov, fixed bounds | naive, fixed bounds | naive / dp_cov fixed |\n")
cat("|---|---|---|---|---|---|---|---|\n")
for (i in seq_len(nrow(res))) {
  with(res[i, ], cat(sprintf("| %d | %s | %s | %s | %s | %s | %s | %.2f |\n", p,
                             formatC(n, format = "d", big.mark = ","), epsilon, fmt(private),
                             fmt(private_max), fmt(fixed), fmt(naive), naive_over_fixed)))
}
cat(sprintf("\n%d reps per cell; total %.0f s\n", reps, elapsed))
