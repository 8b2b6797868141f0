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

test_that("predict() and tidy() of a dp_lm take the generics' standard arguments, and refuse what a linear fit cannot do", {
  set.seed(92)
  d <- data.frame(x = rnorm(3000))
  d$y <- 1 + 2 * d$x + rnorm(3000)
  fit <- dp_lm(y ~ x, d, epsilon = 1, delta = 1e-6, lower = c(x = -4, y = -10), upper = c(x = 4, y = 12), B = 20)
  nd <- data.frame(x = c(-1, 0, 2))
  expect_identical(predict(fit, nd, type = "response"), predict(fit, nd))
  for (bad in list("terms", "link", NA, c("response", "terms"), 1)) {
    e <- expect_error(predict(fit, nd, type = bad), class = "dpcov_error")
    expect_identical(e$arg, "type")
  }
  expect_identical(generics::tidy(fit, exponentiate = FALSE), generics::tidy(fit))
  e <- expect_error(generics::tidy(fit, exponentiate = TRUE), class = "dpcov_error")
  expect_identical(e$arg, "exponentiate")
  expect_match(conditionMessage(e), "linear model")
  e <- expect_error(generics::tidy(fit, exponentiate = NA), class = "dpcov_error")
  expect_identical(e$arg, "exponentiate")
})

test_that("nobs() of a release is its public n; a private n is a classed error that says where the noisy count is", {
  set.seed(93)
  X <- matrix(rnorm(1500), 500, 3, dimnames = list(NULL, c("a", "b", "c")))
  expect_identical(nobs(analyze_gauss(X, 1, 1e-6, clip = 3, neighbor = "replace-one")), 500)
  expect_identical(nobs(dp_cov(X, 1, 1e-6, lower = -4, upper = 4, neighbor = "zero-out")), 500)
  e <- expect_error(nobs(analyze_gauss(X, 1, 1e-6, clip = 3)), class = "dpcov_error")
  expect_identical(e$arg, "object")
  expect_match(conditionMessage(e), "private under add-remove")
  r <- dp_cov(X, 1, 1e-6, lower = -4, upper = 4)
  expect_true(is.numeric(r$params$n_noisy))
  e <- expect_error(nobs(r), class = "dpcov_error")
  expect_match(conditionMessage(e), "params$n_noisy", fixed = TRUE)
  e <- expect_error(nobs(r, foo = 1), class = "dpcov_error")
  expect_identical(e$arg, "foo")
})

test_that("as.matrix() of column bounds is p x 2; of the other list-based objects a classed refusal, not a list-matrix", {
  set.seed(94)
  X <- matrix(rnorm(1500), 500, 3, dimnames = list(NULL, c("a", "b", "c")))
  cb <- dp_column_bounds(X, epsilon = 1)
  m <- as.matrix(cb)
  expect_true(is.double(m))
  expect_identical(dimnames(m), list(c("a", "b", "c"), c("lower", "upper")))
  expect_identical(unname(m[, "lower"]), cb$bounds$lower)
  expect_identical(unname(m[, "upper"]), cb$bounds$upper)
  expect_null(rownames(as.matrix(dp_column_bounds(unname(X), epsilon = 1))))
  d <- as.data.frame(X)
  objs <- list(pca = dp_pca(analyze_gauss(X, 1, 1e-6, clip = 3)),
               lm = dp_lm(c ~ a + b, d, epsilon = 1, delta = 1e-6, clip = 4, B = 5),
               ss = second_moment(X, clip = 3),
               qda = qda_plugin(X, factor(rep(c("u", "v"), 250))),
               cv = threshold_cv(X / 3, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 3),
               bound = dp_clip_bound(X, epsilon = 1),
               ldp = ldp_perturb(X, epsilon = 1, delta = 1e-6, clip = 3))
  for (nm in names(objs)) {
    e <- expect_error(as.matrix(objs[[nm]]), class = "dpcov_error", info = nm)
    expect_identical(e$arg, "x", info = nm)
    expect_match(conditionMessage(e), "not a matrix", info = nm)
  }
  expect_match(tryCatch(as.matrix(objs$ss), error = conditionMessage), "NOT private")
  # as.data.frame(): a tuning curve is its curve, still labelled; the others
  # a classed refusal (R's own is unclassed)
  cv <- as.data.frame(objs$cv)
  expect_s3_class(cv, "dp_nonprivate")
  expect_s3_class(cv, "data.frame")
  expect_identical(names(cv), c("constant", "loss", "chosen"))
  expect_equal(cv$constant, objs$cv$grid, ignore_attr = TRUE)
  expect_equal(cv$loss, objs$cv$loss, ignore_attr = TRUE)
  expect_identical(cv$constant[cv$chosen], as.vector(objs$cv$constant))
  expect_output(print(cv), "NOT")
  expect_error(as.data.frame(objs$cv, foo = 1), class = "dpcov_error")
  expect_error(as.data.frame(objs$cv, NULL, FALSE, 3), class = "dpcov_error")
  # data.frame() passes stringsAsFactors to the method
  expect_identical(dim(data.frame(objs$cv)), c(nrow(cv), 3L))
  expect_equal(data.frame(objs$cv)$loss, cv$loss)
  for (nm in c("ss", "qda", "bound", "ldp")) {
    e <- expect_error(as.data.frame(objs[[nm]]), class = "dpcov_error", info = nm)
    expect_identical(e$arg, "x", info = nm)
    expect_match(conditionMessage(e), "not a table", info = nm)
  }
})

