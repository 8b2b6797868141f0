# Print and plot methods that no other test calls (found by covr; see
# bench/RESULTS.md): what they show and what they refuse.

test_that("print.threshold_tune states each tuning method and returns its input", {
  cases <- list(
    list(threshold_tune("theory"), "theory default c = sqrt(2) * B^2"),
    list(threshold_tune("fixed", constant = 2.5), "fixed constant c = 2.5"),
    list(threshold_tune("cv", folds = 5), "5-fold cross-validation on the private data (not private)"),
    list(threshold_tune("public", folds = 4, public = matrix(rnorm(40 * 3), 40, 3)),
         "4-fold cross-validation on a public sample of 40 rows"))
  for (case in cases) {
    expect_output(res <- withVisible(print(case[[1]])), case[[2]], fixed = TRUE)
    expect_false(res$visible)
    expect_identical(res$value, case[[1]])
  }
})

test_that("print.threshold_tune refuses a hand-made object through the constructor's checks", {
  bad <- structure(list(method = "fixed", constant = -1), class = "threshold_tune")
  err <- expect_error(print(bad), class = "dpcov_error")
  expect_match(conditionMessage(err), "constant")
  bad <- structure(list(method = "magic"), class = "threshold_tune")
  expect_error(print(bad), class = "dpcov_error")
})

test_that("plot.threshold_cv draws the whole loss curve and returns its input", {
  set.seed(2)
  x <- matrix(rnorm(300 * 8), 300, 8) / 3
  cv <- threshold_cv(x, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 5)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  res <- withVisible(plot(cv))
  expect_false(res$visible)
  expect_identical(res$value, cv)
  # the axes span every grid point and every loss, so no part of the curve is cut off
  usr <- graphics::par("usr")
  expect_true(usr[1] <= min(cv$grid) && usr[2] >= max(cv$grid))
  expect_true(usr[3] <= min(cv$loss) && usr[4] >= max(cv$loss))
  # the chosen constant, marked by the vertical line, lies on the grid
  expect_true(cv$constant >= min(cv$grid) && cv$constant <= max(cv$grid))
})

test_that("plot.threshold_cv refuses a hand-made object with a mismatched curve", {
  set.seed(3)
  cv <- threshold_cv(matrix(rnorm(200 * 4), 200, 4) / 3, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 4)
  cv$loss <- cv$loss[-1]
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  err <- expect_error(plot(cv), class = "dpcov_error")
  expect_match(conditionMessage(err), "differ in length")
})

test_that("tampered fields of every result class give a classed error or a sane answer, never a plain error", {
  # a hand-made (or edited) object of a package class is input like any other:
  # each field of a real object replaced by junk, through each method
  set.seed(91)
  X <- matrix(rnorm(600), 200, 3, dimnames = list(NULL, c("a", "b", "c")))
  DF <- as.data.frame(X)
  DF$f <- factor(sample(c("u", "v"), 200, TRUE), levels = c("u", "v"))
  junk <- list(fun = function() 1, chr = "x", huge = 1e308, empty = list(), na = NA, neg = -1,
               mat = matrix(1:4, 2), null = NULL)
  objs <- list(lm = dp_lm(a ~ b + f, data = DF, epsilon = 1, delta = 1e-6, B = 20),
               pca = dp_pca(X, epsilon = 1, delta = 1e-6),
               cov = dp_cov(X, 1, 1e-6),
               ag = analyze_gauss(X, 1, 1e-6, clip = 3),
               cb = dp_column_bounds(X, 1, 1e-6),
               ss = second_moment(X, clip = 3))
  quiet_print <- function(o) wide_output(print(o))
  methods <- list(
    lm = list(print = quiet_print, summary = function(o) quiet_print(summary(o)), coef = coef, vcov = vcov,
              confint = confint, predict = function(o) predict(o, DF[1:3, ]), nobs = nobs, formula = formula,
              tidy = generics::tidy, glance = generics::glance),
    pca = list(print = quiet_print, summary = function(o) quiet_print(summary(o)),
               predict = function(o) predict(o, X[1:3, ])),
    cov = list(print = quiet_print, summary = function(o) quiet_print(summary(o)), as.matrix = as.matrix,
               diagnostics = release_diagnostics, pca = function(o) dp_pca(o),
               lm = function(o) dp_lm(o, c ~ a + b, B = 5), has = has_guarantee),
    ag = list(print = quiet_print, pca = function(o) dp_pca(o), has = has_guarantee),
    cb = list(print = quiet_print, df = as.data.frame),
    ss = list(ag = function(o) analyze_gauss(o, 1, 1e-6), cov = function(o) dp_cov(o, 1, 1e-6),
              print = quiet_print))
  plain <- character()
  for (nm in names(objs)) for (f in names(objs[[nm]])) for (j in names(junk)) {
    o <- objs[[nm]]
    if (j == "null") o[f] <- list(NULL) else o[[f]] <- junk[[j]]
    for (m in names(methods[[nm]])) {
      r <- tryCatch(suppressWarnings({ methods[[nm]][[m]](o); "ok" }), dpcov_error = function(e) "classed",
                    error = function(e) conditionMessage(e))
      if (!r %in% c("ok", "classed")) plain <- c(plain, sprintf("%s$%s <- %s; %s(): %s", nm, f, j, m, r))
    }
  }
  expect_identical(plain, character())
  # the controls: the untampered objects go through every method
  for (nm in names(objs)) for (m in names(methods[[nm]])) {
    r <- tryCatch(suppressWarnings({ methods[[nm]][[m]](objs[[nm]]); "ok" }), error = conditionMessage)
    expect_identical(r, "ok", info = paste(nm, m))
  }
})

test_that("print() wraps its text to the console width, words intact", {
  set.seed(61)
  d <- data.frame(a = rnorm(2000), b = rnorm(2000), y = rnorm(2000))
  objs <- list(dp_cov(d, 1, 1e-6), dp_cov(d, 1, 1e-6, lower = -5, upper = 5), dp_column_bounds(d, 1, 1e-6),
               summary(dp_lm(y ~ a + b, d, 1, 1e-6, lower = c(a = -5, b = -5, y = -5), upper = c(a = 5, b = 5, y = 5), B = 20)),
               dp_pca(d, epsilon = 1, delta = 1e-6, lower = -5, upper = 5))
  for (w in c(60L, 80L)) {
    op <- options(width = w)
    for (o in objs) {
      out <- suppressWarnings(utils::capture.output(print(o)))
      long <- out[nchar(out) > w]
      # only an unbreakable token (no space) can exceed the width
      expect_false(any(grepl(" ", trimws(long))), info = paste(long, collapse = "\n"))
    }
    options(op)
  }
  # the words are those of the unwrapped text: the guarantee, joined back, is whole
  g <- objs[[1]]$guarantee
  out <- utils::capture.output(print(objs[[1]]))
  joined <- gsub("\\s+", " ", paste(out, collapse = " "))
  expect_true(grepl(gsub("\\s+", " ", g), joined, fixed = TRUE))
  # the control: the old print's guarantee line was far over 80 columns
  expect_gt(nchar(paste("Guarantee:", g)), 300)
})
