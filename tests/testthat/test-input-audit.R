# Findings of the fifteenth session's hostile-input and calibration audits:
# each test pins the class of the defect, not only the audit's example.

audit_x <- function(n = 400, p = 3, names = c("a", "b", "c")[seq_len(p)]) {
  set.seed(151)
  matrix(rnorm(n * p), n, p, dimnames = list(NULL, names))
}

test_that("a dp_column_bounds given as `bounds` with an NA row is refused before any charge (its guarantee would be dropped)", {
  x <- audit_x()
  b <- suppressWarnings(dp_column_bounds(x, epsilon = 1, delta = 1e-6))
  # intact, the release's guarantee counts the bounds' (epsilon 1 + 1)
  expect_equal(suppressWarnings(dp_cov(x, 1, 1e-6, bounds = b))$epsilon, 2)
  bad <- b
  bad$bounds$lower[1] <- NA
  bad$bounds$upper[1] <- NA
  budget <- dp_budget(10, 1e-4)
  calls <- list(
    dp_cov = function() dp_cov(x, 1, 1e-6, bounds = bad, budget = budget),
    dp_pca = function() dp_pca(x, epsilon = 1, delta = 1e-6, bounds = bad, budget = budget),
    dp_lm = function() dp_lm(c ~ a + b, data = as.data.frame(x), epsilon = 1, delta = 1e-6, bounds = bad,
                             budget = budget),
    analyze_gauss = function() analyze_gauss(x, 1, 1e-6, bounds = bad, budget = budget))
  for (nm in names(calls)) {
    e <- expect_error(calls[[nm]](), class = "dpcov_error", info = nm)
    expect_identical(e$arg, "bounds", info = nm)
    expect_match(conditionMessage(e), "not a valid dp_column_bounds object", info = nm)
  }
  expect_identical(nrow(as.data.frame(budget)), 0L)
  # other corruptions of the object's fields are refused alike
  for (f in list(function(o) { o$bounds$upper[2] <- o$bounds$lower[2] - 1; o }, function(o) { o$epsilon <- -1; o },
                 function(o) { o$n_hint <- 0; o })) {
    e <- expect_error(dp_cov(x, 1, 1e-6, bounds = f(b)), class = "dpcov_error")
    expect_identical(e$arg, "bounds")
  }
})

test_that("dp_column_bounds(n_hint = ) must be at least 1 row", {
  x <- audit_x()
  for (h in list(0, -5, 0.5)) {
    e <- expect_error(dp_column_bounds(x, 1, n_hint = h), class = "dpcov_error")
    expect_identical(e$arg, "n_hint")
  }
  expect_s3_class(suppressWarnings(dp_column_bounds(x, 1, n_hint = 1)), "dp_column_bounds")
})

test_that("duplicated or missing column names are refused by every release from data, before the charge where the schema is read first", {
  x <- audit_x()
  dup <- x
  colnames(dup) <- c("a", "a", "y")
  budget <- dp_budget(20, 1e-3, neighbor = "replace-one")
  calls <- list(
    dp_cov_clip = function() dp_cov(dup, 1, 1e-6, clip = 5, clip_mean = 5, budget = budget, neighbor = "replace-one"),
    dp_cov_default = function() dp_cov(dup, 1, 1e-6, budget = budget, neighbor = "replace-one"),
    analyze_gauss = function() analyze_gauss(dup, 1, 1e-6, clip = 5, budget = budget, neighbor = "replace-one"),
    wishart_noise = function() wishart_noise(dup, 0.5, 1e-6, clip = 5, budget = budget),
    dp_threshold = function() dp_threshold(dup, 0.5, 1e-6, clip = 5, neighbor = "replace-one", budget = budget),
    dp_column_bounds = function() dp_column_bounds(dup, 1, budget = budget))
  for (nm in names(calls)) {
    e <- expect_error(calls[[nm]](), class = "dpcov_error", info = nm)
    expect_identical(e$arg, "x", info = nm)
    expect_match(conditionMessage(e), "duplicate or missing column names (`a`)", fixed = TRUE, info = nm)
  }
  # a refusal of the schema charges nothing (refunded where the charge came first)
  expect_equal(budget_spent(budget)$epsilon, 0)
  na_name <- x
  colnames(na_name) <- c("a", NA, "c")
  expect_error(dp_cov(na_name, 1, 1e-6, clip = 5, clip_mean = 5), class = "dpcov_error")
  # a data frame with repeated names (check.names = FALSE)
  d <- data.frame(a = x[, 1], a = x[, 2], check.names = FALSE)
  e <- expect_error(dp_cov(d, 1, 1e-6, clip = 5, clip_mean = 5), class = "dpcov_error")
  expect_identical(e$arg, "x")
  # dp_lm(): a variable naming two columns of `data` (model.frame() would take the first), before the charge
  d$y <- x[, 3]
  b2 <- dp_budget(5, 1e-4)
  e <- expect_error(dp_lm(y ~ a, d, epsilon = 1, delta = 1e-6, budget = b2), class = "dpcov_error")
  expect_identical(e$arg, "data")
  e <- expect_error(dp_lm(y ~ ., d, epsilon = 1, delta = 1e-6, budget = b2), class = "dpcov_error")
  expect_identical(e$arg, "data")
  expect_identical(nrow(as.data.frame(b2)), 0L)
  # a reader function's names are known only from what it returns: refused, and, as any refusal of what a
  # reader returned, the charge stands
  rd <- local({
    done <- FALSE
    function() {
      if (done) return(NULL)
      done <<- TRUE
      dup
    }
  })
  b3 <- dp_budget(5, 1e-4, neighbor = "replace-one")
  expect_error(analyze_gauss(rd, 1, 1e-6, clip = 5, neighbor = "replace-one", budget = b3), class = "dpcov_error")
  expect_equal(budget_spent(b3)$epsilon, 1)
  # studies of subspaces and the QDA plug-in match columns by position: repeated names are accepted there
  f <- rnorm(200)
  xs <- cbind(f, f, 0) + matrix(rnorm(600), 200, 3)
  expect_s3_class(suppressWarnings(compression_pca_study(xs, m = 50, dim = 1, reps = 1)), "dp_study")
  expect_true(all(is.finite(compression_alpha(xs, xs + 0.1, m = 100)$alpha)))
  expect_length(combo_select(xs, factor(rep(c("a", "b"), 100)), p = 2), 2L)
})