test_that("plot methods take graphical parameters that override their defaults (audit: R's unclassed 'matched by multiple actual arguments')", {
  set.seed(8)
  X <- matrix(rnorm(400 * 4), 400, 4)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  cv <- threshold_cv(X / 4, 1, 1e-6, clip = 1, folds = 3)
  expect_no_error(plot(cv, xlab = "c", ylab = "L", type = "p"))
  r <- suppressWarnings(analyze_gauss(X, 1, 1e-6, clip = 5, neighbor = "replace-one"))
  expect_no_error(plot(r, xlab = "a", ylab = "b", col = grDevices::heat.colors(5)))
  e <- expect_error(plot(r, col = NA), class = "dpcov_error")
  expect_identical(e$arg, "col")
  e <- expect_error(plot(r, breaks = 1:3), class = "dpcov_error")
  expect_identical(e$arg, "breaks")
  cm <- suppressWarnings(dp_compress(X, m = 100))
  expect_no_error(plot(cm, col = "red", pch = 1))
  cs <- suppressWarnings(compression_pca_study(X, m = c(100, 200), dim = 1, reps = 2))
  expect_no_error(plot(cs, ylab = "d", pch = 2, log = "x"))
})

test_that("hand-edited objects: a stored centre or means named in another order is refused, not used by position (audit)", {
  set.seed(9)
  x <- cbind(a = rnorm(300, 5), b = rnorm(300, -3), c = rnorm(300, 10))
  pc <- dp_pca(x, epsilon = 100, delta = 1e-6, lower = rep(-20, 3), upper = rep(20, 3))
  good <- predict(pc, x[1:3, ])
  h <- pc
  h$center <- stats::setNames(pc$center, c("a", "b", "c"))
  expect_equal(predict(h, x[1:3, ]), good)        # named in its order: the same
  # a superset of names: the columns' entries are used, the others not checked
  h$center <- NA
  expect_equal(predict(h, x[1:3, ], center = c(zz = 0, pc$center[3:1] |> stats::setNames(c("c", "b", "a")))), good)
  h$center <- rev(h$center)
  e <- expect_error(predict(h, x[1:3, ]), class = "dpcov_error")
  fit <- qda_plugin(iris[, 1:4], iris$Species)
  h <- fit
  h$means <- h$means[, 4:1]
  expect_error(predict(h, iris[, 1:4]), class = "dpcov_error")
  # predict() ignores columns it does not use, as predict.prcomp() and predict.lda() do
  expect_identical(predict(fit, iris), predict(fit, iris[, 1:4]))
  d <- data.frame(x, label = sample(letters, 300, TRUE))
  expect_equal(unname(predict(pc, d[1:3, ])), unname(good))
  # the classifier's covariance function returning text is said as such, naming `cov`
  e <- expect_error(qda_plugin(iris[, 1:4], iris$Species, cov = function(x, group) "a"), "returned text",
                    class = "dpcov_error")
  expect_identical(e$arg, "cov")
})

