# Benchmark of the clipped Gram pass behind every family (second_moment(),
# the thresholding releases and their CV, Sheffet's fast paths). Run from the
# package root with dpcov installed:  Rscript bench/gram.R
# Set DPCOV_BENCH_PART=speed (GFLOP/s only) or =overhead (the second table
# only); both by default.
#
# Part 1, speed: GFLOP/s of second_moment() (n p(p+1) flops per Gram: the
# p(p+1)/2 entries of its triangle, one multiply and one add per row each),
# with clipping (B = 1, about half the rows clipped) and without, at
# p = 20, 50, 200, with 1 and 2 threads (options(dpcov.threads)). Builds
# without the option (before issue 21) run serially whatever it says, and
# the table says so. Configurations are timed in turn within each of 9
# rounds; median GFLOP/s of wall time (min and max beside it), and flops per
# CPU-second of the process (user + system: a thread's share of a busy
# machine's cores does not count; with 2 threads it sums both). Against
# the machine's peak: measured (two threads, each running independent AVX2
# FMA chains, compiled here with Rcpp) and theoretical (cores x clock x 16
# double flops per cycle: two 4-wide FMA units).
#
# Part 2, overhead: second_moment() (input checks + kernel, with NA/NaN/Inf
# detected inside the kernel's pass) against the bare C++ kernel
# clipped_gram_cpp() called directly, timed in turn within each of 15 rounds
# (order alternating); the table gives median seconds and the median
# per-round ratio. Plain R (rows scaled to norm <= B, then crossprod() with
# R's reference BLAS) for scale.
suppressPackageStartupMessages(library(dpcov))
part <- Sys.getenv("DPCOV_BENCH_PART", "both")
elapsed <- function(f) {
  t0 <- proc.time()[["elapsed"]]
  f()
  proc.time()[["elapsed"]] - t0
}
plain_r <- function(x, B) {
  s <- pmin(1, B / sqrt(rowSums(x^2)))
  crossprod(x * s)
}
threaded <- "threads" %in% names(formals(dpcov:::clipped_gram_cpp))
cat("dpcov from", find.package("dpcov"), if (threaded) "(threads option)" else "(serial build)", "\n")

peak_gflops <- function() {
  ok <- tryCatch({
    Rcpp::cppFunction(plugins = "openmp", includes = "#include <immintrin.h>\n#ifdef _OPENMP\n#include <omp.h>\n#endif", code = '
      double fma_peak(double iters, int threads) {
        long it = static_cast<long>(iters);
        double sink = 0;
        #pragma omp parallel num_threads(threads) reduction(+ : sink)
        {
          sink += [](long it) __attribute__((target("avx2,fma"))) {
            // ten independent chains in registers: enough to cover the FMA latency
            __m256d m = _mm256_set1_pd(0.9999999), c = _mm256_set1_pd(1e-9);
            __m256d a0 = _mm256_set1_pd(1), a1 = _mm256_set1_pd(2), a2 = _mm256_set1_pd(3), a3 = _mm256_set1_pd(4),
                    a4 = _mm256_set1_pd(5), a5 = _mm256_set1_pd(6), a6 = _mm256_set1_pd(7), a7 = _mm256_set1_pd(8),
                    a8 = _mm256_set1_pd(9), a9 = _mm256_set1_pd(10);
            for (long i = 0; i < it; ++i) {
              a0 = _mm256_fmadd_pd(a0, m, c); a1 = _mm256_fmadd_pd(a1, m, c); a2 = _mm256_fmadd_pd(a2, m, c);
              a3 = _mm256_fmadd_pd(a3, m, c); a4 = _mm256_fmadd_pd(a4, m, c); a5 = _mm256_fmadd_pd(a5, m, c);
              a6 = _mm256_fmadd_pd(a6, m, c); a7 = _mm256_fmadd_pd(a7, m, c); a8 = _mm256_fmadd_pd(a8, m, c);
              a9 = _mm256_fmadd_pd(a9, m, c);
            }
            __m256d s = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)),
                                      _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a4, a5), _mm256_add_pd(a6, a7)),
                                                    _mm256_add_pd(a8, a9)));
            double out[4];
            _mm256_storeu_pd(out, s);
            return out[0] + out[1] + out[2] + out[3];
          }(it);
        }
        return sink;
      }')
    TRUE
  }, error = function(e) FALSE)
  if (!ok) return(NA_real_)
  it <- 5e7
  fma_peak(1e6, 2)
  best <- max(vapply(1:5, function(i) {
    t <- elapsed(function() fma_peak(it, 2))
    2 * it * 10 * 8 / t / 1e9  # 2 threads, 10 chains, 4 lanes x 2 flops
  }, numeric(1)))
  best
}

