# Benchmarks for the microbiome QDA family, in one R process:
#   Rscript bench/qda.R
# 1. qda_plugin() + predict() with the pooled covariance against MASS::lda()
#    (the same classifier) at the study's size and larger.
# 2. The cost of one study replication per estimator (synthetic data of the
#    study's shape, so it runs without the COMBO data).
library(dpcov)
stopifnot(requireNamespace("MASS", quietly = TRUE))

time_it <- function(expr, reps) {
  expr <- substitute(expr)
  env <- parent.frame()
  eval(expr, env) # warm-up
  t <- system.time(for (i in seq_len(reps)) eval(expr, env))[["elapsed"]]
  1000 * t / reps
}

cat("== qda_plugin (pooled) vs MASS::lda: fit + predict, ms per call\n")
rows <- list()
for (sz in list(c(98, 25), c(98, 40), c(1000, 40), c(10000, 100))) {
  n <- sz[1]; p <- sz[2]
  set.seed(1)
  x <- matrix(rnorm(n * p), n, p)
  g <- factor(rep(c("lean", "obese"), length.out = n))
  reps <- if (n * p > 1e5) 5 else 50
  ours <- time_it(predict(qda_plugin(x, g), x), reps)
  mass <- time_it(predict(MASS::lda(x, g), x)$class, reps)
  stopifnot(identical(as.character(predict(qda_plugin(x, g), x)),
                      as.character(predict(MASS::lda(x, g), x)$class)))
  rows[[length(rows) + 1]] <- data.frame(n = n, p = p, dpcov_ms = round(ours, 2),
                                         MASS_lda_ms = round(mass, 2),
                                         ratio = round(ours / mass, 2))
}
print(do.call(rbind, rows), row.names = FALSE)

cat("\n== one study replication (98 subjects, p = 25 and 40), ms per estimator\n")
set.seed(2)
x <- matrix(rnorm(98 * 40), 98, 40)
g <- factor(rep(c("lean", "obese"), c(63, 35)))
est <- qda_estimators()
rows <- lapply(names(est), function(e) {
  one <- est[e]
  data.frame(estimator = e,
             ms_per_rep = round(time_it(qda_study(list(x = x, group = g), one, p = c(25, 40), reps = 1), 10), 1))
})
print(do.call(rbind, rows), row.names = FALSE)
cat("\n", R.version.string, "| BLAS:", extSoftVersion()[["BLAS"]], "|", parallel::detectCores(), "cores\n")