test_that("update() of every other result: a stored call re-runs, a missing or placeholder call is a classed error (audit: R's unclassed errors)", {
  set.seed(5)
  x <- matrix(rnorm(400), 100, 4)
  # a stored call of code re-runs, with the change
  b <- dp_clip_bound(x, epsilon = 0.5)
  expect_identical(update(b, epsilon = 1)$epsilon, 1)
  cb <- suppressWarnings(dp_column_bounds(x, epsilon = 0.5))
  expect_identical(update(cb, epsilon = 2, evaluate = FALSE)$epsilon, 2)
  # made by do.call(): the data is a placeholder (R's default looked for an object named `<data>`)
  cb2 <- suppressWarnings(do.call(dp_column_bounds, list(x, epsilon = 0.5)))
  e <- expect_error(update(cb2, epsilon = 2), class = "dpcov_error")
  expect_identical(e$arg, "object")
  expect_match(conditionMessage(e), "holds <data>")
  # no stored call (R's default: the unclassed "need an object with call component")
  st <- sheffet_study("single", n = 2^7, epsilon = 0.5, reps = 2, p = 2)
  objs <- list(threshold_cv(x, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 3), dp_budget(1, 1e-6),
               second_moment(x, clip = 2), st, ldp_perturb(x, epsilon = 0.5, delta = 1e-3, clip = 1),
               threshold_tune("public", folds = 3, public = x))
  for (o in objs) {
    e <- expect_error(update(o, epsilon = 2), class = "dpcov_error")
    expect_match(conditionMessage(e), "its stored call is missing")
  }
  # every class that stores no call, hand-made (a reader is a function, a pooled covariance a matrix)
  for (cls in update_refusers) {
    o <- switch(cls, dp_reader = structure(function() NULL, class = c(cls, "function")),
                pooled_cov = structure(diag(2), class = c(cls, "dp_nonprivate", "matrix", "array")),
                structure(list(a = 1), class = cls))
    e <- expect_error(update(o, epsilon = 2), class = "dpcov_error", info = cls)
    expect_match(conditionMessage(e), "its stored call is missing", info = cls)
  }
  # the control: stats' default, which these objects met before
  e <- tryCatch(stats:::update.default(objs[[2]], epsilon = 2), error = function(e) e)
  expect_false(inherits(e, "dpcov_error"))
})

