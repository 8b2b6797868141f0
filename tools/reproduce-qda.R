# Reproduces Table 7 of the modified-thresholding paper (private QDA on the
# COMBO gut microbiome, Section 4.2) with the package's own functions, plus the
# investigation of the preprocessing and tuning choices the paper leaves open.
#
# Usage, from the package root with dpcov installed:
#   Rscript tools/reproduce-qda.R [COMBO data directory]
# The directory defaults to combo_data_dir() ($DPCOV_COMBO_DIR or a shared/data
# directory above the working directory). Set a future plan first to run the
# replications in parallel, e.g. future::plan("multisession"); the results are
# the same for every plan.
#
# Writes inst/extdata/qda-table7.rds (the protocol: 20 replications, and the
# same protocol with 200 replications for tighter standard errors) and
# inst/extdata/qda-sensitivity.rds (100 replications per variant, the same
# 100 train/test splits for every variant). Only error counts and settings are
# saved: never the data.

library(dpcov)
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args)) args[1] else combo_data_dir()
if (is.null(dir)) stop("COMBO data not found: give its directory or set DPCOV_COMBO_DIR")
progressr::handlers(global = TRUE)

data <- combo_read(dir)
features <- combo_preprocess(data)
print(data)
print(features)

# The paper's protocol with our readings (see ?combo_preprocess, ?qda_estimators).
set.seed(20261121)
table7 <- qda_study(features, qda_estimators(), p = c(25, 40), reps = 20)
print(table7)
set.seed(20261122)
table7_long <- qda_study(features, qda_estimators(), p = c(25, 40), reps = 200)
print(table7_long)

paper <- data.frame(p = c(25, 40),
                    modified_dp = c(2.25, 3.20), wang_xu_dp = c(5.70, 4.95),
                    modified_ldp = c(4.30, 5.15), wang_xu_ldp = c(6.45, 6.90))

# How much BMI signal the 40 genera carry: per-genus Welch t-tests on all 98
# subjects (a description of the data, not part of the protocol).
signal <- sort(apply(features$x, 2, function(v) {
  stats::t.test(v[features$group == "lean"], v[features$group == "obese"])$p.value
}))

# Norms of the class-centred rows: the noise of the paper's reading is
# calibrated for norm 1.
row_norms <- range(sqrt(rowSums(dpcov:::center_by_group(features$x, features$group)^2)))

saveRDS(list(table7 = table7, table7_long = table7_long, paper = paper, signal = signal,
             row_norms = row_norms,
             data = list(n = nrow(features$x), genera = ncol(features$x),
                         lean = sum(features$group == "lean"), obese = sum(features$group == "obese"),
                         layout = data$layout),
             info = list(date = format(Sys.time(), tz = "UTC", usetz = TRUE),
                         dpcov = as.character(utils::packageVersion("dpcov")),
                         R = R.version.string, seeds = c(20261121, 20261122))),
        "inst/extdata/qda-table7.rds", version = 2)

# --- Investigation: one choice changed at a time, same splits for all --------
# A non-private diagonal reference shows what ignoring every correlation gives.
diagonal <- list(diagonal = function(x, group) diag(diag(pooled_cov(x, group))))
variant <- function(label, prep = list(), est = list(), study = list(), reps = 100) {
  f <- do.call(combo_preprocess, c(list(data), prep))
  e <- c(do.call(qda_estimators, est), diagonal)
  set.seed(7)
  s <- do.call(qda_study, c(list(f, estimators = e, p = c(25, 40), reps = reps), study))
  cat("\n==", label, "\n")
  print(qda_study_table(s), quote = FALSE)
  list(label = label, study = s)
}
sensitivity <- list(
  base = variant("Our reading (log relative abundance, pseudocount 0.5, Welch t-test on the training part, 10-fold CV, pinv)"),
  kept = variant("Relative abundance within the 40 kept genera", prep = list(denominator = "kept")),
  clr = variant("Centred log-ratio instead of log relative abundance", prep = list(transform = "clr")),
  zeros = variant("Pseudocount only on zero counts", prep = list(zero = "zeros")),
  pc1 = variant("Pseudocount 1", prep = list(pseudocount = 1)),
  overall = variant("Filter: present in >= 4 samples overall (63 genera)", prep = list(by_group = FALSE)),
  pooled_t = variant("Pooled-variance t-test", study = list(var_equal = TRUE)),
  standardize = variant("Threshold correlations (standardised columns)", est = list(standardize = TRUE)),
  theory = variant("Threshold constant from theory (no CV)", est = list(tune = "theory")),
  floor = variant("Singular rule: floor eigenvalues at 1% of the largest", study = list(singular = "floor", tol = 0.01)),
  clip = variant("Rows clipped to norm 10: noise for a (0.5, 1/196) guarantee at that norm (no formal guarantee)", est = list(clip = 10)),
  leak_selection = variant("LEAK: t-tests on all subjects, test subjects included", study = list(leak = "selection")),
  leak_training = variant("LEAK: everything fitted on all subjects, test subjects included", study = list(leak = "training"))
)
saveRDS(list(sensitivity = lapply(sensitivity, function(v) list(label = v$label, summary = v$study$summary,
                                                                 settings = v$study$settings)),
             reps = 100, seed = 7,
             info = list(date = format(Sys.time(), tz = "UTC", usetz = TRUE),
                         dpcov = as.character(utils::packageVersion("dpcov")))),
        "inst/extdata/qda-sensitivity.rds", version = 2)
