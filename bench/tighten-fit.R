# (run from the package sources)
source("bench/peers-setup.R")
library(dpcov); options(dpcov.noise_warning = FALSE)
reps <- as.integer(Sys.getenv("REPS", "200"))
ds <- Sys.getenv("DS")
set.seed(31); out <- list()
D <- datasets[[ds]]; x <- D$x; n <- nrow(x); b <- D$bounds[colnames(x), ]
S <- stats::cov(x) * (n - 1) / n
vars <- all.vars(D$formula); xcols <- vars[-1]; ycol <- vars[1]
bl <- D$bounds[c(xcols, ycol), ]
XY <- as.matrix(D$data[c(xcols, ycol)])
lo <- setNames(bl$lower, c(xcols, ycol)); up <- setNames(bl$upper, c(xcols, ycol))
ref <- stats::coef(stats::lm(D$formula, D$data))[xcols]
se <- function(beta) sqrt(sum((beta - ref)^2)) / sqrt(sum(ref^2))
for (eps in epsilons) {
  for (r in seq_len(reps)) {
    ang <- function(t) top_angle(dp_cov(x, eps, delta, lower = b$lower, upper = b$upper, neighbor = "replace-one", tighten = t)$estimate, S)
    sl <- function(t) se(stats::coef(dp_lm(D$formula, D$data, eps, delta, lower = lo, upper = up,
                                           neighbor = "replace-one", B = 0, tighten = t))[xcols])
    out[[length(out) + 1]] <- data.frame(data = ds, epsilon = eps,
      angle_public = ang(FALSE), angle_tight = ang(TRUE), angle_tbb = top_angle(textbook_box_cov(x, b$lower, b$upper, eps, delta), S),
      slope_public = sl(FALSE), slope_tight = sl(TRUE), slope_tbb = se(cov_slopes(textbook_box_cov(XY, bl$lower, bl$upper, eps, delta))),
      slope_tb = se(cov_slopes(textbook_cov(XY, bl$lower, bl$upper, eps, delta))),
      slope_dpp = se(cov_slopes(dppack_cov(XY, bl$lower, bl$upper, eps))))
  }
  message(ds, " ", eps)
}
res <- do.call(rbind, out)
saveRDS(res, tempfile(fileext = ".rds"))
med <- aggregate(. ~ data + epsilon, res, stats::median)
options(width = 200); print(format(med, digits = 3), row.names = FALSE)
