# dp_pca(): prcomp-like principal components of any release.

# a release holding an exact (noiseless) matrix: a reference point only
exact_release <- function(M, scale, n = NA, center = NULL, divisor = NULL) {
  r <- new_dp_release(M, "test", "exact (test only)", epsilon = 1, delta = 1e-6,
                      neighbor = if (is.na(n)) "add-remove" else "replace-one", clip = 10,
                      n = n, p = ncol(M), n_public = !is.na(n), scale = scale,
                      centred = scale %in% c("covariance", "correlation"),
                      params = if (is.null(divisor)) list() else list(divisor = divisor))
  if (!is.null(center)) r$center <- center
  r
}

# columns of a equal columns of b up to sign
expect_equal_up_to_sign <- function(a, b, tol = 1e-8) {
  s <- sign(colSums(a * b))
  expect_equal(unname(a %*% diag(s, ncol(a))), unname(b), tolerance = tol)
}

set.seed(42)
n <- 300
X <- matrix(rnorm(n * 4), n, 4) %*% matrix(c(2, 0.5, 0, 0, 0.5, 1.5, 0.3, 0, 0, 0.3, 1, 0.2, 0, 0, 0.2, 0.6), 4)
colnames(X) <- paste0("v", 1:4)

test_that("PCA of the exact covariance equals prcomp() (sdev, rotation up to sign)", {
  ref <- prcomp(X)
  pc <- dp_pca(exact_release(cov(X), "covariance", center = colMeans(X), divisor = "n - 1"))
  expect_s3_class(pc, c("dp_pca", "prcomp"))
  expect_equal(pc$sdev, ref$sdev, tolerance = 1e-8)
  expect_equal_up_to_sign(pc$rotation, ref$rotation)
  expect_equal(pc$center, ref$center)  # named by column, as prcomp() names it
  expect_false(pc$scale)
  # predict: centre at the private center, rotate (a plain-R reference)
  new <- X[1:7, ]
  expect_equal(predict(pc, new), sweep(new, 2, colMeans(X)) %*% pc$rotation, tolerance = 1e-12)
  expect_equal_up_to_sign(predict(pc, new), predict(ref, new))
  # as predict.prcomp(): columns by name, reordered or not; unnamed newdata is
  # refused when the release has names (it was read by position, silently)
  expect_equal(predict(pc, new[, rev(colnames(new))]), predict(pc, new))
  expect_error(predict(pc, unname(new[, rev(colnames(new))])), "no column names", class = "dpcov_error")
  expect_error(predict(pc, new, centre = 2), "`centre`", class = "dpcov_error")
})

test_that("PCA of the exact Gram matrix equals prcomp(center = FALSE), per row when n is public", {
  ref <- prcomp(X, center = FALSE)
  pc <- dp_pca(exact_release(crossprod(X), "sum", n = n))
  expect_true(pc$per_row)
  expect_equal(pc$sdev * sqrt(n / (n - 1)), ref$sdev, tolerance = 1e-8)  # divisor n, not n - 1
  expect_equal_up_to_sign(pc$rotation, ref$rotation)
  expect_false(pc$center)
  # n not public: the same rotation, sdev on the sum scale, and it says so
  pc_sum <- dp_pca(exact_release(crossprod(X), "sum"))
  expect_false(pc_sum$per_row)
  expect_equal(pc_sum$sdev, pc$sdev * sqrt(n), tolerance = 1e-8)
  expect_match(paste(wide_output(print(pc_sum)), collapse = " "), "SUM scale")
  # an average: the same as the sum over n
  pc_avg <- dp_pca(exact_release(crossprod(X) / n, "average"))
  expect_equal(pc_avg$sdev, pc$sdev, tolerance = 1e-10)
  # rank keeps all sdev and the first columns of rotation, as prcomp(rank. = )
  pc2 <- dp_pca(exact_release(crossprod(X), "sum", n = n), rank = 2)
  expect_equal(dim(pc2$rotation), c(4L, 2L))
  expect_length(pc2$sdev, 4L)
})

test_that("an uncentred release centred with a private mean equals prcomp() with divisor n", {
  mu <- colMeans(X)
  pc <- dp_pca(exact_release(crossprod(X), "sum", n = n), center = mu)
  ref <- prcomp(X)
  expect_equal(pc$sdev * sqrt(n / (n - 1)), ref$sdev, tolerance = 1e-8)
  expect_equal(pc$center, mu)
  expect_match(pc$guarantee, "separately released mean")
})

test_that("indefinite releases: negative eigenvalues become zero sdev and are counted", {
  M <- diag(c(3, 1, -0.5))
  pc <- dp_pca(exact_release(M, "sum", n = 10))
  expect_equal(pc$n_negative, 1L)
  expect_equal(pc$sdev[3], 0)
  expect_true(all(is.finite(summary(pc)$importance)))
  # the proportions share the positive eigenvalues' sum, and the print says so
  expect_equal(unname(summary(pc)$importance["Proportion of Variance", ]), c(0.75, 0.25, 0))
  expect_output(print(summary(pc)), "1 negative eigenvalue\\(s\\).*set to 0.*share the sum of the others")
})

test_that("every mechanism's release gives a valid PCA", {
  set.seed(3)
  x <- X / 4
  rels <- list(
    analyze_gauss(x, 1, 1e-5, clip = 2), analyze_gauss(x, 1, 1e-5, clip = 2, neighbor = "replace-one"),
    wishart_noise(x, 0.5, 1e-4, clip = 2), jl_ridge(x, 0.5, 1e-4, clip = 2),
    jl_adaptive(x, 0.5, 1e-4, clip = 2), iwishart_posterior(x, 0.5, 1e-4, clip = 2),
    iwishart_adaptive(x, 0.5, 1e-4, clip = 2), dp_threshold(x, 1, 1e-3, clip = 2),
    dp_cov(x, 1, 1e-6, clip = 2, clip_mean = 2), dp_cov(x, 1, 1e-6, clip = 2, clip_mean = 2, type = "correlation"),
    suppressWarnings(dp_compress(x, m = 100)))
  pdf(NULL)
  on.exit(dev.off())
  for (r in rels) {
    pc <- dp_pca(r)
    expect_s3_class(pc, "dp_pca")
    expect_identical(pc$guarantee, r$guarantee)
    expect_true(all(pc$sdev >= 0))
    expect_equal(crossprod(pc$rotation), diag(4), tolerance = 1e-8, ignore_attr = TRUE)
    expect_output(print(pc), "Guarantee")
    expect_output(print(summary(pc)), "Importance")
    expect_silent(plot(pc))
  }
})

