# dp_lm() and dp_pca() against what lm() and prcomp() users expect (an audit
# of the formula interface and the methods, session of 2026-11-27): designs
# aliased whatever the data, the slopes' grade where sampling error dominates,
# the stored call, non-syntactic names, removed columns, the generics of lm().

lm_audit_data <- function(n = 3000, seed = 11) {
  set.seed(seed)
  d <- data.frame(g = factor(sample(c("a", "b", "c"), n, TRUE), levels = c("a", "b", "c")),
                  h = factor(sample(c("u", "v"), n, TRUE), levels = c("u", "v")),
                  x1 = stats::runif(n, 0, 10), x2 = stats::runif(n))
  d$y <- 1 + 2 * d$x1 + (d$g == "b") - (d$h == "v") + stats::rnorm(n)
  d
}
lm_audit_bounds <- list(x1 = c(0, 10), x2 = c(0, 1), y = c(-10, 30))

test_that("a design aliased whatever the data is refused before the charge, naming the columns lm() gives NA", {
  d <- lm_audit_data()
  b <- dp_budget(50, 1e-4)
  aliased <- list(y ~ g:h + x1, y ~ x1 + g:h:x1, y ~ g:h + h:x1 + x1 + g:h:x2 + x2, y ~ g + I(x2 > 0.5):h)
  full <- list(y ~ g * h + x1, y ~ g:h - 1 + x1, y ~ x1 + g:x1, y ~ g:x1, y ~ g + h + g:h, y ~ g:h + g + x1,
               y ~ I(x1 > 5) + x1, y ~ x1 * x2, y ~ g + I(x2 > 0.5) * h)
  for (f in aliased) {
    na_lm <- names(which(is.na(stats::coef(stats::lm(f, d)))))
    expect_gt(length(na_lm), 0)
    e <- expect_error(dp_lm(f, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5, budget = b), class = "dpcov_error",
                      info = deparse(f))
    expect_identical(e$arg, "x")
    for (v in na_lm) expect_match(conditionMessage(e), paste0("`", v, "`"), fixed = TRUE, info = deparse(f))
    expect_match(conditionMessage(e), "linear combinations of the others for any data", fixed = TRUE)
  }
  expect_equal(budget_spent(b)$charges, 0)
  for (f in full) {
    expect_false(anyNA(stats::coef(stats::lm(f, d))), info = deparse(f))
    fit <- dp_lm(f, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5, budget = b)
    expect_identical(names(stats::coef(fit)), names(stats::coef(stats::lm(f, d))), info = deparse(f))
  }
  # the private default (bounds chosen privately) and the clip path refuse it too
  expect_error(dp_lm(y ~ g:h + x1, d, 1, 1e-6, B = 5), class = "dpcov_error")
  expect_error(dp_lm(y ~ g:h + x1, d, 1, 1e-6, clip = 40, B = 5), class = "dpcov_error")
  # a level with no rows is the data's aliasing, not the design's: fitted (the noise identifies it)
  d2 <- d
  d2$g <- factor(as.character(d2$g), levels = c("a", "b", "c", "z"))
  expect_s3_class(dp_lm(y ~ g + x1, d2, 1, 1e-6, bounds = lm_audit_bounds, B = 5), "dp_lm")
})

test_that("the sampling error alone is sigma^2 (X'X)^-1: lm()'s vcov from exact statistics, close to it at large epsilon", {
  d <- lm_audit_data(2000)
  f <- y ~ x1 + x2 + g
  ref <- stats::vcov(stats::lm(f, d))
  X <- stats::model.matrix(f, d)
  s <- second_moment(cbind(X, y = d$y), clip = Inf)
  exact <- dp_lm(s, y ~ . - 1, ones = NULL, B = 0)
  expect_equal(unname(exact$vcov_sampling), unname(ref), tolerance = 1e-8)
  fit <- dp_lm(f, d, 1000, 1e-6, bounds = lm_audit_bounds, B = 50)
  expect_identical(dimnames(fit$vcov_sampling), dimnames(ref))
  expect_equal(diag(fit$vcov_sampling), diag(ref), tolerance = 0.02)
})

