# Plug-in discriminant, the study runner and the study's estimators.

# plain-R reference of the paper's score with a given covariance
score_ref <- function(x, group, sigma, newdata) {
  group <- factor(group)
  Si <- solve(sigma)
  ld <- as.numeric(determinant(sigma)$modulus)
  sapply(levels(group), function(k) {
    mu <- colMeans(x[group == k, , drop = FALSE])
    d <- sweep(as.matrix(newdata), 2, mu)
    -0.5 * ld - 0.5 * rowSums((d %*% Si) * d) + log(mean(group == k))
  })
}

test_that("with the pooled sample covariance the classifier is MASS::lda (three classes)", {
  skip_if_not_installed("MASS")
  x <- as.matrix(iris[, 1:4])
  fit <- qda_plugin(x, iris$Species)
  ref <- MASS::lda(x, iris$Species)
  expect_identical(predict(fit, x), predict(ref, x)$class)
  expect_equal(unname(predict(fit, x, type = "posterior")), unname(predict(ref, x)$posterior),
               tolerance = 1e-8)
  expect_equal(fit$priors, ref$prior, ignore_attr = TRUE)
  expect_equal(fit$means, ref$means, ignore_attr = TRUE)
})

test_that("with the pooled sample covariance the classifier is MASS::lda (two classes, Pima)", {
  skip_if_not_installed("MASS")
  tr <- MASS::Pima.tr
  te <- MASS::Pima.te
  fit <- qda_plugin(tr[, 1:7], tr$type)
  ref <- MASS::lda(type ~ ., data = tr)
  expect_identical(predict(fit, te[, 1:7]), predict(ref, te)$class)
  expect_equal(unname(predict(fit, te[, 1:7], type = "posterior")),
               unname(predict(ref, te)$posterior), tolerance = 1e-8)
  expect_equal(as.matrix(pooled_cov(tr[, 1:7], tr$type)),
               crossprod(dpcov:::center_by_group(as.matrix(tr[, 1:7]), tr$type)) / (nrow(tr) - 2))
})

test_that("scores follow the paper's formula for any plug-in covariance and form", {
  set.seed(1)
  x <- matrix(rnorm(60 * 3), 60, 3, dimnames = list(NULL, c("a", "b", "c")))
  g <- factor(rep(c("lean", "obese"), c(35, 25)))
  y <- matrix(rnorm(10 * 3), 10, 3, dimnames = list(NULL, c("a", "b", "c")))
  sigma <- crossprod(matrix(rnorm(9), 3)) + diag(3)
  ref <- score_ref(x, g, sigma, y)
  expect_equal(unname(predict(qda_plugin(x, g, cov = sigma), y, type = "score")), unname(ref))
  # a function and a dp_release give the same fit as the matrix
  expect_equal(predict(qda_plugin(x, g, cov = function(x, g) sigma), y, type = "score"),
               predict(qda_plugin(x, g, cov = sigma), y, type = "score"))
  rel <- dpcov:::new_dp_release(sigma, "test", "test", 1, 0.1, neighbor = "replace-one", clip = 1,
                                n = 60, p = 3, n_public = TRUE, scale = "covariance", centred = TRUE)
  expect_equal(predict(qda_plugin(x, g, cov = rel), y, type = "score"),
               predict(qda_plugin(x, g, cov = sigma), y, type = "score"))
  # classes are the argmax of the scores, posteriors their softmax
  fit <- qda_plugin(x, g, cov = sigma)
  expect_identical(as.character(predict(fit, y)), levels(g)[max.col(ref)])
  post <- predict(fit, y, type = "posterior")
  expect_equal(unname(post), unname(exp(ref) / rowSums(exp(ref))))
  # newdata columns are matched by name
  expect_equal(predict(fit, y[, c("c", "a", "b")], type = "score"), predict(fit, y, type = "score"))
  expect_error(predict(fit, y[, 1:2]), "lacks the column\\(s\\) c")
  expect_error(predict(fit, y, type = "prob"), "`type` must be one of")
  expect_output(print(fit), "2 classes, p = 3, common covariance of rank 3")
})

