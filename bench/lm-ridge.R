# dp_lm()'s noise-calibrated ridge: which noise level to raise the features'
# smallest eigenvalue to. A plain-R copy of the three-block box mechanism
# (shares 0.4 / 0.2 / 0.4, replace-one, delta 1e-6; box3raw()), its noisy
# covariance projected to the PSD cone on the box scale (as dp_cov() does),
# then slopes with lambda = max(0, tau - lambda_min) added on the
# noise-whitened scale, for
#   A: tau = c sqrt(k) s (s the largest entry sd, whitened; c = 2 is
#      about the operator norm of the noise: dp_lm()'s rule), c = 1, 1.5, 2;
#   B: tau = c times the sd of u'Eu along the smallest eigenvector u, c = 1, 2, 3;
#   ls: no ridge.
# Prints the ratio of each median relative slope error (against lm()) to the
# best peer's (DPpack, textbook, textbook box as in bench/peers.R), and the
# medians. DPCOV_BENCH_REPS releases per cell (default 200), EPS to restrict
# epsilon (comma-separated). A study, not a method of the package.
# Run from the package sources: Rscript bench/lm-ridge.R
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "200"))
rule_slopes <- function(Sb, rule, c) {
  w <- attr(Sb, "w"); sig <- attr(Sb, "sig"); Sb <- psd(unclass(Sb)[,])
  q <- ncol(Sb); k <- q - 1
  Sxx <- Sb[-q, -q, drop = FALSE]; Sxy <- Sb[-q, q]
  d <- sqrt(sig[["d"]])  # whiten: diag sd -> 1
  A <- Sxx / d^2; e <- eigen(A, symmetric = TRUE); lmin <- min(e$values)
  r <- sig[["o"]] / sig[["d"]]
  tau <- if (rule == "A") c * sqrt(k) * max(1, r) else {
    u <- e$vectors[, k]; V <- r^2 * tcrossprod(u^2) * 2; diag(V) <- u^4   # Var(u'Eu) = sum_i u_i^4 + 2 sum_{i!=j} u_i^2 u_j^2 r^2
    c * sqrt(sum(V))
  }
  if (c == 0) return(cov_slopes(Sb * tcrossprod(w)))
  lam <- max(0, tau - lmin) * d^2
  bb <- solve(Sxx + diag(lam, k), Sxy)
  bb * w[q] / w[-q]
}
set.seed(9); out <- list()
for (ds in names(datasets)) {
  D <- datasets[[ds]]
  vars <- all.vars(D$formula); XY <- as.matrix(D$data[c(vars[-1], vars[1])]); bl <- D$bounds[c(vars[-1], vars[1]), ]
  ref <- cov_slopes(cov(XY))
  se <- function(b) sqrt(sum((b - ref)^2)) / sqrt(sum(ref^2))
  for (eps in as.numeric(strsplit(Sys.getenv("EPS", paste(epsilons, collapse=",")), ",")[[1]])) for (r in 1:reps) {
    S <- box3raw(XY, bl$lower, bl$upper, eps, delta)
    out[[length(out) + 1]] <- data.frame(ds = ds, eps = eps, ls = se(rule_slopes(S, "A", 0)),
      A1 = se(rule_slopes(S, "A", 1)), A1.5 = se(rule_slopes(S, "A", 1.5)), A2 = se(rule_slopes(S, "A", 2)),
      B1 = se(rule_slopes(S, "B", 1)), B2 = se(rule_slopes(S, "B", 2)), B3 = se(rule_slopes(S, "B", 3)),
      dppack = se(cov_slopes(dppack_cov(XY, bl$lower, bl$upper, eps))),
      tbox = se(cov_slopes(textbook_box_cov(XY, bl$lower, bl$upper, eps, delta))),
      tb = se(cov_slopes(textbook_cov(XY, bl$lower, bl$upper, eps, delta))))
  }
}
res <- do.call(rbind, out)
agg <- aggregate(. ~ ds + eps, res, median)
bp <- pmin(agg$dppack, agg$tbox, agg$tb)
options(width = 220)
rat <- cbind(agg[1:2], round(agg[3:9] / bp, 2), bestpeer = signif(bp, 3))
print(rat)
print(agg[, c("ds", "eps", "ls", "A2", "dppack", "tbox", "tb")], digits = 3)