test_that("a hand-made release whose names do not identify its columns is refused by every method", {
  x <- audit_x()
  r <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 5, neighbor = "replace-one")
  bad <- r
  dimnames(bad$estimate) <- list(c("a", "a", "c"), c("a", "a", "c"))
  for (f in list(print, summary, function(o) dp_lm(o, c ~ a, B = 5), function(o) dp_regression(o, "c"), dp_pca)) {
    e <- expect_error(f(bad), class = "dpcov_error")
    expect_match(conditionMessage(e), "column names of `estimate` must be unique")
  }
  bad <- r
  rownames(bad$estimate) <- c("x", "y", "z")
  expect_error(print(bad), "row and column names of `estimate` must be the same", class = "dpcov_error")
  bad <- r
  names(bad$center) <- c("c", "b", "a")
  expect_error(print(bad), "names of `center` must be those of the columns", class = "dpcov_error")
  expect_output(print(r), "Private covariance")  # the release as made passes
})

test_that("integer columns enter a dp_lm() formula as doubles: a product that overflows integers is computed exactly", {
  set.seed(152)
  n <- 2000
  d <- data.frame(i = sample(1:100000, n, TRUE))
  d$y <- 1e-9 * as.double(d$i)^2 + rnorm(n, sd = 0.1)
  expect_true(anyNA(suppressWarnings(d$i * d$i)))  # the integer product overflows
  dd <- d
  dd$i <- as.double(d$i)
  fit_args <- list(epsilon = 50, delta = 1e-5, neighbor = "replace-one", B = 20, tighten = FALSE)
  b_int <- list(i = c(1, 1e5), y = c(-1, 11), `I(i * i)` = c(0, 1e10))
  set.seed(153)
  f_int <- do.call(dp_lm, c(list(y ~ I(i * i), d, bounds = b_int), fit_args))
  set.seed(153)
  f_dbl <- do.call(dp_lm, c(list(y ~ I(i * i), dd, bounds = b_int), fit_args))
  expect_identical(coef(f_int), coef(f_dbl))
  expect_equal(unname(coef(f_int)[2]), 1e-9, tolerance = 0.05)
  # predict() with integer newdata: the same as with doubles
  nd <- data.frame(i = c(60000L, 90000L))
  expect_identical(predict(f_int, nd), predict(f_int, data.frame(i = as.double(nd$i))))
  expect_false(anyNA(predict(f_int, nd)))
})

test_that("a hand-made dp_lm with a malformed vcov, bootstrap, n or coefficient names is refused by every method", {
  set.seed(154)
  d <- data.frame(x1 = runif(500), x2 = runif(500))
  d$y <- d$x1 - d$x2 + rnorm(500, sd = 0.1)
  fit <- dp_lm(y ~ x1 + x2, d, epsilon = 5, delta = 1e-6, lower = c(x1 = 0, x2 = 0, y = -2),
               upper = c(x1 = 1, x2 = 1, y = 2), B = 50)
  breaks <- list(
    negative_variance = function(o) { o$vcov[2, 2] <- -abs(o$vcov[2, 2]) - 1; o },
    asymmetric = function(o) { o$vcov[1, 2] <- o$vcov[1, 2] + 1; o },
    some_na = function(o) { o$vcov[1, 1] <- NA; o },
    boot_na = function(o) { o$boot[1, 1] <- NA; o },
    boot_inf = function(o) { o$boot[1, 1] <- Inf; o },
    fractional_n = function(o) { o$n <- 2.5; o },
    repeated_names = function(o) { names(o$coefficients) <- c("a", "a", "b"); o })
  methods <- list(confint = confint, summary = summary, tidy = tidy, nobs = nobs,
                  predict = function(o) predict(o, d[1:2, ], se.fit = TRUE))
  for (b in names(breaks)) for (m in names(methods)) {
    expect_error(methods[[m]](breaks[[b]](fit)), class = "dpcov_error", info = paste(b, m))
  }
  # a fit without kept draws (vcov all NA) stays valid
  ok <- fit
  ok$vcov[] <- NA_real_
  expect_silent(coef(ok))
})

