# The default's search range for private bounds (dp_column_bounds()'s
# `range`, +/- 1e6): what a wider default would cost and gain (session of
# 2026-11-26, third). Median relative Frobenius and spectral error of
# dp_cov()'s default over REPS releases (default 30) per cell, replace-one,
# delta 1e-6, for range 1e6, 1e9 and 1e12 (set in the namespace for the
# run only). Run from the package root:  Rscript bench/default-range.R
# Needs ggplot2, MASS and palmerpenguins.
suppressPackageStartupMessages(library(dpcov))
options(dpcov.noise_warning = FALSE)
reps <- as.integer(Sys.getenv("REPS", "30"))
ranges <- as.numeric(strsplit(Sys.getenv("RANGES", "1e6,1e9,1e12"), ",")[[1]])
sets <- list()
d <- as.data.frame(ggplot2::diamonds)[c("carat", "depth", "table", "price", "x", "y", "z")]
sets$diamonds <- as.matrix(d)
d <- as.data.frame(palmerpenguins::penguins)[c("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g")]
sets$penguins <- as.matrix(d[complete.cases(d), ])
sets$quakes <- as.matrix(datasets::quakes)
tx <- as.data.frame(ggplot2::txhousing)[c("sales","volume","median","listings","inventory")]
sets$txhousing <- as.matrix(tx[complete.cases(tx), ])
sets$midwest <- as.matrix(as.data.frame(ggplot2::midwest)[c("poptotal","popdensity","percwhite","percbelowpoverty","percollege")])
sets$boston <- as.matrix(MASS::Boston[setdiff(names(MASS::Boston), c("chas", "rad"))])
ns <- asNamespace("dpcov")
def <- get("column_bounds_defaults", ns)
setr <- function(r) { d2 <- def; d2$range <- r; unlockBinding("column_bounds_defaults", ns); assign("column_bounds_defaults", d2, ns); lockBinding("column_bounds_defaults", ns) }
out <- NULL
for (nm in names(sets)) {
  x <- sets[[nm]]; n <- nrow(x); S <- cov(x) * (n - 1) / n
  for (e in c(0.5, 1, 4)) for (i in seq_len(reps)) for (r in ranges) {
    setr(r)
    set.seed(1000 * i + round(10 * e))
    rel <- dp_cov(x, e, 1e-6, neighbor = "replace-one")
    Sh <- rel$estimate
    out <- rbind(out, data.frame(set = nm, eps = e, rep = i, range = r,
      frob = norm(Sh - S, "F") / norm(S, "F"), spec = norm(Sh - S, "2") / norm(S, "2"), level = rel$diagnostics$level))
  }
  cat(nm, "done\n")
}
setr(1e6)

agg <- aggregate(cbind(frob, spec) ~ set + eps + range, out, median)
agg <- agg[order(agg$set, agg$eps, agg$range), ]
print(agg, digits = 3)
