test_that("classic Gaussian sigma is Delta sqrt(2 log(1.25/delta)) / epsilon", {
  expect_equal(gaussian_sigma(1, 0.5, 1e-5), sqrt(2 * log(1.25e5)) / 0.5)
  expect_equal(gaussian_sigma(3, 0.1, 1e-6), 3 * sqrt(2 * log(1.25e6)) / 0.1)
  expect_warning(gaussian_sigma(1, 1, 1e-5), "proven only for epsilon < 1")
})

test_that("analytic Gaussian sigma matches published values and its defining equation", {
  # Balle & Wang (2018): epsilon = 1, delta = 1e-5, sensitivity 1 gives sigma ~ 3.73
  # (classic: 4.84); at epsilon = 0.5 the same delta gives about 7.03.
  expect_equal(gaussian_sigma(1, 1, 1e-5, "analytic"), 3.7306, tolerance = 1e-4)
  expect_equal(gaussian_sigma(1, 0.5, 1e-5, "analytic"), 7.0318, tolerance = 1e-4)
  for (eps in c(0.05, 0.5, 1, 3, 10)) for (del in c(1e-10, 1e-5, 0.01)) {
    s <- gaussian_sigma(2, eps, del, "analytic")
    expect_equal(dpcov:::gaussian_mechanism_delta(s, 2, eps), del, tolerance = 1e-8)
    if (eps < 1) expect_lt(s, gaussian_sigma(2, eps, del, "classic"))
  }
  expect_true(is.finite(gaussian_sigma(1, 20, 1e-5, "analytic")))
})

test_that("second-moment sensitivities for the two neighbour relations", {
  expect_equal(second_moment_sensitivity(1, "replace-one", n = 200), sqrt(2) / 200)
  expect_equal(second_moment_sensitivity(1, "add-remove", n = 200), 1 / 200)
  expect_equal(second_moment_sensitivity(3, "add-remove"), 9)
  expect_error(second_moment_sensitivity(Inf), "unbounded")
})

test_that("laplace scale and bad privacy parameters", {
  expect_equal(laplace_scale(2, 0.5), 4)
  expect_error(gaussian_sigma(1, 0, 1e-5), "`epsilon` must be > 0")
  expect_error(gaussian_sigma(1, -1, 1e-5), "`epsilon` must be > 0")
  expect_error(gaussian_sigma(1, 0.5, 0), "`delta` must be in \\(0, 1\\)")
  expect_error(gaussian_sigma(1, 0.5, 1), "`delta` must be in \\(0, 1\\)")
  expect_error(gaussian_sigma(1, 0.5, NA_real_), "`delta` must be a single number")
  expect_error(gaussian_sigma(1, "a", 1e-5), "`epsilon` must be a single finite number")
  expect_error(gaussian_sigma(-1, 0.5, 1e-5), "`sensitivity` must be in")
  expect_error(gaussian_sigma(1, 0.5, 1e-5, "fancy"), "`calibration` must be one of")
})