test_that("a call without its data is a classed error naming the argument, for every exported entry point", {
  x <- audit_x()
  calls <- list(dp_cov = quote(dp_cov(epsilon = 1, delta = 1e-6)), analyze_gauss = quote(analyze_gauss(epsilon = 1, delta = 1e-6, clip = 3)),
                wishart_noise = quote(wishart_noise(epsilon = 0.5, delta = 1e-6, clip = 3)),
                jl_ridge = quote(jl_ridge(epsilon = 0.5, delta = 1e-6, clip = 3)),
                iwishart_posterior = quote(iwishart_posterior(epsilon = 0.5, delta = 1e-6, clip = 3)),
                dp_threshold = quote(dp_threshold(epsilon = 0.5, delta = 1e-6, clip = 1)),
                dp_compress = quote(dp_compress(m = 10)), second_moment = quote(second_moment(clip = 1)),
                qda_plugin = quote(qda_plugin()), pooled_cov = quote(pooled_cov()),
                cov_error = quote(cov_error(diag(2))), subspace_distance = quote(subspace_distance(diag(2))))
  want <- c(dp_cov = "x", analyze_gauss = "x", wishart_noise = "x", jl_ridge = "x", iwishart_posterior = "x",
            dp_threshold = "x", dp_compress = "x", second_moment = "x", qda_plugin = "x", pooled_cov = "x",
            cov_error = "truth", subspace_distance = "b")
  for (nm in names(calls)) {
    e <- expect_error(eval(calls[[nm]]), class = "dpcov_error", info = nm)
    expect_identical(e$arg, want[[nm]], info = nm)
    expect_match(conditionMessage(e), "is missing, with no default", info = nm)
  }
})

test_that("an argument a function does not take is a classed error naming it, with the nearest name it takes", {
  x <- audit_x()
  r <- dp_cov(x, 1, 1e-6, lower = -4, upper = 4)
  b <- dp_budget(1, 1e-5)
  cases <- list(
    list(quote(dp_cov(x, 1, 1e-6, bounds_share = 0.2)), "bounds_share", "bound_share"),
    list(quote(dp_column_bounds(x, 1, neighbour = "replace-one")), "neighbour", "neighbor"),
    list(quote(dp_as_cov(r, too = "correlation")), "too", "to"),
    list(quote(release_diagnostics(r, verbose = TRUE)), "verbose", NA),
    list(quote(dp_budget(1, 1e-5, neighbour = "replace-one")), "neighbour", "neighbor"),
    list(quote(budget_spent(b, foo = 1)), "foo", NA),
    list(quote(analyze_gauss(x, 1, 1e-6, clip = 3, calibrate = "classic")), "calibrate", "calibration"),
    list(quote(dp_clip_bound(x, 1, quantiles = 0.5)), "quantiles", "quantile"))
  for (k in cases) {
    e <- expect_error(eval(k[[1]]), class = "dpcov_error", info = k[[2]])
    expect_identical(e$arg, k[[2]], info = k[[2]])
    if (!is.na(k[[3]])) expect_match(conditionMessage(e), sprintf("did you mean `%s`?", k[[3]]), fixed = TRUE)
  }
  # a suggestion only for a near name (whole-name distance): `sd` is not a typo of `epsilon`
  e <- expect_error(dp_cov(x, 1, 1e-6, sd = 5), class = "dpcov_error")
  expect_false(grepl("did you mean", conditionMessage(e)))
  e <- expect_error(analyze_gauss(x, 1, 1e-6, clip = 3, clip_mean = 3), class = "dpcov_error")
  expect_false(grepl("sigma_clip_inf", conditionMessage(e)))
  # named and unnamed extras are both reported
  e <- expect_error(dp_budget(1, 1e-5, "add-remove", 7, foo = 1), class = "dpcov_error")
  expect_identical(e$arg, "foo")
  expect_match(conditionMessage(e), "1 unnamed value(s)", fixed = TRUE)
  e <- expect_error(summary(r, foo = 1), class = "dpcov_error")
  expect_identical(e$arg, "foo")
  # nothing was charged by a refused call
  expect_identical(nrow(as.data.frame(b)), 0L)
})

