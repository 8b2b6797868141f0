# The bound_inside diagnostic: a wider rule (the nearer private bound within
# 1.5 private spreads of the median and the bounds narrower than 6 spreads)
# against the package's (within 0.75 spreads), on synthetic columns and real
# data sets, epsilon 1, 4, 16: the share of the variance each column keeps and
# what the diagnostics said. Run from the package root:
#   Rscript bench/bound-inside.R
# Results: bench/RESULTS.md, "The long-tail check at large n epsilon".
suppressPackageStartupMessages(library(dpcov))
set.seed(1)
gens <- list(unif = function(n) runif(n), normal = function(n) rnorm(n), exp = function(n) rexp(n), lnorm1 = function(n) rlnorm(n),
  t5 = function(n) rt(n, 5), beta05 = function(n) rbeta(n, 0.5, 0.5), bimodal = function(n) rnorm(n, sample(c(-3, 3), n, TRUE)),
  binary30 = function(n) rbinom(n, 1, 0.3) + 0, skewbim = function(n) c(rnorm(round(0.3 * n), 0, 0.3), rnorm(n - round(0.3 * n), 5, 1)))
real <- list(quakes = quakes, iris = iris[1:4], penguins = as.data.frame(na.omit(palmerpenguins::penguins[3:6])),
  faithful = faithful, mtcars = mtcars[c("mpg", "hp", "wt", "qsec")], airq = na.omit(airquality)[1:4],
  diamonds = as.data.frame(ggplot2::diamonds[1:20000, c("carat", "depth", "table", "price")]))
one <- function(X, eps, tag) {
  X <- as.data.frame(X)
  r <- suppressWarnings(dp_cov(X, eps, 1e-6))
  cb <- r$params$column_bounds; b <- r$params$bounds
  do.call(rbind, lapply(names(X), function(j) {
    x <- X[[j]]; lo <- b[j, "lower"]; hi <- b[j, "upper"]; ce <- cb$center[[j]]; sc <- cb$scale[[j]]
    data.frame(data = tag, col = j, n = nrow(X), eps = eps, near = min(hi - ce, ce - lo) / sc, width = (hi - lo) / sc,
               kept = var(pmin(pmax(x, lo), hi)) / var(x), old = j %in% r$diagnostics$bound_inside,
               flagged_any = r$diagnostics$level != "ok")
  }))
}
rows <- list()
for (g in names(gens)) for (n in c(300, 3000, 30000)) for (eps in c(1, 4, 16)) for (rep in 1:3) {
  rows[[length(rows) + 1]] <- one(data.frame(a = gens[[g]](n), z = rnorm(n)), eps, g)
}
for (d in names(real)) for (eps in c(1, 4, 16)) for (rep in 1:6) rows[[length(rows) + 1]] <- one(real[[d]], eps, d)
d <- do.call(rbind, rows)
d <- d[!(d$col == "z"), ]

d$new <- d$near < 1.5 & d$width < 6
cat("flags by rule (old: near < 0.75; new: near < 1.5 & width < 6), and variance kept\n")
print(aggregate(cbind(old, new, bad = kept < 0.75, new_and_fine = new & kept > 0.9, missed_bad = !new & !old & kept < 0.75 & !flagged_any) ~ data, d, sum))
cat(sprintf(paste("%d column releases; %d keep < 0.75 of the variance, %d of them graded ok; the wider rule",
                  "catches %d of those, and flags %d, of which %d keep > 0.9 (%d of them graded ok)\n"),
            nrow(d), sum(d$kept < 0.75), sum(d$kept < 0.75 & !d$flagged_any), sum(d$kept < 0.75 & !d$flagged_any & d$new),
            sum(d$new), sum(d$new & d$kept > 0.9), sum(d$new & d$kept > 0.9 & !d$flagged_any)))
