# The front-door vignette's simulation: dp_cov()'s relative Frobenius error
# against epsilon and n on Gaussian data with the moments of
# MASS::nlschools' four numeric columns. Saves inst/extdata/front-door-error.rds,
# which the vignette shows beside the code below (the same code).
# Run from the package root after installing dpcov (about 20 s):
#   Rscript tools/front-door-sim.R
library(dpcov)
data(nlschools, package = "MASS")
x <- nlschools[c("lang", "IQ", "GS", "SES")]
n <- nrow(x)
exact <- cov(x) * (n - 1) / n
quiet_cov <- function(...) suppressWarnings(dp_cov(...))  # per-release noise warnings off
tm <- system.time({
  # --- as shown in vignettes/front-door.Rmd ---
  set.seed(20261128)
  mu <- colMeans(x)
  L <- chol(exact)
  grid <- expand.grid(epsilon = c(0.25, 0.5, 1, 2, 4), n = c(1000, 10000, 100000),
                      bounds = c("private", "fixed"), stringsAsFactors = FALSE)
  sims <- lapply(unique(grid$n), function(m) {
    z <- sweep(matrix(rnorm(m * 4), m, 4) %*% L, 2, mu, "+")
    list(z = z, S = cov(z) * (m - 1) / m)
  })
  names(sims) <- unique(grid$n)
  grid$error <- mapply(function(eps, m, bounds) {
    s <- sims[[as.character(m)]]
    median(replicate(5, {
      r <- if (bounds == "private") {
        quiet_cov(s$z, eps, 1e-6)
      } else {
        quiet_cov(s$z, eps, 1e-6, clip_mean = 90, clip = 30)
      }
      norm(r$estimate - s$S, "F") / norm(s$S, "F")
    }))
  }, grid$epsilon, grid$n, grid$bounds)
  # --- end ---
})
dir.create("inst/extdata", showWarnings = FALSE, recursive = TRUE)
saveRDS(list(grid = grid, info = list(date = format(Sys.time(), tz = "UTC", usetz = TRUE),
                                      seconds = unname(tm[["elapsed"]]), R = R.version.string,
                                      dpcov = as.character(packageVersion("dpcov")))),
        "inst/extdata/front-door-error.rds", compress = "xz")
cat("front-door simulation:", round(tm[["elapsed"]], 1), "s\n")
