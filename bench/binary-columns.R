# 0/1 columns stored as doubles in dp_lm(): what the fit's grade says where the
# bounds are public and tightened (the default where n is public) and where
# they are chosen privately (no bounds). Per case and epsilon, REPS fits
# (replace-one, delta 1e-6): the 0/1 column's slope error against lm()'s
# (relative), its at_bounds value, and the fit's grade. A fit whose slope is
# off by more than half ("bad") should not be graded "ok"; one within 0.2 of
# lm() ("good") should not be graded "mostly noise". Run from the package
# root:  Rscript bench/binary-columns.R  (needs survival; about 5 minutes;
# DPCOV_BENCH_REPS, default 20).
suppressPackageStartupMessages(library(dpcov)); options(dpcov.noise_warning = FALSE)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "20"))
set.seed(2026)
n <- 5000
synth <- function(share) {
  d <- data.frame(x1 = rnorm(n), b = as.numeric(runif(n) < share))
  d$y <- d$x1 + d$b + rnorm(n)
  d
}
sb <- data.frame(lower = c(-5, 0, -10), upper = c(5, 1, 10), row.names = c("x1", "b", "y"))
colon <- survival::colon
colon <- colon[colon$etype == 2 & complete.cases(colon[c("age", "nodes", "obstruct", "sex", "time")]), ]
colon <- data.frame(x1 = colon$age, nodes = colon$nodes, b = colon$obstruct, sex = colon$sex, y = colon$time)
cb <- data.frame(lower = c(18, 0, 0, 0, 0), upper = c(90, 40, 1, 1, 3500), row.names = c("x1", "nodes", "b", "sex", "y"))
cases <- list(
  list(name = "balanced (50% ones), bounds", data = synth(0.5), bounds = sb, f = y ~ x1 + b),
  list(name = "15% ones, bounds", data = synth(0.15), bounds = sb, f = y ~ x1 + b),
  list(name = "2% ones, bounds", data = synth(0.02), bounds = sb, f = y ~ x1 + b),
  list(name = "19% ones, default", data = synth(0.19), bounds = NULL, f = y ~ x1 + b),
  list(name = "colon obstruct (19%), bounds", data = colon, bounds = cb, f = y ~ x1 + nodes + b + sex),
  list(name = "colon obstruct (19%), default", data = colon, bounds = NULL, f = y ~ x1 + nodes + b + sex))
out <- NULL
for (cs in cases) {
  truth <- coef(lm(cs$f, cs$data))[["b"]]
  for (e in c(1, 4)) for (i in seq_len(reps)) {
    set.seed(1000 * i + 10 * e)
    fit <- suppressWarnings(if (is.null(cs$bounds)) {
      dp_lm(cs$f, data = cs$data, epsilon = e, delta = 1e-6, neighbor = "replace-one")
    } else dp_lm(cs$f, data = cs$data, epsilon = e, delta = 1e-6, neighbor = "replace-one", bounds = cs$bounds))
    rd <- release_diagnostics(fit$release)
    out <- rbind(out, data.frame(case = cs$name, eps = e, err = abs(coef(fit)[["b"]] - truth) / abs(truth),
                                 fill = unname(rd$at_bounds["b"]), upper = fit$release$params$bounds["b", "upper"],
                                 level = fit$diagnostics$level))
  }
}
saveRDS(out, Sys.getenv("BINARY_OUT", "binary-columns.rds"))
tab <- do.call(rbind, lapply(split(out, list(out$case, out$eps), drop = TRUE), function(d) {
  bad <- d$err > 0.5
  good <- d$err < 0.2
  data.frame(case = d$case[1], eps = d$eps[1], median_err = round(median(d$err), 3), median_fill = round(median(d$fill), 3),
             bad = sum(bad), bad_ok = sum(bad & d$level == "ok"), bad_noisy = sum(bad & d$level == "noisy"),
             good = sum(good), good_mostly = sum(good & d$level == "mostly noise"))
}))
rownames(tab) <- NULL
print(tab[order(tab$case, tab$eps), ], row.names = FALSE)
