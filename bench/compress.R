# Benchmark of dp_compress(): the exact fast path (method = "gram"), the
# explicit C++ path (Phi streamed in m x 256 tiles) and naive R
# (Phi <- rnorm(m * n); Phi %*% X), against crossprod(X) alone (one pass over
# X, the practical floor of the fast path; R's crossprod uses the BLAS, the
# package's X'X uses Eigen, both timed). Also the peak resident memory of
# each path, read from /proc (Linux), reset before each measurement.
# Run from the package root with dpcov installed: Rscript bench/compress.R
suppressMessages(library(dpcov))

peak_reset <- function() {
  ok <- try(writeLines("5", "/proc/self/clear_refs"), silent = TRUE)
  !inherits(ok, "try-error")
}
peak_mb <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmHWM", s, value = TRUE))) / 1024
}
rss_mb <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmRSS", s, value = TRUE))) / 1024
}
# Median elapsed and CPU (user + system) seconds of `reps` runs, and the peak
# RSS above the RSS before the runs (MB). The CPU time is the robust figure
# when other jobs share the machine.
measure <- function(f, reps) {
  invisible(gc())
  base <- rss_mb()
  can <- peak_reset()
  times <- matrix(0, reps, 2)
  for (i in seq_len(reps)) {
    t <- system.time(f(), gcFirst = FALSE)
    times[i, ] <- c(t[["elapsed"]], t[["user.self"]] + t[["sys.self"]])
  }
  c(seconds = median(times[, 1]), cpu = median(times[, 2]),
    extra_mb = if (can) peak_mb() - base else NA)
}
naive_compress <- function(x, m) {
  n <- nrow(x)
  phi <- rnorm(m * n)
  dim(phi) <- c(m, n)
  (phi %*% x) / sqrt(n)
}

p <- 22
m <- 44
rows <- list()
for (log2n in c(18, 22)) {
  n <- 2^log2n
  set.seed(1)
  x <- matrix(rnorm(n * p), n, p)
  reps_fast <- if (log2n == 18) 10 else 3
  reps_slow <- if (log2n == 18) 3 else 1
  res <- rbind(
    crossprod = measure(function() crossprod(x), reps_fast),
    # the Eigen rank-k update dp_compress uses for X'X (one pass, no BLAS)
    crossprod_eigen = measure(function() dpcov:::crossprod_cpp(x), reps_fast),
    # m = 44 is below 2 (C1 + C2) ln(2np) here: silence that (expected) warning
    gram = measure(function() suppressWarnings(dp_compress(x, m)), reps_fast),
    explicit = measure(function() suppressWarnings(dp_compress(x, m, method = "explicit")), reps_slow),
    naive_R = measure(function() naive_compress(x, m), reps_slow)
  )
  rows[[length(rows) + 1]] <- data.frame(n = sprintf("2^%d", log2n), path = rownames(res),
                                         seconds = res[, "seconds"], cpu = res[, "cpu"],
                                         extra_mb = res[, "extra_mb"],
                                         row.names = NULL)
  rm(x)
  invisible(gc())
}
tab <- do.call(rbind, rows)
tab$x_crossprod <- tab$seconds / ave(tab$seconds, tab$n, FUN = function(s) s[1])
tab$naive_over_this <- ave(tab$seconds, tab$n, FUN = function(s) s[5]) / tab$seconds
tab$cpu_x_crossprod <- tab$cpu / ave(tab$cpu, tab$n, FUN = function(s) s[1])
tab$cpu_naive_over_this <- ave(tab$cpu, tab$n, FUN = function(s) s[5]) / tab$cpu
cat(sprintf("p = %d, m = %d; X alone is n p 8 bytes = %.0f MB at n = 2^22; m x n Phi would be %.0f MB\n",
            p, m, 2^22 * p * 8 / 2^20, 2^22 * m * 8 / 2^20))
print(format(tab, digits = 3), row.names = FALSE)
cat("\nx_crossprod: time / time of crossprod(X); naive_over_this: naive R time / time;\n")
cat("cpu_*: the same ratios of CPU seconds (user + system).\n")
cat("extra_mb: peak resident memory above the resident size before the call.\n")
cat(R.version.string, "|", sessionInfo()$BLAS, "|", parallel::detectCores(), "cores\n")

# Peak memory of the explicit path does not grow with m (the naive path's
# grows like m x n): n = 2^18, m = 44 and 352.
set.seed(2)
x <- matrix(rnorm(2^18 * p), 2^18, p)
mem <- do.call(rbind, lapply(c(44, 352), function(mm) data.frame(
  m = mm,
  explicit_extra_mb = measure(function() suppressWarnings(dp_compress(x, mm, method = "explicit")), 1)[["extra_mb"]],
  naive_extra_mb = measure(function() naive_compress(x, mm), 1)[["extra_mb"]],
  m_x_n_mb = mm * 2^18 * 8 / 2^20)))
cat("\nPeak extra memory (MB), n = 2^18, p = 22:\n")
print(format(mem, digits = 3), row.names = FALSE)
