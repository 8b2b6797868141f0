# The private bounds' refinement step on a logarithmic axis: does it stop
# the default's upper bound overshooting a short, sparse tail (diamonds'
# price: median near 25,500 against a maximum of 18,823), and at what cost?
# The variant searches the refinement's window [h, h + 3w] (h the first
# upper bound, w = h - median) on the axis log1p((x - h) / (kappa w)) with
# the base measure exp(-s / lambda) there, instead of exp(-2 (x - h) / w) on
# the linear axis (the lower bound mirrored). It patches
# column_bounds_mechanism() of the installed dpcov by text substitution
# (written against commit 1b9e55e; it stops if the text is not found). Since
# 6895da9 the package searches the refinement on this logarithmic axis
# (kappa 1e-3, lambda 3), so the substitution finds nothing: run the script
# on a checkout of 1b9e55e (bench/RESULTS.md has its output).
# Part 1 prints the price's upper bound (10/50/90% over 30 draws, the
# bounds' share of dp_cov()'s default budget), the clamped share and
# variance bias of test-column-bounds.R's lognormal (n epsilon 6e3, 6e4,
# 6e5) and its heavy-tail checks; part 2 (REPS, default 40) dp_cov()'s
# default error on the peers' data sets. A study, not a method of the
# package. Run from the package sources: Rscript bench/refine-axis.R
library(dpcov)
ns <- asNamespace("dpcov")
orig <- get("column_bounds_mechanism", ns)
src <- deparse(orig)
# the variant: the refinement on the axis log1p(u / kappa), decaying base measure lambda there
make_variant <- function(kappa, lambda) {
  txt <- paste(src, collapse = "\n")
  txt <- sub("u <- pmin(pmax((v - hi)/w, 0), column_bounds_reach)\n        hi <- hi + w * interval_exp_mech(c(0, u, column_bounds_reach), \n            -abs(n - i - m2), eps_q, sens, column_bounds_refine_decay)",
             sprintf("u <- log1p(pmin(pmax((v - hi)/w, 0), column_bounds_reach) / %g)\n        hi <- hi + w * %g * expm1(interval_exp_mech(c(0, u, log1p(column_bounds_reach / %g)), -abs(n - i - m2), eps_q, sens, %g))", kappa, kappa, kappa, lambda), txt, fixed = TRUE)
  txt <- sub("u <- pmin(pmax((v - lo)/w, -column_bounds_reach), 0)\n        lo <- lo + w * interval_exp_mech(c(-column_bounds_reach, \n            u, 0), -abs(i - m2), eps_q, sens, column_bounds_refine_decay)",
             sprintf("u <- -log1p(-pmin(pmax((v - lo)/w, -column_bounds_reach), 0) / %g)\n        lo <- lo - w * %g * expm1(-interval_exp_mech(c(-log1p(column_bounds_reach / %g), u, 0), -abs(i - m2), eps_q, sens, %g))", kappa, kappa, kappa, lambda), txt, fixed = TRUE)
  stopifnot(grepl("log1p", txt))
  f <- eval(parse(text = txt)); environment(f) <- ns; f
}
use <- function(f) { unlockBinding("column_bounds_mechanism", ns); assign("column_bounds_mechanism", f, ns); lockBinding("column_bounds_mechanism", ns) }
clamp_stats <- function(x, b) { cl <- pmin(pmax(x, b$bounds$lower), b$bounds$upper); c(share = mean(x < b$bounds$lower | x > b$bounds$upper), bias = 1 - stats::var(cl) / stats::var(x)) }
d <- as.data.frame(ggplot2::diamonds)[c("carat", "depth", "table", "price", "x", "y", "z")]; X <- as.matrix(d)
variants <- list(current = orig, k1e3_l2 = make_variant(1e-3, 2), k1e3_l3 = make_variant(1e-3, 3), k1e3_l4 = make_variant(1e-3, 4))
for (nm in names(variants)) {
  use(variants[[nm]])
  set.seed(5)
  r <- sapply(c(1, 4), function(eps) { h <- replicate(30, { b <- dp_column_bounds(X, 0.3 * eps, 3e-7)$bounds; c(b$upper[4], b$lower[4]) }); c(quantile(h[1, ], c(.1, .5, .9)), lo = median(h[2, ])) })
  set.seed(47); x <- matrix(exp(rnorm(20000)), ncol = 1)
  ln <- sapply(c(0.3, 3, 30), function(eps) rowMeans(replicate(20, clamp_stats(x, dp_column_bounds(x, eps)))))
  set.seed(53); Xh <- cbind(big = rnorm(20000, 1e5, 1), t2 = rt(20000, 2), e = rexp(20000) * 1e3)
  hv <- replicate(5, { b <- dp_column_bounds(Xh, 1, 1e-6)$bounds; q <- apply(Xh, 2, quantile, c(.01, .99)); w <- apply(Xh, 2, function(v) diff(quantile(v, c(.001, .999))))
     c(enclose = all(b$lower < q[1, ] & b$upper > q[2, ]), maxw = max((b$upper - b$lower) / w)) })
  cat(sprintf("%-8s price hi eps1 q10/50/90 %s | eps4 %s | lognormal share %s bias %s | heavy enclose %s maxw %.2f\n", nm,
              paste(round(r[1:3, 1]), collapse = "/"), paste(round(r[1:3, 2]), collapse = "/"),
              paste(signif(ln["share", ], 2), collapse = "/"), paste(signif(ln["bias", ], 2), collapse = "/"), mean(hv[1, ]), max(hv[2, ])))
}

# ---- part 2: dp_cov()'s default on the peers' data sets ----
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
options(dpcov.noise_warning = FALSE)
variants <- list(current = orig, k1e3_l3 = make_variant(1e-3, 3))
reps <- as.integer(Sys.getenv("REPS", "40"))
out <- NULL
for (ds in names(datasets)) {
  x <- datasets[[ds]]$x; S <- cov(x) * (nrow(x) - 1) / nrow(x)
  for (eps in epsilons) {
    if (ds == "diamonds" && eps < 1) next
    for (nm in names(variants)) {
      use(variants[[nm]]); set.seed(100 + 10 * eps)
      e <- replicate(reps, { r <- suppressWarnings(dp_cov(x, eps, delta, neighbor = "replace-one")); c(norm(r$estimate - S, "F") / norm(S, "F"), norm(r$estimate - S, "2") / norm(S, "2")) })
      out <- rbind(out, data.frame(ds = ds, eps = eps, variant = nm, frob = median(e[1, ]), spec = median(e[2, ])))
    }
  }
}
w <- reshape(out, idvar = c("ds", "eps"), timevar = "variant", direction = "wide")
print(w, digits = 3)
