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
  d$l <- d$x2 > 0.3
  for (k in 1:4) d[[paste0("f", k)]] <- factor(sample(letters[1:10], nrow(d), TRUE), levels = letters[1:10])
  # derived 0/1 variables (complements, a factor and its own comparison), and
  # factors that never interact with the aliased ones (their product of
  # levels, 10^4 x 6, would have been too many combinations to check)
  aliased <- list(y ~ g:h + x1, y ~ x1 + g:h:x1, y ~ g:h + h:x1 + x1 + g:h:x2 + x2, y ~ g + I(x2 > 0.5):h,
                  y ~ I(x1 > 5) + I(x1 <= 5), y ~ l + I(!l), y ~ h + I(h == "u"), y ~ g + I(g == "a"),
                  y ~ I(x1 > 5) * I(x1 > 7), y ~ I(x1 > 5) + I(x1 > 7) + I(x1 > 5 & x1 <= 7),
                  y ~ I(g == "a" | g == "b") + I(g == "c"), y ~ g:h + x1 + f1 + f2 + f3 + f4)
  full <- list(y ~ g * h + x1, y ~ g:h - 1 + x1, y ~ x1 + g:x1, y ~ g:x1, y ~ g + h + g:h, y ~ g:h + g + x1,
               y ~ I(x1 > 5) + x1, y ~ x1 * x2, y ~ g + I(x2 > 0.5) * h, y ~ I(x1 > 5) + I(x1 > 7),
               y ~ x1 + I(x1 > 5) + I(x1 > 5):x1, y ~ I(x1 > 5):g + g, y ~ g * h + x1 + f1 + f2 + f3 + f4)
  for (f in aliased) {
    na_lm <- names(which(is.na(stats::coef(stats::lm(f, d)))))
    expect_gt(length(na_lm), 0)
    e <- expect_error(dp_lm(f, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5, budget = b), class = "dpcov_error",
                      info = deparse(f))
    expect_identical(e$arg, "x")
    # exactly lm()'s NA columns, no others
    named <- regmatches(conditionMessage(e), gregexpr("`[^`]+`", conditionMessage(e)))[[1]]
    expect_setequal(setdiff(gsub("`", "", named), "x"), na_lm)
    expect_match(conditionMessage(e), "linear combinations of the others for any data", fixed = TRUE)
  }
  expect_equal(budget_spent(b)$charges, 0)
  for (f in full) {
    expect_false(anyNA(stats::coef(stats::lm(f, d))), info = deparse(f))
    fit <- suppressWarnings(dp_lm(f, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5, budget = b))
    expect_identical(names(stats::coef(fit)), names(stats::coef(stats::lm(f, d))), info = deparse(f))
  }
  # the private default (bounds chosen privately) and the clip path refuse it too
  expect_error(dp_lm(y ~ g:h + x1, d, 1, 1e-6, B = 5), class = "dpcov_error")
  expect_error(dp_lm(y ~ g:h + x1, d, 1, 1e-6, clip = 40, B = 5), class = "dpcov_error")
  # relations only the data make are not the design's: fitted (x1 >= 0 here, so
  # I(x1 > -1) is the intercept and I(x1^2 > 4) is I(x1 > 2), but not for all data)
  for (f in list(y ~ I(x1 > -1) + x1, y ~ I(x1^2 > 4) + I(x1 > 2))) {
    expect_true(anyNA(stats::coef(stats::lm(f, d))))
    expect_s3_class(dp_lm(f, d, 1, 1e-6, bounds = lm_audit_bounds, B = 5), "dp_lm")
  }
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
  # a release computed inline is code that holds data literals and would run
  # the mechanism again: a placeholder too
  r5 <- suppressWarnings(dp_lm(analyze_gauss(cbind(`(Intercept)` = 1, x = c(0.123456, 0.654321, 0.5), y = c(1.5, 2.5, 3.5)),
                            1, 1e-6, clip = 5, neighbor = "replace-one"), y ~ x, B = 0))
  expect_identical(stats::getCall(r5)$x, as.symbol("<data>"))
  expect_false(any(grepl("0.123456", deparse(stats::getCall(r5)), fixed = TRUE)))
  expect_error(update(r5, y ~ 1), class = "dpcov_error")
  fits <- list(a = fit)
  expect_identical(stats::getCall(dp_lm(fits[["a"]]$release, y ~ x1, B = 0))$x, quote(fits[["a"]]$release))
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
  # removing that column by its name removes it; a name that is no column is refused
  expect_identical(names(stats::coef(dp_lm(f3$release, `y y` ~ . - `my x`, B = 0))), "(Intercept)")
  e <- expect_error(dp_lm(f3$release, `y y` ~ . - zz, B = 0), class = "dpcov_error")
  expect_identical(e$arg, "formula")
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
  expect_identical(stats::vcov(summary(fit)), stats::vcov(fit))
  # as.formula() puts the caller's environment on what formula() gives (R's
  # own rule for a formula in baseenv()); the fit's own stays baseenv()
  expect_identical(deparse(stats::as.formula(fit)), deparse(stats::formula(fit)))
  expect_identical(environment(fit$formula), baseenv())
  for (g in c("model.frame", "hatvalues", "cooks.distance", "influence", "rstandard", "rstudent", "extractAIC",
              "dummy.coef", "alias", "effects", "simulate", "case.names", "dfbeta", "dfbetas", "proj")) {
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

test_that("dp_regression() removes a release's public ridge by default: the data's least squares, as dp_lm()", {
  set.seed(1)
  n <- 1e5
  X <- matrix(stats::rnorm(3 * n), n, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- drop(X %*% c(1, -1, 0.5)) + 2 + stats::rnorm(n, sd = 0.5)
  A <- cbind(y = y, a = X[, 1], one = 1, b = X[, 2], c = X[, 3])
  truth <- c(2, 1, -1, 0.5)
  rels <- list(iwishart_posterior(A, epsilon = 0.5, delta = 1e-6, clip = 10),
               wishart_noise(A, epsilon = 0.5, delta = 1e-6, clip = 10))
  for (rel in rels) {
    removed <- dp_regression(rel, "y", intercept = "one")
    kept <- dp_regression(rel, "y", intercept = "one", ridge = "keep")
    # the same estimate of A'A dp_lm() fits (its ridge rule off)
    expect_equal(unname(removed), unname(stats::coef(dp_lm(rel, y ~ a + b + c, ones = "one", B = 0,
                                                             regularize = "none"))), tolerance = 1e-8)
    expect_lt(max(abs(removed - truth)), 0.25)
    # kept: Sheffet's estimator, the release solved as it is, shrunk towards 0
    M <- rel$estimate
    ref <- solve(M[c("one", "a", "b", "c"), c("one", "a", "b", "c")], M[c("one", "a", "b", "c"), "y"])
    expect_equal(unname(kept), unname(ref), tolerance = 1e-8)
    expect_lt(sqrt(sum(kept^2)), 0.5 * sqrt(sum(truth^2)))
  }
  # a release without a ridge solves the same either way
  ag <- analyze_gauss(A, 0.5, 1e-6, clip = 10)
  expect_identical(dp_regression(ag, "y", intercept = "one"), dp_regression(ag, "y", intercept = "one", ridge = "keep"))
  e <- expect_error(dp_regression(ag, "y", ridge = "no"), class = "dpcov_error")
  expect_identical(e$arg, "ridge")
})

test_that("compression and QDA as their base-R counterparts: names with spaces, named references, unused scales, NA rows", {
  set.seed(4)
  n <- 20000
  x <- matrix(stats::rnorm(2 * n), n, 2, dimnames = list(NULL, c("my x", "x2")))
  A <- cbind(x, y = drop(x %*% c(1, -1)) + stats::rnorm(n))
  rms <- sqrt(colMeans(A^2))
  f <- suppressWarnings(compressed_lm(dp_compress(A, m = 4000), "y", scales = rms))
  nd <- data.frame(`my x` = c(1, 0), x2 = c(2, 1), check.names = FALSE)
  expect_equal(unname(predict(f, nd)), unname(drop(as.matrix(nd) %*% stats::coef(f))), tolerance = 1e-12)
  expect_identical(colnames(stats::model.matrix(f, nd)), names(stats::coef(f)))
  # a named reference is matched by name: reordered, the same release under the same seed
  S <- matrix(c(1, 0.5, 0, 0.5, 1, 0, 0, 0, 1), 3)
  z <- matrix(stats::rnorm(3 * n), n, 3) %*% chol(S)
  colnames(z) <- c("a", "b", "c")
  ref <- crossprod(sweep(z, 2, sqrt(colMeans(z^2)), "/")) / n
  dimnames(ref) <- list(colnames(z), colnames(z))
  set.seed(9)
  r1 <- suppressWarnings(dp_compress(z, m = 2000, reference = ref))
  set.seed(9)
  r2 <- suppressWarnings(dp_compress(z, m = 2000, reference = ref[c(3, 1, 2), c(3, 1, 2)]))
  expect_identical(r1$estimate, r2$estimate)
  bad <- ref
  dimnames(bad) <- list(c("a", "b", "zz"), c("a", "b", "zz"))
  e <- expect_error(dp_compress(z, m = 2000, reference = bad), class = "dpcov_error")
  expect_identical(e$arg, "reference")
  # scales given for a release in the data's units would be dropped: refused
  r0 <- suppressWarnings(dp_compress(A, m = 4000, normalize = FALSE))
  e <- expect_error(compressed_lm(r0, "y", scales = rms), class = "dpcov_error")
  expect_identical(e$arg, "scales")
  # QDA: newdata required (classed), a row with NA predicts NA
  q <- qda_plugin(iris[, 1:4], iris$Species)
  e <- expect_error(predict(q), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
  nd <- iris[c(1, 51, 101), 1:4]
  nd[2, 3] <- NA
  p <- predict(q, nd)
  expect_true(is.na(p[2]))
  expect_identical(as.character(p[-2]), as.character(predict(q, iris[c(1, 101), 1:4])))
  post <- predict(q, nd, type = "posterior")
  expect_true(all(is.na(post[2, ])))
  expect_equal(post[c(1, 3), ], predict(q, iris[c(1, 101), 1:4], type = "posterior"), ignore_attr = TRUE)
  e <- expect_error(predict(q, replace(nd, 1, Inf)), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
})

test_that("the alias check: constants past 2^53, long expressions, and no false refusal", {
  set.seed(8)
  n <- 400
  d <- data.frame(y = stats::rnorm(n), t = 1.6e18 + stats::runif(n) * 2e17, x = stats::runif(n, -4, 4))
  b <- list(y = c(-4, 4), t = c(1.6e18, 1.8e18), x = c(-4, 4))
  # regions beyond a constant of 1.7e18 exist (k + 1 is k there): fitted, as lm() does
  expect_false(anyNA(stats::coef(stats::lm(y ~ I(t > 1.7e18), d))))
  expect_s3_class(dp_lm(y ~ I(t > 1.7e18), d, 1, 1e-6, bounds = b, B = 5, neighbor = "replace-one"), "dp_lm")
  e <- expect_error(dp_lm(y ~ I(t > 1.7e18) + I(t <= 1.7e18), d, 1, 1e-6, bounds = b, B = 5), class = "dpcov_error")
  expect_match(conditionMessage(e), "`I(t <= 1.7e+18)TRUE`", fixed = TRUE)
  # an expression past 500 characters (terms() and deparse() spell it differently): fitted, nothing unclassed
  long <- paste(sprintf("(x > %g)", -30:29 / 8), collapse = " | ")
  bud <- dp_budget(2, 1e-5, neighbor = "replace-one")
  fit <- dp_lm(stats::as.formula(sprintf("y ~ x + I(%s)", long)), d, 1, 1e-6, bounds = b, B = 5,
               neighbor = "replace-one", budget = bud)
  expect_s3_class(fit, "dp_lm")
  expect_equal(budget_spent(bud)$epsilon, 1)
})

test_that("a release refit removes and keeps terms as terms() does with the columns' plain names", {
  set.seed(2)
  n <- 3000
  x <- cbind(a = stats::rnorm(n), b = stats::rnorm(n), `\`my x\`` = stats::rnorm(n))
  x <- cbind(x, y = drop(x %*% c(1, -1, 0.5)) + stats::rnorm(n))
  r <- analyze_gauss(cbind(`(Intercept)` = 1, x), 1000, 1e-6, clip = 20, neighbor = "replace-one")
  plain <- c("(Intercept)", "a", "b", "my_x", "y")
  fs <- list(y ~ . - (`my x`), y ~ -`my x` + ., y ~ . - b + b, y ~ (a - a) + a + b, y ~ . - `my x` - a, y ~ a + `my x`)
  df0 <- as.data.frame(matrix(numeric(0), 0, 4, dimnames = list(NULL, c("a", "b", "my_x", "y"))))
  for (f in fs) {
    fp <- f
    fp[[3L]] <- do.call(substitute, list(f[[3L]], list(`my x` = as.name("my_x"))))
    expected <- attr(stats::terms(fp, data = df0), "term.labels")
    got <- setdiff(names(stats::coef(dp_lm(r, f, B = 0))), "(Intercept)")
    expect_setequal(sub("^`?`my x`?`$", "my_x", got), expected)
  }
  e <- expect_error(dp_lm(r, y ~ . - zz, B = 0), class = "dpcov_error")
  expect_identical(e$arg, "formula")
})

test_that("dp_regression() says so where removing the ridge leaves an indefinite block", {
  old <- options(dpcov.noise_warning = TRUE)
  on.exit(options(old))
  warned <- 0
  for (s in 1:20) {
    set.seed(s)
    A <- cbind(one = 1, a = stats::rnorm(50), b = stats::rnorm(50))
    A <- cbind(A, y = A[, "a"] - A[, "b"] + stats::rnorm(50))
    r <- suppressWarnings(jl_ridge(A, 0.5, 1e-6, clip = 5))
    M <- r$estimate - diag(r$ridge, ncol(A))
    indefinite <- min(eigen(M[1:3, 1:3], symmetric = TRUE, only.values = TRUE)$values) <= 0
    w <- tryCatch({
      dp_regression(r, "y", intercept = "one")
      FALSE
    }, dpcov_noise_warning = function(w) TRUE)
    expect_identical(w, indefinite, info = s)
    warned <- warned + w
    # kept, the release is solved as it is: no such warning
    expect_no_warning(dp_regression(r, "y", intercept = "one", ridge = "keep"))
  }
  expect_gt(warned, 0)
})

test_that("a fit with public bounds notes that values beyond them bias the coefficients and intervals", {
  set.seed(42)
  n <- 3000
  d <- data.frame(x = exp(rnorm(n)))
  d$y <- 1 + 0.5 * d$x + rnorm(n)
  fit <- dp_lm(y ~ x, d, epsilon = 1, delta = 1e-6, B = 20, bounds = list(x = c(0, 8), y = c(-3, 9.2)))
  expect_true(any(grepl("clamped to the given bounds", fit$diagnostics$notes)))
  expect_output(print(fit), "clamped to the\\s+given bounds")
  expect_output(print(summary(fit)), "clamped to the\\s+given bounds")
  # not said of a fit whose rows were clipped to one bound (no per-column bounds)
  fc <- suppressWarnings(dp_lm(y ~ x, d, epsilon = 1, delta = 1e-6, B = 20, clip = 30))
  expect_false(any(grepl("clamped to the given bounds", fc$diagnostics$notes)))
})

test_that("dp_lm() takes the constant pi and membership in a set written in the formula, as precomputed columns", {
  set.seed(91)
  n <- 600
  d <- data.frame(month = sample(1:12, n, TRUE) + 0, x = runif(n, 0, 10),
                  g = factor(sample(c("a", "b", "c"), n, TRUE)))
  d$y <- 2 + sin(2 * pi * d$month / 12) + 0.5 * (d$month %in% c(12, 1, 2)) + 0.3 * d$x +
    (d$g %in% c("a", "b")) + rnorm(n, sd = 0.3)
  pre <- data.frame(s = sin(2 * pi * d$month / 12), w = d$month %in% c(12, 1, 2), x = d$x,
                    h = d$g %in% c("a", "b"), y = d$y)
  lo <- c(x = 0, y = -5, month = 1, "sin(2 * pi * month/12)" = -1)
  up <- c(x = 10, y = 15, month = 12, "sin(2 * pi * month/12)" = 1)
  set.seed(5)
  f <- dp_lm(y ~ sin(2 * pi * month / 12) + I(month %in% c(12, 1, 2)) + x + I(g %in% c("a", "b")), d,
             epsilon = 1, delta = 1e-6, lower = lo, upper = up)
  set.seed(5)
  f0 <- dp_lm(y ~ s + w + x + h, pre, epsilon = 1, delta = 1e-6,
              lower = c(s = -1, x = 0, y = -5), upper = c(s = 1, x = 10, y = 15))
  expect_equal(unname(coef(f)), unname(coef(f0)), tolerance = 1e-10)
  # predict() evaluates the same terms on new rows
  nd <- d[1:5, ]
  expect_equal(unname(predict(f, nd)), unname(predict(f0, pre[1:5, ])), tolerance = 1e-10)
  # a column named pi would be read instead of the constant: refused, in data and in newdata
  e <- expect_error(dp_lm(y ~ sin(2 * pi * month / 12), cbind(d, pi = 1), epsilon = 1, delta = 1e-6,
                          lower = lo, upper = up), class = "dpcov_error")
  expect_identical(e$arg, "data")
  e <- expect_error(predict(f, cbind(nd, pi = 3)), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
  # pi alone is a constant, not a variable; a set that is not written as constants is refused
  for (bad in list(y ~ I(pi) + x, y ~ I(month %in% x), y ~ I(month %in% seq(1, 3)), y ~ I(month %in% c(a = 1)),
                   y ~ I(month %in% c(1L, 2L)), y ~ I(month %in% c(1, NA)))) {
    b <- dp_budget(5, 1e-4)
    e <- expect_error(dp_lm(bad, d, epsilon = 1, delta = 1e-6, lower = lo, upper = up, budget = b),
                      class = "dpcov_error", info = deparse1(bad))
    expect_identical(e$arg, "x", info = deparse1(bad))
    expect_identical(budget_spent(b)$charges, 0L)
  }
  # a bare %in% between terms is the formula's nesting operator: the refusal says to write I()
  e <- expect_error(dp_lm(y ~ month %in% c(12, 1, 2) + x, d, epsilon = 1, delta = 1e-6, lower = lo, upper = up),
                    "write I(x %in% c(...))", fixed = TRUE, class = "dpcov_error")
  expect_identical(e$arg, "x")
})

test_that("dp_lm() refuses a factor declaring NA as a level before the charge, and stores a formula without its attributes", {
  set.seed(15)
  n <- 300
  d <- data.frame(x1 = runif(n, -2, 2), g = factor(sample(c("a", "b", NA), n, TRUE), exclude = NULL))
  d$y <- 1 + 0.5 * d$x1 + rnorm(n)
  for (dd in list(d, transform(d, g = addNA(factor(sample(c("a", "b"), n, TRUE)))))) {
    b <- dp_budget(10, 1e-3)
    e <- expect_error(dp_lm(y ~ x1 + g, dd, epsilon = 1, delta = 1e-6, bounds = list(x1 = c(-2, 2), y = c(-6, 8)),
                            budget = b), "declares NA as a level", class = "dpcov_error")
    expect_identical(e$arg, "data")
    expect_identical(budget_spent(b)$charges, 0L)
  }
  # control: the level recoded by name is a fit its methods take
  levels(d$g)[is.na(levels(d$g))] <- "missing"
  f <- dp_lm(y ~ x1 + g, d, epsilon = 1, delta = 1e-6, bounds = list(x1 = c(-2, 2), y = c(-6, 8)))
  expect_length(coef(f), 4L)
  # a terms object as the formula: its predvars and dataClasses stay out of the stored calls
  tt <- terms(model.frame(y ~ x1, d))
  f <- do.call(dp_lm, list(tt, data = d, epsilon = 1, delta = 1e-6, bounds = list(x1 = c(-2, 2), y = c(-6, 8))))
  expect_null(attributes(f$call$formula))
  expect_null(attributes(f$release$call$formula))
  expect_identical(deparse1(f$call$formula), "y ~ x1")
})

test_that("dp_lm() on the Gram mechanisms counts its rows for the bounds' clamped share from the ones entry on the sum's scale", {
  set.seed(13)
  n <- 20000
  d <- data.frame(x1 = runif(n, -2, 2))
  d$y <- 1 + 0.5 * d$x1 + rnorm(n)
  for (m in c("wishart", "jl_ridge")) {
    for (tight in c(TRUE, FALSE)) {
      f <- suppressWarnings(if (tight) {
        dp_lm(y ~ x1, d, epsilon = 0.9, delta = 1e-6, bounds = list(x1 = c(-2, 2), y = c(-6, 8)), mechanism = m,
              tighten = TRUE, B = 5)
      } else dp_lm(y ~ x1, d, epsilon = 0.9, delta = 1e-6, mechanism = m, B = 5))
      cb <- f$release$params$column_bounds
      n_hat <- release_sum(f$release, NA_real_)[1L, 1L]
      # (JL at its default r = 2d is a W_d(A'A, r) / r draw: its count is a rough one)
      if (m == "wishart") expect_true(abs(n_hat - n) < 0.05 * n, info = m)
      # (the tightened share read 1 row, 25%; JL's read the ridge with the count)
      expect_equal(cb$clamped_share, cb$tail_rows / n_hat, info = paste(m, tight))
      if (m == "wishart") expect_lt(cb$clamped_share, 0.01)
    }
  }
})

test_that("dp_lm() refuses bounds inside a factor's or a logical's coding, before any charge", {
  set.seed(11)
  n <- 2000
  d <- data.frame(x1 = runif(n, -1, 1), lg = runif(n) < 0.5, g = factor(sample(c("a", "b"), n, TRUE), levels = c("a", "b")))
  d$y <- 1 + 0.5 * d$x1 + d$lg + (d$g == "b") + rnorm(n, sd = 0.3)
  d$yl <- d$y > 1.5
  b <- dp_budget(10, 1e-3)
  base <- list(x1 = c(-1, 1), y = c(-3, 5))
  for (extra in list(list(lg = c(0.2, 0.5)), list(g = c(0.25, 0.5)), list(gb = c(0.25, 0.5)), list(lgTRUE = c(0, 0.5)))) {
    e <- expect_error(dp_lm(y ~ x1 + lg + g, d, epsilon = 5, delta = 1e-6, bounds = c(base, extra), B = 5, budget = b),
                      sprintf("`bounds` for `%s` .* do not contain its coding \\[0, 1\\]", names(extra)), class = "dpcov_error")
    expect_identical(e$arg, "bounds")
  }
  e <- expect_error(dp_lm(yl ~ x1, d, epsilon = 5, delta = 1e-6, bounds = list(x1 = c(-1, 1), yl = c(0.4, 0.6)), B = 5,
                          budget = b), "`yl` .* coding", class = "dpcov_error")
  expect_identical(e$arg, "bounds")
  expect_identical(budget_spent(b)$charges, 0L)
  # control: bounds containing the coding widen the box, and the coefficients are the coded ones
  f <- dp_lm(y ~ x1 + lg + g, d, epsilon = 5, delta = 1e-6, bounds = c(base, list(lg = c(-1, 2), gb = c(0, 1))), B = 5,
             budget = b)
  expect_true(all(abs(coef(f)[c("lgTRUE", "gb")] - coef(lm(y ~ x1 + lg + g, d))[c("lgTRUE", "gb")]) < 0.2))
  expect_identical(budget_spent(b)$releases, 1L)
})

test_that("dp_lm() on a clip under add/remove tells heavy clipping from the ones entry, and refuses a clip every row exceeds", {
  set.seed(31)
  n <- 20000
  d <- data.frame(x1 = runif(n, -1, 1))
  d$y <- 1 + 0.5 * d$x1 + rnorm(n, sd = 0.1)
  # 43% of the rows [1, x, y] exceed 1.5
  expect_gt(mean(sqrt(1 + d$x1^2 + d$y^2) > 1.5), 0.4)
  f <- suppressWarnings(dp_lm(y ~ x1, d, epsilon = 1, delta = 1e-6, clip = 1.5, B = 10))
  expect_true(is.na(f$release$n))
  # the fill counted over the released ones entry, sum s_i^2 (short of n by the clipping)
  S <- release_sum(f$release, NA_real_)
  expect_equal(f$release$diagnostics$clip_fill, max(0, sum(diag(S)) - dpcov_lower_sd() * sqrt(sum(diag(release_noise_sd(f$release))^2))) /
                 S[1, 1] / 1.5^2, tolerance = 1e-10)
  expect_gt(f$release$diagnostics$clip_fill, 0.8)
  expect_true(f$diagnostics$intervals_biased)
  expect_match(paste(f$diagnostics$messages, collapse = " "), "many rows were clipped")
  # control: a clip above the rows is not flagged, and its fill is replace-one's
  g <- suppressWarnings(dp_lm(y ~ x1, d, epsilon = 1, delta = 1e-6, clip = 4, B = 10))
  h <- suppressWarnings(dp_lm(y ~ x1, d, epsilon = 1, delta = 1e-6, clip = 4, B = 10, neighbor = "replace-one"))
  expect_false(g$diagnostics$intervals_biased)
  expect_lt(g$release$diagnostics$clip_fill, 0.3)
  expect_equal(g$release$diagnostics$clip_fill, h$release$diagnostics$clip_fill, tolerance = 0.01)
  # a clip below 1, the ones' norm alone, clips every row: refused before any charge
  b <- dp_budget(5, 1e-4)
  for (cl in c(0.5, 0.999)) {
    e <- expect_error(dp_lm(y ~ x1, d, epsilon = 1, delta = 1e-6, clip = cl, budget = b), "below 1", class = "dpcov_error")
    expect_identical(e$arg, "clip")
  }
  expect_identical(budget_spent(b)$charges, 0L)
  # a hand-made ones index is checked
  r <- f$release
  r$params$ones_column <- 7
  expect_error(release_diagnostics(r), "ones_column", class = "dpcov_error")
})
