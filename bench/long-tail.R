# The default's private bounds on long tails (session of 2026-11-26, third):
# per column, how lopsided the released bounds are about the private median
# (max of (upper - center) / (center - lower) and its inverse), their reach
# in private spreads, and the share of the variance the release keeps, on
# real and simulated data, 10 releases per cell, replace-one, delta 1e-6.
# Capped first stages (n epsilon too small) are left out: they are diagnosed
# on their own. Run from the package root:  Rscript bench/long-tail.R
# Needs ggplot2 and MASS.
suppressPackageStartupMessages(library(dpcov))
options(dpcov.noise_warning = FALSE)
sets <- list()
sets$midwest <- as.matrix(as.data.frame(ggplot2::midwest)[c("poptotal","popdensity","percwhite","percbelowpoverty","percollege")])
sets$boston <- as.matrix(MASS::Boston[c("crim","rm","age","dis","black","lstat","medv")])
sets$quakes <- as.matrix(datasets::quakes)
d <- as.data.frame(ggplot2::diamonds)[c("carat", "price", "x", "depth")]
sets$diamonds <- as.matrix(d)
set.seed(3); sets$normal <- matrix(rnorm(20000), 5000, 4, dimnames = list(NULL, paste0("n", 1:4)))
sets$exp <- matrix(rexp(20000), 5000, 4, dimnames = list(NULL, paste0("e", 1:4)))
sets$lnorm <- matrix(rlnorm(20000), 5000, 4, dimnames = list(NULL, paste0("l", 1:4)))
out <- NULL
for (nm in names(sets)) for (e in c(1, 4, 16)) for (i in 1:10) {
  x <- sets[[nm]]; S <- diag(cov(x))
  r <- dp_cov(x, e, 1e-6, neighbor = "replace-one")
  cb <- r$params$column_bounds; bd <- r$params$bounds[names(cb$scale), ]
  up <- (bd$upper - cb$center) / cb$scale; lo <- (cb$center - bd$lower) / cb$scale
  out <- rbind(out, data.frame(set = nm, eps = e, col = names(cb$scale), share = cb$clamped_share,
     reach = pmax(up, lo), asym = pmax(up / lo, lo / up), var = diag(r$estimate)[names(cb$scale)] / S[names(cb$scale)],
     capped = isTRUE(r$diagnostics$bounds_capped)))
}
out <- out[!out$capped, ]
agg <- aggregate(cbind(share, reach, asym, var) ~ set + eps + col, out, median)
print(agg[order(agg$set, agg$col, agg$eps), ], digits = 3, row.names = FALSE)
# per-release: how well asym > k separates var < 0.8
for (k in c(2.5, 3, 4, 5)) cat("k", k, ": flagged", mean(out$asym > k), " var<0.8 among flagged", mean(out$var[out$asym > k] < 0.8),
  " var<0.8 among unflagged", mean(out$var[out$asym <= k] < 0.8), "\n")