test_that("methods an R user tries: study subsets, confint types, plot types, labelled covariances, update(formula)", {
  set.seed(11)
  # a study subset without the columns its kind needs is a plain table, still labelled non-private
  s <- data.frame(cov = "model2", dist = "gaussian", p = 5, n = c(50, 100), epsilon = 1, delta = 1e-3)
  st <- suppressWarnings(run_study(s, reps = 2, tune = "theory"))
  sub <- st[, c("method", "spectral")]
  expect_false(inherits(sub, "dp_study"))
  expect_s3_class(sub, "dp_nonprivate")
  expect_match(paste(capture.output(print(sub)), collapse = " "), "NOT a private release")
  expect_s3_class(st[st$n == 50, ], "threshold_study")  # rows of a study are a study
  expect_false(inherits(st[0, ], "dp_study"))
  # a Sheffet study's rows keep its settings (print reads them); a list-based
  # study's parts stay labelled non-private, and a subset `[` cannot take is classed
  sh <- suppressWarnings(sheffet_study("single", n = 2^c(7, 8), epsilon = 0.5, reps = 2, p = 2))
  expect_s3_class(sh[sh$n == 2^8, ], "sheffet_study")
  expect_output(print(sh[sh$n == 2^8, ]), "sheffet_study")
  expect_output(print(sh[, names(sh)]), "sheffet_study")
  expect_false(inherits(sh[, c("estimator", "error")], "dp_study"))
  expect_s3_class(sh[, c("estimator", "error")], "dp_nonprivate")
  xq <- rbind(matrix(rnorm(60 * 3), 60), matrix(rnorm(30 * 3, 0.8), 30))
  feats <- list(x = xq, group = factor(rep(c("lean", "obese"), c(60, 30))))
  qs <- qda_study(feats, qda_estimators(private = FALSE), p = 3, reps = 2, n_test = c(lean = 12, obese = 6))
  expect_s3_class(qs["summary"], "dp_nonprivate")
  expect_error(qs[1:2, ], "cannot be taken", class = "dpcov_error")
  # confint(): a type that needs draws, asked for on a fit without them, is refused
  X <- matrix(rnorm(3000), 1000, 3)
  y <- drop(X %*% c(1, -1, 0.5)) + rnorm(1000)
  cm <- dp_compress(cbind(X, y), m = 400)
  clm <- compressed_lm(cm, response = 4)
  expect_error(confint(clm, type = "basic"), "needs the fit's bootstrap draws", class = "dpcov_error")
  expect_error(confint(clm, type = "percentile"), "needs the fit's bootstrap draws", class = "dpcov_error")
  expect_equal(confint(clm), confint(clm, type = "normal"))
  # update() with a formula on an object whose call has none: classed
  r <- dp_cov(X, epsilon = 1, delta = 1e-6, lower = rep(-5, 3), upper = rep(5, 3))
  e <- expect_error(update(r, . ~ .), "without a formula", class = "dpcov_error")
  expect_identical(e$arg, "formula.")
  expect_error(update(clm, . ~ . - V2), "without a formula", class = "dpcov_error")
  # plot(): the heat map has no plot type
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_error(plot(r, type = "l"), "no plot type", class = "dpcov_error")
  expect_no_error(plot(r, xlim = c(0, 4)))
  # labelled covariances: arithmetic gives a plain (still non-private) matrix;
  # an edited one that is no covariance is refused by print
  pc <- pooled_cov(iris[, 1:4], iris$Species)
  for (v in list(pc + 1, -pc, log(abs(pc)), pc > 0)) {
    expect_false(inherits(v, "pooled_cov"))
    expect_s3_class(v, "dp_nonprivate")
  }
  expect_equal(unclass(pc + 1), unclass(pc) + 1, ignore_attr = TRUE)
  expect_identical(dimnames(pc * 2), dimnames(pc))
  # ... still a matrix to base R and to the package
  y <- pc * 2
  expect_equal(det(y), det(unclass(pc) * 2), ignore_attr = TRUE)
  expect_true(isSymmetric(y))
  expect_identical(dim(as.data.frame(y)), c(4L, 4L))
  expect_equal(subspace_distance(y, pc, dim = 1)$distance, 0, tolerance = 1e-12)
  # an operand R refuses: a classed error naming it
  e <- expect_error(pc + "a", class = "dpcov_error")
  expect_identical(e$arg, "e2")
  e <- expect_error("a" - pc, class = "dpcov_error")
  expect_identical(e$arg, "e1")
  e <- expect_error(log(pc, base = "a"), class = "dpcov_error")
  expect_identical(e$arg, "base")
  # assigning into one gives a plain labelled matrix too, so cov2cor()'s
  # correlation (it assigns into its argument) no longer prints as the covariance
  p2 <- pc
  p2[1, 2] <- 99
  expect_false(inherits(p2, "pooled_cov"))
  expect_s3_class(p2, "dp_nonprivate")
  expect_equal(unclass(p2)[1, 2], 99)
  expect_equal(unclass(p2)[-5], unclass(pc)[-5], ignore_attr = TRUE)
  r <- cov2cor(pc)
  expect_false(inherits(r, "pooled_cov"))
  expect_s3_class(r, "dp_nonprivate")
  expect_equal(unclass(r), stats::cov2cor(unclass_matrix(pc)), ignore_attr = TRUE)
  expect_identical(dimnames(r), dimnames(pc))
  p4 <- pc
  p4[] <- 0
  expect_equal(sum(abs(unclass(p4))), 0)
  diag(p4) <- 1:4
  expect_equal(unname(diag(unclass(p4))), as.double(1:4))
  e <- expect_error({p5 <- pc; p5[1, 1] <- list(1, 2)}, class = "dpcov_error")
  expect_identical(e$arg, "value")
  e <- expect_error({p5 <- pc; p5[5, 5] <- 1}, "subscript", class = "dpcov_error")
  expect_identical(e$arg, "x")
  # a hand-made one that is no covariance is refused by print
  bad <- unclass_matrix(pc)
  bad[1, 2] <- 99
  expect_error(print(structure(bad, class = class(pc))), "not symmetric", class = "dpcov_error")
  bad[1, 2] <- bad[2, 1]
  bad[2, 2] <- NaN
  expect_error(print(structure(bad, class = class(pc))), "NA, NaN", class = "dpcov_error")
  cc <- compressed_cov(cm)
  expect_false(inherits(-cc, "compressed_cov"))
  expect_true(isSymmetric(cc))
  expect_equal(det(cc), det(as.matrix(cc)))
  expect_equal(subspace_distance(cc * 3, cc, dim = 1)$distance, 0, tolerance = 1e-12)
  c2 <- unclass_matrix(cc)
  c2[1, 2] <- c2[1, 2] + 1
  expect_error(print(structure(c2, class = class(cc))), "not symmetric", class = "dpcov_error")
  c3 <- cc
  c3[1, 2] <- 0
  expect_false(inherits(c3, "compressed_cov"))
  expect_s3_class(c3, "dp_nonprivate")
  expect_false(inherits(cov2cor(cc), "compressed_cov"))
  expect_output(print(cc), "NOT a private release")
})

