# Why DPpack's slopes beat the unbiased box release on penguins (bench/peers.R,
# body_mass_g ~ flipper_length_mm + bill_length_mm): the entry errors of each
# method's private covariance of [X, y] on the unit-box scale (sd and mean
# over DPCOV_BENCH_REPS releases, default 200) and the median relative slope
# error against lm(). Replace-one, delta 1e-6, epsilon DPCOV_BENCH_EPS
# (default 2). Run from the package sources: Rscript bench/penguins-slopes.R
Sys.setenv(DPCOV_BENCH_SETS = "penguins")
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
D <- datasets$penguins
vars <- all.vars(D$formula)
XY <- as.matrix(D$data[c(vars[-1], vars[1])])
bl <- D$bounds[c(vars[-1], vars[1]), ]
w <- bl$upper - bl$lower
n <- nrow(XY)
S <- stats::cov(XY) * (n - 1) / n
ref <- cov_slopes(S)
eps <- as.numeric(Sys.getenv("DPCOV_BENCH_EPS", "2"))
R <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "200"))
set.seed(3)
E1 <- E2 <- array(0, c(R, 3, 3))
s1 <- s2 <- numeric(R)
slope_err <- function(b) sqrt(sum((b - ref)^2)) / sqrt(sum(ref^2))
for (r in seq_len(R)) {
  a <- suppressWarnings(dp_cov(XY, eps, delta, lower = bl$lower, upper = bl$upper, neighbor = neighbor))$estimate
  b <- dppack_cov(XY, bl$lower, bl$upper, eps)
  E1[r, , ] <- (a - S) / tcrossprod(w)
  E2[r, , ] <- (b - S) / tcrossprod(w)
  s1[r] <- slope_err(cov_slopes(a))
  s2[r] <- slope_err(cov_slopes(b))
}
cat(sprintf("penguins, epsilon %s, %d releases; covariance of %s on the unit-box scale:\n\n", format(eps), R,
            paste(colnames(XY), collapse = ", ")))
print(signif(S / tcrossprod(w), 3))
show <- function(title, M) { cat("\n", title, "\n", sep = ""); print(signif(M, 3)) }
show("dpcov bounds: sd of the entry errors", apply(E1, 2:3, stats::sd))
show("dpcov bounds: mean of the entry errors", apply(E1, 2:3, mean))
show("DPpack: sd of the entry errors", apply(E2, 2:3, stats::sd))
show("DPpack: mean of the entry errors", apply(E2, 2:3, mean))
cat(sprintf("\nmedian relative slope error: dpcov bounds %.3f, DPpack %.3f\n", stats::median(s1), stats::median(s2)))
