# Runs the bad-input sweep of tests/testthat/helper-sweep.R against the
# installed dpcov and prints a markdown table per export plus totals (the
# "Bad-input sweep" section of bench/RESULTS.md). From the package root:
#   Rscript tools/sweep-table.R
suppressPackageStartupMessages(library(dpcov))
source(file.path("tests", "testthat", "helper-sweep.R"))

t0 <- proc.time()[["elapsed"]]
calls <- sweep_calls()
res <- sweep_run(calls, progress = TRUE)
elapsed <- proc.time()[["elapsed"]] - t0
tally <- sweep_tally(res)

md_row <- function(...) cat("|", paste(..., sep = " | "), "|\n")
cat("# Bad-input sweep\n\n")
cat(sprintf("dpcov %s, R %s, %s. `Rscript tools/sweep-table.R` (the calls of tests/testthat/test-sweep.R),\n",
            utils::packageVersion("dpcov"), getRversion(), format(Sys.Date())))
cat(sprintf("%d calls (%d baselines) in a child R session, %.0f s wall clock.\n\n",
            nrow(res), sum(res$arg == "(baseline)"), elapsed))
cat("Per export or S3 method (a label in parentheses is a second baseline of the same function):",
    "hostile inputs tried, classed `dpcov_error` naming the argument, accepted with a sane result,",
    "crashes, hangs, and unclassed or silent results (plain errors, errors naming another",
    "argument, invalid input accepted, valid input refused).\n\n")
md_row("export", "tried", "classed error", "accepted, sane", "crash", "hang", "unclassed/silent")
md_row("---", "---:", "---:", "---:", "---:", "---:", "---:")
for (i in seq_len(nrow(tally))) {
  with(tally[i, ], md_row(paste0("`", export, "`"), tried, classed, accepted, crash, hang, unclassed_or_silent))
}
tot <- colSums(tally[c("tried", "classed", "accepted", "crash", "hang", "unclassed_or_silent")])
md_row("**total**", tot[["tried"]], tot[["classed"]], tot[["accepted"]], tot[["crash"]], tot[["hang"]],
       tot[["unclassed_or_silent"]])
fails <- sweep_failures(res)
cat(sprintf("\nBaselines failing: %d.\n", sum(!tally$baseline_ok)))
if (length(fails)) {
  cat("\nOffending calls:\n\n")
  cat(paste0("- ", fails), sep = "\n")
}
