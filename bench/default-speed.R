# Time of the default dp_cov() (private per-column bounds) on 2e5 x 10 Gaussian
# data, median of 3, for one installed build given as the library path:
#   Rscript bench/default-speed.R <lib>
# (run interleaved against another build for an A/B; bench/RESULTS.md).
lib <- commandArgs(TRUE)[1]
suppressPackageStartupMessages(library(dpcov, lib.loc = lib))
set.seed(1); x <- matrix(rnorm(2e5 * 10), 2e5, 10)
t <- replicate(3, system.time(suppressWarnings(dp_cov(x, 1, 1e-6)))[["elapsed"]])
cat(lib, "dp_cov default 2e5 x 10:", median(t), "s\n")