test_that("predict refuses mismatched units with a classed error, converts with scales", {
  set.seed(5)
  x <- X
  r <- suppressWarnings(dp_compress(x, m = 200))
  pc <- dp_pca(r)
  expect_true(is.na(pc$scale))
  err <- expect_error(predict(pc, x[1:5, ]), class = "dpcov_units_error")
  expect_s3_class(err, "dpcov_error")
  expect_identical(err$arg, "scale")
  rms <- sqrt(colMeans(x^2))
  ref <- sweep(x[1:5, ], 2, rms, "/") %*% pc$rotation
  expect_equal(predict(pc, x[1:5, ], scale = rms), ref, tolerance = 1e-12)
  # given at construction, the scales are used by predict
  expect_equal(predict(dp_pca(r, scale = rms), x[1:5, ]), ref, tolerance = 1e-12)
  # without newdata: the scores of the compressed rows
  expect_equal(predict(pc), r$estimate %*% pc$rotation)
  # a correlation release: the standard deviations are not in it
  rc <- dp_cov(x / 4, 1, 1e-6, clip = 2, clip_mean = 2, type = "correlation")
  expect_error(predict(dp_pca(rc), x[1:3, ]), class = "dpcov_units_error")
  # a covariance centred by dp_as_cov() records the mean it was given, and predict() centres there
  mu <- colMeans(x / 4) + 0.01
  conv <- dp_as_cov(analyze_gauss(x / 4, 1, 1e-5, clip = 2, neighbor = "replace-one"), center = mu)
  expect_equal(predict(dp_pca(conv), x[1:3, ]), sweep(x[1:3, ], 2, mu) %*% dp_pca(conv)$rotation, ignore_attr = TRUE)
  # a covariance whose mean is not in the release
  conv$center <- NULL
  expect_error(predict(dp_pca(conv), x[1:3, ]), class = "dpcov_units_error")
  expect_equal(predict(dp_pca(conv), x[1:3, ], center = rep(0, 4)), x[1:3, ] %*% dp_pca(conv)$rotation)
  # data in units already: no scale to give
  expect_error(predict(dp_pca(exact_release(cov(x), "covariance", center = colMeans(x))), x, scale = rep(1, 4)),
               class = "dpcov_error")
  # columns matched by name
  pcx <- dp_pca(exact_release(cov(x), "covariance", center = colMeans(x)))
  expect_equal(predict(pcx, x[1:3, 4:1]), predict(pcx, x[1:3, ]))
})

test_that("compressed_pca() is dp_pca() on a release, and the subspace bound holds where it applies", {
  set.seed(7)
  # the truncation threshold is loose (Lemma B.1's constants): the bound needs large m
  nn <- 1e5
  f <- rnorm(nn)
  x <- unname(cbind(f, f, f)) + matrix(rnorm(nn * 3, sd = 0.2), nn, 3)
  r <- dp_compress(x, m = 5e4)
  pc <- compressed_pca(r)
  expect_s3_class(pc, c("compressed_pca", "dp_pca", "prcomp"))
  expect_equal(pc$sdev, dp_pca(r)$sdev)
  C <- as.matrix(r)
  expect_equal(pc$sdev, prcomp(C, center = FALSE)$sdev * sqrt((nrow(C) - 1) / nrow(C)), tolerance = 1e-10)
  b <- pc$subspace_bound
  expect_true(b$bound_applies[1])
  A <- crossprod(scale(x, center = FALSE, scale = sqrt(colMeans(x^2)))) / nn
  truth <- subspace_distance(A, compressed_cov(r), dim = 1)$distance
  expect_lte(truth, b$bound[1])
  expect_output(print(summary(pc)), "Proposition 3.4")
  # no bound with affine noise or a public reference
  expect_null(dp_pca(dp_compress(x, m = 2000, affine_sd = 0.1))$subspace_bound)
  # a plain matrix: the old behaviour, no guarantee
  pm <- compressed_pca(C[1:50, ])
  expect_match(pm$guarantee, "none stated")
})

