# analyze_gauss_shift(): the precomputed table of E||N|| (tools/shift-table.R)
# against fresh Monte Carlo in plain R, its shape, and its argument checks.

# The relative error bound documented in ?analyze_gauss_shift.
documented_bound <- 5e-4

# ||N|| for one p x p symmetric N with iid N(0, 1) entries on and above the
# diagonal, from R's generator.
sym_gauss_norm <- function(p) {
  N <- matrix(0, p, p)
  N[upper.tri(N, diag = TRUE)] <- rnorm(p * (p + 1) / 2)
  N <- N + t(N) - diag(diag(N), p)
  max(abs(eigen(N, symmetric = TRUE, only.values = TRUE)$values))
}

test_that("the table agrees with a fresh Monte Carlo in R, off the grid and on it", {
  set.seed(20240601)
  # 57, 143 and 333 are not grid points (the fit interpolates there); 3 is
  # tabulated. Tolerance: 5 Monte Carlo standard errors plus the bound.
  for (a in list(c(3, 20000), c(57, 1500), c(143, 300), c(333, 60))) {
    p <- a[1]; reps <- if (extended_tests()) a[2] else ceiling(a[2] / 4)
    v <- replicate(reps, sym_gauss_norm(p))
    se <- sd(v) / sqrt(reps)
    e <- analyze_gauss_shift(p, 1)
    expect_lt(abs(e - mean(v)), 5 * se + documented_bound * e, label = sprintf("|table - MC| at p = %d", p))
  }
})

test_that("the table matches the package's own Monte Carlo (reps =) and p = 1 exactly", {
  expect_equal(analyze_gauss_shift(1, 1), sqrt(2 / pi))
  mc <- dpcov:::expected_sym_gaussian_norm_cpp(75L, 3000L, 12345)
  e <- analyze_gauss_shift(75, 1)
  expect_lt(abs(e - mc[["mean"]]), 5 * mc[["sd"]] / sqrt(3000) + documented_bound * e)
})

test_that("e_p is increasing in p, below 2 sqrt(p), and approaches it", {
  p <- c(1:3000, unique(round(exp(seq(log(3001), log(46340), length.out = 300)))))
  e <- vapply(p, analyze_gauss_shift, numeric(1), sigma = 1)
  expect_true(all(diff(e) > 0))
  ratio <- e / (2 * sqrt(p))
  expect_true(all(ratio < 1))
  expect_true(all(diff(ratio[p >= 10]) > 0))
  expect_lt(1 - ratio[p == 46340], 3e-4)
  # the Tracy-Widom limit: (e_p - 2 sqrt(p)) p^(1/6) -> E max(TW1, TW1') = -0.4936,
  # from below (the fitted correction is negative)
  r <- (e - 2 * sqrt(p)) * p^(1 / 6)
  expect_true(all(diff(r[p >= 100]) > 0))
  expect_lt(abs(r[p == 46340] + 0.4936), 0.05)
  expect_true(all(r < -0.4936))
})

test_that("scale equivariance is exact; the table is deterministic and leaves R's RNG alone", {
  # R's stream untouched: the next draw after the table is the draw without it
  set.seed(1); u_plain <- stats::runif(1)
  set.seed(1)
  for (p in c(2, 22, 137, 500, 4000)) {
    e1 <- analyze_gauss_shift(p, 1)
    expect_identical(analyze_gauss_shift(p, 2.5), 2.5 * e1)
    expect_identical(analyze_gauss_shift(p, 1e-3), 1e-3 * e1)
    expect_identical(analyze_gauss_shift(p, 1), e1)
  }
  expect_identical(stats::runif(1), u_plain)
})

test_that("bad arguments are dpcov errors naming the argument", {
  bad_p <- list(0, 1.5, NA, NA_real_, "a", c(1, 2), -3, Inf, 46341, NULL, factor(3))
  for (p in bad_p) {
    expect_error(analyze_gauss_shift(p, 1), "`p`", class = "dpcov_error")
  }
  for (s in list(0, -1, Inf, NA, NaN, "a", c(1, 2), NULL)) {
    expect_error(analyze_gauss_shift(10, s), "`sigma`", class = "dpcov_error")
  }
  for (r in list(0, 9, 2.5, NA, "a", c(100, 200))) {
    expect_error(analyze_gauss_shift(10, 1, reps = r), "`reps`", class = "dpcov_error")
  }
  expect_error(analyze_gauss_shift(0, 1), "`p` must be >= 1")
  expect_error(analyze_gauss_shift(46341, 1), "`p` must be <= 46340")
  expect_error(analyze_gauss_shift(10, 0), "`sigma` must be in \\(0")
  expect_error(analyze_gauss_shift(10, Inf), "`sigma` must be finite")
})

test_that("analyze_gauss(post = 'shift') on a 1000 x 300 matrix adds the table's shift", {
  set.seed(7)
  x <- matrix(rnorm(1000 * 300), 1000, 300)
  set.seed(8); raw <- analyze_gauss(x, 0.5, 1e-5, clip = 1)
  set.seed(8)
  rel <- analyze_gauss(x, 0.5, 1e-5, clip = 1, post = "shift")
  expect_false(min(eigen(raw$estimate, symmetric = TRUE, only.values = TRUE)$values) > 0)
  expect_identical(rel$params$shift, analyze_gauss_shift(300, rel$params$sigma))
  expect_equal(rel$estimate, raw$estimate + diag(rel$params$shift, 300))
  # (its speed, 28 s before the table, is measured in bench/shift.R)
})
