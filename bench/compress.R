# Benchmark of dp_compress(): the exact fast path (method = "gram"), the
# explicit C++ path (Phi streamed in m x 256 tiles) and naive R
# (Phi <- rnorm(m * n); Phi %*% X), against X'X alone (one pass over X, the
# floor of the fast path): Eigen's rank-k update (crossprod_cpp) and R's
# crossprod() with the BLAS, both timed. Also the peak resident memory of
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

# CPU seconds (user + system) of one call: robust when other jobs share the
# cores (the package is single-threaded, so CPU time is its work).
cpu <- function(f) {
  t <- system.time(f(), gcFirst = FALSE)
  t[["user.self"]] + t[["sys.self"]]
}
p <- 22
m <- 44
rows <- list()
for (log2n in c(18, 22)) {
  n <- 2^log2n
  set.seed(1)
  x <- matrix(rnorm(n * p), n, p)
  fast <- list(
    # X'X by Eigen's symmetric rank-k update alone (crossprod_cpp: the
    # product dp_compress builds on, nothing else)
    eigen_XtX = function() dpcov:::crossprod_cpp(x),
    R_crossprod = function() crossprod(x),
    # m = 44 is below 2 (C1 + C2) ln(2np) here: silence that (expected) warning
    gram = function() suppressWarnings(dp_compress(x, m)))
  # the fast paths timed in turn within each round, order rotating
  rounds <- if (log2n == 18) 15 else 7
  t <- matrix(0, rounds, length(fast), dimnames = list(NULL, names(fast)))
  for (r in seq_len(rounds)) {
    for (k in (seq_along(fast) + r - 2) %% length(fast) + 1) t[r, k] <- cpu(fast[[k]])
  }
  slow_reps <- if (log2n == 18) 3 else 1
  t_explicit <- median(replicate(slow_reps, cpu(function() suppressWarnings(dp_compress(x, m, method = "explicit")))))
  t_naive <- median(replicate(slow_reps, cpu(function() naive_compress(x, m))))
  mem <- sapply(list(eigen_XtX = fast$eigen_XtX, gram = fast$gram), function(f) measure(f, 1)[["extra_mb"]])
  rows[[length(rows) + 1]] <- data.frame(
    n = sprintf("2^%d", log2n),
    path = c(names(fast), "explicit", "naive_R"),
    cpu_s = c(apply(t, 2, median), t_explicit, t_naive),
    over_eigen_XtX = c(median(t[, 1] / t[, 1]), median(t[, 2] / t[, 1]), median(t[, 3] / t[, 1]),
                       t_explicit / median(t[, 1]), t_naive / median(t[, 1])),
    naive_over_this = t_naive / c(apply(t, 2, median), t_explicit, t_naive),
    extra_mb = c(mem[["eigen_XtX"]], NA, mem[["gram"]], NA, NA),
    row.names = NULL)
  rm(x)
  invisible(gc())
}
tab <- do.call(rbind, rows)
cat(sprintf("p = %d, m = %d; X alone is n p 8 bytes = %.0f MB at n = 2^22; m x n Phi would be %.0f MB\n",
            p, m, 2^22 * p * 8 / 2^20, 2^22 * m * 8 / 2^20))
print(format(tab, digits = 3), row.names = FALSE)
cat("\ncpu_s: median CPU seconds; over_eigen_XtX: median per-round ratio to Eigen's X'X\n")
cat("(explicit and naive: ratio of medians); naive_over_this: naive R CPU / this CPU;\n")
cat("extra_mb: peak resident memory above the resident size before the call.\n")
cat(R.version.string, "|", sessionInfo()$BLAS, "|", parallel::detectCores(), "cores | load average:",
    readLines("/proc/loadavg"), "\n")

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