test_that("bad input gets classed errors naming the argument", {
  r <- analyze_gauss(X / 4, 1, 1e-5, clip = 2)
  expect_error(dp_pca("a"), class = "dpcov_error")
  e <- expect_error(dp_pca(r, rank = 0), class = "dpcov_error")
  expect_identical(e$arg, "rank")
  e <- expect_error(dp_pca(r, rank = 9), class = "dpcov_error")
  expect_identical(e$arg, "rank")
  e <- expect_error(dp_pca(r, scale = rep(1, 4)), class = "dpcov_error")
  expect_identical(e$arg, "scale")
  rc <- suppressWarnings(dp_compress(X, m = 50))
  e <- expect_error(dp_pca(rc, center = rep(0, 4)), class = "dpcov_error")
  expect_identical(e$arg, "center")
  e <- expect_error(dp_pca(rc, scale = c(1, 1)), class = "dpcov_error")
  expect_identical(e$arg, "scale")
  pc <- dp_pca(r)
  e <- expect_error(predict(pc, X[, 1:3]), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
  bad <- pc
  bad$rotation <- "junk"
  e <- expect_error(print(bad), class = "dpcov_error")
  expect_identical(e$arg, "x")
  bad <- pc
  bad$sdev <- -1
  expect_error(summary(bad), class = "dpcov_error")
  expect_error(plot(pc, npcs = 0), class = "dpcov_error")
  # with data, `rank` is refused before dp_cov() charges anything (the data's
  # number of columns is public)
  b <- dp_budget(5, 1e-4)
  for (rk in list(0, 9, NA, "a", 0.5, list(1))) {
    e <- expect_error(dp_pca(X, rank = rk, epsilon = 1, delta = 1e-6, budget = b), class = "dpcov_error")
    expect_identical(e$arg, "rank")
    e <- expect_error(dp_pca(X, rank = rk, epsilon = 1, delta = 1e-6, lower = -9, upper = 9, budget = b),
                      class = "dpcov_error")
    expect_identical(e$arg, "rank")
  }
  expect_identical(nrow(as.data.frame(b)), 0L)
  d <- as.data.frame(X[, 1:2]); d$m <- X[, 3:4]  # a matrix column counts its columns
  expect_identical(ncol(dp_pca(d, rank = 4, epsilon = 1, delta = 1e-6, budget = b)$rotation), 4L)
})

test_that("dp_cov()'s arguments given by position to dp_pca() are refused saying where they went, before any charge", {
  b <- dp_budget(5, 1e-4)
  # dp_pca(x, 1, 1e-6): 1 goes to `rank`, 1e-6 to `center`, as in prcomp()
  e <- expect_error(dp_pca(X, 1, 1e-6, budget = b), class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_match(conditionMessage(e), "dp_pca()'s own `rank`, `center` took values", fixed = TRUE)
  expect_match(conditionMessage(e), "epsilon = 1, delta = 1e-6", fixed = TRUE)
  e <- expect_error(dp_pca(X, 1, 1e-6), class = "dpcov_error")
  expect_identical(e$arg, "release")
  expect_match(conditionMessage(e), "`rank`, `center` and `scale`", fixed = TRUE)
  e <- expect_error(dp_pca(X, 0.5, delta = 1e-6, budget = b), class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_identical(nrow(as.data.frame(b)), 0L)
  # without positional values the message stays the plain one
  e <- expect_error(dp_pca(X), class = "dpcov_error")
  expect_false(grepl("own", conditionMessage(e)))
  # after a named rank, unnamed values still go to `center` and `scale`
  e <- expect_error(dp_pca(X, rank = 2, 1, 1e-6, lower = -9, upper = 9, budget = b), class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_match(conditionMessage(e), "`center`, `scale` took values", fixed = TRUE)
  expect_identical(nrow(as.data.frame(b)), 0L)
  # dp_cov()'s arguments named release, partial names too (as R matches them); a named rank is not positional
  expect_s3_class(dp_pca(X, 2, epsilon = 1, delta = 1e-6, lower = -9, upper = 9), "dp_pca")
  expect_s3_class(dp_pca(X, rank = 2, eps = 1, delta = 1e-6, lower = -9, upper = 9), "dp_pca")
  e <- expect_error(dp_pca(X, rank = 2), class = "dpcov_error")
  expect_false(grepl("own", conditionMessage(e)))
})

test_that("renamed arguments: object = still works with a deprecation warning", {
  r <- suppressWarnings(dp_compress(X, m = 50))
  expect_warning(a <- compressed_pca(object = r), "deprecated")
  expect_equal(a$sdev, compressed_pca(r)$sdev)
  expect_warning(b <- compressed_cov(object = r), "deprecated")
  expect_equal(b, compressed_cov(release = r))
  expect_error(compressed_cov(r, object = r), class = "dpcov_error")
  expect_error(compressed_cov(r, bogus = 1), class = "dpcov_error")
  e <- expect_error(compressed_cov(), class = "dpcov_error")
  expect_identical(e$arg, "release")
  colnames(r$estimate) <- paste0("V", seq_len(ncol(r$estimate)))
  expect_warning(f <- compressed_lm(object = r, response = "V1"), "deprecated")
  expect_equal(coef(f), coef(compressed_lm(r, response = "V1")))
  expect_error(compressed_lm(r, response = "V1", object = r), class = "dpcov_error")
})

test_that("the PCA holds no data and no call with values", {
  set.seed(9)
  x <- X
  r <- suppressWarnings(dp_compress(x, m = 60))
  pc <- do.call(dp_pca, list(r))
  expect_length(calls_with_values(pc), 0L)
  expect_length(leak_scan(pc, leak_secrets(x, Inf)), 0L)
})

test_that("biplot() of a release's PCA is a classed error (no scores); of compressed rows it draws", {
  pc <- dp_pca(exact_release(cov(X), "covariance", center = colMeans(X), divisor = "n - 1"))
  expect_error(biplot(pc), "no scores", class = "dpcov_error")  # it was prcomp's unclassed "has no scores"
  set.seed(5)
  cp <- suppressWarnings(dp_pca(dp_compress(X, m = 250)))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(biplot(cp))
})

test_that("summary() of a dp_pca refuses unknown arguments", {
  set.seed(30)
  pc <- dp_pca(analyze_gauss(matrix(rnorm(3000), 1000, 3), 1, 1e-5, clip = 5))
  e <- tryCatch(summary(pc, foo = 1), error = identity)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "foo")
})

test_that("with dp_cov()'s arguments anything not a release is data: a vector is one column, a list is refused as data", {
  v <- X[, 1]
  set.seed(31)
  a <- dp_pca(v, epsilon = 1, delta = 1e-6, lower = -8, upper = 8, tighten = FALSE)
  set.seed(31)
  b <- dp_pca(dp_cov(v, epsilon = 1, delta = 1e-6, lower = -8, upper = 8, tighten = FALSE))
  expect_equal(a$sdev, b$sdev)
  expect_equal(a$rotation, b$rotation)
  expect_identical(dim(a$rotation), c(1L, 1L))
  # a list, or data dp_cov() refuses: the error is about the data (dp_pca()'s
  # `release`), not "unknown argument(s) in `...`"
  bad <- X; bad[2, 3] <- NA
  for (d in list(as.list(as.data.frame(X)), bad, "a")) {
    e <- expect_error(dp_pca(d, epsilon = 1, delta = 1e-6, lower = -8, upper = 8), class = "dpcov_error")
    expect_identical(e$arg, "release")
    expect_match(conditionMessage(e), "`release`", fixed = TRUE)
    expect_no_match(conditionMessage(e), "unknown argument")
  }
})

test_that("tidy() of a dp_pca gives broom's prcomp tables for loadings and components; scores only of compressed rows", {
  ref <- prcomp(X)
  pc <- dp_pca(exact_release(cov(X), "covariance", center = colMeans(X), divisor = "n - 1"))
  # components: as broom's tidy.prcomp(matrix = "d"), from summary()'s importance
  imp <- summary(ref)$importance
  want <- data.frame(PC = as.numeric(1:4), std.dev = unname(imp[1, ]), percent = unname(imp[2, ]),
                     cumulative = unname(imp[3, ]))
  for (m in c("d", "pcs", "eigenvalues")) expect_equal(generics::tidy(pc, matrix = m), want, tolerance = 1e-8)
  # loadings (the default): one row per variable and component, as broom's pivot
  R <- pc$rotation
  want <- data.frame(column = rep(rownames(R), each = 4), PC = rep(as.numeric(1:4), 4),
                     value = c(t(R)), stringsAsFactors = FALSE)
  expect_identical(generics::tidy(pc), want)
  for (m in c("v", "rotation", "variables", "loadings")) expect_identical(generics::tidy(pc, matrix = m), want)
  # scores: a square release has none (broom's default read a NULL $x)
  for (m in c("u", "x", "samples", "scores")) {
    e <- expect_error(generics::tidy(pc, matrix = m), class = "dpcov_error")
    expect_identical(e$arg, "matrix")
    expect_match(conditionMessage(e), "predict(x, newdata)", fixed = TRUE)
  }
  e <- expect_error(generics::tidy(pc, matrix = "bogus"), class = "dpcov_error")
  expect_identical(e$arg, "matrix")
  e <- expect_error(generics::tidy(pc, foo = 1), class = "dpcov_error")
  expect_identical(e$arg, "foo")
  # compressed rows have scores; their PCA has no guarantee, and its tables say so
  set.seed(6)
  cp <- suppressWarnings(dp_pca(dp_compress(X, m = 40)))
  tu <- generics::tidy(cp, matrix = "u")
  expect_identical(names(tu), c("row", "PC", "value"))
  expect_equal(tu$value, c(t(cp$x)))
  expect_identical(tu$row, rep(seq_len(40), each = 4))
  expect_s3_class(tu, "dp_nonprivate")
  expect_s3_class(generics::tidy(cp, matrix = "d"), "dp_nonprivate")
  expect_false(inherits(generics::tidy(pc), "dp_nonprivate"))
})

test_that("PCA and QDA objects (audit): calls mask the data, labels, duplicated names, unknown arguments, hand-made objects", {
  # the stored call held the data when the release was built inside it
  set.seed(1)
  pc <- suppressWarnings(dp_pca(analyze_gauss(cbind(a = c(1.37, 2.91, 0.44, 3.3), b = c(0.2, 0.9, 0.1, 0.7)),
                                              epsilon = 1, delta = 1e-6, clip = 5)))
  expect_no_match(paste(deparse(pc$call), collapse = " "), "1.37|2.91")
  pc2 <- suppressWarnings(dp_pca(cbind(a = c(1.37, 2.91, 0.44, 3.3, 2.2, 1.1, 0.5, 2.8),
                                       b = c(0.2, 0.9, 0.1, 0.7, 0.3, 0.8, 0.6, 0.4)),
                                 epsilon = 1, delta = 1e-6, lower = c(0, 0), upper = c(4, 1)))
  expect_no_match(paste(deparse(pc2$call), collapse = " "), "1.37|2.91")
  cp <- suppressWarnings(compressed_pca(dp_compress(cbind(a = c(1.37, 2.91, .44, 3.3, 2, 1), b = c(.2, .9, .1, .7, 1, 2)),
                                                    m = 3)))
  expect_no_match(paste(deparse(cp$call), collapse = " "), "1.37|2.91")
  # compressed_pca() of a plain matrix (perhaps the raw data) is not private
  x <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  cm <- compressed_pca(x)
  expect_s3_class(cm, "dp_nonprivate")
  expect_output(print(cm), "NOT a private release")
  expect_output(print(summary(cm)), "NOT a private|not private|NOT private")
  # predict(): repeated names refused, not the first one read twice
  pa <- suppressWarnings(dp_pca(analyze_gauss(x, epsilon = 1, delta = 1e-6, clip = 5, neighbor = "replace-one")))
  expect_error(predict(pa, cbind(a = 0, x[1:2, ])), class = "dpcov_error")
  expect_equal(unname(predict(pa, x[1:2, c("c", "a", "b")])), unname(predict(pa, x[1:2, ])))
  # hand-made objects: classed errors, not crashes
  r <- analyze_gauss(x, 1, 1e-6, clip = 5, neighbor = "replace-one")
  r$scale <- "posterior sample"
  r$params <- list(df = 1e308)
  expect_error(dp_pca(r), class = "dpcov_error")
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  cpr <- suppressWarnings(dp_compress(x, m = 200))
  expect_error(biplot(dp_pca(cpr, rank = 1)), class = "dpcov_error")
  expect_error(biplot(dp_pca(cpr), choices = 3:4), class = "dpcov_error")
  expect_error(screeplot(structure(list(), class = c("dp_pca", "prcomp"))), class = "dpcov_error")
  # QDA: unknown arguments of predict() refused; errors of a user function quote no data; empty classes said
  fit <- qda_plugin(iris[, 1:4], iris$Species)
  expect_error(predict(fit, iris[1:3, 1:4], prior = c(0.01, 0.98, 0.01)), class = "dpcov_error")
  expect_error(predict(fit, iris[1:3, 1:4], typo = "posterior"), class = "dpcov_error")
  e <- expect_error(qda_plugin(iris[, 1:4], iris$Species, cov = function(x) diag(4)), class = "dpcov_error")
  expect_no_match(conditionMessage(e), "setosa|virginica|5.1|c\\(")
  expect_warning(f2 <- qda_plugin(iris[1:100, 1:4], iris$Species[1:100]), "virginica")
  expect_identical(f2$levels, c("setosa", "versicolor"))
})

test_that("column scales given by name are matched by name, as `center` is; names that miss a column are refused (audit)", {
  set.seed(4)
  x <- cbind(a = rnorm(400, 0, 1), b = rnorm(400, 0, 10), c = rnorm(400, 0, 100))
  x[, 2] <- x[, 2] + 5 * x[, 1]
  rel <- dp_cov(x, 1e3, 1e-6, lower = rep(-500, 3), upper = rep(500, 3), type = "correlation")
  pc <- dp_pca(rel)
  sds <- apply(x, 2, sd)
  by_pos <- predict(pc, x[1:5, ], scale = unname(sds))
  expect_equal(predict(pc, x[1:5, ], scale = sds[3:1]), by_pos)
  expect_equal(predict(dp_pca(rel, scale = sds[c(2, 3, 1)]), x[1:5, ]), by_pos)
  for (bad in list(c(a = 1, b = 2, z = 3), c(a = 1, b = 2, b = 3), stats::setNames(1:3, c("a", NA, "c")))) {
    e <- expect_error(predict(pc, x[1:5, ], scale = bad), class = "dpcov_error")
    expect_identical(e$arg, "scale")
    e <- expect_error(dp_pca(rel, scale = bad), class = "dpcov_error")
    expect_identical(e$arg, "scale")
  }
  # more names than columns: the release's are taken
  expect_equal(predict(pc, x[1:5, ], scale = c(sds[3:1], d = 7)), by_pos)
  # compressed_lm()'s `scales` likewise
  y <- x %*% c(1, 0.2, 0.01) + rnorm(400)
  z <- cbind(x, y = drop(y))
  r <- suppressWarnings(dp_compress(z, m = 40))
  rms <- sqrt(colMeans(z^2))
  expect_equal(coef(compressed_lm(r, "y", scales = rev(rms))), coef(compressed_lm(r, "y", scales = unname(rms))))
  e <- expect_error(compressed_lm(r, "y", scales = c(a = 1, b = 1, c = 1, w = 1)), class = "dpcov_error")
  expect_identical(e$arg, "scales")
})

test_that("plot() and screeplot() of a dp_pca take graphical parameters and type = \"lines\", as stats::screeplot() does (audit)", {
  set.seed(2)
  x <- matrix(rnorm(600), 200, 3) %*% diag(c(3, 2, 1))
  pc <- dp_pca(x, epsilon = 100, delta = 1e-6, lower = rep(-12, 3), upper = rep(12, 3))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  # (each was R's unclassed "formal argument matched by multiple actual arguments")
  expect_silent(plot(pc, col = "red"))
  expect_silent(screeplot(pc, ylab = "v", main = "m"))
  expect_silent(plot(pc, axes = FALSE))
  # type = "lines" draws lines (it was passed to barplot(): "graphical parameter type is obsolete")
  expect_silent(v <- screeplot(pc, type = "lines", col = "blue"))
  expect_equal(v, pc$sdev^2)
  e <- expect_error(screeplot(pc, type = "pie"), class = "dpcov_error")
  expect_identical(e$arg, "type")
  expect_silent(screeplot(pc, type = "l"))                  # abbreviated, as match.arg() allows
  expect_silent(plot(pc, names.arg = c("a", "b", "c")))     # a default of its own, overridden
  e <- expect_error(plot(pc, 3, "barplot", NULL, "red"), class = "dpcov_error")  # unnamed in `...`: refused, not dropped
  expect_identical(e$arg, "...")
  # update() of a PCA made by do.call() (its call holds placeholders) is a classed error
  p2 <- do.call(dp_pca, list(x, epsilon = 100, delta = 1e-6, lower = rep(-12, 3), upper = rep(12, 3)))
  e <- expect_error(update(p2, epsilon = 2), class = "dpcov_error")
  expect_identical(e$arg, "object")
})

test_that("tidy() of a PCA without a formal guarantee says why it is not private, not 'computed without privacy noise' (audit)", {
  set.seed(6)
  x <- matrix(rnorm(2000), 500, 4)
  r <- suppressWarnings(analyze_gauss(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 5, neighbor = "replace-one"))
  td <- tidy(dp_pca(r), "d")
  out <- capture.output(print(td))
  expect_match(gsub("\\s+", " ", paste(out[1:2], collapse = " ")), "without a formal guarantee")
  expect_no_match(paste(out, collapse = " "), "without privacy noise")
})

test_that("a centre whose add/remove delta restated under replace-one reaches 1 says so (audit: 'their deltas add up')", {
  set.seed(7)
  x <- matrix(rnorm(2000, 3), 500, 4)
  ag <- suppressWarnings(analyze_gauss(x, 30, 1e-6, clip = 8, neighbor = "replace-one"))
  mu <- suppressWarnings(dp_cov(x, 30, 1e-6, clip = 8, clip_mean = 8))   # add/remove
  g <- dp_pca(ag, center = mu)$guarantee
  expect_match(g, "^NONE: ")
  expect_match(g, "restated under")
})

test_that("dp_pca() reads dp_cov()'s arguments under any name R matches, partial ones too (audit)", {
  set.seed(21)
  x <- matrix(rnorm(6e4), 2e4, 3) %*% diag(c(3, 1, 0.5))
  full <- function() dp_pca(x, epsilon = 1, delta = 1e-6, lower = -15, upper = 15, neighbor = "replace-one")
  set.seed(5)
  a <- full()
  expect_match(a$source$mechanism, "tightened privately")
  set.seed(5)
  b <- dp_pca(x, eps = 1, delta = 1e-6, low = -15, upp = 15, neigh = "replace-one")
  expect_identical(b$source$mechanism, a$source$mechanism)
  expect_identical(b$rotation, a$rotation)
  # by position after rank, center and scale, as R matches them
  set.seed(5)
  pos <- dp_pca(x, NULL, NULL, NULL, 1, 1e-6, lower = -15, upper = 15, neighbor = "replace-one")
  expect_identical(pos$rotation, a$rotation)
  # bounds named but NULL or all NA are no box: no tighten is passed (audit: it was, and refused)
  set.seed(5)
  expect_s3_class(dp_pca(x, epsilon = 1, delta = 1e-6, clip = 15, clip_mean = 15, bounds = NULL), "dp_pca")
  expect_s3_class(dp_pca(x, epsilon = 1, delta = 1e-6, lower = NULL, upper = NULL), "dp_pca")
  expect_s3_class(suppressWarnings(dp_pca(x, epsilon = 1, delta = 1e-6, lower = c(NA, NA, NA), upper = c(NA, NA, NA))),
                  "dp_pca")
  # (control: an explicit tighten = FALSE, partially named, is dp_cov()'s)
  set.seed(5)
  d <- dp_pca(x, epsilon = 1, delta = 1e-6, lower = -15, upper = 15, neighbor = "replace-one", tig = FALSE)
  expect_false(grepl("tightened privately", d$source$mechanism))
})

test_that("dp_pca()'s axes have a sign: the largest loading positive, so a reader's release gives the memory's axes (audit)", {
  set.seed(23)
  X <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "c"))) %*% diag(c(3, 2, 1))
  colnames(X) <- c("a", "b", "c")
  r <- dp_cov(X, 1, 1e-6, clip = 12, clip_mean = 12, neighbor = "replace-one")
  pc <- dp_pca(r)
  big <- apply(abs(pc$rotation), 2, which.max)
  expect_true(all(pc$rotation[cbind(big, seq_len(ncol(pc$rotation)))] > 0))
  # a release whose matrix differs in the last bits, with an axis's sign
  # flipped by eigen(), gives the same axes
  h <- r
  h$estimate <- -(-r$estimate)
  h$estimate[1, 2] <- h$estimate[2, 1] <- r$estimate[1, 2] * (1 + 4 * .Machine$double.eps)
  expect_equal(dp_pca(h)$rotation, pc$rotation, tolerance = 1e-10)
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  utils::write.csv(as.data.frame(X), f, row.names = FALSE)
  set.seed(9)
  a <- dp_pca(X, epsilon = 1, delta = 1e-6, clip = 12, clip_mean = 12, neighbor = "replace-one")
  set.seed(9)
  b <- dp_pca(csv_reader(f, chunk_rows = 37), epsilon = 1, delta = 1e-6, clip = 12, clip_mean = 12,
              neighbor = "replace-one")
  expect_equal(b$rotation, a$rotation, tolerance = 1e-8)
})