test_that("slopes within their standard errors of zero are graded by the share the privacy noise adds", {
  old <- options(dpcov.noise_warning = TRUE)
  on.exit(options(old))
  set.seed(5)
  n <- 20000
  d <- data.frame(g = factor(sample(c("a", "b", "c"), n, TRUE)), h = factor(sample(c("u", "v"), n, TRUE)))
  d$z <- stats::rnorm(n)
  # true slopes 0, privacy noise negligible: no warning, a note that sampling error dominates
  expect_no_warning(fit <- dp_lm(z ~ g + h, d, 1000, 1e-6, B = 100))
  expect_identical(fit$diagnostics$level, "ok")
  expect_lt(fit$diagnostics$privacy_share, 0.5)
  expect_true(any(grepl("less than the sampling error", fit$diagnostics$notes, fixed = TRUE)))
  printed <- gsub("\\s+", " ", paste(utils::capture.output(print(fit)), collapse = " "))
  expect_match(printed, "lm() on these data would not tell them from zero either", fixed = TRUE)
  # the under-noised control's opposite: at small epsilon the noise dominates and the fit warns
  d2 <- d[1:2000, ]
  expect_warning(fit2 <- dp_lm(z ~ g + h, d2, 0.2, 1e-6, B = 100), class = "dpcov_noise_warning")
  expect_gt(fit2$diagnostics$privacy_share, 0.5)
  expect_identical(fit2$diagnostics$level, "mostly noise")
  # a hand-made fit with a malformed sampling covariance is refused by its methods
  bad <- fit
  bad$vcov_sampling <- matrix(-1, 4, 4)
  e <- expect_error(print(bad), class = "dpcov_error")
  expect_match(conditionMessage(e), "vcov_sampling", fixed = TRUE)
})

test_that("update() reruns a fit whose formula was a variable, and a refit of a release at no cost", {
  d <- lm_audit_data(2000)
  ff <- y ~ x1 + x2 + g
  fit <- dp_lm(ff, d, 1000, 1e-6, bounds = lm_audit_bounds, B = 5)
  expect_identical(stats::getCall(fit)$formula, quote(ff))
  u <- update(fit, . ~ . - x2)
  expect_identical(names(stats::coef(u)), c("(Intercept)", "x1", "gb", "gc"))
  wrap <- function(fo, dat) dp_lm(fo, dat, 1000, 1e-6, bounds = lm_audit_bounds, B = 5)
  expect_identical(stats::getCall(wrap(ff, d))$formula, quote(fo))
  # dp_lm(fit$release, ...) keeps the code naming the release: update() refits it, spending nothing
  r1 <- dp_lm(fit$release, y ~ x1, B = 5)
  expect_identical(stats::getCall(r1)$x, quote(fit$release))
  set.seed(1)
  r2 <- update(r1, y ~ x1 + x2)
  set.seed(1)
  r3 <- dp_lm(fit$release, y ~ x1 + x2, B = 5)
  expect_identical(stats::coef(r2), stats::coef(r3))
  # under do.call() the release is a value: a placeholder, and update() refuses
  r4 <- do.call(dp_lm, list(fit$release, y ~ x1, B = 5))
  expect_error(update(r4, y ~ x1 + x2), class = "dpcov_error")
})

test_that("non-syntactic names: a formula fit's release refits by the same formula and by `.`", {
  d <- lm_audit_data(2000)
  d3 <- data.frame(`my x` = d$x1, `y y` = d$y, check.names = FALSE)
  f3 <- dp_lm(`y y` ~ `my x`, d3, 1000, 1e-6, bounds = list("my x" = c(0, 10), "y y" = c(-10, 30)), B = 5)
  expect_identical(names(stats::coef(f3)), names(stats::coef(stats::lm(`y y` ~ `my x`, d3))))
  a <- dp_lm(f3$release, `y y` ~ `my x`, B = 0)
  b <- dp_lm(f3$release, `y y` ~ ., B = 0)
  expect_equal(stats::coef(a), stats::coef(f3))
  expect_equal(stats::coef(b), stats::coef(f3))
  # a release of a plain matrix with a space in a name fits as the same release named plainly
  x <- cbind(`(Intercept)` = 1, `a b` = d$x1, y = d$y)
  r <- analyze_gauss(x, 1000, 1e-6, clip = 40, neighbor = "replace-one")
  r2 <- r
  dimnames(r2$estimate) <- list(c("(Intercept)", "ab", "y"), c("(Intercept)", "ab", "y"))
  expect_identical(unname(stats::coef(dp_lm(r, y ~ `a b`, B = 0))), unname(stats::coef(dp_lm(r2, y ~ ab, B = 0))))
})

