# Benchmark of analyze_gauss_shift(): the precomputed table against the Monte
# Carlo it replaces (reps = 4000 on the fixed internal stream, still
# available as analyze_gauss_shift(p, sigma, reps = 4000)). Run from the
# package root with dpcov installed:  Rscript bench/shift.R
#
# "first call" is timed in a fresh R process (callr) right after
# library(dpcov), so nothing is cached; "per call" is the mean over 10,000
# calls in this process. The old Monte Carlo is timed only for p <= 100 (at
# p = 500 it takes minutes), after clearing the session cache.
library(dpcov)

cat("machine:", R.version.string, "|", parallel::detectCores(), "cores |",
    sub("model name\\s*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
    "\nload average at start:", readLines("/proc/loadavg"), "\n\n")

lib <- .libPaths()
first_call <- function(p) {
  callr::r(function(p, lib) {
    .libPaths(lib)
    library(dpcov)
    t0 <- Sys.time()  # microsecond resolution, unlike system.time()
    dpcov::analyze_gauss_shift(p, 1)
    as.numeric(difftime(Sys.time(), t0, units = "secs"))
  }, args = list(p = p, lib = lib))
}
clear_cache <- function() {
  env <- dpcov:::.shift_cache
  rm(list = ls(env, all.names = TRUE), envir = env)
}
per_call <- function(p, n = 10000) {
  clear_cache()
  system.time(for (i in seq_len(n)) analyze_gauss_shift(p, 1))[["elapsed"]] / n
}
old_mc <- function(p) {
  clear_cache()
  system.time(analyze_gauss_shift(p, 1, reps = 4000))[["elapsed"]]
}

ps <- c(22, 100, 300, 500, 1000)
res <- data.frame(
  task = sprintf("analyze_gauss_shift(%d, 1)", ps),
  first_call_s = vapply(ps, first_call, numeric(1)),
  per_call_us = vapply(ps, per_call, numeric(1)) * 1e6,
  old_mc_4000_s = vapply(ps, function(p) if (p <= 100) old_mc(p) else NA_real_, numeric(1)),
  value = vapply(ps, analyze_gauss_shift, numeric(1), sigma = 1),
  old_value = vapply(ps, function(p) if (p <= 100) analyze_gauss_shift(p, 1, reps = 4000) else NA_real_, numeric(1))
)

# analyze_gauss(post = "shift") on a 1000 x 300 matrix: the first call in a
# fresh process, then the median of 5 calls with and without the shift.
ag <- callr::r(function(lib) {
  .libPaths(lib)
  library(dpcov)
  set.seed(1)
  x <- matrix(rnorm(1000 * 300), 1000, 300)
  secs <- function(expr) { t0 <- Sys.time(); force(expr); as.numeric(difftime(Sys.time(), t0, units = "secs")) }
  t <- secs(rel <- analyze_gauss(x, 0.5, 1e-5, clip = 1, post = "shift"))
  med <- function(post) median(replicate(5, secs(analyze_gauss(x, 0.5, 1e-5, clip = 1, post = post))))
  c(t = t, t_shift = med("shift"), t_none = med("none"), shift = rel$params$shift)
}, args = list(lib = lib))
res <- rbind(res, data.frame(
  task = "analyze_gauss(1000 x 300, post = \"shift\")", first_call_s = ag[["t"]],
  per_call_us = ag[["t_shift"]] * 1e6, old_mc_4000_s = NA, value = ag[["shift"]], old_value = NA))

fmt <- res
fmt$first_call_s <- signif(fmt$first_call_s, 2)
fmt$per_call_us <- signif(fmt$per_call_us, 3)
fmt$old_mc_4000_s <- signif(fmt$old_mc_4000_s, 3)
fmt$value <- signif(fmt$value, 7)
fmt$old_value <- signif(fmt$old_value, 7)
fmt[is.na(fmt)] <- "-"
cat("| task | first call (s) | per call (us) | old Monte Carlo, reps = 4000 (s) | E\\|\\|N\\|\\| (table) | E\\|\\|N\\|\\| (old, reps = 4000) |\n")
cat("|---|---:|---:|---:|---:|---:|\n")
cat(sprintf("| `%s` | %s | %s | %s | %s | %s |\n", fmt$task, fmt$first_call_s, fmt$per_call_us,
            fmt$old_mc_4000_s, fmt$value, fmt$old_value), sep = "")
cat(sprintf("\nanalyze_gauss(1000 x 300), median of 5: %.4f s with post = \"shift\", %.4f s with post = \"none\"\n",
            ag[["t_shift"]], ag[["t_none"]]))
cat("load average at end:", readLines("/proc/loadavg"), "\n")
