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