test_that("a thresholded release's zeroed entries count at their error bound, not as exact 0s (audit: 33-54 degrees off graded \"ok\")", {
  set.seed(3)
  n <- 3000
  x <- matrix(rnorm(n * 4), n, 4) %*% diag(c(2, 1, 0.7, 0.3)) + 1
  set.seed(10)
  r <- dp_threshold(x, 1, 1e-6, clip = 5)
  expect_true(any(r$estimate == 0))
  # (it was: component noise 0 0 0 0, level "ok", with PC1 34 degrees off)
  pc <- suppressWarnings(dp_pca(r))
  expect_true(all(pc$diagnostics$component_noise > 0.5))
  expect_false(identical(pc$diagnostics$level, "ok"))
  expect_match(paste(pc$diagnostics$notes, collapse = " "), "thresholded to 0")
  # the sd-equivalent, against a plain-R reference: sqrt(s^2 + t^2) where the
  # threshold t may have zeroed the entry, the noise sd s elsewhere
  s <- r$params$noise_sd
  t <- r$params$threshold
  ref <- matrix(s, 4, 4)
  ref[abs(r$estimate) < t] <- sqrt(s^2 + t^2)
  expect_equal(release_noise_sd(r, zeroed = "bound"), ref)
  # (the release's own diagnostics keep their meaning: a zeroed entry carries no noise)
  expect_true(all(release_noise_sd(r)[r$estimate == 0] == 0))
  # simulation: the diagnostic against the actual sine of each axis to the
  # clipped average's (the matrix the release estimates), over 100 redraws
  sine <- function(a, b) sqrt(pmax(0, 1 - colSums(a * b)^2))
  sim <- function(x, R) {
    ev <- eigen(crossprod(pmin(1, 5 / sqrt(rowSums(x^2))) * x) / nrow(x), symmetric = TRUE)$vectors
    out <- replicate(R, {
      pc <- suppressWarnings(dp_pca(dp_threshold(x, 1, 1e-6, clip = 5)))
      c(sine(ev, pc$rotation), pc$diagnostics$component_noise, pc$diagnostics$level != "ok")
    })
    list(rms = sqrt(rowMeans(out[1:4, ]^2)), noise = apply(out[5:8, ], 1, stats::median), flagged = mean(out[9, ]))
  }
  set.seed(11)
  a <- sim(x, 100)
  expect_gt(a$rms[1], 0.3)                  # PC1 is far off (about 30 degrees)
  expect_true(all(a$noise >= a$rms))         # and the diagnostic says at least that much
  expect_gt(a$flagged, 0.7)
  # control: n large enough that nothing is zeroed, the diagnostic is the
  # noise's (as before) and near the actual sines
  set.seed(12)
  xl <- matrix(rnorm(30000 * 4), 30000, 4) %*% diag(c(2, 1, 0.7, 0.3)) + 1
  rl <- dp_threshold(xl, 1, 1e-6, clip = 5)
  expect_false(any(abs(rl$estimate) < rl$params$threshold))
  expect_identical(release_noise_sd(rl, zeroed = "bound"), release_noise_sd(rl))
  expect_null(dp_pca(rl)$diagnostics$notes)
  b <- sim(xl, 50)
  expect_true(all(b$noise > 0.7 * b$rms & b$noise < 1.5 * b$rms))
})

