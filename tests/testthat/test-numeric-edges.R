# Numeric edges (the eleventh audit): a delta at the bottom of the double
# range, hand-made Gram matrices, data whose squares underflow, and the
# projection of a mostly negative matrix. Each computes correctly or refuses
# with a classed error naming the argument; none drops the noise.

test_that("delta down to the smallest normal double: Sheffet's mechanisms compute, noised, where ln(4/delta) was Inf", {
  set.seed(1)
  X <- matrix(rnorm(900), 300, 3)
  d <- .Machine$double.xmin
  expect_identical(log(4 / d), Inf)                           # the old formula's overflow (the control)
  expect_true(is.finite(log(4) - log(d)))
  calls <- list(jl_ridge = function() jl_ridge(X, 0.5, d, clip = 3),
                jl_adaptive = function() jl_adaptive(X, 0.5, d, clip = 3),
                wishart = function() wishart_noise(X, 0.5, d, clip = 3),
                iwishart = function() iwishart_posterior(X, 0.5, d, clip = 3),
                iwishart_adaptive = function() iwishart_adaptive(X, 0.5, d, clip = 3))
  for (nm in names(calls)) {
    set.seed(2)
    a <- suppressWarnings(calls[[nm]]())
    set.seed(3)
    b <- suppressWarnings(calls[[nm]]())
    expect_true(all(is.finite(a$estimate)), info = nm)
    expect_gt(max(abs(a$estimate - b$estimate)), 0)   # noised: two seeds differ
    expect_identical(a$delta, d)
  }
  # Algorithm 3's k and the eigenvalue offset are finite there
  expect_true(is.finite(sheffet_wishart_k(3, 0.5, d)))
  expect_true(is.finite(sheffet_eigen_offset(3, 0.5, d)))
})

test_that("the analytic Gaussian calibration holds delta at the bottom of the double range (log scale)", {
  for (de in c(1e-300, 4e-308, .Machine$double.xmin, 1e-310)) {
    for (e in c(0.01, 1, 100)) {
      s <- analytic_gaussian_sigma(1, e, de)
      expect_true(is.finite(s) && s > 0)
      # its delta, on the log scale, at or below the target; a sigma 1% smaller is above it
      expect_lte(gaussian_mechanism_log_delta(s, 1, e), log(de))
      expect_gt(gaussian_mechanism_log_delta(0.99 * s, 1, e), log(de))
    }
  }
  # where delta is representable, the same sigma as the direct difference of the two terms
  direct <- function(s, e) pnorm(1 / (2 * s) - e * s) - exp(e) * pnorm(-1 / (2 * s) - e * s)
  for (de in c(0.1, 1e-6, 1e-50)) for (e in c(0.1, 1, 10)) {
    s <- analytic_gaussian_sigma(1, e, de)
    expect_equal(gaussian_mechanism_delta(s, 1, e), direct(s, e), tolerance = 1e-8)
    expect_equal(direct(s, e), de, tolerance = 1e-6)
  }
})

test_that("a release whose steps' share of delta falls below the smallest double names the delta given", {
  set.seed(4)
  X <- matrix(rnorm(300), 100, 3)
  e <- expect_error(dp_cov(X, 0.5, 4.5e-308, clip = 3, clip_mean = 3), class = "dpcov_error")
  expect_identical(e$arg, "delta")
  expect_match(conditionMessage(e), "`delta` = 4.5e-308 leaves a step delta = 1.8e-308, below the smallest delta", fixed = TRUE)
  D <- data.frame(a = X[, 1], b = X[, 2], y = X[, 3])
  e <- expect_error(dp_lm(y ~ ., D, epsilon = 0.5, delta = 4e-308, mechanism = "jl_ridge"), class = "dpcov_error")
  expect_match(conditionMessage(e), "`delta` = 4e-308 leaves a step delta", fixed = TRUE)
  # the control: a delta whose shares are normal doubles runs
  expect_s3_class(suppressWarnings(dp_cov(X, 0.5, 1e-300, clip = 3, clip_mean = 3)), "dp_release")
})

