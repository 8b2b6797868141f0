# The long-tail diagnostic at large n epsilon: how lopsided the default's private
# bounds are (k, the far bound's distance from the private median over the near
# one's), the share of rows they target beyond each end, and the share of the
# variance the clamped column keeps, on synthetic tails and real columns (each
# column next to a normal one, 4 releases per cell). Run from the package root:
#   Rscript bench/long-tail-gate.R
# Results: bench/RESULTS.md, "The long-tail check at large n epsilon".
suppressPackageStartupMessages(library(dpcov))
set.seed(1)
gens <- list(
  exp = function(n) rexp(n), lnorm1 = function(n) rlnorm(n, 0, 1), lnorm2 = function(n) rlnorm(n, 0, 2),
  lnorm25 = function(n) rlnorm(n, 0, 2.5), pareto25 = function(n) runif(n)^(-1 / 2.5), pareto15 = function(n) runif(n)^(-1 / 1.5),
  t2 = function(n) rt(n, 2), t5 = function(n) rt(n, 5), gamma05 = function(n) rgamma(n, 0.5), chisq3 = function(n) rchisq(n, 3))
dsets <- list(diamonds_price = ggplot2::diamonds$price, diamonds_carat = ggplot2::diamonds$carat, quakes_stations = quakes$stations,
  quakes_depth = quakes$depth, boston_crim = MASS::Boston$crim, boston_black = MASS::Boston$black, midwest_pop = ggplot2::midwest$poptotal,
  faithful_w = faithful$waiting)
# One release of the column x (next to a normal one): its lopsidedness k, the
# share targeted beyond each bound, the share clamped, the variance kept.
one_cell <- function(x, nm, eps) {
  n <- length(x)
  b <- suppressWarnings(dp_column_bounds(cbind(a = x, b = rnorm(n)), eps, 1e-6))
  lo <- b$bounds$lower[1]; hi <- b$bounds$upper[1]; ce <- b$center[1]
  up <- hi - ce; dn <- ce - lo
  data.frame(data = nm, n = n, eps = eps, skew = if (up > 0 && dn > 0) max(up / dn, dn / up) else Inf,
             share = b$clamped_share, real_share = mean(x < lo | x > hi), kept = var(pmin(pmax(x, lo), hi)) / var(x))
}
rows <- list()
for (nm in names(gens)) for (n in c(500, 5000, 50000)) for (eps in c(1, 4, 16)) {
  x <- gens[[nm]](n)
  for (rep in 1:4) rows[[length(rows) + 1]] <- one_cell(x, nm, eps)
}
for (nm in names(dsets)) for (eps in c(1, 4, 16)) {
  for (rep in 1:4) rows[[length(rows) + 1]] <- one_cell(dsets[[nm]], nm, eps)
}
d <- do.call(rbind, rows)
d$risk <- d$share * d$skew^2
agg <- aggregate(cbind(skew, share, real_share, kept) ~ data + n + eps, d, median)
print(agg[order(agg$data, agg$n, agg$eps), ], digits = 3, row.names = FALSE)
# per release, below the 0.5% share: the variance kept by bins of share * k^2
x <- d[d$share < 0.005 & d$skew > 4, ]
x$bin <- cut(x$risk, c(0, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 3, 10, Inf))
print(do.call(rbind, lapply(split(x, x$bin), function(g) if (nrow(g)) {
  data.frame(releases = nrow(g), kept_below_0.8 = mean(g$kept < 0.8), kept_q10 = quantile(g$kept, 0.1),
             kept_median = median(g$kept))
})), digits = 2)