test_that("the zeroed entries' bound reaches every PCA of a thresholded matrix: centred, converted, correlations, dp_cov()'s threshold step (audit)", {
  set.seed(3)
  n <- 3000
  x <- matrix(rnorm(n * 4), n, 4) %*% diag(c(2, 1, 0.7, 0.3)) + 1
  set.seed(10)
  r <- dp_threshold(x, 1, 1e-6, clip = 5)
  rc <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 5, neighbor = "replace-one")
  bounded <- function(pc_release, center = NULL) {
    src <- pca_source(pc_release, center)
    attr(pca_noise_sd(if (is.null(src$release)) pc_release else src$release, src), "bounded")
  }
  expect_gt(bounded(r), 0)
  expect_gt(bounded(r, rc), 0)
  expect_gt(bounded(dp_as_cov(r, center = rc)), 0)
  cr <- dp_as_cov(r, "correlation", center = rc)
  expect_true(any(cr$params$correlation_bound_sd > cr$params$correlation_noise_sd))
  expect_gt(bounded(cr), 0)
  # dp_cov()'s threshold step (two passes, and one from statistics)
  set.seed(10)
  t2 <- suppressWarnings(dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 5, mechanism = "threshold", neighbor = "replace-one"))
  set.seed(10)
  t1 <- suppressWarnings(dp_cov(second_moment(x, clip = 5), 1, 1e-6, mechanism = "threshold", neighbor = "replace-one"))
  for (rel in list(t2, t1)) {
    b <- release_noise_sd(rel, zeroed = "bound")
    s <- release_noise_sd(rel)
    expect_true(all(b >= s) && any(b > s))
    expect_gt(bounded(rel), 0)
  }
  # the uncentred Gram zeroed in one pass: the axes are far off, and the grade says so
  expect_identical(suppressWarnings(dp_pca(t1))$diagnostics$level, "mostly noise")
})

