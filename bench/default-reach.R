# The default (no bounds) on a long left tail, and the reach of the private
# bounds' refinement. Run from the package sources: Rscript bench/default-reach.R
# (about 10 minutes; DPCOV_BENCH_REPS releases per cell, default 20).
#
# Part 1: MASS::Boston (n 506, p 12; `black` has 15% of its rows in a long
# left tail, `crim` a long right one), dp_cov()'s default against the
# textbook baseline with public bounds (bench/peers.R's textbook_cov(),
# replace-one, delta 1e-6), median relative Frobenius and spectral errors.
# Part 2: the same default with the refinement's window reaching 3 (the
# package's), 10, 30 or 100 times the first bound's distance from the median
# (column_bounds_reach, set in the namespace for the run; common random
# numbers across reaches).
source("bench/peers-setup.R")
suppressPackageStartupMessages(library(dpcov))
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "20"))
boston <- as.matrix(MASS::Boston[, c("crim", "zn", "indus", "nox", "rm", "age", "dis", "tax", "ptratio", "black",
                                     "lstat", "medv")])
# public bounds from the data's documentation, rounded out (per capita crime
# rate in %, proportions in %, the 1970 census' index 1000 (Bk - 0.63)^2 <= 396.9)
boston_lower <- c(0, 0, 0, 0.3, 3, 0, 1, 0, 10, 0, 0, 0)
boston_upper <- c(100, 100, 30, 0.9, 9, 100, 13, 1000, 25, 400, 40, 50)
midwest <- as.matrix(ggplot2::midwest[, c("poptotal", "popdensity", "percwhite", "percblack", "percollege",
                                          "percbelowpoverty")])
errors <- function(S, truth) c(fro = norm(S - truth, "F") / norm(truth, "F"), spec = norm(S - truth, "2") / norm(truth, "2"))
truth_of <- function(x) stats::cov(x) * (nrow(x) - 1) / nrow(x)
default_cov <- function(x, eps) unclass(suppressWarnings(dp_cov(x, eps, 1e-6, neighbor = "replace-one")))$estimate

cat("Part 1: Boston, the default against the textbook with public bounds (median of", reps, "releases)\n")
truth <- truth_of(boston)
part1 <- NULL
for (eps in c(4, 8, 16)) {
  E <- sapply(seq_len(reps), function(k) {
    set.seed(100 + k)
    c(default = errors(default_cov(boston, eps), truth),
      textbook = errors(textbook_cov(boston, boston_lower, boston_upper, eps, 1e-6), truth))
  })
  m <- apply(E, 1, median)
  part1 <- rbind(part1, data.frame(epsilon = eps, n_epsilon = nrow(boston) * eps,
                                   default_fro = m[["default.fro"]], textbook_fro = m[["textbook.fro"]],
                                   ratio_fro = m[["default.fro"]] / m[["textbook.fro"]],
                                   default_spec = m[["default.spec"]], textbook_spec = m[["textbook.spec"]],
                                   ratio_spec = m[["default.spec"]] / m[["textbook.spec"]]))
}
print(part1, digits = 3, row.names = FALSE)

cat("\nPart 2: the refinement's reach (median relative Frobenius / spectral error of the default)\n")
cases <- list(list("Boston", boston, 4), list("Boston", boston, 16), list("quakes", datasets$quakes$x, 2),
              list("quakes", datasets$quakes$x, 4), list("diamonds", datasets$diamonds$x, 0.25),
              list("diamonds", datasets$diamonds$x, 4), list("penguins", datasets$penguins$x, 4),
              list("midwest", midwest, 16))
ns <- asNamespace("dpcov")
reach0 <- get("column_bounds_reach", ns)
unlockBinding("column_bounds_reach", ns)
part2 <- NULL
for (cs in cases) {
  truth <- truth_of(cs[[2]])
  for (reach in c(3, 10, 30, 100)) {
    assign("column_bounds_reach", reach, ns)
    E <- sapply(seq_len(reps), function(k) { set.seed(1000 + k); errors(default_cov(cs[[2]], cs[[3]]), truth) })
    part2 <- rbind(part2, data.frame(data = cs[[1]], epsilon = cs[[3]], reach = reach,
                                     fro = median(E["fro", ]), spec = median(E["spec", ])))
  }
}
assign("column_bounds_reach", reach0, ns)
print(part2, digits = 3, row.names = FALSE)