if (part %in% c("both", "speed")) {
  set.seed(1)
  shapes <- data.frame(n = c(2e5, 1e5, 2e4), p = c(20, 50, 200))
  configs <- expand.grid(threads = 1:2, clip = c(1, Inf))
  gram_call <- function(x, clip, threads) {
    options(dpcov.threads = threads)
    second_moment(x, clip = clip)
  }
  rounds <- 9
  res <- do.call(rbind, lapply(seq_len(nrow(shapes)), function(s) {
    n <- shapes$n[s]; p <- shapes$p[s]
    x <- matrix(rnorm(n * p), n, p) / sqrt(p)  # about half the rows clipped at B = 1
    stopifnot(isTRUE(all.equal(second_moment(x, clip = 1)$gram, plain_r(x, 1), check.attributes = FALSE)))
    flops <- n * p * (p + 1)
    reps <- max(1, round(2e9 / flops))  # about 0.1 s per timing at 20 GFLOP/s
    g <- gc_ <- matrix(NA_real_, rounds, nrow(configs))
    for (r in seq_len(rounds)) {
      ord <- if (r %% 2) seq_len(nrow(configs)) else rev(seq_len(nrow(configs)))
      for (k in ord) {
        t0 <- proc.time()
        for (i in seq_len(reps)) gram_call(x, configs$clip[k], configs$threads[k])
        t <- proc.time() - t0
        g[r, k] <- flops * reps / t[["elapsed"]] / 1e9
        gc_[r, k] <- flops * reps / (t[["user.self"]] + t[["sys.self"]]) / 1e9
      }
    }
    options(dpcov.threads = NULL)
    data.frame(n = n, p = p, clip = ifelse(configs$clip == 1, "B = 1", "none"),
               threads = if (threaded) configs$threads else "1 (serial build)",
               GFLOPs = apply(g, 2, median), GFLOPs_min = apply(g, 2, min), GFLOPs_max = apply(g, 2, max),
               GFLOP_per_cpu_s = apply(gc_, 2, median))
  }))
  peak <- peak_gflops()
  mhz <- suppressWarnings(as.numeric(sub(".*: ", "", grep("^cpu MHz", readLines("/proc/cpuinfo"), value = TRUE)[1])))
  theory <- parallel::detectCores() * mhz / 1e3 * 16
  res$pct_of_measured_peak <- round(100 * res$GFLOPs / peak, 1)
  cat("\n## Clipped Gram GFLOP/s (n p(p+1) flops), median of", rounds, "interleaved rounds\n")
  print(res[order(res$p, res$clip, res$threads), ], digits = 3, row.names = FALSE)
  cat(sprintf("\nPeak: measured %.1f GFLOP/s (2 threads, AVX2 FMA chains); theoretical %.1f GFLOP/s (%d cores x %.2f GHz x 16)\n",
              peak, theory, parallel::detectCores(), mhz / 1e3))
}

if (part %in% c("both", "overhead")) {
  options(dpcov.threads = 1)  # the bare kernel below runs serially too
  set.seed(1)
  shapes <- data.frame(n = c(2000, 2^16, 2^20), p = c(500, 200, 20))
  res <- do.call(rbind, lapply(seq_len(nrow(shapes)), function(i) {
    n <- shapes$n[i]; p <- shapes$p[i]
    x <- matrix(rnorm(n * p), n, p) / sqrt(p)   # about half the rows clipped at B = 1
    stopifnot(isTRUE(all.equal(second_moment(x, clip = 1)$gram, plain_r(x, 1), check.attributes = FALSE)))
    rounds <- 15
    t <- matrix(0, rounds, 2)
    for (r in seq_len(rounds)) {
      if (r %% 2) {
        t[r, 1] <- elapsed(function() dpcov:::clipped_gram_cpp(x, 1))
        t[r, 2] <- elapsed(function() second_moment(x, clip = 1))
      } else {
        t[r, 2] <- elapsed(function() second_moment(x, clip = 1))
        t[r, 1] <- elapsed(function() dpcov:::clipped_gram_cpp(x, 1))
      }
    }
    t_r <- median(replicate(3, elapsed(function() plain_r(x, 1))))
    data.frame(n = n, p = p, kernel_s = median(t[, 1]), second_moment_s = median(t[, 2]),
               second_moment_over_kernel = median(t[, 2] / t[, 1]), plain_R_s = t_r,
               plain_R_over_second_moment = t_r / median(t[, 2]))
  }))
  options(dpcov.threads = NULL)
  cat("\n## Clipped Gram (1 thread): second_moment() against the bare kernel and plain R\n")
  print(res, digits = 3, row.names = FALSE)
}
cat("\nMachine:", R.version.string, "|", parallel::detectCores(), "cores |",
    sessionInfo()$BLAS, "| load average:", readLines("/proc/loadavg"), "\n")