test_that("a release is plugged in on the covariance scale: sums divided by n, ridges removed", {
  set.seed(1)
  x <- matrix(rnorm(60 * 3), 60, 3)
  g <- factor(rep(c("lean", "obese"), c(35, 25)))
  y <- matrix(rnorm(10 * 3), 10, 3)
  sigma <- crossprod(matrix(rnorm(9), 3)) + diag(3)
  ref <- predict(qda_plugin(x, g, cov = sigma), y, type = "score")
  rel <- function(est, scale, n = 60, ridge = 0, params = list(), neighbor = "replace-one") {
    dpcov:::new_dp_release(est, "test", "test", 1, 1e-6, neighbor = neighbor, clip = 1, n = n, p = 3,
                           n_public = neighbor != "add-remove", scale = scale, centred = FALSE,
                           ridge = ridge, params = params)
  }
  # A'A = 60 sigma: the sum, the sum plus a public ridge, the average, a
  # posterior draw with mean (A'A + w I) / (df - p - 1): all plug in sigma
  same <- list(sum = rel(60 * sigma, "sum"),
               ridge = rel(60 * sigma + diag(7, 3), "sum + ridge", ridge = 7),
               average = rel(sigma, "average"),
               posterior = rel((60 * sigma + diag(7, 3)) / (70 - 3 - 1), "posterior sample", ridge = 7,
                               params = list(df = 70)))
  for (nm in names(same)) {
    expect_equal(predict(qda_plugin(x, g, cov = same[[nm]]), y, type = "score"), ref, label = nm)
  }
  # a sum without n (add/remove) cannot be divided by n; a correlation has no
  # variances; compressed rows are no second moment: classed errors naming cov
  for (bad in list(rel(60 * sigma, "sum", n = NA, neighbor = "add-remove"),
                   rel(cov2cor(sigma), "correlation"),
                   rel((60 * sigma) / 1.5, "posterior sample", params = list(df = 4)))) {
    e <- expect_error(qda_plugin(x, g, cov = bad), class = "dpcov_error")
    expect_identical(e$arg, "cov")
  }
  comp <- suppressWarnings(dp_compress(matrix(rnorm(400 * 3), 400, 3), m = 50))
  e <- expect_error(qda_plugin(x, g, cov = comp), class = "dpcov_error")
  expect_identical(e$arg, "cov")
  # end to end: Analyze Gauss (replace-one, n public) of the class-centred rows
  # classifies as the pooled covariance does (as.matrix() of it is n times
  # the covariance, which put almost everyone in one class)
  set.seed(2)
  idx <- sample(150, 20000, TRUE)
  xx <- as.matrix(iris[idx, 1:4]) + matrix(rnorm(20000 * 4, sd = 0.01), 20000)
  gg <- iris$Species[idx]
  res <- dpcov:::center_by_group(xx, gg)
  ag <- analyze_gauss(res, epsilon = 5, delta = 1e-6, clip = max(sqrt(rowSums(res^2))),
                      neighbor = "replace-one")
  acc <- mean(predict(qda_plugin(xx, gg, cov = ag), xx) == gg)
  expect_gt(acc, mean(predict(qda_plugin(xx, gg), xx) == gg) - 0.01)
})

test_that("a named plug-in covariance is matched to x's columns by name, never by position (audit)", {
  X <- iris[, 1:4]
  g <- iris$Species
  score <- function(cov) predict(qda_plugin(X, g, cov = cov), X, type = "score")
  S <- as.matrix(pooled_cov(X, g))
  ref <- score(S)
  # the same matrix with its variables in another order, as a matrix, a
  # pooled_cov() of reordered columns, a function and a release
  expect_equal(score(S[4:1, 4:1]), ref)
  expect_equal(score(pooled_cov(X[, 4:1], g)), ref)
  expect_equal(score(function(x, group) pooled_cov(x[, c(2, 4, 1, 3)], group)), ref)
  rel <- function(est) dpcov:::new_dp_release(est, "test", "test", 1, 1e-6, neighbor = "replace-one",
                                              clip = 1, n = 150, p = 4, n_public = TRUE,
                                              scale = "covariance", centred = TRUE)
  expect_equal(score(rel(S[4:1, 4:1])), ref)
  expect_identical(dimnames(qda_plugin(X, g, cov = S[4:1, 4:1])$cov), dimnames(S))
  # and a dp_cov() release of the reordered columns: the release of X's
  # order with the same noise, reordered
  set.seed(7)
  r <- suppressWarnings(dp_cov(X[, 4:1], epsilon = 1, delta = 1e-6, lower = 0, upper = 8))
  expect_equal(score(r), score(r$estimate[4:1, 4:1]))
  # other variables, or names that cannot identify them: classed errors naming cov
  for (bad in list(`dimnames<-`(S, list(letters[1:4], letters[1:4])),
                   `dimnames<-`(S, list(rep("a", 4), rep("a", 4))),
                   `dimnames<-`(S, list(colnames(S), rev(colnames(S)))))) {
    e <- expect_error(qda_plugin(X, g, cov = bad), class = "dpcov_error")
    expect_identical(e$arg, "cov")
  }
  # unnamed on either side: by position, as before
  expect_equal(score(unname(S)), ref)
  expect_equal(predict(qda_plugin(as.matrix(unname(X)), g, cov = S[4:1, 4:1]), unname(as.matrix(X)), type = "score"),
               predict(qda_plugin(as.matrix(unname(X)), g, cov = unname(S[4:1, 4:1])), unname(as.matrix(X)), type = "score"))
})

