# Coverage of dp_lm()'s default intervals (bounds chosen privately, no
# lower/upper) on bench/peers.R's models, split by the fit's clamping flag
# (`diagnostics$intervals_biased`: the rows the private bounds target beyond
# their ends exceed a tenth of n, so the intervals leave a clamping bias out
# and confint() warns). Replace-one, delta = 1e-6, B = 200 percentile
# bootstrap, DPCOV_BENCH_REPS (default 100) fits per cell (a fit whose
# bootstrap draws were all singular has no intervals: counted apart). Not a private
# output: a study of the intervals against lm() on the data.
# Run from the package sources: Rscript bench/lm-coverage.R
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
library(dpcov); options(dpcov.noise_warning = FALSE, warn = -1)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "100"))
set.seed(29); out <- list()
for (ds in names(datasets)) for (eps in epsilons) {
  D <- datasets[[ds]]; xcols <- all.vars(D$formula)[-1]
  ref <- stats::coef(stats::lm(D$formula, D$data))[xcols]
  for (r in seq_len(reps)) {
    f <- dp_lm(D$formula, D$data, eps, delta, neighbor = "replace-one", B = 200)
    ci <- confint(f)[xcols, , drop = FALSE]
    out[[length(out) + 1]] <- data.frame(data = ds, epsilon = eps, flagged = isTRUE(f$diagnostics$intervals_biased),
                                         target = f$diagnostics$clamp_target,
                                         cover = mean(ci[, 1] <= ref & ref <= ci[, 2]))
  }
  message(ds, " ", eps)
}
res <- do.call(rbind, out)
tab <- do.call(rbind, lapply(split(res, list(res$data, res$epsilon), drop = TRUE), function(g) {
  data.frame(data = g$data[1], epsilon = g$epsilon[1], clamp_target = signif(stats::median(g$target), 2),
             flagged = mean(g$flagged), no_interval = mean(is.na(g$cover)), coverage = mean(g$cover, na.rm = TRUE),
             cover_flagged = if (any(g$flagged)) mean(g$cover[g$flagged], na.rm = TRUE) else NA,
             cover_unflagged = if (any(!g$flagged)) mean(g$cover[!g$flagged], na.rm = TRUE) else NA)
}))
tab <- tab[order(match(tab$data, names(datasets)), tab$epsilon), ]
options(width = 200)
cat(sprintf("dpcov %s, %d fits per cell, replace-one, delta = %g, B = 200; coverage of lm()'s slopes by 95%% intervals\n\n",
            utils::packageVersion("dpcov"), reps, delta))
print(format(tab, digits = 3), row.names = FALSE)
un <- res[!res$flagged, ]
cat(sprintf("\nunflagged fits: %d, coverage %.3f; flagged fits: %d, coverage %.3f (fits without intervals: %d)\n",
            nrow(un), mean(un$cover, na.rm = TRUE), sum(res$flagged), mean(res$cover[res$flagged], na.rm = TRUE),
            sum(is.na(res$cover))))