test_that("a hand-made dp_suffstat whose off-diagonal exceeds Cauchy-Schwarz is refused (its noise was lost to rounding)", {
  set.seed(5)
  s <- second_moment(matrix(rnorm(900), 300, 3) / 3, clip = 1)
  expect_s3_class(analyze_gauss(s, 1, 1e-6), "dp_release")   # the control
  s$gram[1, 2] <- s$gram[2, 1] <- 1e17
  for (f in list(function(s) analyze_gauss(s, 1, 1e-6), function(s) dp_threshold(s, 1, 1e-6),
                 function(s) jl_ridge(s, 0.5, 1e-6))) {
    e <- expect_error(f(s), class = "dpcov_error")
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "`gram` is not a Gram matrix")
  }
})

test_that("qda_plugin() and pooled_cov() refuse columns whose squares underflow (every row went to one class)", {
  set.seed(6)
  X <- matrix(rnorm(900), 300, 3)
  g <- factor(rep(c("u", "v"), 150))
  X[g == "v", 1] <- X[g == "v", 1] + 2
  expect_gt(mean(predict(qda_plugin(X, g), X) == g), 0.7)   # the control
  for (f in list(function(x) qda_plugin(x, g), function(x) pooled_cov(x, g))) {
    e <- expect_error(f(X * 1e-162), class = "dpcov_error")
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "squared sums underflow")
  }
  expect_s3_class(qda_plugin(X * 1e-140, g), "qda_plugin")
})

test_that("cov_error()'s Frobenius norm does not underflow", {
  r <- cov_error(diag(3) * 2e-170, diag(3) * 1e-170)
  expect_equal(r[["frobenius"]], sqrt(3) * 1e-170, tolerance = 1e-12)
  expect_identical(sqrt(sum((diag(3) * 1e-170)^2)), 0)   # the naive form (the control)
  expect_equal(cov_error(diag(3) * 2e-170, diag(3) * 1e-170, relative = TRUE)[["frobenius"]], 1, tolerance = 1e-12)
  expect_equal(cov_error(diag(3) * 2, diag(3))[["frobenius"]], sqrt(3))
})

test_that("analyze_gauss_shift() refuses a shift beyond the largest double; the samplers refuse subnormal scales", {
  e <- expect_error(analyze_gauss_shift(10, 1e308), class = "dpcov_error")
  expect_identical(e$arg, "sigma")
  expect_true(is.finite(analyze_gauss_shift(10, 1e300)))
  S <- matrix(c(2, 1, .5, 1, 2, .3, .5, .3, 1), 3)
  for (f in list(function(S) riwishart(1, 6, S), function(S) rwishart(1, 6, S))) {
    e <- expect_error(f(S * 1e-300), class = "dpcov_error")
    expect_match(conditionMessage(e), "too small to factor reliably")
  }
  set.seed(7)
  a <- riwishart(1, 6, S * 1e-200)
  set.seed(7)
  expect_equal(a, riwishart(1, 6, S) * 1e-200, tolerance = 1e-12)   # the control: exact where not subnormal
})

test_that("the PSD projection of a mostly negative matrix is rebuilt from its positive part: no negative variances", {
  set.seed(8)
  V <- qr.Q(qr(matrix(rnorm(36), 6)))
  lam <- c(-5e4, -3e4, -2e4, -1e4, 2, 1e-3)
  A <- V %*% (lam * t(V))
  P <- psd_project_cpp(A)$matrix
  ref <- V[, 5:6] %*% (lam[5:6] * t(V[, 5:6]))
  expect_equal(P, ref, tolerance = 1e-9)
  expect_true(all(diag(P) >= 0))
  # the old form, A less its negative part, leaves cancellation in the diagonal (the control)
  old <- A - V[, 1:4] %*% (lam[1:4] * t(V[, 1:4]))
  expect_gt(max(abs(old - ref)), 1e-13)
  expect_identical(psd_project_cpp(-diag(3))$matrix, matrix(0, 3, 3))
  # mostly positive: as before
  A2 <- V %*% (c(5, 4, 3, 2, 1, -1) * t(V))
  expect_equal(psd_project_cpp(A2)$matrix, V[, 1:5] %*% (c(5, 4, 3, 2, 1) * t(V[, 1:5])), tolerance = 1e-12)
})

test_that("a noise scale that underflows asks for a larger sensitivity, one that overflows for a smaller", {
  e <- expect_error(gaussian_sigma(4.9e-324, 1000, 0.5), class = "dpcov_error")
  expect_match(conditionMessage(e), "give a larger `sensitivity`")
  e <- expect_error(gaussian_sigma(1e308, 1e-6, 1e-10), class = "dpcov_error")
  expect_match(conditionMessage(e), "give a smaller `sensitivity`")
})

