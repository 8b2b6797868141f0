# The default's diagnostics on 14 public data sets (session of 2026-11-26,
# third): 15 releases of dp_cov()'s default (no bounds, replace-one, delta
# 1e-6) per data set at epsilon 0.5, 2 and 8; how often a release whose
# relative Frobenius error is above 1 (or 0.5) is graded "ok" (missed), and
# how often one below 0.2 is graded "mostly noise" (alarm). Run from the
# package root:  Rscript bench/default-alarms.R  (needs ggplot2, MASS,
# palmerpenguins; about 5 minutes).
set.seed(2026)
suppressPackageStartupMessages(library(dpcov)); options(dpcov.noise_warning = FALSE)
num <- function(d) { d <- as.data.frame(d); d <- d[vapply(d, is.numeric, NA)]; as.matrix(d[complete.cases(d), ]) }
sets <- list(boston = num(MASS::Boston), airquality = num(airquality), txhousing = num(ggplot2::txhousing[c("sales","volume","median","listings","inventory")]),
  midwest = num(ggplot2::midwest[c("poptotal","popdensity","percwhite","percbelowpoverty","percollege")]), mpg = num(ggplot2::mpg[c("displ","year","cyl","cty","hwy")]),
  penguins = num(palmerpenguins::penguins[c("bill_length_mm","bill_depth_mm","flipper_length_mm","body_mass_g")]), quakes = num(quakes),
  faithful = num(faithful), trees = num(trees), usarrests = num(USArrests), swiss = num(swiss), iris = num(iris[1:4]), mtcars = num(mtcars),
  diamonds = num(ggplot2::diamonds[sample(nrow(ggplot2::diamonds), 5000), c("carat","depth","table","price","x","y","z")]))
out <- NULL
for (nm in names(sets)) for (e in c(0.5, 2, 8)) for (i in 1:15) {
  x <- sets[[nm]]; n <- nrow(x); S <- cov(x) * (n - 1) / n
  set.seed(i * 100 + e * 10)
  r <- dp_cov(x, e, 1e-6, neighbor = "replace-one")
  out <- rbind(out, data.frame(set = nm, n = n, eps = e, err = norm(r$estimate - S, "F") / norm(S, "F"),
                               level = r$diagnostics$level, warned = r$diagnostics$level == "mostly noise"))
}

cat("missed (err > 1, level ok):", sum(out$err > 1 & out$level == "ok"), "of", sum(out$err > 1), "\n")
cat("missed (err > 0.5, level ok):", sum(out$err > 0.5 & out$level == "ok"), "of", sum(out$err > 0.5), "\n")
cat("false alarm (err < 0.2, mostly noise):", sum(out$err < 0.2 & out$warned), "of", sum(out$err < 0.2), "\n")
print(aggregate(cbind(err, ok = level == "ok", noisy = level == "noisy", mostly = warned) ~ set + eps, out, function(v) round(median(v), 3)))
print(subset(out, (err > 0.5 & level == "ok") | (err < 0.2 & warned)))
