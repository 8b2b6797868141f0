test_that("Analyze Gauss noise has the calibrated scale; an under-noised variant fails", {
  set.seed(41)
  x <- matrix(rnorm(200 * 3), 200, 3)
  G <- second_moment(x, clip = 1)
  sigma <- gaussian_sigma(1, 0.5, 1e-5)
  resid <- replicate(400, {
    r <- analyze_gauss(G, 0.5, 1e-5)
    (r$estimate - G$gram)[upper.tri(G$gram, diag = TRUE)]
  })
  # (release - A'A) / sigma should be standard normal: KS and variance (chi-square) tests
  z <- as.vector(resid) / sigma
  expect_gt(ks.test(z, "pnorm")$p.value, 1e-6)
  chi <- sum(z^2); df <- length(z)
  expect_gt(pchisq(chi, df), 1e-6 / 2)
  expect_lt(pchisq(chi, df), 1 - 1e-6 / 2)
  # negative control: the same noise at half the scale
  z_half <- z / 2
  expect_lt(ks.test(z_half, "pnorm")$p.value, 1e-6)
  expect_lt(pchisq(sum(z_half^2), df), 1e-6)
})

test_that("the release object holds no raw data and states its guarantee", {
  set.seed(42)
  x <- matrix(rnorm(50 * 3), 50, 3)
  r <- analyze_gauss(x, 0.5, 1e-5, clip = 2)
  expect_s3_class(r, c("dp_second_moment", "dp_release"))
  expect_setequal(names(r), c("estimate", "mechanism", "epsilon", "delta", "neighbor", "n_public",
                              "clip", "n", "p", "scale", "centred", "ridge", "params", "tuning",
                              "guarantee", "call", "diagnostics"))
  expect_identical(r$scale, "sum")
  expect_false(r$centred)
  expect_output(print(r), "Estimates: A'A, the sum of outer products")
  gram <- second_moment(x, clip = 2)$gram
  # no stored number equals an entry of the data or of its noiseless Gram matrix
  stored <- unlist(lapply(r[setdiff(names(r), "call")], unlist))
  stored <- suppressWarnings(as.numeric(stored[!is.na(suppressWarnings(as.numeric(stored)))]))
  near <- function(a, b) any(abs(outer(a, as.vector(b), "-")) < 1e-12)
  expect_false(near(stored, gram))
  expect_false(near(stored, x))
  expect_true(has_guarantee(r))
  expect_output(print(r), "\\(0.5, 1e-05\\)-differential privacy")
  expect_identical(as.matrix(r), r$estimate)
  s <- summary(r)
  expect_equal(s$eigenvalues, eigen(r$estimate, only.values = TRUE)$values)
  expect_output(print(s), "Private release")
})

test_that("clip = Inf is allowed only with an explicit calibration bound, and says no guarantee holds", {
  x <- matrix(rnorm(30), 10, 3)
  expect_error(analyze_gauss(x, 0.5, 1e-5, clip = Inf), "sigma_clip_inf")
  r <- analyze_gauss(x, 0.5, 1e-5, clip = Inf, sigma_clip_inf = 1)
  expect_false(has_guarantee(r))
  expect_output(print(r), "NONE: rows were not clipped")
  expect_error(analyze_gauss(x, 0.5, 1e-5), "`clip` \\(the row-norm bound B\\) is required")
  expect_error(analyze_gauss(second_moment(x, 1), 0.5, 1e-5, clip = 2), "differs from the clip bound")
  expect_error(analyze_gauss(x, 0, 1e-5, clip = 1), "`epsilon` must be > 0")
  expect_error(analyze_gauss(x, 0.5, 2, clip = 1), "`delta` must be in")
})

test_that("the same seed gives the same release", {
  x <- matrix(rnorm(30), 10, 3)
  set.seed(1); a <- analyze_gauss(x, 0.5, 1e-5, clip = 1)
  set.seed(1); b <- analyze_gauss(x, 0.5, 1e-5, clip = 1)
  expect_identical(a$estimate, b$estimate)
})

test_that("plot() and as.data.frame() of a release read only the released values", {
  set.seed(21)
  x <- matrix(rnorm(400), 100, 4)
  colnames(x) <- paste0("v", 1:4)
  r <- analyze_gauss(x, 1, 1e-5, clip = 3)
  df <- as.data.frame(r)
  expect_named(df, c("row", "col", "estimate"))
  expect_equal(nrow(df), 16L)
  # one row per entry, the entry the release holds
  expect_equal(df$estimate[df$row == "v2" & df$col == "v3"], r$estimate["v2", "v3"])
  expect_equal(sort(df$estimate), sort(as.vector(r$estimate)))
  rc <- suppressWarnings(dp_compress(x, m = 30))
  dfc <- as.data.frame(rc)
  expect_equal(nrow(dfc), 30L * 4L)
  expect_equal(dfc$estimate, as.vector(rc$estimate))
  pdf(NULL)
  on.exit(dev.off())
  op <- par("mar")
  expect_identical(plot(r), r)
  expect_equal(par("mar"), op)
  expect_no_error(plot(rc))
  expect_no_error(plot(suppressWarnings(dp_compress(x[, 1:2], m = 30))))
  e <- expect_error(plot(r, main = 1), class = "dpcov_error")
  expect_identical(e$arg, "main")
  bad <- r
  bad$estimate <- "a"
  expect_error(as.data.frame(bad), class = "dpcov_error")
  expect_error(plot(bad), class = "dpcov_error")
})

