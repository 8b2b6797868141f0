# The public bound as a candidate of the tightening (an atom of the base
# measure, tighten_atom_share): a rating scale whose ends many rows attain,
# and bench/peers.R's penguins and quakes, for atom shares 0 (no atom: the
# code before), 0.005 (the default) and 0.02. Per cell the median relative
# Frobenius error of dp_cov(tighten = TRUE), the largest principal angle of
# dp_pca() (its default tightening rule) and the relative L2 error of
# dp_lm()'s slopes (tighten = TRUE), all replace-one with the public bounds.
# Run from the package sources: REPS=250 Rscript bench/tighten-atom.R
source("bench/peers-setup.R")
library(dpcov); options(dpcov.noise_warning = FALSE)
reps <- as.integer(Sys.getenv("REPS", "60"))
shares <- c(0, 0.005, 0.02)
set_share <- function(a) utils::assignInNamespace("tighten_atom_share", a, "dpcov")
# a 1-5 rating pair driven by one latent score, n = 4000, public bounds [1, 5]
set.seed(1); n <- 4000; z <- rnorm(n)
q1 <- pmin(5, pmax(1, round(3.6 + 1.2 * z + rnorm(n, 0, 0.6))))
q2 <- pmin(5, pmax(1, round(3.4 + 1.0 * z + rnorm(n, 0, 0.8))))
rating <- list(data = data.frame(y = 2 + 0.8 * q1 + 0.5 * q2 + rnorm(n), q1 = q1, q2 = q2), formula = y ~ q1 + q2,
               bounds = data.frame(lower = c(-5, 1, 1), upper = c(15, 5, 5), row.names = c("y", "q1", "q2")))
rating$x <- as.matrix(rating$data)
sets <- c(list(rating = rating), datasets[intersect(c("penguins", "quakes"), names(datasets))])
out <- list()
for (ds in names(sets)) {
  D <- sets[[ds]]
  list2env(model_cell(D), environment())
  for (eps in c(1, 2, 4)) for (r in seq_len(reps)) for (a in shares) {
    set_share(a)
    set.seed(1000 * r + 7)
    ce <- cov_metrics(dp_cov(x, eps, delta, lower = b$lower, upper = b$upper, neighbor = "replace-one",
                             tighten = TRUE)$estimate, S)[["frob"]]
    set.seed(1000 * r + 7)
    ang <- rotation_angle(dp_pca(x, epsilon = eps, delta = delta, lower = b$lower, upper = b$upper,
                                 neighbor = "replace-one")$rotation, S)
    set.seed(1000 * r + 7)
    sl <- se(stats::coef(dp_lm(D$formula, D$data, eps, delta, lower = lo, upper = up, neighbor = "replace-one",
                               B = 0, tighten = TRUE))[xcols])
    out[[length(out) + 1]] <- data.frame(data = ds, epsilon = eps, share = a, cov = ce, angle = ang, slope = sl)
  }
  message(ds)
}
res <- do.call(rbind, out)
med <- aggregate(cbind(cov, angle, slope) ~ data + epsilon + share, res, stats::median)
med <- med[order(match(med$data, names(sets)), med$epsilon, med$share), ]
options(width = 200); print(format(med, digits = 3), row.names = FALSE)
# the default's median over no atom's, with a 95% bootstrap interval
set.seed(2)
for (ds in names(sets)) for (e in c(1, 2, 4)) for (m in c("cov", "angle", "slope")) {
  a <- res[res$data == ds & res$epsilon == e & res$share == 0, m]
  d <- res[res$data == ds & res$epsilon == e & res$share == 0.005, m]
  bs <- replicate(2000, stats::median(sample(d, replace = TRUE)) / stats::median(sample(a, replace = TRUE)))
  cat(sprintf("%-9s %g %-6s 0.005 / 0: %.3f (%.3f-%.3f)\n", ds, e, m, stats::median(d) / stats::median(a),
              stats::quantile(bs, 0.025), stats::quantile(bs, 0.975)))
}
