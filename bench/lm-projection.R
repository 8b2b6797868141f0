# dp_lm()'s slopes from the box path's noisy covariance of [X, y]: does the
# PSD projection help or hurt, and on which scale? A plain-R copy of the
# three-block box mechanism (shares 0.4 / 0.2 / 0.4, replace-one, delta
# 1e-6; box3raw()), slopes by bench/peers.R's cov_slopes() from: the
# covariance projected on the data's scale ("joint"), projected on the unit
# box's scale as dp_cov() does ("joint_box"), not projected ("raw"), and
# with only the features' block projected ("xblock"); DPpack and the textbook
# box as in bench/peers.R. Median relative slope error against lm() over
# DPCOV_BENCH_REPS releases per cell (default 100). A study, not a method of
# the package. Run from the package sources: Rscript bench/lm-projection.R
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "100"))
slopes_from <- function(Sb, how) {
  w <- attr(Sb, "w"); Sb <- unclass(Sb); attr(Sb, "w") <- NULL; attr(Sb, "sig") <- NULL
  S <- Sb * tcrossprod(w)
  q <- ncol(S)
  if (how == "joint_box") return(cov_slopes(psd(Sb) * tcrossprod(w)))
  if (how == "joint") S <- psd(S)
  if (how %in% c("joint", "raw")) return(cov_slopes(S))
  Sxx <- psd(S[-q, -q, drop = FALSE]); cov_slopes(rbind(cbind(Sxx, S[-q, q]), c(S[q, -q], S[q, q])))
}
set.seed(9); out <- list()
for (ds in names(datasets)) {
  D <- datasets[[ds]]
  vars <- all.vars(D$formula); XY <- as.matrix(D$data[c(vars[-1], vars[1])]); bl <- D$bounds[c(vars[-1], vars[1]), ]
  ref <- cov_slopes(cov(XY))
  se <- function(b) sqrt(sum((b - ref)^2)) / sqrt(sum(ref^2))
  for (eps in epsilons) for (r in 1:reps) {
    S <- box3raw(XY, bl$lower, bl$upper, eps, delta)
    out[[length(out) + 1]] <- data.frame(ds = ds, eps = eps, joint = se(slopes_from(S, "joint")), joint_box = se(slopes_from(S, "joint_box")), raw = se(slopes_from(S, "raw")),
      xblock = se(slopes_from(S, "xblock")), dppack = se(cov_slopes(dppack_cov(XY, bl$lower, bl$upper, eps))),
      tbox = se(cov_slopes(textbook_box_cov(XY, bl$lower, bl$upper, eps, delta))))
  }
}
res <- do.call(rbind, out)
print(aggregate(. ~ ds + eps, res, median), digits = 3)
