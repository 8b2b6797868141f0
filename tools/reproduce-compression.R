# Reproduces the saved results shown in vignettes/compression.Rmd:
# PCA subspace error against m (simulated factor-model data and MASS::Boston),
# for the gram path and, at a few m, the explicit path.
# Run from the package root after installing dpcov:
#   Rscript tools/reproduce-compression.R
# Any future plan works (e.g. future::plan("multisession")); results do not
# depend on it (future.seed = TRUE).
library(dpcov)
progressr::handlers(global = TRUE)

# Simulated: n = 1e5 records, p = 20, three factors (loadings 2, 1.5, 1).
simulate_factor_data <- function(n, p, seed) {
  set.seed(seed)
  loadings <- cbind(rep(c(1, 0), c(8, p - 8)), rep(c(0, 1, 0), c(8, 7, p - 15)),
                    rep(c(0, 1), c(15, p - 15))) %*% diag(c(2, 1.5, 1))
  f <- matrix(rnorm(n * 3), n, 3)
  f %*% t(loadings) + matrix(rnorm(n * p), n, p)
}
started <- Sys.time()
x <- simulate_factor_data(1e5, 20, seed = 2009)
m_sim <- c(400, 800, 1600, 3200, 6400, 12800, 25600, 51200)
set.seed(1)
sim <- compression_pca_study(x, m = m_sim, dim = 3, reps = 50)
set.seed(2)
sim_explicit <- compression_pca_study(x, m = c(400, 800), dim = 3, reps = 20, method = "explicit")

boston <- scale(as.matrix(MASS::Boston[, -14]))
set.seed(3)
bos <- compression_pca_study(boston, m = c(200, 250, 300, 350, 400, 450, 500), dim = 1, reps = 200)

out <- list(simulated = sim, simulated_explicit = sim_explicit, boston = bos,
            info = list(date = format(Sys.time(), tz = "UTC", usetz = TRUE),
                        seconds = as.numeric(difftime(Sys.time(), started, units = "secs")),
                        dpcov = as.character(utils::packageVersion("dpcov")),
                        R = R.version.string,
                        simulated = "n = 1e5, p = 20, 3 factors (loadings 2, 1.5, 1, blocks of 8/7/5 columns), unit noise; D = 3; 50 reps",
                        boston = "MASS::Boston without medv, scaled; n = 506, p = 13; D = 1; 200 reps"))
saveRDS(out, "inst/extdata/compression-pca.rds", version = 2)
print(aggregate(cbind(distance, bound, worst_case) ~ m, data = sim, FUN = mean))
print(aggregate(cbind(distance, bound, worst_case) ~ m, data = bos, FUN = mean))