test_that("a formula without `data` is a classed refusal before the charge, whatever the other arguments", {
  d <- lm_audit_data(500)
  y <- d$y
  x1 <- d$x1
  b <- dp_budget(5, 1e-4)
  for (args in list(list(bounds = lm_audit_bounds), list(clip = 40, mechanism = "jl_ridge"), list(clip = 40),
                    list())) {
    e <- expect_error(do.call(dp_lm, c(list(y ~ x1, epsilon = 1, delta = 1e-6, budget = b), args)),
                      class = "dpcov_error")
    expect_identical(e$arg, "data")
  }
  expect_equal(budget_spent(b)$charges, 0)
})

test_that("`. - col` drops the column before it is read: text or dates removed by the formula are fitted around", {
  d <- lm_audit_data(2000)[c("y", "x1", "x2")]
  d$id <- as.character(seq_len(nrow(d)))
  d$day <- as.Date("2020-01-01") + seq_len(nrow(d))
  set.seed(3)
  a <- dp_lm(y ~ . - id - day, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5, neighbor = "replace-one")
  set.seed(3)
  b <- dp_lm(y ~ x1 + x2, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5, neighbor = "replace-one")
  expect_identical(stats::coef(a), stats::coef(b))
  expect_length(a$xlevels, 0)
  # the ids appear nowhere in the fit
  expect_false(any(grepl("1999", unlist(lapply(unclass(a)[c("xlevels", "terms", "formula")], deparse)), fixed = TRUE)))
  # a text column the model uses is still refused
  e <- expect_error(dp_lm(y ~ . - day, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5), class = "dpcov_error")
  expect_identical(e$arg, "data")
})

test_that("lm()'s generics: labels(), variable.names() and family() answer; those needing the data refuse", {
  d <- lm_audit_data(2000)
  fit <- dp_lm(y ~ x1 + g, d, 1000, 1e-6, bounds = lm_audit_bounds, B = 5)
  ref <- stats::lm(y ~ x1 + g, d)
  expect_identical(labels(fit), labels(ref))
  expect_identical(stats::variable.names(fit), stats::variable.names(ref))
  expect_identical(stats::family(fit)$family, "gaussian")
  for (g in c("model.frame", "hatvalues", "cooks.distance", "influence", "rstandard", "rstudent", "extractAIC",
              "dummy.coef", "alias", "effects", "simulate", "case.names")) {
    e <- expect_error(getExportedValue("stats", g)(fit), class = "dpcov_error", info = g)
    expect_match(conditionMessage(e), "keeps no data", fixed = TRUE, info = g)
  }
  e <- expect_error(stats::drop1(fit), class = "dpcov_error")
  e <- expect_error(stats::hatvalues(structure(list(), class = "dp_lm")), class = "dpcov_error")
  expect_identical(e$arg, "model")
})

