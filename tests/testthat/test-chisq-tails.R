# The chi-squares of the mechanisms' Wishart noise (Sheffet's Algorithms
# 1-5) have neither tail cut: R's rchisq() takes its values below the mean
# from norm_rand() and, for fewer than 2 degrees of freedom, from 32-bit
# uniforms, so its draws have ends a neighbour's shift can move past (an
# audit measured 1e-11 to 1e-9 added to delta for Algorithm 5 at k0 = d).

test_that("the exact chi-square has the chi-square law (KS at 1e-6; a control with 5% more degrees of freedom fails)", {
  set.seed(41)
  for (df in c(1, 3.5, 40, 1e4)) {
    z <- dpcov:::chisq_exact_cpp(2e5, df)
    expect_gt(stats::ks.test(z, "pchisq", df)$p.value, 1e-6, label = paste("df", df))
    expect_lt(stats::ks.test(z, "pchisq", df * 1.05)$p.value, 1e-6, label = paste("control, df", df))
  }
  # whatever RNGkind()'s normal kind (R's rchisq() follows it)
  old <- RNGkind()
  on.exit(do.call(RNGkind, as.list(old)))
  RNGkind(normal.kind = "Box-Muller")
  set.seed(42)
  a <- dpcov:::chisq_exact_cpp(50, 7)
  RNGkind(normal.kind = "Inversion")
  set.seed(42)
  expect_identical(dpcov:::chisq_exact_cpp(50, 7), a)
})

test_that("the exact chi-square reaches beyond rchisq()'s ends (given uniforms)", {
  # the lower tail at 1e5 degrees of freedom: a normal beyond -7 (its tail
  # draw on an exponential descending nine cells: x = -20.6), accepted
  u <- c(1e-13, 1e-5, rep(2^-33, 9), 0.5, 0.1, 0.5)
  x <- -sqrt(49 + 2 * (9 * 30 * log(2) + log(2)))
  d <- 5e4 - 1 / 3
  expected <- d * (1 + x / sqrt(9 * d))^3
  g <- dpcov:::draw_from_uniforms_cpp(u, "gamma", 5e4)
  expect_equal(g, expected, tolerance = 1e-12)
  # rchisq(1e5) never goes below 2 (sqrt(a - 1/2) - 4.39)^2 (its values below
  # the mean come from norm_rand(), which stops at -8.78)
  expect_lt(2 * g, 2 * (sqrt(5e4 - 0.5) - 4.387)^2)
  # one degree of freedom (Algorithm 5 at k0 = d): rchisq(1) never exceeds
  # 42.64; a normal beyond +7 and an acceptance exponential descending
  # twelve cells give 911.7
  u1 <- c(1 - 1e-13, 1 - 1e-5, rep(2^-33, 9), 0.5, 0.1, rep(2^-33, 12), 0.5, 0.99)
  expect_gt(2 * dpcov:::draw_from_uniforms_cpp(u1, "gamma", 0.5), 900)
  # the control: R's largest draw of one degree of freedom
  expect_lt(stats::qchisq(2^-60, 1, lower.tail = FALSE), 300)
  expect_error(dpcov:::draw_from_uniforms_cpp(0.5, "gamma", 2), "out of uniforms")
  expect_error(dpcov:::draw_from_uniforms_cpp(c(0.5, 1), "gamma", 2), "in \\(0, 1\\)")
})

test_that("the mechanisms draw the exact chi-squares; the samplers keep stats::rWishart's", {
  set.seed(43)
  x <- matrix(rnorm(600), 200, 3) / 2
  # a plain-R reference of Algorithm 3's Bartlett draw, with the chi-squares
  # of ref_chisq_exact() (Marsaglia and Tsang on rnorm() and runif())
  set.seed(44)
  r <- wishart_noise(x, 0.5, 1e-6, clip = 1)
  k <- r$params$k
  set.seed(44)
  T <- ref_bartlett(3, k, exact = TRUE)
  expect_equal(unname(r$estimate), unname(crossprod(pmin(1, 1 / sqrt(rowSums(x^2))) * x) + tcrossprod(T)),
               tolerance = 1e-10)
  # the chi-square itself equals the plain-R Marsaglia-Tsang reference under
  # one seed, below shape 1 (boosted) and above
  for (df in c(1, 1.7, 2, 9.5, 3e4)) {
    set.seed(46)
    a <- dpcov:::chisq_exact_cpp(200, df)
    set.seed(46)
    expect_equal(a, vapply(1:200, function(i) ref_chisq_exact(df), numeric(1)), tolerance = 1e-12,
                 label = paste("df", df))
  }
  # rwishart() is stats::rWishart under the same seed
  set.seed(45)
  a <- rwishart(2, 5, diag(3))
  set.seed(45)
  expect_equal(a, stats::rWishart(2, 5, diag(3)), tolerance = 1e-12)
})

test_that("below shape 8 the gamma is boosted, so its lower tail has no end either; a bad shape gives NaN, not a hang", {
  # Marsaglia and Tsang's own lower end at shape 1 is about 7.3e-48 (1 + c x
  # rounds to at least one ulp); the boost Gamma(2) exp(-E) with E from an
  # exponential descending twelve cells goes far below
  u <- c(0.3, 0.5, 0.5, rep(2^-33, 12), 0.5)
  x <- stats::qnorm((floor(2^27 * 0.3) + 0.5) / 2^27)
  d <- 2 - 1 / 3
  v <- (1 + x / sqrt(9 * d))^3
  expect_true(-log(0.5) > -(0.5 * x^2 + d * (1 - v + log(v))))  # the proposal is accepted
  g <- dpcov:::draw_from_uniforms_cpp(u, "gamma", 1)
  expect_equal(g, d * v * exp(-(12 * 30 * log(2) + log(2))), tolerance = 1e-12)
  expect_lt(g, 1e-100)
  for (bad in c(NaN, Inf, 0, -1)) expect_true(all(is.nan(dpcov:::chisq_exact_cpp(3, bad))))
})