# the first-order turn variances as the p^4 double loop computed them (plain R)
turn_loop <- function(V, vec, k) {
  p <- nrow(vec)
  var_ab <- function(a, b) {
    drop(crossprod(a * a, V %*% (b * b))) + drop(crossprod(a * b, V %*% (a * b))) - sum(diag(V) * a^2 * b^2)
  }
  v <- matrix(0, p, k)
  for (l in seq_len(p)) for (j in seq_len(k)) v[l, j] <- var_ab(vec[, l], vec[, j])
  list(var = v, move = vapply(seq_len(p), function(j) sqrt(max(0, var_ab(vec[, j], vec[, j]))), 0))
}

# the component noise as the loop computed it, from the same V (plain R)
ratio_loop <- function(V, values, vec, k) {
  p <- length(values)
  spec <- 2 * sqrt(max(rowSums(V)))
  tl <- turn_loop(V, vec, p)
  move <- tl$move
  vapply(seq_len(k), function(j) {
    if (p < 2) return(0)
    tot <- 0
    for (l in setdiff(seq_len(p), j)) {
      g <- abs(values[j] - values[l]) - min(2 * spec, move[j] + move[l])
      v <- tl$var[l, j]
      tot <- tot + if (g <= 0) Inf else max(0, v) / g^2
    }
    sqrt(tot)
  }, 0)
}

