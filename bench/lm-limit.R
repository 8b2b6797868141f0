# How far from the zero estimate can any slope estimate be at penguins'
# regression (bench/peers.R: body_mass_g ~ flipper_length_mm + bill_length_mm,
# n = 342) at small epsilon? Per release (DPCOV_BENCH_REPS, default 1000;
# epsilon DPCOV_BENCH_EPS, default 0.25; replace-one, delta 1e-6, public
# bounds), the relative L2 slope error against lm() of:
#   dp_lm()                   its coefficients (the noise-calibrated ridge);
#   dp_lm() oracle-scaled     the best multiple c * b of them, c chosen with
#                             lm()'s slopes (not private: a bound on what any
#                             rescaling of the release's slopes could reach);
#   textbook                  bench/peers.R's baseline, and its oracle scaling;
#   zero                      the slopes set to 0 (error exactly 1).
# Also the share of releases whose slopes point within 90 degrees of lm()'s,
# and the ratio of dp_lm()'s median to the textbook's with a 95% percentile
# bootstrap interval (2000 resamples, each method resampled on its own).
# Run from the package sources: Rscript bench/lm-limit.R
Sys.setenv(DPCOV_BENCH_SETS = "penguins")
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
D <- datasets$penguins
vars <- all.vars(D$formula)
ycol <- vars[1]
xcols <- vars[-1]
bl <- D$bounds[c(xcols, ycol), ]
XY <- as.matrix(D$data[c(xcols, ycol)])
ref <- stats::coef(stats::lm(D$formula, D$data))[xcols]
eps <- as.numeric(Sys.getenv("DPCOV_BENCH_EPS", "0.25"))
R <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "1000"))
slope_err <- function(b) sqrt(sum((b - ref)^2)) / sqrt(sum(ref^2))
# min over c of |c b - ref| / |ref| = sin of the angle between b and ref (1 beyond 90 degrees)
oracle_err <- function(b) {
  cs <- sum(b * ref) / sqrt(sum(b^2) * sum(ref^2))
  if (!is.finite(cs) || cs <= 0) 1 else sqrt(1 - cs^2)
}
set.seed(2026)
M <- matrix(NA_real_, R, 5, dimnames = list(NULL, c("dp_lm", "dp_lm oracle-scaled", "textbook",
                                                    "textbook oracle-scaled", "dp_lm aligned")))
t0 <- proc.time()[["elapsed"]]
for (r in seq_len(R)) {
  f <- suppressWarnings(dp_lm(D$formula, D$data, eps, delta, lower = stats::setNames(bl$lower, c(xcols, ycol)),
                              upper = stats::setNames(bl$upper, c(xcols, ycol)), neighbor = neighbor, B = 0))
  b <- stats::coef(f)[xcols]
  tb <- cov_slopes(textbook_cov(XY, bl$lower, bl$upper, eps, delta))
  M[r, ] <- c(slope_err(b), oracle_err(b), slope_err(tb), oracle_err(tb), sum(b * ref) > 0)
}
elapsed <- proc.time()[["elapsed"]] - t0
set.seed(191)
boot <- replicate(2000L, stats::median(sample(M[, 1], replace = TRUE)) / stats::median(sample(M[, 3], replace = TRUE)))
ci <- stats::quantile(boot, c(0.025, 0.975))
cat(sprintf("penguins, n = %d, epsilon %s (n epsilon = %s), %d releases per method, %s neighbours, delta %g, %.0f s\n\n",
            nrow(XY), format(eps), format(nrow(XY) * eps), R, neighbor, delta, elapsed))
cat("| slopes | median relative error | quartiles |\n|---|---|---|\n")
for (j in 1:4) {
  q <- stats::quantile(M[, j], c(0.25, 0.5, 0.75))
  cat(sprintf("| %s | %.4f | %.3f-%.3f |\n", colnames(M)[j], q[2], q[1], q[3]))
}
cat("| zero | 1 | 1-1 |\n")
cat(sprintf("\ndp_lm() slopes within 90 degrees of lm()'s: %.1f%% of releases\n", 100 * mean(M[, 5])))
cat(sprintf("dp_lm() / textbook, median error: %.3f (95%% bootstrap %.3f-%.3f)\n",
            stats::median(M[, 1]) / stats::median(M[, 3]), ci[1], ci[2]))
