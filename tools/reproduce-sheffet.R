# Runs the full grid of Sheffet's regression experiments (Figures 1-5) with
# dpcov::sheffet_study() and saves the results to inst/extdata/. Run from the
# package root with dpcov installed:  Rscript tools/reproduce-sheffet.R
#
# Budget: the machine this was run on has 2 shared cores, and the saved run
# had to complete in about 25 minutes of compute. Data generation dominates
# (n rows x d normals); so:
#   * single regression (Figures 1-4): the paper's full grid, n = 2^14..2^25,
#     all six epsilon, 15 replications;
#   * multiple regressions (Figure 5): n = 2^12..2^22 (the paper goes to
#     2^27), epsilon = 0.1, 15 replications, m = 0, 1, 2, 5, 10.
# Any future backend runs it unchanged; set WORKERS to change the number of
# local processes, PART = "single" or "multiple" to run one part only.
library(dpcov)
workers <- as.integer(Sys.getenv("WORKERS", "2"))
future::plan(future::multisession, workers = workers)
progressr::handlers(progressr::handler_txtprogressbar(style = 3))
out_dir <- file.path("inst", "extdata")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)

part <- Sys.getenv("PART", "both")

if (part %in% c("both", "single")) {
set.seed(20160219)
single <- progressr::with_progress(
  sheffet_study("single", n = 2^(14:25), epsilon = c(0.05, 0.1, 0.15, 0.2, 0.25, 0.5),
                reps = 15)
)
attr(single, "session") <- list(workers = workers, R = R.version.string, date = Sys.time())
saveRDS(single, file.path(out_dir, "sheffet-single.rds"), compress = "xz")
cat("single regression: ", attr(single, "elapsed"), "s\n")
}

if (part %in% c("both", "multiple")) {

set.seed(20160220)
multiple <- progressr::with_progress(
  sheffet_study("multiple", n = 2^(12:22), epsilon = 0.1, reps = 15, m = c(0, 1, 2, 5, 10))
)
attr(multiple, "session") <- list(workers = workers, R = R.version.string, date = Sys.time())
saveRDS(multiple, file.path(out_dir, "sheffet-multiple.rds"), compress = "xz")
cat("multiple regressions: ", attr(multiple, "elapsed"), "s\n")
}
