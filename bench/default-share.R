# dp_cov()'s and dp_lm()'s default (no bounds given): how much of the budget
# the private per-column bounds should take, now that the bounds and the
# release compose by zCDP (composed_gaussian()). For bound_share 0.15, 0.2
# and 0.25 (the bounds take twice that share of epsilon and delta), the
# median relative Frobenius and spectral error of dp_cov()'s default against
# stats::cov() on bench/peers.R's data sets, as a ratio to the best peer's
# median in inst/extdata/peers-summary.csv, and dp_lm()'s median slope
# error against lm(). Replace-one, delta = 1e-6, REPS releases per cell
# (default 100), the same seed per cell for every share. A study, not a
# method of the package. Run from the package sources:
#   REPS=100 Rscript bench/default-share.R
suppressMessages(library(dpcov))
source("bench/peers-setup.R")  # data sets, bounds, baselines, metrics
options(dpcov.noise_warning = FALSE)
summ <- read.csv("inst/extdata/peers-summary.csv")
reps <- as.integer(Sys.getenv("REPS", "100"))
shares <- as.numeric(strsplit(Sys.getenv("SHARES", "0.15,0.2,0.25"), ",")[[1]])
rel_err <- function(est, S) c(norm(est - S, "F") / norm(S, "F"), norm(est - S, "2") / norm(S, "2"))
cov_rows <- lm_rows <- NULL
for (ds in names(datasets)) {
  D <- datasets[[ds]]
  x <- D$x
  S <- stats::cov(x) * (nrow(x) - 1) / nrow(x)
  fit0 <- stats::lm(D$formula, D$data)
  xcols <- names(stats::coef(fit0))[-1]
  ref <- stats::coef(fit0)[xcols]
  for (eps in epsilons) {
    s <- summ[summ$dataset == ds & summ$epsilon == eps, ]
    best <- s[s$method %in% c("textbook", "textbook box", "DPpack"), ]
    for (bs in shares) {
      set.seed(100 + 10 * eps)
      e <- replicate(reps, rel_err(suppressWarnings(dp_cov(x, eps, delta, neighbor = "replace-one",
                                                           bound_share = bs))$estimate, S))
      cov_rows <- rbind(cov_rows, data.frame(data = ds, n = nrow(x), epsilon = eps, bound_share = bs,
                                             frob = stats::median(e[1, ]), spec = stats::median(e[2, ]),
                                             frob_ratio = stats::median(e[1, ]) / min(best$frob),
                                             spec_ratio = stats::median(e[2, ]) / min(best$spec)))
      set.seed(11 + 10 * eps)
      b <- replicate(reps, {
        f <- suppressWarnings(dp_lm(D$formula, D$data, eps, delta, neighbor = "replace-one", B = 0,
                                    bound_share = bs))
        sqrt(sum((stats::coef(f)[xcols] - ref)^2)) / sqrt(sum(ref^2))
      })
      lm_rows <- rbind(lm_rows, data.frame(data = ds, epsilon = eps, bound_share = bs,
                                           slope_err = stats::median(b)))
    }
    message(sprintf("%s eps = %s done", ds, format(eps)))
  }
}
wide <- function(d, v) {
  w <- reshape(d[c("data", "epsilon", "bound_share", v)], direction = "wide", idvar = c("data", "epsilon"),
               timevar = "bound_share")
  names(w) <- sub(paste0("^", v, "\\."), paste0(v, " "), names(w))
  w
}
cat(sprintf("dpcov %s, %d releases per cell, replace-one, delta = %g\n\n", utils::packageVersion("dpcov"),
            reps, delta))
cat("dp_cov() default, Frobenius error / best peer's, by bound_share\n")
print(wide(cov_rows, "frob_ratio"), digits = 3, row.names = FALSE)
cat("\ndp_cov() default, spectral error / best peer's, by bound_share\n")
print(wide(cov_rows, "spec_ratio"), digits = 3, row.names = FALSE)
cat("\ndp_lm() default, median relative slope error, by bound_share\n")
print(wide(lm_rows, "slope_err"), digits = 3, row.names = FALSE)
