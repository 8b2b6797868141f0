test_that("clipped Gram equals a plain-R computation", {
  set.seed(31)
  x <- matrix(rnorm(1500 * 4, sd = 2), 1500, 4)
  for (B in c(0.5, 2, 5, Inf)) {
    s <- second_moment(x, clip = B)
    expect_equal(s$gram, ref_clipped_gram(x, B), tolerance = 1e-12)
    expect_equal(s$n, 1500)
  }
})

test_that("a row of norm 10 B contributes exactly like a row of norm B", {
  B <- 1.5
  u <- c(3, -4, 12) / 13
  one <- second_moment(rbind(u * B), clip = B)$gram
  ten <- second_moment(rbind(u * 10 * B), clip = B)$gram
  expect_equal(ten, one, tolerance = 1e-14)
})

test_that("chunk reader gives the same statistics as the whole matrix", {
  set.seed(32)
  x <- matrix(rnorm(1000 * 3), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  i <- 0
  reader <- function() {
    if (i >= nrow(x)) return(NULL)
    rows <- (i + 1):min(i + 333, nrow(x)); i <<- max(rows)
    x[rows, , drop = FALSE]
  }
  s <- second_moment(reader, clip = 2)
  expect_equal(s$gram, second_moment(x, clip = 2)$gram, tolerance = 1e-12)
  expect_equal(s$n, 1000)
  expect_equal(rownames(s$gram), c("a", "b", "c"))
  expect_output(print(s), "NOT a private release")
})

test_that("data frames are accepted; bad data gives clear errors", {
  df <- data.frame(a = c(1, 2, 3), b = c(0, 1, 0))
  expect_equal(second_moment(df)$gram, crossprod(as.matrix(df)), ignore_attr = TRUE)
  expect_error(second_moment(data.frame(a = 1:3, b = letters[1:3])), "non-numeric column\\(s\\): b")
  expect_error(second_moment(matrix(c(1, NA, 3, 4), 2)), "NA or NaN")
  expect_error(second_moment(matrix(c(1, Inf, 3, 4), 2)), "infinite")
  expect_error(second_moment(matrix(letters[1:4], 2)), "must be numeric")
  expect_error(second_moment(list(1, 2)), "numeric matrix or data frame")
  expect_error(second_moment(matrix(1, 2, 2), clip = 0), "`clip` must be > 0")
  expect_error(second_moment(matrix(numeric(0), 0, 2)), "at least 1 row")
  expect_error(second_moment(function() NULL), "returned no rows")
})