test_that("predict(): abbreviated intervals, prediction intervals, se.fit's df; confint()'s negative indices", {
  d <- lm_audit_data(20000)
  f <- y ~ x1 + x2 + g
  fit <- dp_lm(f, d, 1000, 1e-6, bounds = lm_audit_bounds, B = 200)
  ref <- stats::lm(f, d)
  nd <- data.frame(x1 = c(1, 5, NA), x2 = c(0.5, 0.2, 0.5), g = c("a", "b", "c"))
  expect_identical(predict(fit, nd, interval = "conf"), predict(fit, nd, interval = "confidence"))
  p <- predict(fit, nd, interval = "pred")
  expect_identical(p, predict(fit, nd, interval = "prediction"))
  pl <- stats::predict(ref, nd, interval = "prediction")
  expect_equal(unname(p[1:2, ]), unname(pl[1:2, ]), tolerance = 0.01)
  ci <- predict(fit, nd, interval = "confidence")
  expect_true(all(p[1:2, "lwr"] < ci[1:2, "lwr"] & p[1:2, "upr"] > ci[1:2, "upr"]))
  expect_true(all(is.na(p[3, ])))
  # the width: that of the mean's interval and z sigma in quadrature
  z <- stats::qnorm(0.975)
  expect_equal(unname(p[1, "upr"] - ci[1, "fit"]), sqrt((ci[1, "upr"] - ci[1, "fit"])^2 + (z * sigma(fit))^2),
               tolerance = 1e-10)
  e <- expect_error(predict(fit, nd, interval = "x"), class = "dpcov_error")
  expect_identical(e$arg, "interval")
  # sigma not estimable: NA prediction intervals with a noise warning
  nos <- fit
  nos$sigma <- NA_real_
  expect_warning(pn <- predict(nos, nd[1:2, ], interval = "prediction"), class = "dpcov_noise_warning")
  expect_true(all(is.na(pn[, c("lwr", "upr")])))
  expect_identical(predict(fit, nd, se.fit = TRUE)$df, Inf)
  expect_identical(confint(fit, -1), confint(fit, 2:5))
  expect_identical(confint(fit, c(-1, -3)), confint(fit, c(2, 4, 5)))
  expect_error(confint(fit, -(1:5)), class = "dpcov_error")
  expect_error(confint(fit, c(-1, 2)), class = "dpcov_error")
})

test_that("predict() of a PCA scores a row with a missing value NA, as predict.prcomp() does", {
  set.seed(2)
  x <- cbind(a = stats::runif(2000, 0, 10), b = stats::runif(2000))
  pc <- dp_pca(x, epsilon = 100, delta = 1e-6, lower = c(0, 0), upper = c(10, 1))
  nd <- data.frame(a = c(1, NA, 3), b = c(0.5, 0.2, NA))
  s <- predict(pc, nd)
  expect_true(all(is.na(s[2:3, ])))
  expect_equal(s[1, ], predict(pc, nd[1, ])[1, ])
  e <- expect_error(predict(pc, data.frame(a = c(1, Inf), b = c(0.5, 0.2))), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
})

test_that("a declared level's private share beyond [0, 1] is said to be a level with few rows or nearly all", {
  d <- lm_audit_data(2000)
  d$g <- factor(as.character(d$g), levels = c("a", "b", "c", "z"))
  found <- FALSE
  for (s in 1:30) {
    set.seed(s)
    fit <- dp_lm(y ~ g + x1, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5)
    if ("gz" %in% fit$release$diagnostics$outside_bounds) {
      found <- TRUE
      break
    }
  }
  expect_true(found)
  m <- fit$diagnostics$messages[grepl("the private mean of `gz`", fit$diagnostics$messages, fixed = TRUE)]
  expect_length(m, 1)
  expect_match(m, "0/1 column of a factor level or a logical", fixed = TRUE)
  # a numeric column's mean outside its bounds keeps the noise's words
  expect_false(any(grepl("0/1 column", fit$diagnostics$messages[!grepl("the private mean of `gz`",
                                                                       fit$diagnostics$messages, fixed = TRUE)],
                         fixed = TRUE)))
})

test_that("the sampling-error note is never given where the release itself is noisy (sigma^2 then carries noise)", {
  # penguin-like data at n epsilon near 85: the released response's second
  # moment is noise, which inflates sigma^2 and so the "sampling" variance
  set.seed(21)
  n <- 342
  d <- data.frame(flipper = stats::rnorm(n, 200, 14), bill = stats::rnorm(n, 44, 5.5))
  d$mass <- -5800 + 50 * d$flipper + 4 * d$bill + stats::rnorm(n, 0, 390)
  share <- noted <- rel_ok <- logical(0)
  for (i in 1:30) {
    fit <- suppressWarnings(dp_lm(mass ~ flipper + bill, d, 0.25, 1e-6, B = 30))
    dg <- fit$diagnostics
    share <- c(share, isTRUE(dg$privacy_share <= 0.5))
    noted <- c(noted, any(grepl("less than the sampling error", dg$notes, fixed = TRUE)))
    rel_ok <- c(rel_ok, identical(release_diagnostics(fit$release)$level, "ok"))
  }
  # the case arises (the control: without the guard these fits were told the data, not the noise, limit them)
  expect_true(any(share & !rel_ok))
  expect_false(any(noted & !rel_ok))
})