test_that("errors name the argument the user gave: partial bounds of the wrong length, an epsilon too small for the default shares", {
  x <- audit_x()
  e <- expect_error(dp_cov(x, 1, 1e-6, lower = c(NA, -3), upper = c(NA, 3)), class = "dpcov_error")
  expect_identical(e$arg, "lower")
  e <- expect_error(dp_cov(x, 1, 1e-6, bounds = data.frame(lower = c(NA, -3), upper = c(NA, 3))),
                    class = "dpcov_error")
  expect_identical(e$arg, "bounds")
  # the default shares: epsilon is named; a share the user gave is named instead
  e <- expect_error(dp_cov(x, 1e-6, 1e-6), class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  e <- expect_error(dp_cov(x, 1e-6, 1e-6, bound_share = 0.25), class = "dpcov_error")
  expect_identical(e$arg, "bound_share")
  e <- expect_error(dp_cov(x, 1e-6, 1e-6, mechanism = "wishart", clip = 3, clip_mean = 3), class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  e <- expect_error(dp_cov(x, 1e-6, 1e-6, mechanism = "wishart", clip = 3, clip_mean = 3, split = 0.15),
                    class = "dpcov_error")
  expect_identical(e$arg, "split")
})

test_that("tidy() and glance() of a release, of column bounds and of a PCA read released quantities; as.data.frame() of fits is refused", {
  x <- audit_x()
  set.seed(155)
  r <- dp_cov(x, 1, 1e-6, lower = -4, upper = 4)
  expect_identical(tidy(r), as.data.frame(r))
  g <- glance(r)
  expect_identical(nrow(g), 1L)
  expect_identical(g$epsilon, r$epsilon)
  expect_identical(g$delta, r$delta)
  expect_identical(g$neighbor, "add-remove")
  expect_true(is.na(g$n))  # not released under add/remove
  expect_identical(g$p, 3L)
  expect_true(g$private)
  expect_identical(g$level, release_diagnostics(r)$level)
  r1 <- dp_cov(x, 1, 1e-6, lower = -4, upper = 4, neighbor = "replace-one")
  expect_identical(glance(r1)$n, 400)
  # a release without a guarantee says so in its tables
  rc <- suppressWarnings(dp_compress(x, m = 50))
  expect_s3_class(glance(rc), "dp_nonprivate")
  expect_false(glance(rc)$private)
  expect_true(is.na(glance(rc)$epsilon))
  expect_s3_class(tidy(rc), "dp_nonprivate")
  cb <- suppressWarnings(dp_column_bounds(x, 1, 1e-6))
  tb <- tidy(cb)
  expect_identical(tb$column, c("a", "b", "c"))
  expect_identical(tb$lower, cb$bounds$lower)
  expect_identical(tb$upper, cb$bounds$upper)
  expect_identical(tb$center, unname(cb$center))
  expect_identical(tb$scale, unname(cb$scale))
  pc <- suppressWarnings(dp_pca(r))
  gp <- glance(pc)
  expect_identical(c(gp$p, gp$rank), c(3L, 3L))
  expect_identical(gp$epsilon, 1)
  expect_identical(gp$level, pc$diagnostics$level)
  e <- expect_error(as.data.frame(pc), class = "dpcov_error")
  expect_match(conditionMessage(e), "tidy(x)", fixed = TRUE)
  fit <- dp_lm(c ~ a + b, data = as.data.frame(x), epsilon = 2, delta = 1e-6,
               lower = c(a = -4, b = -4, c = -4), upper = c(a = 4, b = 4, c = 4), B = 20)
  e <- expect_error(as.data.frame(fit), class = "dpcov_error")
  expect_match(conditionMessage(e), "tidy(x)", fixed = TRUE)
  # the tables hold no data
  for (o in list(tidy(r), glance(r), tb, gp)) expect_false(any(vapply(o, function(col) any(col %in% x), logical(1))))
})

test_that("a statement about n is consistent within a release, and zero_row is recorded only where it sets the noise (calibration audit)", {
  x <- audit_x()
  r <- suppressWarnings(dp_cov(x, 1, 1e-6, neighbor = "replace-one"))
  expect_false(grepl("n is used but not released[;.]", r$guarantee))
  expect_match(r$guarantee, "n is used but not released by this step", fixed = TRUE)
  for (nb in c("add-remove", "replace-one")) {
    rb <- dp_cov(x, 1, 1e-6, lower = -4, upper = 4, neighbor = nb)
    expect_null(rb$params$second_moment$zero_row)
    expect_false(is.null(rb$params$second_moment$sigma))
  }
  rz <- dp_cov(x, 1, 1e-6, lower = c(1, -4, -4), upper = c(5, 4, 4), neighbor = "zero-out")
  expect_equal(rz$params$second_moment$zero_row, 0.5)  # the first column's range excludes 0: its box row is -1/2
})

test_that("dp_cov() refuses a tuning argument of a step the call does not run, instead of ignoring it", {
  x <- audit_x()
  b <- dp_budget(5, 1e-4)
  ignored <- list(
    list(quote(dp_cov(x, 1, 1e-6, lower = -4, upper = 4, bound_share = 0.3, budget = b)), "bound_share"),
    list(quote(dp_cov(x, 1, 1e-6, lower = -4, upper = 4, bound_quantile = 0.9, budget = b)), "bound_quantile"),
    list(quote(dp_cov(x, 1, 1e-6, bound_factor = 3, budget = b)), "bound_factor"),       # per-column bounds chosen
    list(quote(dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 5, bound_range = c(1, 10), budget = b)), "bound_range"),
    list(quote(dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 5, bound_share = 0.2, budget = b)), "bound_share"))
  for (k in ignored) {
    e <- expect_error(eval(k[[1]]), class = "dpcov_error", info = k[[2]])
    expect_identical(e$arg, k[[2]], info = k[[2]])
    expect_match(conditionMessage(e), "tunes a step this call does not run", info = k[[2]])
  }
  expect_identical(nrow(as.data.frame(b)), 0L)
  # bounds not tightened because the automatic rule says so (n private under add/remove): refused too
  e <- expect_error(dp_cov(x, 1, 1e-6, lower = -4, upper = 4, tighten = NULL, bound_share = 0.3, budget = b),
                    class = "dpcov_error")
  expect_identical(e$arg, "bound_share")
  expect_identical(nrow(as.data.frame(b)), 0L)
  # where the step runs, the arguments are taken: they change the release under the same seed
  same_seed <- function(...) {
    set.seed(156)
    suppressWarnings(dp_cov(x, 1, 1e-6, ...))$estimate
  }
  expect_false(identical(same_seed(clip = 5, bound_quantile = 0.9), same_seed(clip = 5)))
  expect_false(identical(same_seed(lower = -4, upper = 4, tighten = TRUE, bound_share = 0.1),
                         same_seed(lower = -4, upper = 4, tighten = TRUE, bound_share = 0.4)))
  expect_false(identical(same_seed(bound_share = 0.1), same_seed(bound_share = 0.4)))
})