test_that("threshold_tune() refuses an argument its method does not use (a public sample given to 'cv' was dropped)", {
  pub <- matrix(rnorm(40), 20, 2)
  e <- expect_error(threshold_tune("cv", public = pub), class = "dpcov_error")
  expect_identical(e$arg, "public")
  e <- expect_error(threshold_tune("theory", constant = 2), class = "dpcov_error")
  expect_identical(e$arg, "constant")
  e <- expect_error(threshold_tune("fixed", constant = 2, grid = 1:3), class = "dpcov_error")
  expect_identical(e$arg, "grid")
  # the controls: each with its method
  expect_identical(threshold_tune("public", public = pub)$method, "public")
  expect_identical(threshold_tune("fixed", constant = 2)$constant, 2)
  expect_identical(threshold_tune("cv", grid = 1:3)$grid, c(1, 2, 3))
})

test_that("a reader's block refused as data is said so, the same on every path", {
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  writeLines(c("a,b", "1,2", "Inf,3", "2,4"), f)
  m1 <- conditionMessage(expect_error(dp_cov(csv_reader(f), 1, 1e-5, clip = 5), class = "dpcov_data_error"))
  m2 <- conditionMessage(expect_error(dp_cov(csv_reader(f), 1, 1e-5, lower = c(a = 0, b = 0), upper = c(a = 5, b = 5)),
                                      class = "dpcov_data_error"))
  expect_identical(m1, "`x` (the reader): a block it returned contains infinite values.")
  expect_identical(m2, m1)
  writeLines(c("a,b", "1,2", "NA,3", "2,4"), f)
  m3 <- conditionMessage(expect_error(dp_cov(csv_reader(f), 1, 1e-5, clip = 5), class = "dpcov_data_error"))
  expect_match(m3, "^`x` \\(the reader\\): `columns`: `a` contains missing values")
  expect_false(grepl("failed", m3))
})

test_that("the PSD projection leaves no negative variance on its subtraction path either (review)", {
  set.seed(3)
  neg <- 0
  for (r in 1:300) {
    Q <- qr.Q(qr(matrix(rnorm(4), 2)))
    A <- Q %*% diag(c(-1, 1e-20)) %*% t(Q)
    P <- psd_project_cpp((A + t(A)) / 2)$matrix
    neg <- neg + any(diag(P) < 0)
    expect_lt(max(abs(P)), 1e-15)   # the projection of (-1, 1e-20) is (0, 1e-20): near 0
  }
  expect_identical(neg, 0)
})

test_that("a delta that underflows inside the calibration raises no stray warning (review: uniroot's '-Inf replaced')", {
  set.seed(1)
  x <- matrix(rnorm(2000), 500, 4)
  stray <- character(0)
  withCallingHandlers(dp_cov(x, epsilon = 1e-5, delta = 1e-300, clip = 3, clip_mean = 3),
                      warning = function(w) {
                        if (!inherits(w, "dpcov_noise_warning")) stray <<- c(stray, conditionMessage(w))
                        invokeRestart("muffleWarning")
                      })
  expect_identical(stray, character(0))
  expect_true(is.finite(gaussian_mechanism_log_delta(1e6, 1, 1000)))   # the most negative double, not -Inf
})

# Exact squared norms of rows of doubles, as double-doubles (hi, lo): Dekker's
# products and Knuth's sums in plain double arithmetic (no FMA), columnwise.
dd_split <- function(a) {
  c <- 134217729 * a
  hi <- c - (c - a)
  list(hi = hi, lo = a - hi)
}
dd_two_prod <- function(a, b) {
  p <- a * b
  A <- dd_split(a)
  B <- dd_split(b)
  list(hi = p, lo = ((A$hi * B$hi - p) + A$hi * B$lo + A$lo * B$hi) + A$lo * B$lo)
}
dd_two_sum <- function(a, b) {
  s <- a + b
  bb <- s - a
  list(hi = s, lo = (a - (s - bb)) + (b - bb))
}
# exact ||row||^2 - bound^2 for each row of U (its sign, to about 1e-30 relative)
dd_excess <- function(U, bound) {
  hi <- 0 * U[, 1]
  lo <- hi
  for (j in seq_len(ncol(U))) {
    pr <- dd_two_prod(U[, j], U[, j])
    s <- dd_two_sum(hi, pr$hi)
    hi <- s$hi
    lo <- lo + s$lo + pr$lo
  }
  b2 <- dd_two_prod(bound, bound)
  (hi - b2$hi) + (lo - b2$lo)
}