test_that("the component checks are vectorised exactly: the same numbers as the p^4 loop (audit: 161 s at p = 400)", {
  set.seed(40)
  for (p in c(2, 5, 12)) {
    vec <- qr.Q(qr(matrix(rnorm(p * p), p)))
    w <- exp(runif(p, -7, 7))                       # columns of very different scales
    Vs <- list(matrix(0.3, p, p),                   # Analyze Gauss: one sd
               crossprod(matrix(runif(p * p), p)),  # full rank
               tcrossprod(w^2) * 0.01,              # a box's scaled noise
               {M <- tcrossprod(w); diag(M) <- 3 * w^2; M},  # low rank plus a diagonal
               {M <- matrix(runif(p * p), p); M <- M + t(M); M[, 1] <- M[1, ] <- 0; M})  # a zero row
    for (V in Vs) for (k in unique(c(1, p))) {
      a <- pca_turn_variances(V, vec, k)
      b <- turn_loop(V, vec, k)
      expect_equal(a$var, b$var, tolerance = 1e-10)
      expect_equal(a$move, b$move, tolerance = 1e-10)
    }
    V <- matrix(Inf, p, p)
    expect_true(all(pca_turn_variances(V, vec, p)$var == Inf))
  }
  # whole PCAs: the component noise against the loop's from the same V
  set.seed(41)
  x <- matrix(rnorm(8000 * 8), 8000, 8) %*% diag(seq(3, 0.5, length.out = 8))
  for (r in list(analyze_gauss(x, 1, 1e-6, clip = 12, neighbor = "replace-one"),
                 dp_cov(x, 1, 1e-6, clip = 12, clip_mean = 12),
                 dp_cov(x, 1, 1e-6, lower = rep(-12, 8), upper = rep(12, 8), tighten = FALSE))) {
    pc <- suppressWarnings(dp_pca(r))
    src <- pca_source(r, NULL)
    V <- pca_noise_sd(r, src)^2
    e <- eigen(src$matrix, symmetric = TRUE)
    expect_equal(unname(pc$diagnostics$component_noise), ratio_loop(V, e$values, e$vectors, 8), tolerance = 1e-10)
    pc3 <- suppressWarnings(dp_pca(r, rank = 3))
    expect_equal(unname(pc3$diagnostics$component_noise), ratio_loop(V, e$values, e$vectors, 3), tolerance = 1e-10)
  }
  # p = 30, dp_cov()'s noise: the same numbers
  x <- matrix(rnorm(8000 * 30), 8000, 30) %*% diag(seq(3, 0.5, length.out = 30)) + 2
  for (r in list(dp_cov(x, 1, 1e-6, clip = 30, clip_mean = 30),
                 dp_cov(x, 1, 1e-6, lower = rep(-12, 30), upper = rep(15, 30), tighten = FALSE))) {
    src <- pca_source(r, NULL)
    V <- pca_noise_sd(r, src)^2
    e <- eigen(src$matrix, symmetric = TRUE)
    a <- pca_turn_variances(V, e$vectors, 30)
    b <- turn_loop(V, e$vectors, 30)
    expect_equal(a$var, b$var, tolerance = 1e-10)
    expect_equal(unname(suppressWarnings(dp_pca(r))$diagnostics$component_noise), ratio_loop(V, e$values, e$vectors, 30),
                 tolerance = 1e-10)
  }
})

test_that("a centre given as numbers has a cost not known here: the total epsilon and delta are NA, and print says so (audit)", {
  set.seed(3)
  x <- matrix(rnorm(9000), 3000, 3) %*% diag(c(2, 1, 0.7)) + 1
  colnames(x) <- c("a", "b", "c")
  ra <- analyze_gauss(x, 1, 1e-6, clip = 5, neighbor = "replace-one")
  rc <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 5, neighbor = "replace-one")
  pc <- dp_pca(ra, center = colMeans(x))   # the exact means: no guarantee at all
  expect_true(is.na(pc$source$epsilon))
  expect_true(is.na(pc$source$delta))
  expect_identical(pc$source$epsilon_release, 1)
  g <- glance(pc)
  expect_true(is.na(g$epsilon) && is.na(g$delta) && is.na(g$private))
  out <- paste(wide_output(print(pc)), collapse = " ")
  expect_match(out, "not accounted")
  expect_match(out, "pass the dp_cov() release itself as `center`", fixed = TRUE)
  expect_match(paste(wide_output(print(summary(pc))), collapse = " "), "not accounted")
  # the dp_cov() release itself: counted, the total stated
  pr <- dp_pca(ra, center = rc)
  expect_identical(pr$source$epsilon, 2)
  expect_identical(glance(pr)$epsilon, 2)
  expect_true(glance(pr)$private)
  expect_no_match(paste(wide_output(print(pr)), collapse = " "), "not accounted")
  expect_equal(pr$center, rc$center)   # named by column, as prcomp()'s
  expect_identical(names(pc$center), colnames(x))
})

test_that("a centre too large, and a `release` that cannot be data, are refused naming their argument (audit)", {
  set.seed(3)
  x <- matrix(rnorm(900), 300, 3)
  ra <- analyze_gauss(x, 1, 1e-6, clip = 5, neighbor = "replace-one")
  for (f in list(function(m) dp_pca(ra, center = m), function(m) dp_as_cov(ra, center = m))) {
    e <- expect_error(f(c(1e200, 0, 0)), class = "dpcov_error")
    expect_identical(e$arg, "center")
  }
  b <- dp_budget(5, 1e-4)
  for (d in list("abc", list(1, 2), factor(c("a", "b")))) {
    e <- expect_error(dp_pca(d, rank = 2, epsilon = 1, delta = 1e-6, clip = 5, clip_mean = 5, budget = b),
                      class = "dpcov_error")
    expect_identical(e$arg, "release")
    expect_no_match(conditionMessage(e), "rank")
  }
  expect_identical(nrow(as.data.frame(b)), 0L)
  # (a numeric vector is one column: its rank is checked against 1)
  e <- expect_error(dp_pca(x[, 1], rank = 2, epsilon = 1, delta = 1e-6, clip = 5, clip_mean = 5), class = "dpcov_error")
  expect_identical(e$arg, "rank")
})

test_that("plot() and screeplot() of a dp_pca: log = \"y\" works, bad axis arguments are classed errors (audit)", {
  set.seed(2)
  x <- matrix(rnorm(600), 200, 3) %*% diag(c(3, 2, 1))
  pc <- dp_pca(exact_release(cov(x), "covariance", center = colMeans(x)))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(v <- plot(pc, log = "y"))
  expect_equal(v, pc$sdev^2)
  expect_true(graphics::par("ylog"))
  expect_silent(screeplot(pc, log = "y", type = "lines"))
  expect_silent(plot(pc, log = "y", ylim = c(0.1, 20)))
  expect_silent(plot(pc, names.arg = 1:3, xlim = c(0, 5)))
  bad <- list(list(log = "x", arg = "log"), list(log = "xy", arg = "log"), list(names.arg = 1:2, arg = "names.arg"),
              list(xlim = "a", arg = "xlim"), list(xlim = c(1, 1), arg = "xlim"), list(ylim = c(0, Inf), arg = "ylim"),
              list(log = "y", ylim = c(0, 10), arg = "ylim"))
  for (b in bad) {
    args <- b[names(b) != "arg"]
    for (f in list(plot, screeplot)) {
      e <- expect_error(do.call(f, c(list(pc), args)), class = "dpcov_error")
      expect_identical(e$arg, b$arg)
    }
  }
  # a variance of 0 (a negative eigenvalue) cannot be drawn on a log scale
  z <- dp_pca(exact_release(diag(c(3, 1, -0.5)), "sum", n = 10))
  e <- expect_error(plot(z, log = "y"), "PC3", class = "dpcov_error")
  expect_identical(e$arg, "log")
  expect_silent(plot(z, log = "y", npcs = 2))
})