test_that("dp_lm() refuses a bound_share no step of the call uses, and names epsilon when the default share is too small", {
  set.seed(157)
  d <- data.frame(a = runif(300), b = runif(300))
  d$y <- d$a - d$b + rnorm(300, sd = 0.1)
  lo <- c(a = 0, b = 0, y = -2)
  up <- c(a = 1, b = 1, y = 2)
  bud <- dp_budget(5, 1e-4)
  e <- expect_error(dp_lm(y ~ a + b, d, epsilon = 1, delta = 1e-6, lower = lo, upper = up, tighten = FALSE,
                          bound_share = 0.2, budget = bud), class = "dpcov_error")
  expect_identical(e$arg, "bound_share")
  e <- expect_error(dp_lm(y ~ a + b, d, epsilon = 1, delta = 1e-6, clip = 3, bound_share = 0.2, budget = bud),
                    class = "dpcov_error")
  expect_identical(e$arg, "bound_share")
  expect_identical(nrow(as.data.frame(bud)), 0L)
  # the automatic rule does not tighten under add/remove (n private): refused as well
  e <- expect_error(dp_lm(y ~ a + b, d, epsilon = 1, delta = 1e-6, lower = lo, upper = up, bound_share = 0.2,
                          budget = bud), class = "dpcov_error")
  expect_identical(e$arg, "bound_share")
  expect_identical(nrow(as.data.frame(bud)), 0L)
  # used (the default's private bounds; tightening): the share changes the fit under the same seed
  fit_coef <- function(...) {
    set.seed(161)
    coef(suppressWarnings(dp_lm(y ~ a + b, d, epsilon = 1, delta = 1e-6, B = 10, ...)))
  }
  expect_false(identical(fit_coef(bound_share = 0.1), fit_coef(bound_share = 0.4)))
  expect_false(identical(fit_coef(lower = lo, upper = up, tighten = TRUE, neighbor = "replace-one", bound_share = 0.1),
                         fit_coef(lower = lo, upper = up, tighten = TRUE, neighbor = "replace-one", bound_share = 0.4)))
  e <- expect_error(dp_lm(y ~ a + b, d, epsilon = 1e-6, delta = 1e-6), class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
})

test_that("run_study(): settings that would shadow the results are refused; factor settings are read as their labels", {
  settings <- data.frame(cov = "model2", dist = "gaussian", p = 4, n = 30, epsilon = 0.5, delta = 0.01)
  for (extra in c("spectral", "method", "rep", "truth", "constant")) {
    st <- settings
    st[[extra]] <- 1
    e <- expect_error(run_study(st, reps = 1, tune = "theory"), class = "dpcov_error", info = extra)
    expect_identical(e$arg, "settings", info = extra)
  }
  e <- expect_error(run_study(list(cov = "model2")), class = "dpcov_error")
  expect_identical(e$arg, "settings")
  fac <- settings
  fac$cov <- factor(fac$cov)
  fac$dist <- factor(fac$dist)
  set.seed(158)
  a <- suppressWarnings(run_study(fac, reps = 2, tune = "theory"))
  set.seed(158)
  b <- suppressWarnings(run_study(settings, reps = 2, tune = "theory"))
  expect_identical(a$spectral, b$spectral)
  expect_identical(a$cov, b$cov)
})

test_that("studies with errors that no study makes (NA, negative) are refused by their methods", {
  settings <- data.frame(cov = "model2", dist = "gaussian", p = 4, n = 30, epsilon = 0.5, delta = 0.01)
  set.seed(159)
  rst <- suppressWarnings(run_study(settings, reps = 2, tune = "theory"))
  for (f in list(function(o) { o$spectral[1] <- NA; o }, function(o) { o$frobenius[2] <- -1; o })) {
    expect_error(plot(f(rst)), class = "dpcov_error")
    expect_error(summary(f(rst)), class = "dpcov_error")
  }
  sst <- sheffet_study("single", n = 2^7, epsilon = 0.5, reps = 2, p = 2)
  bad <- sst
  bad$error[1] <- -1
  expect_error(plot(bad), class = "dpcov_error")
  expect_error(print(bad), class = "dpcov_error")
  expect_error(summary(bad), class = "dpcov_error")
  bad$error[1] <- NA
  expect_error(plot(bad), class = "dpcov_error")
})

test_that("csv_reader(): a repeated header name and a damaged compressed file are classed refusals when the reader is made", {
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f), add = TRUE)
  writeLines(c("a,a,b", "1,2,3", "4,5,6", "7,8,10"), f)
  e <- expect_error(csv_reader(f), class = "dpcov_error")
  expect_identical(e$arg, "file")
  expect_match(conditionMessage(e), "its header names `a` more than once", fixed = TRUE)
  e <- expect_error(csv_reader(f, columns = "a"), class = "dpcov_error")
  expect_identical(e$arg, "columns")
  e <- expect_error(csv_reader(f, columns = c(1, 2)), class = "dpcov_error")
  expect_identical(e$arg, "file")
  expect_match(conditionMessage(e), "rename them in the file, or read one of them", fixed = TRUE)
  # columns chosen so that no name repeats: read
  rd <- csv_reader(f, columns = c(1, 3))
  expect_identical(colnames(rd()), c("a", "b"))
  expect_identical(unname(second_moment(csv_reader(f, columns = c("b")))$gram[1, 1]), 9 + 36 + 100)
  g <- tempfile(fileext = ".csv.gz")
  on.exit(unlink(g), add = TRUE)
  writeBin(as.raw(c(0x1f, 0x8b, 0x08, 0, 1, 2, 3)), g)
  e <- expect_error(csv_reader(g), class = "dpcov_error")
  expect_identical(e$arg, "file")
  expect_match(conditionMessage(e), "could not be read")
})

