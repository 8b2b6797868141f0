# Quick accuracy check of dp_cov() with public per-column bounds (not the
# official benchmark): mixed-unit data (a log-normal price in the 1e4 range
# and three columns near 1), replace-one neighbours, delta = 1e-6, against
#  * dp_cov() with the old scalar clips, set from the same column ranges
#    (the only safe values: clip_mean = the norm of the box's farthest
#    corner, clip = the box diagonal);
#  * a textbook baseline: clamp to the ranges, Gaussian mechanism (analytic
#    calibration) on the mean and on the second moment centred at it with
#    half the budget each, sensitivities from the box diagonal, PSD projection.
# Error: median over `reps` releases of the relative Frobenius error in the
# data's units, and of the Frobenius error of the correlation matrix.
# Run: Rscript bench/box-accuracy.R
suppressMessages(library(dpcov))
set.seed(19)
make <- function(n) {
  z <- matrix(rnorm(n * 4), n, 4) %*% chol(0.6 * diag(4) + 0.4)
  cbind(price = pmin(exp(8.5 + 0.7 * z[, 1]), 3e4), carat = pmin(pmax(0.8 + 0.4 * z[, 2], 0.2), 5),
        score = round(pmin(pmax(3 + z[, 3], 1), 5)), ratio = 1 + 0.1 * z[, 4])
}
lo <- c(0, 0, 1, 0); hi <- c(3e4, 5, 5, 2)
textbook <- function(x, eps, delta) {
  n <- nrow(x); p <- ncol(x)
  xc <- pmin(pmax(x, rep(lo, each = n)), rep(hi, each = n))
  D <- sqrt(sum((hi - lo)^2))
  mu <- colMeans(xc) + rnorm(p, 0, gaussian_sigma(D / n, eps / 2, delta / 2))
  mu <- pmin(pmax(mu, lo), hi)
  y <- sweep(xc, 2, mu)
  N <- matrix(rnorm(p * p, 0, gaussian_sigma(sqrt(2) * D^2 / n, eps / 2, delta / 2)), p)
  N[lower.tri(N)] <- t(N)[lower.tri(N)]
  e <- eigen(crossprod(y) / n + N, symmetric = TRUE)
  e$vectors %*% diag(pmax(e$values, 0)) %*% t(e$vectors)
}
cor_of <- function(C) { d <- 1 / sqrt(pmax(diag(C), 1e-300)); C * tcrossprod(d) }
reps <- as.integer(Sys.getenv("REPS", "20"))
out <- list()
for (n in c(2000, 50000)) {
  x <- make(n)
  xc <- pmin(pmax(x, rep(lo, each = n)), rep(hi, each = n))
  truth <- cov(xc) * (n - 1) / n
  for (eps in c(0.5, 2)) {
    methods <- list(
      bounds = function() dp_cov(x, eps, 1e-6, lower = lo, upper = hi, neighbor = "replace-one")$estimate,
      scalar_clips = function() dp_cov(x, eps, 1e-6, clip_mean = sqrt(sum(pmax(abs(lo), abs(hi))^2)),
                                       clip = sqrt(sum((hi - lo)^2)), neighbor = "replace-one")$estimate,
      textbook = function() textbook(x, eps, 1e-6))
    for (m in names(methods)) {
      e <- replicate(reps, {
        C <- unname(methods[[m]]())
        c(rel_frob = norm(C - truth, "F") / norm(truth, "F"), cor_frob = norm(cor_of(C) - cor_of(truth), "F"))
      })
      out[[length(out) + 1]] <- data.frame(n = n, eps = eps, method = m, rel_frob = median(e[1, ]),
                                           cor_frob = median(e[2, ]))
    }
  }
}
res <- do.call(rbind, out)
print(res, digits = 3, row.names = FALSE)
