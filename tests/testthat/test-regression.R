# Regression from a released second-moment matrix, and the Sheffet study.

reg_data <- function(n = 300, seed = 31) {
  set.seed(seed)
  X <- matrix(rnorm(n * 3), n, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- drop(X %*% c(1, -2, 0.5)) + 1.5 + rnorm(n, sd = 0.3)
  z <- drop(X %*% c(0, 1, 1)) + rnorm(n)
  cbind(X, one = 1, y = y, z = z)
}

test_that("with the exact Gram matrix the coefficients equal lm()", {
  A <- reg_data(); d <- as.data.frame(A)
  s <- second_moment(A)
  b <- dp_regression(s, "y", features = c("a", "b", "c"), intercept = "one")
  expect_equal(as.vector(b), unname(coef(lm(y ~ a + b + c, d))), tolerance = 1e-10)
  expect_named(b, c("(Intercept)", "a", "b", "c"))
  # without an intercept, a subset of features, another label
  b2 <- dp_regression(s, "y", features = c("a", "c"))
  expect_equal(as.vector(b2), unname(coef(lm(y ~ a + c - 1, d))), tolerance = 1e-10)
  b3 <- dp_regression(s, "a", features = c("y", "z"), intercept = "one")
  expect_equal(as.vector(b3), unname(coef(lm(a ~ y + z, d))), tolerance = 1e-10)
  # default features: all other columns; indices work like names
  b4 <- dp_regression(s$gram, 5, intercept = 4)
  expect_equal(unname(b4), unname(coef(lm(y ~ a + b + c + z, d))), tolerance = 1e-10)
  expect_equal(dp_regression(unname(s$gram), 5, features = 1:3, intercept = 4),
               setNames(as.vector(b), c("(Intercept)", "V1", "V2", "V3")), tolerance = 1e-12)
})

test_that("exact coefficients (statistics, or a release without a guarantee) are labelled non-private", {
  A <- reg_data(n = 2000); d <- as.data.frame(A)
  ref <- coef(lm(y ~ a + b + c, d))
  # clip = Inf with a negligible noise: no guarantee, and the coefficients are lm()'s
  set.seed(40)
  rel <- analyze_gauss(A[, c("a", "b", "c", "one", "y")], 1, 1e-6, clip = Inf, sigma_clip_inf = 1e-12)
  expect_false(has_guarantee(rel))
  for (b in list(dp_regression(rel, "y", intercept = "one"),
                 dp_regression(second_moment(A), "y", features = c("a", "b", "c"), intercept = "one"))) {
    expect_s3_class(b, c("dp_coefficients", "dp_nonprivate", "numeric"), exact = TRUE)
    est <- data.frame(est = b)$est  # a table can be made, and keeps the label
    expect_s3_class(est, "dp_nonprivate")
    expect_identical(as.vector(est), as.vector(b))
    expect_equal(as.vector(b), unname(ref), tolerance = 1e-8)
    expect_named(b, names(ref))
    # printed with the banner, then the plain named numbers (no attribute dump)
    out <- capture.output(res <- withVisible(print(b)))
    expect_match(out[1], "^<dp_coefficients> NOT a private release")
    expect_false(any(grepl("attr", out)))
    expect_false(res$visible)
    # arithmetic works on the numbers
    expect_equal(sum(b^2), sum(ref^2), tolerance = 1e-8)
  }
  # a private release, and a bare matrix (the caller's own): plain numeric vectors
  set.seed(41)
  b <- dp_regression(analyze_gauss(A, 1, 1e-6, clip = 8), "y", features = c("a", "b", "c"), intercept = "one")
  expect_identical(class(b), "numeric")
  expect_null(attributes(unname(b)))
  expect_identical(class(dp_regression(second_moment(A)$gram, "y", intercept = "one")), "numeric")
})

test_that("dp_regression() refuses bad arguments with classed errors naming them", {
  s <- second_moment(reg_data())
  e <- expect_error(dp_regression(s), class = "dpcov_error")
  expect_identical(e$arg, "response")
  expect_match(conditionMessage(e), "`response` is missing")
  e <- expect_error(dp_regression(response = "y"), class = "dpcov_error")
  expect_identical(e$arg, "release")
  cases <- list(list(quote(dp_regression(s, c("y", "z"))), "response"),
                list(quote(dp_regression(s, "y", intercept = c("one", "a"))), "intercept"),
                list(quote(dp_regression(s, "y", intercept = "y")), "intercept"),
                list(quote(dp_regression(s, "y", features = c("a", "a"))), "features"),
                list(quote(dp_regression(s, "y", features = c("a", "y"))), "features"),
                list(quote(dp_regression(s, "y", features = integer(0))), "features"),
                list(quote(dp_regression(s, "w")), "response"),
                list(quote(dp_regression(unname(s$gram), "y")), "response"),
                list(quote(dp_regression(matrix(1:6, 2), 1)), "release"),
                list(quote(dp_regression(matrix(c(1, 2, 3, 1), 2), 1)), "release"),
                list(quote(dp_regression(matrix(1), 1)), "release"))
  for (cs in cases) {
    e <- expect_error(eval(cs[[1]]), class = "dpcov_error")
    expect_identical(e$arg, cs[[2]], info = deparse(cs[[1]]))
  }
})

test_that("argmin over beta_d = -1 of beta' M beta is what is returned (any PD M)", {
  set.seed(32)
  Z <- matrix(rnorm(25), 5); M <- crossprod(Z) + diag(5)
  b <- dp_regression(M, 5, features = 1:4)
  f <- function(beta) { v <- c(beta, -1); drop(t(v) %*% M %*% v) }
  expect_equal(unname(b), optim(rep(0, 4), f, method = "BFGS", control = list(reltol = 1e-14))$par,
               tolerance = 1e-5)
})

test_that("regressions from private releases approach the truth for large n", {
  A <- reg_data(n = 2e5)
  set.seed(33)
  rel <- wishart_noise(A, 0.5, 1e-4, clip = 8, shift = TRUE)
  b <- dp_regression(rel, "y", features = c("a", "b", "c"), intercept = "one")
  expect_lt(sqrt(sum((b - c(1.5, 1, -2, 0.5))^2)), 0.2)
  ag <- analyze_gauss(A, 0.5, 1e-4, clip = 8)
  expect_lt(sqrt(sum((dp_regression(ag, "y", c("a", "b", "c"), "one") - c(1.5, 1, -2, 0.5))^2)), 0.2)
})

test_that("regression arguments are validated", {
  s <- second_moment(reg_data())
  expect_error(dp_regression(s, "w"), "unknown column.*\"w\"")
  expect_error(dp_regression(s, c("y", "z")), "exactly one column")
  expect_error(dp_regression(s, "y", features = c("a", "y")), "must not contain the response")
  expect_error(dp_regression(s, "y", features = c("a", "a")), "duplicated")
  expect_error(dp_regression(s, "y", intercept = "y"), "cannot also be the `response`")
  expect_error(dp_regression(s, 9), "indices in 1..6")
  expect_error(dp_regression(matrix(1:6, 2), 1), "square numeric matrix")
  expect_error(dp_regression(unname(s$gram), "y"), "no column names")
  expect_warning(dp_regression(matrix(1, 3, 3), 3), "singular")
})

test_that("the streaming study generator equals sheffet_data() under the same seed", {
  set.seed(34); beta <- matrix(runif(21 * 3, -1, 1), 21, 3)
  set.seed(35); A <- sheffet_data(3000, beta)
  set.seed(35); g <- dpcov:::sheffet_gram(3000, beta, 0.5, sqrt(2.5 * 24))
  expect_equal(g$gram, second_moment(A, sqrt(2.5 * 24))$gram, tolerance = 1e-10)
  expect_equal(g$n_clipped, second_moment(A, sqrt(2.5 * 24))$n_clipped)
  expect_equal(dim(A), c(3000, 24))
  expect_equal(A[, "one"], rep(1, 3000))
  # labels follow the model: least squares recovers beta
  b <- dp_regression(second_moment(A), "y2", features = 1:21)
  expect_lt(max(abs(b - beta[, 2])), 0.05)
  expect_error(sheffet_data(10, beta = "a"), "`beta` must be")
})

test_that("the study runs, is reproducible, summarises and plots", {
  set.seed(36)
  st <- sheffet_study("single", n = 2^c(10, 12), epsilon = c(0.2, 0.5), reps = 2)
  set.seed(36)
  st2 <- sheffet_study("single", n = 2^c(10, 12), epsilon = c(0.2, 0.5), reps = 2)
  expect_equal(st$error, st2$error)
  expect_setequal(unique(st$estimator),
                  c("ols", "iw_nonprivate", "alg1", "alg2", "jl_nonprivate", "alg3", "alg3_shift",
                    "alg4", "alg5_nd", "alg5_2d", "ag", "ag_scaled", "ag_psd"))
  expect_equal(nrow(st), 2 * 2 * (2 + 2 * 11))
  sm <- summary(st)
  expect_true(all(sm$reps == 2))
  expect_equal(nrow(sm), 2 * (2 + 2 * 11))
  # OLS error is small and the same for every epsilon (it has none)
  expect_true(all(sm$mean[sm$estimator == "ols"] < 0.2))
  set.seed(37)
  mu <- sheffet_study("multiple", n = 2^11, epsilon = 0.1, reps = 2, m = c(0, 3), p = 5)
  expect_equal(sort(unique(mu$m)), c(0, 3))
  expect_equal(attr(mu, "settings")$d, 11)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (f in 1:4) expect_invisible(plot(st, figure = f, epsilon = 0.5))
  expect_invisible(plot(mu, figure = 5, m = 3))
  expect_error(plot(st, figure = 5), "no \"multiple\" experiment")
  expect_error(sheffet_study("single", n = 2^10, epsilon = 1.5), "epsilon")
  expect_error(sheffet_study("multiple", n = 2^10, m = 25), "`m` must be")
})

test_that("dp_regression(): the noise warning whatever the release's scale, the singular fallback in its own words, a scale-free tolerance (audit)", {
  set.seed(11)
  X <- matrix(rnorm(60), 20, 3)
  A <- cbind(X, one = 1, y = drop(X %*% c(1, -1, 0.5)) + 2)
  # the same draw as a plain "sum" and shifted then unshifted: the same
  # coefficients, and both warn that the features' block is indefinite
  set.seed(1)
  r0 <- suppressWarnings(analyze_gauss(A, 1, 1e-5, clip = 4))
  set.seed(1)
  r1 <- suppressWarnings(analyze_gauss(A, 1, 1e-5, clip = 4, post = "shift"))
  expect_lt(min(eigen(r0$estimate[1:4, 1:4], only.values = TRUE)$values), 0)
  op <- options(dpcov.noise_warning = TRUE)
  on.exit(options(op), add = TRUE)
  expect_warning(b0 <- dp_regression(r0, "y", intercept = "one"), "mostly noise", class = "dpcov_noise_warning")
  expect_warning(b1 <- dp_regression(r1, "y", intercept = "one"), "ridge = \"keep\"", class = "dpcov_noise_warning")
  expect_equal(b0, b1)
  # control: a release whose block is positive definite does not warn
  set.seed(2)
  big <- cbind(matrix(rnorm(60000), 20000, 3), one = 1)
  big <- cbind(big, y = drop(big[, 1:3] %*% c(1, -1, 0.5)) + 2)
  r2 <- suppressWarnings(analyze_gauss(big, 1, 1e-5, clip = 8))
  expect_no_warning(dp_regression(r2, "y", intercept = "one"))
  # a PSD-projected release whose features' block is singular up to rounding
  # warns whatever the sign of the rounding (it warned about half the time)
  warned <- singular <- logical(30)
  for (i in seq_along(warned)) {
    r <- suppressWarnings(analyze_gauss(A, 1, 1e-5, clip = 4, post = "psd"))
    ev <- eigen(r$estimate[1:4, 1:4], symmetric = TRUE, only.values = TRUE)$values
    singular[i] <- min(ev) <= 1e-10 * max(abs(ev))
    warned[i] <- inherits(tryCatch(dp_regression(r, "y", intercept = "one"), warning = identity), "dpcov_noise_warning")
  }
  expect_gt(sum(singular), 10)
  expect_identical(warned, singular)
  # exact statistics with collinear features: singular, but no noise to blame
  S <- second_moment(cbind(a = X[, 1], b = 2 * X[, 1], one = 1, y = A[, 5]))
  w <- tryCatch(dp_regression(S, "y", intercept = "one"), warning = identity)
  expect_false(inherits(w, "dpcov_noise_warning"))
  expect_match(conditionMessage(w), "minimum-norm coefficients.$")
  # a singular block: minimum-norm coefficients, in dp_regression()'s words
  Z <- matrix(0, 3, 3)
  Z[3, 3] <- 1
  expect_warning(b <- dp_regression(Z, 3), "minimum-norm coefficients.$")
  expect_equal(unname(b), c(0, 0))
  # the singular test does not depend on the matrix's scale
  M <- matrix(c(1, 2, 3, 2, 5, 7, 3, 7, 11), 3)
  expect_equal(dp_regression(M * 1e300, 3, intercept = 1), dp_regression(M, 3, intercept = 1))
  expect_equal(unname(dp_regression(M, 3, intercept = 1)), c(1, 1))
})