test_that("refusals name their argument: qda_study()'s reserved name and groups, pooled_cov()'s labels, abort()'s x$field", {
  set.seed(160)
  feats <- list(x = rbind(matrix(rnorm(60), 20), matrix(rnorm(30, 1), 10)),
                group = factor(rep(c("lean", "obese"), c(20, 10))))
  est <- qda_estimators(private = FALSE)
  e <- expect_error(qda_study(feats, list(trivial = est[[1]]), p = 2, reps = 1, n_test = c(lean = 4, obese = 2)),
                    class = "dpcov_error")
  expect_identical(e$arg, "estimators")
  f3 <- feats
  f3$group <- factor(rep(c("a", "b", "c"), 10))
  e <- expect_error(qda_study(f3, est, p = 2, reps = 1, n_test = c(a = 2, b = 2, c = 2)), class = "dpcov_error")
  expect_identical(e$arg, "features$group")  # as the explicit ones name a field
  # repeated feature names: refused up front (its private estimators name columns), naming the field
  fd <- feats
  colnames(fd$x) <- c("a", "b", "a")
  e <- expect_error(qda_study(fd, qda_estimators(), p = 2, reps = 1, n_test = c(lean = 4, obese = 2)),
                    class = "dpcov_error")
  expect_identical(e$arg, "features$x")
  e <- expect_error(pooled_cov(matrix(rnorm(12), 6), list(1, 1, 2, 2, 3, 3)), class = "dpcov_error")
  expect_identical(e$arg, "group")
  expect_match(conditionMessage(e), "not list", fixed = TRUE)
  e <- expect_error(pooled_cov(matrix(rnorm(12), 6), c(1, 1, 2, 2, 3)), class = "dpcov_error")
  expect_match(conditionMessage(e), "(6); it has 5", fixed = TRUE)
})

test_that("second_moment_db() names its columns by the database's names, not a named vector's", {
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "t", data.frame(a = c(1, 2, 3), b = c(0.5, -1, 2)))
  s <- second_moment_db(con, "t", columns = c(x = "a", y = "b"), clip = 10)
  expect_identical(s$colnames, c("a", "b"))
})