test_that("pooled_cov() is labelled non-private, prints so, and plugs in (audit)", {
  X <- iris[, 1:4]
  g <- iris$Species
  S <- pooled_cov(X, g)
  expect_s3_class(S, c("pooled_cov", "dp_nonprivate", "matrix", "array"), exact = TRUE)
  # base matrix generics work on it (det(), isSymmetric(), as.data.frame())
  expect_equal(det(S), det(as.matrix(S)))
  expect_true(isSymmetric(S))
  expect_identical(dim(as.data.frame(S)), c(ncol(S), ncol(S)))
  plain <- crossprod(dpcov:::center_by_group(as.matrix(X), g)) / (150 - 3)
  expect_identical(as.matrix(S), plain)
  out <- utils::capture.output(res <- print(S))
  expect_match(out[1], "^<pooled_cov> NOT a private release")
  expect_identical(res, S)
  expect_equal(predict(qda_plugin(X, g, cov = S), X, type = "score"),
               predict(qda_plugin(X, g, cov = plain), X, type = "score"))
  expect_identical(qda_plugin(X, g)$cov, plain)  # the default's cov is a plain matrix
  expect_equal(cov_error(S, plain), c(spectral = 0, frobenius = 0, l1 = 0))
})

test_that("predict() matches newdata's columns by name, never silently by position", {
  x <- iris[, 1:4]
  fit <- qda_plugin(x, iris$Species)
  # a reordered data frame with an extra column: matched by name
  shuffled <- cbind(extra = 1, x[, c(4, 2, 3, 1)])
  expect_identical(predict(fit, shuffled), predict(fit, x))
  # a renamed column (here in another position) is an error naming it, not a
  # positional match that reads petal widths as sepal lengths
  renamed <- x[, c(4, 2, 3, 1)]
  names(renamed)[1] <- "petal_width"
  e <- expect_error(predict(fit, renamed), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
  expect_match(conditionMessage(e), "Petal.Width")
  # unnamed newdata for a fit with names: refused, not read by position
  e <- expect_error(predict(fit, unname(as.matrix(x))), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
  expect_match(conditionMessage(e), "no column names")
  # a fit without names matches by position, with exactly p columns
  ufit <- qda_plugin(unname(as.matrix(x)), iris$Species)
  expect_identical(predict(ufit, unname(as.matrix(x))), predict(fit, x))
  expect_identical(predict(ufit, x), predict(fit, x))
  e <- expect_error(predict(ufit, cbind(unname(as.matrix(x)), 0)), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
  # names that cannot identify columns (duplicated) must come in the same order
  xd <- as.matrix(x)
  colnames(xd) <- c("a", "a", "b", "c")
  dfit <- qda_plugin(xd, iris$Species)
  expect_identical(predict(dfit, xd), predict(fit, x))
  e <- expect_error(predict(dfit, xd[, 4:1]), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
  # newdata with a training name twice is ambiguous
  e <- expect_error(predict(fit, cbind(as.matrix(x), Sepal.Length = 0)), class = "dpcov_error")
  expect_identical(e$arg, "newdata")
})

test_that("singular estimates: pinv drops null directions, floor raises them, rank 0 uses priors", {
  set.seed(2)
  x <- matrix(rnorm(50 * 3), 50, 3)
  g <- factor(rep(c("lean", "obese"), c(30, 20)))
  y <- matrix(rnorm(8 * 3), 8, 3)
  v <- qr.Q(qr(matrix(rnorm(9), 3)))
  sigma <- v %*% diag(c(2, 0.5, 0)) %*% t(v) # rank 2, like a PSD projection
  fit <- qda_plugin(x, g, cov = sigma)
  expect_identical(fit$rank, 2L)
  Sp <- v[, 1:2] %*% diag(1 / c(2, 0.5)) %*% t(v[, 1:2]) # Moore-Penrose inverse
  mu <- fit$means
  ref <- sapply(1:2, function(k) {
    d <- sweep(y, 2, mu[k, ])
    -0.5 * log(2 * 0.5) - 0.5 * rowSums((d %*% Sp) * d) + log(fit$priors[k])
  })
  expect_equal(unname(predict(fit, y, type = "score")), unname(ref))
  # floor: the zero eigenvalue becomes tol * max
  ffit <- qda_plugin(x, g, cov = sigma, singular = "floor", tol = 0.01)
  expect_equal(unname(predict(ffit, y, type = "score")),
               unname(score_ref(x, g, v %*% diag(c(2, 0.5, 0.02)) %*% t(v), y)))
  # an all-zero estimate leaves only the priors: everyone in the majority class
  zfit <- qda_plugin(x, g, cov = matrix(0, 3, 3))
  expect_identical(zfit$rank, 0L)
  expect_true(all(predict(zfit, y) == "lean"))
  expect_true(all(predict(qda_plugin(x, g, cov = matrix(0, 3, 3), singular = "floor"), y) == "lean"))
})

test_that("qda_plugin validates its inputs", {
  x <- matrix(rnorm(40), 20, 2)
  g <- rep(c("a", "b"), 10)
  expect_error(qda_plugin(x, g[-1]), "one label per row")
  expect_error(qda_plugin(x, rep("a", 20)), "at least two classes")
  expect_error(qda_plugin(x, replace(g, 3, NA)), "missing labels")
  expect_error(qda_plugin(x, g, cov = diag(3)), "must be 2 x 2")
  expect_error(qda_plugin(x, g, cov = matrix(c(1, 0.5, 0, 1), 2)), "symmetric")
  expect_error(qda_plugin(x, g, cov = matrix(c(1, NA, NA, 1), 2)), "NA, NaN or infinite")
  expect_error(qda_plugin(x, g, cov = "sample"), "`cov` must be one of")
  expect_error(qda_plugin(x, g, cov = list(1)), "`cov` must be")
  expect_error(qda_plugin(x, g, singular = "ridge"), "`singular` must be one of")
  expect_error(qda_plugin(replace(x, 1, NA), g), "NA or NaN")
})

# synthetic two-group data shaped like the study (63 + 35 subjects)
toy_features <- function(p = 6) {
  set.seed(3)
  x <- matrix(rnorm(98 * p), 98, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  group <- factor(rep(c("lean", "obese"), c(63, 35)))
  x[group == "obese", 1:2] <- x[group == "obese", 1:2] + 1
  list(x = x, group = group)
}

test_that("the study runner is reproducible under set.seed and follows the protocol", {
  feats <- toy_features()
  est <- qda_estimators(private = TRUE)
  set.seed(42)
  a <- qda_study(feats, estimators = est, p = c(3, 6), reps = 3)
  set.seed(42)
  b <- qda_study(feats, estimators = est, p = c(3, 6), reps = 3)
  expect_identical(a$errors, b$errors)
  set.seed(43)
  d <- qda_study(feats, estimators = est, p = c(3, 6), reps = 3)
  expect_false(identical(a$errors$errors, d$errors$errors))
  # one row per replication, p and estimator (trivial included)
  expect_identical(nrow(a$errors), 3L * 2L * 6L)
  expect_identical(levels(a$errors$estimator),
                   c("sample", "modified_dp", "wang_xu_dp", "modified_ldp", "wang_xu_ldp", "trivial"))
  # the trivial rule predicts lean for all 20 test subjects: 7 errors
  expect_true(all(a$errors$errors[a$errors$estimator == "trivial"] == 7))
  expect_true(all(a$errors$errors >= 0 & a$errors$errors <= 20))
  # thresholds are recorded for the private estimators only
  expect_true(all(is.na(a$errors$threshold[a$errors$estimator %in% c("sample", "trivial")])))
  expect_true(all(a$errors$threshold[a$errors$estimator == "modified_dp"] > 0))
  # summary: mean and standard error over replications
  s <- a$summary
  e <- a$errors$errors[a$errors$p == 3 & a$errors$estimator == "sample"]
  expect_equal(s$mean[s$p == 3 & s$estimator == "sample"], mean(e))
  expect_equal(s$se[s$p == 3 & s$estimator == "sample"], sd(e) / sqrt(3))
  tab <- qda_study_table(a)
  expect_identical(dim(tab), c(2L, 6L))
  expect_output(print(a), "3 replications, 20 test subjects \\(lean 13 \\+ obese 7\\) of 98")
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  expect_invisible(plot(a, reference = data.frame(p = c(3, 6), modified_dp = c(1, 2))))
  expect_identical(graphics::par("mfrow"), c(1L, 1L)) # the plot restores the layout
})

test_that("each replication holds out a stratified sample and fits on the rest", {
  feats <- toy_features(4)
  rownames(feats$x) <- paste0("s", 1:98)
  seen <- new.env()
  seen$n <- integer(0)
  spy <- list(spy = function(x, group) {
    seen$n <- c(seen$n, nrow(x))
    seen$rows <- c(seen$rows, list(rownames(x)))
    seen$sizes <- c(seen$sizes, list(as.vector(table(group))))
    pooled_cov(x, group)
  })
  set.seed(4)
  res <- qda_study(feats, estimators = spy, p = 4, reps = 2)
  expect_identical(seen$n, c(78L, 78L))
  expect_identical(seen$sizes, list(c(50L, 28L), c(50L, 28L))) # 13 lean + 7 obese held out
  # the two replications hold out different subjects
  expect_false(identical(seen$rows[[1]], seen$rows[[2]]))
  expect_identical(lengths(lapply(seen$rows, unique)), c(78L, 78L))
  # the leak diagnostics: "training" fits on every subject, "selection" does not
  seen$n <- integer(0)
  qda_study(feats, estimators = spy, p = 2, reps = 1, leak = "training")
  expect_identical(seen$n, 98L)
  seen$n <- integer(0)
  res <- qda_study(feats, estimators = spy, p = 2, reps = 1, leak = "selection")
  expect_identical(seen$n, 78L)
  expect_identical(res$settings$leak, "selection")
})

test_that("the study estimators call dp_threshold on the class-centred training rows", {
  set.seed(5)
  x <- matrix(rnorm(60 * 4), 60, 4)
  g <- factor(rep(c("lean", "obese"), c(40, 20)))
  est <- qda_estimators(private = TRUE, tune = 1)
  set.seed(6)
  r <- est$modified_ldp(x, g)
  set.seed(6)
  ref <- dp_threshold(dpcov:::center_by_group(x, g), epsilon = 0.5, delta = 1 / 196, clip = Inf,
                      variant = "modified", model = "local", tune = 1, neighbor = "zero-out",
                      sigma_clip_inf = 1, calibration = "classic")
  expect_equal(as.matrix(r), as.matrix(ref))
  expect_false(has_guarantee(r)) # clip = Inf: the paper's reading, no formal guarantee
  expect_match(r$guarantee, "^NONE: the rows were centred .*; and rows were not clipped")
  expect_false(grepl("NONE.*NONE", r$guarantee))
  # even with a finite clip and a fixed constant there is no guarantee: every
  # centred row depends on its class's exact mean, so one subject moves them all
  rc <- qda_estimators(private = TRUE, clip = 2, tune = 1)$wang_xu_dp(x, g)
  expect_false(has_guarantee(rc))
  expect_match(rc$guarantee, "^NONE: the rows were centred at their exact")
  expect_identical(rc$clip, 2)
  # standardised: the release of the scaled rows, scaled back
  sds <- sqrt(colSums(dpcov:::center_by_group(x, g)^2) / 58)
  set.seed(7)
  rs <- qda_estimators(private = TRUE, tune = 1, standardize = TRUE)$wang_xu_dp(x, g)
  set.seed(7)
  ref_s <- dp_threshold(sweep(dpcov:::center_by_group(x, g), 2, sds, "/"), epsilon = 0.5,
                        delta = 1 / 196, clip = Inf, variant = "wang_xu", tune = 1, sigma_clip_inf = 1,
                        calibration = "classic")
  expect_equal(unclass(rs)[, ], as.matrix(ref_s) * tcrossprod(sds), ignore_attr = TRUE)
  expect_equal(attr(rs, "threshold"), ref_s$params$threshold)
  expect_named(qda_estimators(private = FALSE), "sample")
  expect_error(qda_estimators(epsilon = -1), "`epsilon` must be > 0")
  expect_error(qda_estimators(local_neighbor = "x"), "`local_neighbor` must be one of")
})

test_that("the standardised estimators' labelled matrices plug in, directly and in the study", {
  feats <- toy_features(4)
  est <- qda_estimators(private = TRUE, tune = 1, standardize = TRUE)
  set.seed(5)
  m <- est$modified_dp(feats$x, feats$group)
  expect_s3_class(m, "dp_nonprivate")
  fit <- qda_plugin(feats$x, feats$group, cov = m)
  plain <- qda_plugin(feats$x, feats$group, cov = unclass(m)[, ])
  expect_equal(predict(fit, feats$x, type = "score"), predict(plain, feats$x, type = "score"))
  set.seed(6)
  s <- qda_study(feats, est, p = 4, reps = 2)
  expect_identical(nrow(s$errors), 2L * 6L)
  expect_true(all(is.finite(s$errors$threshold[!s$errors$estimator %in% c("trivial", "sample")])))
})

test_that("qda_study validates its inputs", {
  feats <- toy_features(4)
  est <- qda_estimators(private = FALSE)
  expect_error(qda_study(list(x = feats$x), est), "must be a combo_preprocess")
  expect_error(qda_study(feats, list(function(x, g) diag(2))), "named list of functions")
  expect_error(qda_study(feats, list(trivial = function(x, g) diag(4)), p = 4), "reserved")
  expect_error(qda_study(feats, est, p = 5), "between 1 and ncol")
  expect_error(qda_study(feats, est, p = 2, reps = 0), "`reps` must be >= 1")
  expect_error(qda_study(feats, est, p = 2, n_test = c(lean = 13)), "one per group")
  expect_error(qda_study(feats, est, p = 2, n_test = c(lean = 62, obese = 7)), "fewer than two training")
  expect_error(qda_study(feats, est, p = 2, leak = "test"), "`leak` must be one of")
  three <- feats
  three$group <- factor(rep(c("a", "b", "c"), length.out = 98))
  expect_error(qda_study(three, est, p = 2), "exactly two levels")
})

test_that("the study runs on the real data (skipped where the data is absent)", {
  dir <- combo_data_dir()
  skip_if(is.null(dir), "COMBO data not found: set DPCOV_COMBO_DIR or put shared/data beside the package")
  f <- combo_preprocess(combo_read(dir))
  set.seed(1)
  s <- qda_study(f, p = c(25, 40), reps = 2)
  expect_identical(nrow(s$errors), 2L * 2L * 6L)
  expect_true(all(s$errors$errors[s$errors$estimator == "trivial"] == 7))
  set.seed(1)
  expect_identical(qda_study(f, p = c(25, 40), reps = 2)$errors, s$errors)
})

test_that("qda_estimators() checks every argument when it is made, private or not", {
  expect_error(qda_estimators(private = FALSE, epsilon = -5), class = "dpcov_error")
  expect_error(qda_estimators(private = FALSE, calibration = "nope"), class = "dpcov_error")
  # the classic calibration needs epsilon < 1: refused here, not at the first call on data
  e <- expect_error(qda_estimators(epsilon = 2, clip = 1), class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_length(qda_estimators(epsilon = 2, clip = 1, calibration = "analytic"), 5L)
  expect_length(qda_estimators(private = FALSE), 1L)
})

test_that("a standardised qda estimate prints why it is not private, and as a matrix", {
  set.seed(1)
  x <- matrix(rnorm(600), 200, 3)
  g <- factor(rep(1:2, 100))
  r <- qda_estimators(private = TRUE, tune = 1, standardize = TRUE)$wang_xu_dp(x, g)
  out <- paste(capture.output(print(r)), collapse = " ")
  expect_match(out, "thresholded with privacy noise", fixed = TRUE)
  expect_no_match(out, "attr\\(")
  expect_no_match(out, "computed without privacy noise", fixed = TRUE)
})

test_that("qda_plugin(): NA as a class level, an overflowing plug-in, and scores that overflow are refused", {
  set.seed(1)
  x <- matrix(rnorm(40), 20, 2, dimnames = list(NULL, c("u", "v")))
  g <- factor(c(rep("a", 10), rep(NA, 10)), exclude = NULL)   # NA is a level: anyNA(g) is FALSE
  for (f in list(qda_plugin, pooled_cov)) {
    e <- expect_error(f(x, g), "missing labels", class = "dpcov_error")
    expect_identical(e$arg, "group")
  }
  # a plug-in covariance whose inverse is finite but whose scores overflow on newdata
  fit <- qda_plugin(iris[, 1:4] * 1000, iris$Species, cov = diag(4) * 1e-305)
  for (type in c("class", "posterior", "score")) {
    e <- expect_error(predict(fit, iris[c(1, 51, 101), 1:4] * 1000, type = type), "not finite numbers",
                      class = "dpcov_error")
    expect_identical(e$arg, "object")
  }
  # a row with one finite score (the others -Inf) has a posterior: predicted, not refused
  fit3 <- qda_plugin(iris[, 1:4] * 1000, iris$Species, cov = diag(4) * 1e-303)
  expect_identical(as.character(predict(fit3, fit3$means)), levels(iris$Species))
  # control: a small plug-in whose scores stay finite predicts each class mean's class
  fit2 <- qda_plugin(iris[, 1:4] * 1000, iris$Species, cov = diag(4) * 1e-290)
  expect_identical(as.character(predict(fit2, fit2$means)), levels(iris$Species))
  # a p x p covariance beyond the package's allocation: refused from the shape
  e <- expect_error(pooled_cov(matrix(0, 3, 50000), c("a", "b", "a")), "would hold", class = "dpcov_error")
  expect_identical(e$arg, "x")
  expect_error(qda_plugin(matrix(0, 3, 50000), c("a", "b", "a")), "would hold", class = "dpcov_error")
})

test_that("qda_study() refuses a repeated p (its cells ran twice on the same splits)", {
  set.seed(1)
  x <- rbind(matrix(rnorm(240), 60), matrix(rnorm(120, 0.8), 30))
  feats <- list(x = x, group = factor(rep(c("lean", "obese"), c(60, 30))))
  e <- expect_error(qda_study(feats, qda_estimators(private = FALSE), p = c(2, 2), reps = 2,
                              n_test = c(lean = 12, obese = 6)), "names a number of features twice", class = "dpcov_error")
  expect_identical(e$arg, "p")
  s <- qda_study(feats, qda_estimators(private = FALSE), p = c(2, 3), reps = 2, n_test = c(lean = 12, obese = 6))
  expect_true(all(s$summary$reps == 2))
})

test_that("the labelled covariances plug in as the matrices they are, as their arithmetic does (audit)", {
  set.seed(1)
  x <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  g <- rep(1:2, 500)
  cc <- compressed_cov(dp_compress(x, m = 300))
  fit <- qda_plugin(x, g, cov = cc)
  expect_s3_class(fit, c("qda_plugin", "dp_nonprivate"), exact = TRUE)
  expect_identical(fit$cov, as.matrix(cc))
  # what `+ 0` (a matrix labelled only as non-private) was given: the same fit
  fit0 <- qda_plugin(x, g, cov = cc + 0)
  expect_identical(predict(fit, x, type = "score"), predict(fit0, x, type = "score"))
  # what is refused says what it is
  e <- expect_error(qda_plugin(x, g, cov = list(1)), "it is list", class = "dpcov_error")
  expect_identical(e$arg, "cov")
  e <- expect_error(qda_plugin(x, g, cov = data.frame(a = 1)), "an object of class data.frame", class = "dpcov_error")
  expect_identical(e$arg, "cov")
})

test_that("assignment into a pooled_cov gives a plain labelled matrix, as `[<-` does (audit: `[[<-` kept the class)", {
  S <- pooled_cov(iris[, 1:4], iris$Species)
  y1 <- S
  y1[[1]] <- 100
  y2 <- S
  y2[1] <- 100
  expect_identical(y1, y2)
  expect_identical(class(y1), c("dp_nonprivate", "matrix", "array"))
  expect_identical(y1[1, 1], 100)
  y <- S
  dim(y) <- c(2, 8)
  expect_identical(class(y), c("dp_nonprivate", "matrix", "array"))
  # control: renaming the variables keeps the covariance
  y <- S
  dimnames(y) <- rep(list(letters[1:4]), 2)
  expect_identical(class(y), class(S))
  expect_match(utils::capture.output(print(y))[1], "^<pooled_cov> NOT a private release")
})

test_that("qda_study() stores its call as the `call` component, and update() re-runs it (audit)", {
  feats <- toy_features(3)
  set.seed(2)
  st <- qda_study(feats, qda_estimators(private = FALSE), p = 2, reps = 2, n_test = c(lean = 6, obese = 3))
  expect_true(is.call(st$call))
  expect_null(attr(st, "call"))
  st3 <- update(st, reps = 3)
  expect_identical(st3$settings$reps, 3)
  expect_identical(sort(unique(st3$errors$rep)), 1:3)
  expect_identical(st3$call$reps, 3)
  # through do.call() no data value is stored, and update() says why it cannot re-run
  st4 <- do.call(qda_study, list(feats, qda_estimators(private = FALSE), p = 2, reps = 1,
                                 n_test = c(lean = 6, obese = 3)))
  expect_identical(st4$call$features, as.symbol("<data>"))
  expect_length(calls_with_values(st4), 0L)
  expect_false(any(vapply(as.list(st4$call)[-1], function(a) is.list(a) || length(a) > 1L, logical(1))))
  e <- expect_error(update(st4, reps = 2), "holds <data>", class = "dpcov_error")
  expect_identical(e$arg, "object")
})

test_that("a study with a leak says what leaked in print, summary and its table (audit)", {
  feats <- toy_features(3)
  est <- qda_estimators(private = FALSE)
  for (leak in c("selection", "training")) {
    set.seed(3)
    st <- qda_study(feats, est, p = 2, reps = 2, n_test = c(lean = 6, obese = 3), leak = leak)
    tag <- sprintf('LEAK (leak = "%s")', leak)
    expect_match(paste(wide_output(print(st)), collapse = " "), tag, fixed = TRUE)
    expect_match(paste(wide_output(print(summary(st))), collapse = " "), tag, fixed = TRUE)
    tab <- qda_study_table(st)
    expect_identical(attr(tab, "leak"), leak)
    expect_match(paste(wide_output(print(tab)), collapse = " "), tag, fixed = TRUE)
  }
  expect_match(paste(wide_output(print(st)), collapse = " "), "were training subjects too", fixed = TRUE)
  # control: the protocol's study says nothing of a leak
  set.seed(3)
  st0 <- qda_study(feats, est, p = 2, reps = 2, n_test = c(lean = 6, obese = 3))
  expect_no_match(paste(c(wide_output(print(st0)), wide_output(print(summary(st0))),
                          wide_output(print(qda_study_table(st0)))), collapse = " "), "LEAK")
  expect_identical(attr(qda_study_table(st0), "leak"), "none")
  # a hand-made study with an unknown leak setting is refused
  bad <- st0
  bad$settings$leak <- "some"
  e <- expect_error(print(bad), class = "dpcov_error")
  expect_identical(e$arg, "x")
})

test_that("qda_study_table() is labelled non-private and still a table (audit)", {
  feats <- toy_features(3)
  set.seed(4)
  st <- qda_study(feats, qda_estimators(private = FALSE), p = c(2, 3), reps = 2, n_test = c(lean = 6, obese = 3))
  tab <- qda_study_table(st)
  expect_identical(class(tab), c("qda_study_table", "dp_nonprivate", "matrix", "array"))
  out <- wide_output(print(tab))
  expect_match(out[1], "^<qda_study_table> NOT a private release")
  expect_no_match(paste(out, collapse = " "), "\"")  # printed without quotes
  s <- st$summary
  cell <- sprintf("%.2f (%.2f)", s$mean[s$p == 2 & s$estimator == "sample"], s$se[s$p == 2 & s$estimator == "sample"])
  expect_identical(tab["p = 2", "sample"], cell)
  expect_identical(dim(tab), c(2L, 2L))
  # the study prints the table once, under its own banner
  expect_length(grep("NOT a private release", wide_output(print(st))), 1L)
  skip_if_not_installed("knitr")
  k <- knitr::kable(tab)
  expect_true(any(grepl(cell, k, fixed = TRUE)))
  expect_identical(knitr::kable(tab), knitr::kable(matrix(unclass(tab), 2, 2, dimnames = dimnames(tab))))
})

test_that("an estimator that returns no covariance is named as such (audit)", {
  feats <- toy_features(3)
  for (bad in list(function(x, g) "oops", function(x, g) NULL, function(x, g) list(diag(2)))) {
    e <- expect_error(qda_study(feats, list(a = bad), p = 2, reps = 1, n_test = c(lean = 6, obese = 3)),
                      "the estimator \"a\" returned .*, which is not a covariance", class = "dpcov_error")
    expect_identical(e$arg, "estimators")
    expect_no_match(conditionMessage(e), "must be one of")
  }
  # control: a matrix is a covariance
  set.seed(5)
  expect_s3_class(qda_study(feats, list(a = function(x, g) diag(ncol(x))), p = 2, reps = 1,
                            n_test = c(lean = 6, obese = 3)), "qda_study")
})

test_that("qda_estimators(private = FALSE) refuses a private setting as not applying, before how settings combine (audit)", {
  e <- expect_error(qda_estimators(private = FALSE, epsilon = 1), "applies to the private estimators", class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  e <- expect_error(qda_estimators(private = FALSE, clip = 1, sigma_clip_inf = 2), "applies to the private estimators",
                    class = "dpcov_error")
  expect_identical(e$arg, "clip")
  # control: with the private estimators, the combination is what is refused
  e <- expect_error(qda_estimators(epsilon = 1), "classic calibration", class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_length(qda_estimators(epsilon = 1, calibration = "analytic"), 5L)
})

test_that("a labelled covariance edited into a vector keeps its non-private label (review)", {
  X <- matrix(rnorm(300), 100, 3)
  g <- rep(1:2, 50)
  pc <- pooled_cov(X, g)
  dim(pc) <- NULL
  expect_s3_class(pc, "dp_nonprivate")
  expect_false(inherits(pc, "pooled_cov"))
  pc <- pooled_cov(X, g)
  pc[[20]] <- 1
  expect_s3_class(pc, "dp_nonprivate")
  expect_length(unclass(pc), 20L)
  # control: an entry edited in place keeps the matrix, labelled
  pc <- pooled_cov(X, g)
  pc[[2]] <- 0
  expect_true(is.matrix(pc) && inherits(pc, "dp_nonprivate") && !inherits(pc, "pooled_cov"))
})
