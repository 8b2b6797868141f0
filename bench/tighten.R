# dp_cov() and dp_lm() with public bounds, tightened privately inside them
# (tighten = TRUE) or not (FALSE), on bench/peers.R's data, public bounds,
# replace-one and delta (the rule `tighten = NULL` chooses between the two
# from n and epsilon). Per cell: median relative Frobenius error, correlation
# error and principal angle of the covariance, and the regression's relative
# slope error; the textbook box baseline alongside. DPCOV_BENCH_REPS (default
# 100) releases per cell. Run from the package sources: Rscript bench/tighten.R
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
library(dpcov); options(dpcov.noise_warning = FALSE)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "100"))
set.seed(23); out <- list()
for (ds in names(datasets)) for (eps in epsilons) {
  D <- datasets[[ds]]
  list2env(model_cell(D), environment())
  rule <- dp_cov(x, eps, delta, lower = b$lower, upper = b$upper, neighbor = "replace-one")$params$bounds_source
  for (r in seq_len(reps)) {
    cv <- function(t) cov_metrics(dp_cov(x, eps, delta, lower = b$lower, upper = b$upper, neighbor = "replace-one",
                                         tighten = t)$estimate, S)
    sl <- function(t) se(stats::coef(dp_lm(D$formula, D$data, eps, delta, lower = lo, upper = up,
                                           neighbor = "replace-one", B = 0, tighten = t))[xcols])
    f <- cv(FALSE); t <- cv(TRUE)
    out[[length(out) + 1]] <- data.frame(data = ds, epsilon = eps, rule = rule,
      frob_public = f[["frob"]], frob_tight = t[["frob"]], cor_public = f[["cor"]], cor_tight = t[["cor"]],
      angle_public = f[["angle"]], angle_tight = t[["angle"]], slope_public = sl(FALSE), slope_tight = sl(TRUE))
  }
  message(ds, " ", eps)
}
res <- do.call(rbind, out)
med <- aggregate(. ~ data + epsilon + rule, res, stats::median)
med <- med[order(med$data, med$epsilon), ]
med$rule <- ifelse(med$rule == "public", "public", "tightened")
options(width = 200)
cat(sprintf("dpcov %s, %d releases per cell, replace-one, delta = %g; `rule`: what tighten = NULL chose\n\n",
            utils::packageVersion("dpcov"), reps, delta))
print(format(med, digits = 3), row.names = FALSE)