test_that("hand-edited fits and releases: classed errors, never a C++ error or names that disagree", {
  set.seed(3)
  d <- data.frame(y = rnorm(400), x1 = rnorm(400), x2 = rnorm(400))
  fit <- suppressWarnings(dp_lm(y ~ x1 + x2, data = d, epsilon = 1, delta = 1e-6, lower = c(y = -4, x1 = -4, x2 = -4),
                                upper = c(y = 4, x1 = 4, x2 = 4), neighbor = "replace-one", B = 20))
  o <- fit; o$coefficients <- unname(o$coefficients)
  expect_error(tidy(o), "coefficients", class = "dpcov_error")
  o <- fit; dimnames(o$vcov) <- rev(dimnames(o$vcov))
  dimnames(o$vcov) <- list(rev(names(fit$coefficients)), rev(names(fit$coefficients)))
  expect_error(vcov(o), "names of its `vcov`", class = "dpcov_error")
  o <- fit; o$formula <- y ~ zz
  expect_error(print(o), "`formula` is not the model", class = "dpcov_error")
  expect_error(predict(o, d[1:2, ]), "`formula` is not the model", class = "dpcov_error")
  o <- fit; o$terms <- "y ~ x1"
  expect_error(coef(o), "`terms` is malformed", class = "dpcov_error")
  expect_silent(coef(fit))
  # a release whose estimate is stored as integer: converted, as R's matrix functions do
  ri <- dp_cov(matrix(rnorm(2000), 500, 4), epsilon = 1, delta = 1e-6, lower = rep(-4, 4), upper = rep(4, 4))
  # (a diagonal entry not positive: the correlation projects it to the PSD cone first)
  ri$estimate <- matrix(c(2L, 1L, 0L, 0L, 1L, 1L, 0L, 0L, 0L, 0L, 3L, 0L, 0L, 0L, 0L, 0L), 4, 4)
  expect_true(is.integer(ri$estimate))
  cv <- suppressWarnings(dp_as_cov(ri, "correlation"))$estimate
  rd <- ri
  storage.mode(rd$estimate) <- "double"
  expect_equal(cv, suppressWarnings(dp_as_cov(rd, "correlation"))$estimate)
  expect_equal(unname(cv[1:2, 1:2]), matrix(c(1, sqrt(1 / 2), sqrt(1 / 2), 1), 2))
  # qda: duplicated levels refused; a covariance with no positive eigenvalue warns
  q <- qda_plugin(iris[, 1:4], iris$Species)
  o <- q; o$levels <- c("a", "a", "b")
  expect_error(predict(o, iris[1:2, 1:4]), "not a valid qda_plugin", class = "dpcov_error")
  expect_warning(q0 <- qda_plugin(iris[, 1:4], iris$Species, cov = matrix(0, 4, 4)), "no positive eigenvalue",
                 class = "dpcov_noise_warning")
  expect_match(paste(capture.output(print(q0)), collapse = " "), "priors alone")
  expect_no_warning(qda_plugin(iris[, 1:4], iris$Species))
  # dp_pca: a malformed source or diagnostics field
  pc <- dp_pca(dp_cov(iris[, 1:4], epsilon = 1, delta = 1e-6, lower = c(4, 2, 1, 0), upper = c(8, 5, 7, 3)))
  o <- pc; o$source <- "x"
  expect_error(glance(o), "not a valid dp_pca", class = "dpcov_error")
  o <- pc; o$diagnostics <- "x"
  expect_error(glance(o), "not a valid dp_pca", class = "dpcov_error")
  expect_no_error(glance(pc))
})

test_that("a release whose noise scale was edited to a negative or non-number is refused, not judged less noisy", {
  set.seed(5)
  ag <- analyze_gauss(matrix(rnorm(2000), 500, 4), epsilon = 1, delta = 1e-6, clip = 3)
  for (v in list(-1, "1", c(1, -2), NaN, TRUE)) {
    o <- ag
    o$params$sigma <- v
    expect_error(print(o), "params\\$sigma", class = "dpcov_error")
    expect_error(release_diagnostics(o), "params\\$sigma", class = "dpcov_error")
  }
  o <- ag
  o$params$sigma <- ag$params$sigma * 2  # a number >= 0 is read as given
  expect_gt(release_diagnostics(o)$noise_to_signal, release_diagnostics(ag)$noise_to_signal)
  o <- dp_cov(matrix(rnorm(2000), 500, 4), epsilon = 1, delta = 1e-6, lower = rep(-4, 4), upper = rep(4, 4))
  o$params$sigma_mean <- -3
  expect_error(print(o), "params\\$sigma_mean", class = "dpcov_error")
  # the second step's fields, and the correlation's noise, read by the diagnostics too
  r <- dp_cov(matrix(rnorm(2000), 500, 4), epsilon = 1, delta = 1e-6, clip = 3)
  o <- r
  o$params$second_moment$sigma <- "1"
  expect_error(release_diagnostics(o), "params\\$second_moment\\$sigma", class = "dpcov_error")
  rc <- dp_cov(matrix(rnorm(2000), 500, 4), epsilon = 1, delta = 1e-6, clip = 3, type = "correlation")
  expect_false(is.null(rc$params$correlation_noise_sd))
  o <- rc
  o$params$correlation_noise_sd <- -o$params$correlation_noise_sd
  expect_error(print(o), "correlation_noise_sd", class = "dpcov_error")
  expect_no_error(release_diagnostics(rc))
})

