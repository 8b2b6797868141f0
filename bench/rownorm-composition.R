# dp_cov()'s row-norm path (clips given, or chosen privately from a chunk
# reader) with its two Gaussian steps composed by zCDP (the package) against
# basic composition (the same code with composed_gaussian_steps() swapped
# for the basic accounting, in the same process, interleaved, same data).
# Gaussian data as bench/dp-cov.R's (means in [5, 10], sds in [0.5, 2], AR(1)
# 0.5), replace-one, delta = 1e-6; relative Frobenius error against
# cov(x) * (n - 1) / n, median over DPCOV_BENCH_REPS (default 40) releases.
# Run from the package root with dpcov installed: Rscript bench/rownorm-composition.R
suppressPackageStartupMessages(library(dpcov)); options(dpcov.noise_warning = FALSE)
set.seed(12)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "40"))
delta <- 1e-6
ns <- asNamespace("dpcov")
zcdp_steps <- ns$composed_gaussian_steps
basic_steps <- function(epsilon, delta, eps_steps, delta_steps, rho_before, weights, calibration) {
  list(composition = "basic", epsilon = eps_steps, delta = delta_steps)
}
use <- function(f) {
  unlockBinding("composed_gaussian_steps", ns)
  assign("composed_gaussian_steps", f, envir = ns)
  lockBinding("composed_gaussian_steps", ns)
}
sim <- function(n, p) {
  mu <- seq(5, 10, length.out = p); sds <- seq(0.5, 2, length.out = p)
  R <- 0.5^abs(outer(1:p, 1:p, "-"))
  z <- matrix(rnorm(n * p), n, p) %*% chol(R)
  sweep(sweep(z, 2, sds, "*"), 2, mu, "+")
}
out <- list()
for (cfg in list(c(1e4, 10), c(1e5, 10))) {
  n <- cfg[1]; p <- cfg[2]
  x <- sim(n, p)
  S <- stats::cov(x) * (n - 1) / n
  clip <- 1.5 * sqrt(sum(seq(0.5, 2, length.out = p)^2)); clip_mean <- sqrt(sum(seq(5, 10, length.out = p)^2)) + clip
  reader <- local({ done <- FALSE; function() { if (done) { done <<- FALSE; return(NULL) }; done <<- TRUE; x } })
  err <- function(r) norm(r$estimate - S, "F") / norm(S, "F")
  for (eps in c(0.25, 0.5, 1, 2)) {
    e <- matrix(NA_real_, reps, 4, dimnames = list(NULL, c("fixed basic", "fixed zCDP", "private basic", "private zCDP")))
    for (i in seq_len(reps)) {
      use(basic_steps); e[i, 1] <- err(dp_cov(x, eps, delta, clip = clip, clip_mean = clip_mean, neighbor = "replace-one"))
      use(zcdp_steps); e[i, 2] <- err(dp_cov(x, eps, delta, clip = clip, clip_mean = clip_mean, neighbor = "replace-one"))
      use(basic_steps); e[i, 3] <- err(dp_cov(reader, eps, delta, neighbor = "replace-one"))
      use(zcdp_steps); e[i, 4] <- err(dp_cov(reader, eps, delta, neighbor = "replace-one"))
    }
    m <- apply(e, 2, stats::median)
    out[[length(out) + 1]] <- data.frame(n = n, p = p, epsilon = eps, t(signif(m, 3)), check.names = FALSE,
                                         "zCDP/basic fixed" = round(m[2] / m[1], 2), "zCDP/basic private" = round(m[4] / m[3], 2))
  }
}
use(zcdp_steps)
cat(sprintf("dpcov %s, %d releases per cell, replace-one, delta = %g; median relative Frobenius error\n\n",
            utils::packageVersion("dpcov"), reps, delta))
print(do.call(rbind, out), row.names = FALSE)
