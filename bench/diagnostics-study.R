# How well release_diagnostics() tells a noisy release (issue 19, item 3).
# For analyze_gauss() (clip at the 0.99 quantile of the row norms, the
# target its clipped Gram matrix) and the default dp_cov() (bounds chosen
# privately, the target cov() with divisor n), on standard Gaussian data and
# on penguin-like data (four measurements in mm and g, means far from 0),
# over n and epsilon: the realised relative Frobenius error, and the worst
# relative error of a diagonal entry, against the diagnostic's noise/signal
# ratio and level. "good": both errors below 0.25. Run from the package root with
# the package installed:  Rscript bench/diagnostics-study.R
library(dpcov)
options(dpcov.noise_warning = FALSE)
set.seed(20261124)
gen <- list(
  gaussian = function(n) matrix(rnorm(n * 4), n, 4),
  penguin = function(n) cbind(rnorm(n, 43.9, 5.5), rnorm(n, 17.2, 2), rnorm(n, 201, 14), rnorm(n, 4200, 800)))
grid <- expand.grid(data = names(gen), n = c(50, 342, 2000, 20000), epsilon = c(0.1, 0.5, 1, 4),
                    mech = c("analyze_gauss", "dp_cov"), rep = 1:8, stringsAsFactors = FALSE)
rows <- lapply(seq_len(nrow(grid)), function(i) {
  g <- grid[i, ]
  x <- gen[[g$data]](g$n)
  if (g$mech == "analyze_gauss") {
    clip <- unname(quantile(sqrt(rowSums(x^2)), 0.99))  # an oracle clip: the best case for the mechanism
    r <- analyze_gauss(x, g$epsilon, 1e-6, clip = clip)
    target <- second_moment(x, clip = clip)$gram
  } else {
    r <- dp_cov(x, g$epsilon, 1e-6)
    target <- cov(x) * (g$n - 1) / g$n
  }
  d <- r$diagnostics
  # the worst per-column error: each variance against its target
  col_error <- max(abs(diag(r$estimate) - diag(target)) / diag(target))
  data.frame(g, error = norm(r$estimate - target, "F") / norm(target, "F"), col_error = col_error,
             ratio = d$noise_to_signal, level = d$level)
})
res <- do.call(rbind, rows)
res$bad <- res$error > 1
res$good <- res$error < 0.25 & res$col_error < 0.25
summ <- do.call(rbind, lapply(split(res, list(res$mech, res$data)), function(s) data.frame(
  mechanism = s$mech[1], data = s$data[1], releases = nrow(s),
  error_above_1 = sum(s$bad), of_them_flagged = sum(s$bad & s$level != "ok"),
  of_them_mostly_noise = sum(s$bad & s$level == "mostly noise"),
  col_error_above_1 = sum(s$col_error > 1), of_them_flagged_ = sum(s$col_error > 1 & s$level != "ok"),
  error_below_0.25 = sum(s$good), of_them_mostly_noise_false_alarm = sum(s$good & s$level == "mostly noise"),
  of_them_ok = sum(s$good & s$level == "ok"))))
print(summ, row.names = FALSE)
fin <- is.finite(res$ratio) & res$mech == "analyze_gauss"
cat(sprintf("analyze_gauss: median error / ratio = %.2f (IQR %.2f-%.2f), over %d releases with a finite ratio\n",
            median(res$error[fin] / res$ratio[fin]), quantile(res$error[fin] / res$ratio[fin], 0.25),
            quantile(res$error[fin] / res$ratio[fin], 0.75), sum(fin)))
by_level <- aggregate(cbind(error, col_error) ~ mech + level, res, function(e) signif(median(e), 3))
names(by_level)[3:4] <- c("median_error", "median_worst_variance_error")
print(by_level, row.names = FALSE)