test_that("arguments that do not apply are refused, not ignored: dp_lm's n and tighten, dp_regression's ridge, qda_estimators(), dp_compress()'s truncation, dp_cov's divisor (audit)", {
  set.seed(96)
  X <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  D <- as.data.frame(X)
  # dp_lm(<release>, n =): only for a release with no count of its own
  ag <- analyze_gauss(cbind("(Intercept)" = 1, X), 1, 1e-6, clip = 5, neighbor = "replace-one")
  e <- expect_error(dp_lm(ag, a ~ b + c, n = 10, B = 5), "releases n", class = "dpcov_error")
  expect_identical(e$arg, "n")
  ag_ar <- analyze_gauss(cbind("(Intercept)" = 1, X), 1, 1e-6, clip = 5)
  e <- expect_error(dp_lm(ag_ar, a ~ b + c, n = 10, B = 5), "column of ones", class = "dpcov_error")
  expect_identical(e$arg, "n")
  cv <- dp_cov(X, 1, 1e-6, clip = 5, clip_mean = 5)
  e <- expect_error(dp_lm(cv, a ~ b + c, n = 10, B = 5), "covariance", class = "dpcov_error")
  expect_identical(e$arg, "n")
  # where it applies it is used: a release with neither
  ag0 <- analyze_gauss(X, 1, 1e-6, clip = 5)
  expect_identical(dp_lm(ag0, a ~ b + c - 1, n = 1000, B = 5)$n_source, "given (`n`)")
  # dp_lm(tighten =) without public bounds
  for (v in c(TRUE, FALSE)) {
    e <- expect_error(dp_lm(a ~ b + c, D, epsilon = 1, delta = 1e-6, clip = 5, tighten = v), class = "dpcov_error")
    expect_identical(e$arg, "tighten")
  }
  # dp_regression(ridge =) on what has no ridge
  s <- second_moment(cbind(X, one = 1), clip = Inf)
  for (src in list(s, crossprod(cbind(X, one = 1)))) {
    e <- expect_error(dp_regression(src, "a", intercept = "one", ridge = "keep"), "applies to a dp_release",
                      class = "dpcov_error")
    expect_identical(e$arg, "ridge")
  }
  expect_equal(as.vector(dp_regression(s, "a", intercept = "one")), unname(coef(lm(a ~ b + c, D))), tolerance = 1e-10)
  # qda_estimators(): private settings with private = FALSE; sigma_clip_inf with a finite clip
  for (a in list(list(epsilon = 0.9), list(tune = 1), list(standardize = TRUE), list(clip = 2))) {
    e <- expect_error(do.call(qda_estimators, c(list(private = FALSE), a)), "private estimators", class = "dpcov_error")
    expect_identical(e$arg, names(a))
  }
  expect_identical(names(qda_estimators(private = FALSE)), "sample")
  e <- expect_error(qda_estimators(clip = 2, sigma_clip_inf = 50), class = "dpcov_error")
  expect_identical(e$arg, "sigma_clip_inf")
  expect_true(is.function(qda_estimators(clip = 2)$modified_dp))
  # dp_compress(): the truncation's settings without it
  e <- expect_error(dp_compress(X, m = 200, truncate = FALSE, reference = diag(3)), class = "dpcov_error")
  expect_identical(e$arg, "reference")
  e <- expect_error(dp_compress(X, m = 200, truncate = FALSE, max_tries = 5), class = "dpcov_error")
  expect_identical(e$arg, "max_tries")
  expect_s3_class(dp_compress(X, m = 200, truncate = FALSE), "dp_compress")
  # dp_cov(divisor =) for a correlation
  e <- expect_error(dp_cov(X, 1, 1e-6, type = "correlation", divisor = "n - 1"), class = "dpcov_error")
  expect_identical(e$arg, "divisor")
  expect_identical(dp_cov(X, 1, 1e-6, clip = 5, clip_mean = 5, divisor = "n - 1")$params$divisor, "n - 1")
})

test_that("dp_cov()'s tighten and box_weights given without a box are refused; with one they are taken (audit)", {
  set.seed(97)
  X <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  b <- dp_budget(10, 0.5, neighbor = "replace-one")
  for (v in list(NULL, FALSE, TRUE)) {
    e <- expect_error(dp_cov(X, 1, 1e-6, clip = 5, clip_mean = 5, tighten = v, budget = b), class = "dpcov_error")
    expect_identical(e$arg, "tighten")
  }
  for (w in c("equal", "frobenius")) {
    e <- expect_error(dp_cov(X, 1, 1e-6, clip = 5, clip_mean = 5, box_weights = w, budget = b), class = "dpcov_error")
    expect_identical(e$arg, "box_weights")
    e <- expect_error(dp_cov(second_moment(X, 5), 1, 1e-6, box_weights = w, budget = b), class = "dpcov_error")
    expect_identical(e$arg, "box_weights")
  }
  expect_equal(nrow(as.data.frame(b)), 0L)
  # (controls: with bounds, given or chosen privately, they are taken: the same
  # release as leaving them at their defaults, under the same seed)
  set.seed(1)
  r0 <- dp_cov(X, 1, 1e-6, lower = -4, upper = 4)
  set.seed(1)
  r1 <- dp_cov(X, 1, 1e-6, lower = -4, upper = 4, tighten = FALSE, box_weights = "equal")
  expect_identical(r1$estimate, r0$estimate)
  set.seed(1)
  p0 <- dp_cov(X, 1, 1e-6)
  set.seed(1)
  p1 <- dp_cov(X, 1, 1e-6, box_weights = "equal")
  expect_identical(p1$estimate, p0$estimate)
  # with bounds and thresholding the box is equal-weighted: "equal" is what it does
  set.seed(1)
  expect_s3_class(suppressWarnings(dp_cov(X, 1, 1e-6, lower = -4, upper = 4, mechanism = "threshold",
                                          neighbor = "replace-one", box_weights = "equal")), "dp_cov")
})
