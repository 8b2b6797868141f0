# Accuracy of dp_cov()'s default without bounds (private per-column bounds,
# dp_column_bounds()'s mechanism, then the box path) against dp_cov() with
# the data's exact per-column min and max given as public bounds, on skewed
# data: diamonds-like (log-normal carat and price, normal depth and table, x,
# y, z from carat; n = 50000, p = 7), a log-normal with correlation 0.5 (n =
# 50000, p = 7) and penguins-like data (n = 342, p = 4, large means), and at
# n * epsilon in {2000, 8000}. Add/remove neighbours, delta = 1e-6; median
# relative Frobenius error over `reps` releases (default 9).
#   Rscript bench/default-accuracy.R [reps]   (a few minutes)
suppressPackageStartupMessages(library(dpcov))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 9L
relF <- function(A, B) norm(A - B, "F") / norm(B, "F")
set.seed(19)
n <- 5e4
carat <- exp(rnorm(n, log(0.7), 0.55))
price <- exp(log(4000) + 1.6 * (log(carat) - log(0.7)) + rnorm(n, 0, 0.35))
xx <- 6.5 * carat^(1 / 3) + rnorm(n, 0, 0.05)
dia <- data.frame(carat = carat, depth = rnorm(n, 61.7, 1.4), table = rnorm(n, 57.5, 2.2), price = price,
                  x = xx, y = xx + rnorm(n, 0, 0.05), z = 0.62 * xx + rnorm(n, 0, 0.04))
ln <- as.data.frame(exp(matrix(rnorm(n * 7), n) %*% chol(0.5 + 0.5 * diag(7))))
m <- 342
peng <- data.frame(bill_length = rnorm(m, 44, 5.5), bill_depth = rnorm(m, 17, 2),
                   flipper = rnorm(m, 201, 14), mass = exp(rnorm(m, log(4200), 0.18)))
cases <- rbind(expand.grid(data = c("diamonds_like", "lognormal", "penguins_like"), epsilon = c(0.25, 1, 4),
                           n = NA, stringsAsFactors = FALSE),
               data.frame(data = "diamonds_like", epsilon = c(1, 1, 0.04, 0.16), n = c(2000, 8000, 5e4, 5e4)),
               data.frame(data = "penguins_like", epsilon = c(6, 16, 64), n = 342))
sets <- list(diamonds_like = dia, lognormal = ln, penguins_like = peng)
cat("| data | n | epsilon | n epsilon | default (private bounds) | public min/max bounds | ratio |\n")
cat("|---|---:|---:|---:|---:|---:|---:|\n")
for (i in seq_len(nrow(cases))) {
  X <- sets[[cases$data[i]]]
  if (!is.na(cases$n[i])) X <- X[seq_len(cases$n[i]), ]
  S <- cov(X) * (nrow(X) - 1) / nrow(X)
  eps <- cases$epsilon[i]
  e_def <- median(replicate(reps, relF(dp_cov(X, eps, 1e-6)$estimate, S)))
  e_pub <- median(replicate(reps, relF(dp_cov(X, eps, 1e-6, lower = sapply(X, min),
                                              upper = sapply(X, max))$estimate, S)))
  cat(sprintf("| %s | %d | %g | %g | %.3g | %.3g | %.2f |\n", cases$data[i], nrow(X), eps, nrow(X) * eps,
              e_def, e_pub, e_def / e_pub))
}