test_that("predict(<dp_lm>) takes what predict.lm() takes: a named list as newdata, interval's default written out", {
  set.seed(95)
  d <- data.frame(a = rnorm(3000), b = rnorm(3000))
  d$y <- 1 + d$a - d$b + rnorm(3000)
  f <- dp_lm(y ~ a + b, d, epsilon = 2, delta = 1e-6, lower = c(y = -10, a = -5, b = -5), upper = c(y = 10, a = 5, b = 5),
             B = 20)
  nd <- data.frame(a = c(0, 1, 2), b = c(1, 0, -1))
  expect_identical(predict(f, as.list(nd)), predict(f, nd))
  expect_identical(predict(f, nd, interval = c("none", "confidence", "prediction")), predict(f, nd))
  expect_identical(predict(f, as.list(nd), interval = "conf"), predict(f, nd, interval = "confidence"))
  # unequal lengths, unnamed or nested lists are still refused
  for (bad in list(list(a = 1:2, b = 1:3), list(1, 2), list(a = list(1), b = 2))) {
    e <- expect_error(predict(f, bad), class = "dpcov_error")
    expect_identical(e$arg, "newdata")
  }
  e <- expect_error(predict(f, nd, interval = c("confidence", "none")), class = "dpcov_error")
  expect_identical(e$arg, "interval")
})

test_that("as.data.frame() of every class honours row.names of the right length and refuses others and unknown arguments (review)", {
  set.seed(5)
  X <- matrix(rnorm(1500), 500, 3, dimnames = list(NULL, c("a", "b", "c")))
  b <- dp_budget(5, 1e-4)
  r <- analyze_gauss(X, 1, 1e-6, clip = 3, budget = b)
  st <- run_study(data.frame(cov = "model2", dist = "gaussian", p = 4, n = 30, epsilon = 0.5, delta = 0.01),
                  reps = 1, tune = "theory")
  tables <- list(release = r, budget = b, bounds = dp_column_bounds(X, epsilon = 1), study = st,
                 cv = threshold_cv(X / 3, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 3))
  for (nm in names(tables)) {
    o <- tables[[nm]]
    base <- as.data.frame(o)
    k <- nrow(base)
    rn <- paste0("row", seq_len(k))
    named <- as.data.frame(o, row.names = rn)
    expect_identical(rownames(named), rn, info = nm)
    expect_identical(unname(as.list(named)), unname(as.list(base)), info = nm)   # the same table
    expect_identical(class(named), class(base), info = nm)
    expect_identical(dim(as.data.frame(o, optional = TRUE)), dim(base), info = nm)
    for (bad in list(paste0("r", seq_len(k + 1L)), rep("x", k), c(NA, rn[-1L]))) {
      if (k < 2L && identical(bad, rep("x", k))) next
      e <- expect_error(as.data.frame(o, row.names = bad), class = "dpcov_error", info = nm)
      expect_identical(e$arg, "row.names", info = nm)
    }
    e <- expect_error(as.data.frame(o, foo = 1), "unknown argument", class = "dpcov_error", info = nm)
    expect_identical(e$arg, "foo", info = nm)
    e <- expect_error(as.data.frame(o, optional = NA), class = "dpcov_error", info = nm)
    expect_identical(e$arg, "optional", info = nm)
    expect_identical(dim(data.frame(o)), dim(base), info = nm)   # data.frame() passes stringsAsFactors
  }
  # the classes that are not tables refuse whatever the arguments
  d <- as.data.frame(X)
  for (o in list(dp_pca(r), dp_lm(c ~ a + b, d, epsilon = 1, delta = 1e-6, clip = 4, B = 0), second_moment(X, 3),
                 qda_plugin(X, rep(1:2, 250)), dp_clip_bound(X, epsilon = 1), ldp_perturb(X, 1, 1e-6, clip = 3))) {
    e <- expect_error(as.data.frame(o, row.names = "a", foo = 1), class = "dpcov_error")
    expect_identical(e$arg, "x")
  }
})