test_that("as.matrix() of a release refuses unknown arguments", {
  set.seed(31)
  r <- analyze_gauss(matrix(rnorm(300), 100, 3), 1, 1e-5, clip = 5)
  e <- tryCatch(as.matrix(r, foo = 1), error = identity)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "foo")
  expect_identical(as.matrix(r), r$estimate)
})

test_that("hand-made objects with 1 x 1 matrix scalars or unusable centres and spreads are refused, classed", {
  # they failed unclassed inside print(), summary(), dp_pca(), dp_lm(), plot()
  # ("non-conformable arrays", "infinite or missing values in 'x'")
  set.seed(71)
  X <- matrix(runif(300, -1, 1), 100, 3, dimnames = list(NULL, c("a", "b", "c")))
  rel <- suppressWarnings(dp_cov(X, 1, 1e-6, lower = -1, upper = 1, neighbor = "replace-one"))
  ag <- suppressWarnings(analyze_gauss(X, 1, 1e-6, clip = 2))
  refused <- function(expr, arg) {
    e <- tryCatch({ force(expr); NULL }, error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_identical(e$arg, arg)
  }
  r1 <- rel; r1$n <- matrix(rel$n)
  refused(print(r1), "x")
  refused(dp_pca(r1), "release")
  r2 <- rel; r2$ridge <- matrix(0)
  refused(summary(r2), "object")
  a2 <- ag; a2$ridge <- matrix(0)
  refused(release_diagnostics(a2), "x")
  a3 <- ag; a3$epsilon <- matrix(ag$epsilon)
  refused(print(a3), "x")
  # a centre whose square times n overflows (dp_lm() rebuilds n mu mu'), or not finite
  r3 <- rel; r3$center <- rel$center * 1e300
  refused(dp_lm(r3, formula = c ~ a + b, B = 5), "x")
  r4 <- rel; r4$center[2] <- NaN
  refused(dp_as_cov(r4), "release")
  r5 <- rel; r5$center <- matrix(rel$center, 1)
  refused(print(r5), "x")
  # private column bounds: `range` a 1 x 1 matrix
  cb <- suppressWarnings(dp_column_bounds(X, 1))
  cb2 <- cb; cb2$range <- matrix(cb$range)
  refused(print(cb2), "x")
  # a PCA whose spreads' squares overflow (its importance divides by their sum)
  pc <- suppressWarnings(dp_pca(rel))
  p2 <- pc; p2$sdev <- pc$sdev * 1e300
  refused(print(p2), "x")
  refused(summary(p2), "object")
  refused(plot(p2), "x")
  p3 <- pc; p3$sdev <- matrix(pc$sdev, 1)
  refused(print(p3), "x")
  # the originals are fine (the control)
  expect_output(print(rel))
  expect_s3_class(suppressWarnings(dp_lm(rel, formula = c ~ a + b, B = 5)), "dp_lm")
  expect_output(print(cb))
  expect_s3_class(summary(pc), "summary.dp_pca")
})

test_that("a hand-made params$column_bounds that is not a list is ignored by the diagnostics, not a crash", {
  set.seed(21)
  r <- suppressWarnings(dp_cov(data.frame(a = rexp(5000), b = rnorm(5000)), 1, 1e-5))
  r$params$column_bounds <- "x"
  d <- release_diagnostics(r)
  expect_length(d$one_value, 0L)
  expect_length(d$long_tail, 0L)
  expect_length(d$at_range, 0L)
  expect_output(print(r), "Guarantee")
})

test_that("printed budget figures follow neither options(digits) nor OutDec, and are never rounded down", {
  set.seed(22)
  x <- matrix(rnorm(30000), 10000, 3)
  old <- options(digits = 3, OutDec = ",")
  on.exit(options(old))
  out <- wide_output(print(dp_clip_bound(x, 0.123456789)))
  expect_true(any(grepl("epsilon = 0.1111112,", out, fixed = TRUE)))  # 0.1111111 rounded up
  r <- dp_cov(x, 1.23456789, 1e-6, clip = 3, clip_mean = 3)
  out <- wide_output(print(r))
  pl <- out[grepl("^Parameters:", out)]
  em <- r$params$epsilon_mean
  shown <- regmatches(pl, regexpr("epsilon_mean = [0-9.e+-]+", pl))
  v <- as.numeric(sub("epsilon_mean = ", "", shown))
  expect_gte(v, em)
  expect_lt(v - em, 1e-6 * em)
  # control: other parameters keep the print's digits and decimal mark
  expect_match(pl, sprintf("split = %s", format(r$params$split, digits = 3)), fixed = TRUE)
  expect_no_warning(utils::capture.output(print(r)))
})

test_that("hand-made releases: a missing params field is not read through a longer one; ridge only on its scales", {
  set.seed(1)
  X <- matrix(runif(3000), 1000, 3)
  r <- analyze_gauss(X, 1, 1e-5, lower = 0, upper = 1)
  r$params$bounds <- NULL  # params$bounds_source remains: `$` would match it partially
  expect_output(print(r), "Analyze Gauss")
  expect_type(release_diagnostics(r)$noise_to_signal, "double")
  r2 <- analyze_gauss(X, 1, 1e-5, clip = 2)
  r2$ridge <- 3000
  expect_error(release_diagnostics(r2), class = "dpcov_error")
  r3 <- r2
  r3$ridge <- c(1, 2, 3)
  expect_error(print(r3), class = "dpcov_error")
})

test_that("dp_as_cov(): the centring mean's noise is in the diagnostics; unknown noise is not 'ok'; edited guarantees and a centred correlation are refused", {
  set.seed(4)
  n <- 20000
  x <- matrix(rnorm(n * 3, 20), n, 3, dimnames = list(NULL, paste0("v", 1:3)))
  truth <- cov(x) * (n - 1) / n
  a <- suppressWarnings(analyze_gauss(x, 10, 1e-6, clip = 40, neighbor = "zero-out"))
  r <- suppressWarnings(dp_cov(x, 0.3, 1e-6, clip = 5, clip_mean = 40, neighbor = "zero-out"))
  o <- suppressWarnings(dp_as_cov(a, center = r))
  err <- sqrt(sum((o$estimate - truth)^2))
  # the mean's noise times the mean (about 20) dominates: counted, and graded
  expect_gt(o$diagnostics$noise_frobenius, err / 4)
  expect_identical(o$diagnostics$level, "mostly noise")
  # control: the same centring with the mean's noise left out reads "ok" (the defect)
  o0 <- o
  o0$params$center_noise_sd <- NULL
  expect_identical(release_diagnostics(o0)$level, "ok")
  # a well-measured mean: the added noise is small and the level stays ok
  r2 <- suppressWarnings(dp_cov(x, 5, 1e-6, clip = 5, clip_mean = 40, neighbor = "zero-out"))
  o2 <- suppressWarnings(dp_as_cov(a, center = r2))
  expect_identical(o2$diagnostics$level, "ok")
  # a posterior sample's conversion: graded by the source's noise sd (kept on the sum's scale)
  set.seed(2)
  y <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, paste0("v", 1:3)))
  rc <- suppressWarnings(dp_cov(y, 1, 1e-6, clip = 4, clip_mean = 4, neighbor = "replace-one"))
  iw <- suppressWarnings(iwishart_posterior(y, 0.2, 1e-6, clip = 4))
  oi <- suppressWarnings(dp_as_cov(iw, center = rc))
  expect_false(is.na(oi$diagnostics$noise_to_signal))
  expect_identical(oi$diagnostics$level, iw$diagnostics$level)
  # without that sd (a hand-made conversion) its noise is not told: not "ok", and said
  oh <- oi
  oh$params$source_noise_sd <- NULL
  dh <- release_diagnostics(oh)
  expect_false(identical(dh$level, "ok"))
  expect_true(any(grepl("cannot be told from released quantities", dh$messages)))
  # a correlation with a center: refused (it was dropped)
  e <- expect_error(dp_as_cov(dp_as_cov(rc, "correlation"), "correlation", center = rc), "already centred",
                    class = "dpcov_error")
  expect_identical(e$arg, "center")
  # edited guarantee fields
  for (edit in list(list("delta", 1.5, "below 1"), list("epsilon", 0.001, "states another"), list("epsilon", 1e9, "states another"))) {
    r1 <- rc
    r1[[edit[[1]]]] <- edit[[2]]
    expect_error(has_guarantee(r1), edit[[3]], class = "dpcov_error")
  }
  a1 <- suppressWarnings(analyze_gauss(y, 1, 1e-6, clip = 4, neighbor = "replace-one"))
  r1 <- rc
  r1$epsilon <- 0.001
  e <- expect_error(dp_as_cov(a1, center = r1), "states another", class = "dpcov_error")
  expect_identical(e$arg, "center")
  expect_true(has_guarantee(rc))   # control
})