test_that("a clipped or kept row's exact norm never exceeds the bound the noise is calibrated to (rounding included)", {
  set.seed(404)
  B <- 1.7
  for (p in c(2, 7, 60)) {
    # rows whose norms straddle B by a few ulps, and rows far outside
    k <- 400
    Z <- matrix(rnorm(k * p), k, p)
    Z <- Z / sqrt(rowSums(Z^2))
    X <- Z * (B * (1 + sample(-8:8, k, TRUE) * .Machine$double.eps))
    X[1:20, ] <- X[1:20, ] * 1e3
    # the C++ kernel: one row's statistics hold it, as the column sums
    U <- t(vapply(seq_len(k), function(i) second_moment(X[i, , drop = FALSE], B)$sum, numeric(p)))
    expect_true(all(dd_excess(U, B) <= 0), info = sprintf("kernel, p = %d", p))
    # the R path (the local model's per-record clip, the two-pass mean's sums)
    expect_true(all(dd_excess(clipped_rows(X, B), B) <= 0), info = sprintf("R, p = %d", p))
    # control: clipping to B itself (no margin) leaves rows whose exact norm exceeds B
    naive <- X * ifelse(rowSums(X^2) > B^2, B / sqrt(rowSums(X^2)), 1)
    expect_gt(sum(dd_excess(naive, B) > 0), 0)
  }
  # the margin is of rounding size: nothing else changes
  expect_equal(inner_clip(B, 60), B * (1 - 68 * .Machine$double.eps))
  expect_identical(inner_clip(Inf, 3), Inf)
})

test_that("the database computes the same clipped rows: exact norms within the bound", {
  skip_if_not_installed("RSQLite")
  set.seed(405)
  B <- 2.3
  p <- 5
  k <- 60
  Z <- matrix(rnorm(k * p), k, p)
  Z <- Z / sqrt(rowSums(Z^2))
  X <- Z * (B * (1 + sample(-8:8, k, TRUE) * .Machine$double.eps))
  colnames(X) <- paste0("v", seq_len(p))
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  U <- t(vapply(seq_len(k), function(i) {
    DBI::dbWriteTable(con, "one", as.data.frame(X[i, , drop = FALSE]), overwrite = TRUE)
    second_moment_db(con, "one", clip = B)$sum
  }, numeric(p)))
  expect_true(all(dd_excess(U, B) <= 0))
})

test_that("rows within the rounding margin are scaled but not counted as clipped; box bounds sit above the box's corners", {
  set.seed(406)
  Z <- matrix(rnorm(3000 * 3), 3000, 3)
  Z <- Z / sqrt(rowSums(Z^2))
  # unit rows against clip = 1: counted only where the computed norm exceeds 1
  s <- second_moment(Z, 1)
  expect_lt(s$n_clipped, 0.05 * nrow(Z))
  expect_identical(second_moment(Z * (1 - 1e-12), 1)$n_clipped, 0)
  expect_identical(second_moment(Z * (1 + 1e-12), 1)$n_clipped, 3000)
  # the box's row-norm bounds cover the exact norm of a corner (sqrt() rounds)
  for (p in c(2, 3, 5, 7, 50)) {
    corner <- matrix(1, 1, p)
    expect_true(dd_excess(corner, box_uncentred_bound(p)) <= 0, info = p)
    expect_true(dd_excess(corner / 2, box_centred_bound(rep(0, p))) <= 0, info = p)
  }
  # control: sqrt(3) itself lies below the corner's norm
  expect_gt(dd_excess(matrix(1, 1, 3), sqrt(3)), 0)
  # a release on the box calibrates to the rounded-up bound
  r <- analyze_gauss(matrix(runif(300, -1, 1), 100, 3), epsilon = 1, delta = 1e-6, lower = rep(-1, 3), upper = rep(1, 3))
  expect_true(dd_excess(matrix(1, 1, 3), r$params$noise_clip) <= 0)
})
