# dp_lm()'s slopes with public bounds against the mean's share of the box
# path's joint calibration (box_joint_split, the mean's share of the squared
# sensitivity-to-noise ratio; 0.4 is dp_cov()'s default, chosen for the
# covariance in bench/box-joint.R). Median relative slope error against lm()
# over REPS fits per cell (default 400), replace-one, delta 1e-6, B = 0, on
# bench/peers.R's penguins and quakes models; SPLITS (comma-separated) and
# EPS choose the grid. A study: it sets the internal constant with
# assignInNamespace() for each fit. Run from the package sources:
#   Rscript bench/lm-split.R
Sys.setenv(DPCOV_BENCH_SETS = Sys.getenv("SETS", "penguins,quakes"))
source("bench/peers-setup.R")
reps <- as.integer(Sys.getenv("REPS", "400"))
splits <- as.numeric(strsplit(Sys.getenv("SPLITS", "0.05,0.1,0.2,0.4"), ",")[[1]])
eps_list <- as.numeric(strsplit(Sys.getenv("EPS", "0.25,0.5,1,4"), ",")[[1]])
set.seed(11)
out <- list()
for (ds in names(datasets)) {
  D <- datasets[[ds]]
  vars <- all.vars(D$formula); xcols <- vars[-1]; ycol <- vars[1]
  bl <- D$bounds[c(xcols, ycol), ]
  lo <- setNames(bl$lower, c(xcols, ycol)); hi <- setNames(bl$upper, c(xcols, ycol))
  ref <- coef(lm(D$formula, D$data))[xcols]
  se <- function(b) sqrt(sum((b - ref)^2)) / sqrt(sum(ref^2))
  for (eps in eps_list) {
    E <- matrix(NA, reps, length(splits))
    for (r in 1:reps) for (k in seq_along(splits)) {
      assignInNamespace("box_joint_split", splits[k], "dpcov")
      f <- suppressWarnings(dp_lm(D$formula, D$data, eps, delta, lower = lo, upper = hi, neighbor = neighbor, B = 0))
      E[r, k] <- se(coef(f)[xcols])
    }
    med <- apply(E, 2, median)
    cat(sprintf("%-9s eps %-4s %s\n", ds, eps, paste(sprintf("s%.2f=%.4f", splits, med), collapse = "  ")))
  }
}