test_that("predict() without newdata and print() refuse what they would ignore (audit)", {
  set.seed(5)
  pz <- suppressWarnings(dp_pca(dp_compress(X, m = 50)))
  e <- expect_error(predict(pz, scale = c(100, 100, 100, 100)), class = "dpcov_error")
  expect_identical(e$arg, "scale")
  e <- expect_error(predict(pz, center = 1:4), class = "dpcov_error")
  expect_identical(e$arg, "center")
  e <- expect_error(predict(pz, foo = 1), class = "dpcov_error")
  expect_identical(e$arg, "foo")
  expect_equal(predict(pz), pz$x)
  pc <- dp_pca(exact_release(cov(X), "covariance", center = colMeans(X)))
  for (obj in list(pc, summary(pc))) {
    e <- expect_error(print(obj, foo = 1), class = "dpcov_error")
    expect_identical(e$arg, "foo")
  }
})

test_that("hand-made releases whose fields contradict what the PCA reads are refused (audit)", {
  set.seed(7)
  m <- suppressWarnings(dp_compress(X, m = 60))
  cut <- m
  cut$estimate <- cut$estimate[1:5, ]
  e <- expect_error(dp_pca(cut), "params\\$m", class = "dpcov_error")
  expect_identical(e$arg, "release")
  expect_error(compressed_cov(cut), "params\\$m", class = "dpcov_error")
  for (v in list("no", NA, c(TRUE, FALSE), NULL)) {
    nn <- m
    nn$params["normalize"] <- list(v)
    e <- expect_error(dp_pca(nn), "normalize", class = "dpcov_error")
    expect_identical(e$arg, "release")
  }
  rc <- dp_cov(X / 4, 1, 1e-6, clip = 2, clip_mean = 2, type = "correlation")
  off <- rc
  diag(off$estimate) <- 2
  e <- expect_error(dp_pca(off), "diagonal", class = "dpcov_error")
  expect_identical(e$arg, "release")
  big <- rc
  big$estimate[1, 2] <- big$estimate[2, 1] <- 1.5
  expect_error(dp_pca(big), "\\[-1, 1\\]", class = "dpcov_error")
  ag <- analyze_gauss(X / 4, 1, 1e-6, clip = 2)
  z <- ag
  z$params$sigma <- 0
  e <- expect_error(dp_pca(z), "params\\$sigma", class = "dpcov_error")
  expect_identical(e$arg, "release")
  d0 <- dp_cov(X / 4, 1, 1e-6, clip = 2, clip_mean = 2)
  d0$params$second_moment$sigma <- 0
  expect_error(dp_pca(d0), "second_moment\\$sigma", class = "dpcov_error")
  # (control: a release without a guarantee may carry no noise, and one column's off-diagonal scale has no entries)
  ex <- exact_release(cov(X), "covariance", center = colMeans(X))
  expect_s3_class(dp_pca(ex), "dp_pca")
  expect_s3_class(dp_pca(dp_cov(X[, 1], 1, 1e-6, lower = -9, upper = 9, tighten = FALSE)), "dp_pca")
})

test_that("one column: the note does not claim an eigen-gap above the noise of a noisy release (audit)", {
  set.seed(8)
  r <- suppressWarnings(analyze_gauss(matrix(rnorm(40), 40, 1), 0.2, 1e-6, clip = 3))
  expect_false(identical(r$diagnostics$level, "ok"))
  pc <- suppressWarnings(dp_pca(r))
  notes <- paste(pc$diagnostics$notes, collapse = " ")
  expect_match(notes, "one column")
  expect_no_match(notes, "eigen-gap stands above the noise")
})

test_that("the turn variances keep the small variances of columns on much smaller scales (review of the vectorisation)", {
  # every entry against the loop, relative: a low-rank shortcut was off by
  # up to 16x on the small entries, and graded a PCA ok where the loop did not
  set.seed(804)
  for (p in c(5, 8, 12)) {
    w <- 10^runif(p, -4, 6)
    mu <- rnorm(p) * 10^runif(p, -2, 2)
    V <- tcrossprod(w^2) + (outer(rep(1, p), mu^2) + outer(mu^2, rep(1, p))) * tcrossprod(w)
    diag(V) <- 2 * w^4 + 4 * mu^2 * w^2
    for (vec in list(diag(p), qr.Q(qr(matrix(rnorm(p * p), p))),
                     {v <- diag(p); v[1:2, 1:2] <- c(1, 1, -1, 1) / sqrt(2); v})) {
      a <- pca_turn_variances(V, vec, p)
      b <- turn_loop(V, vec, p)
      off <- row(b$var) != col(b$var) & abs(b$var) > 1e-300
      expect_lt(max(abs(a$var[off] - b$var[off]) / abs(b$var[off])), 1e-8)
      expect_lt(max(abs(a$move - b$move) / pmax(abs(b$move), 1e-300)), 1e-8)
    }
  }
  # a release on mixed scales: the component noise equals the loop's entry by entry
  set.seed(73)
  p <- 8
  n <- 50000
  sc <- sort(10^runif(p, -4, 6))
  x <- sweep(matrix(rnorm(n * p), n, p) * 0.6 + 0.8 * rnorm(n), 2, sc, "*")
  m <- colMeans(x)
  s <- apply(x, 2, sd)
  r <- dp_cov(x, 1, 1e-6, lower = m - 6 * s, upper = m + 6 * s, neighbor = "replace-one")
  src <- pca_source(r, NULL)
  V <- pca_noise_sd(r, src)^2
  e <- eigen(src$matrix, symmetric = TRUE)
  cn <- unname(suppressWarnings(dp_pca(r, rank = p))$diagnostics$component_noise)
  ref <- ratio_loop(V, e$values, e$vectors, p)
  expect_lt(max(abs(cn - ref) / pmax(ref, 1e-300)), 1e-8)
})

test_that("a conversion centred at numbers has an unknown total in glance(), and dp_pca() of it too (review)", {
  set.seed(1)
  x <- matrix(rnorm(3000), 1000, 3) + 2
  ag <- analyze_gauss(x, 1, 1e-6, clip = 8, neighbor = "replace-one")
  for (type in c("covariance", "correlation")) {
    cv <- dp_as_cov(ag, type, center = colMeans(x))
    g <- glance(cv)
    expect_true(is.na(g$private) && is.na(g$epsilon) && is.na(g$delta))
    gp <- glance(suppressWarnings(dp_pca(cv)))
    expect_true(is.na(gp$private) && is.na(gp$epsilon))
  }
  # control: centred at a dp_cov() release, the total is known
  rc <- dp_cov(x, 1, 1e-6, clip = 8, clip_mean = 8, neighbor = "replace-one")
  g <- glance(dp_as_cov(ag, "covariance", center = rc))
  expect_true(isTRUE(g$private))
  expect_equal(g$epsilon, 2)
})
