test_that("clipped Gram equals a plain-R computation", {
  set.seed(31)
  x <- matrix(rnorm(1500 * 4, sd = 2), 1500, 4)
  for (B in c(0.5, 2, 5, Inf)) {
    s <- second_moment(x, clip = B)
    expect_equal(s$gram, ref_clipped_gram(x, B), tolerance = 1e-12)
    expect_equal(s$n, 1500)
  }
})

test_that("grouped Grams (one pass for all CV folds) equal per-group plain-R Grams", {
  set.seed(33)
  n <- 1003
  x <- matrix(rnorm(n * 6, sd = 1.5), n, 6)
  for (K in c(1L, 3L, 10L)) {
    group <- sample(rep_len(seq_len(K) - 1L, n))
    # 7 rows per group per chunk: many chunks, uneven group counts within each
    for (rpg in c(7L, 128L)) {
      for (B in c(1, Inf)) {
        out <- dpcov:::grouped_grams_cpp(x, group, K, B, rpg)
        for (k in seq_len(K)) {
          rows <- x[group == k - 1L, , drop = FALSE]
          expect_equal(out[[k]]$gram, ref_clipped_gram(rows, B), tolerance = 1e-12)
          expect_equal(out[[k]]$n, nrow(rows))
          expect_equal(out[[k]]$n_clipped, sum(sqrt(rowSums(rows^2)) > B))
        }
      }
    }
  }
  # a group with no rows has a zero Gram
  out <- dpcov:::grouped_grams_cpp(x[1:5, ], c(0L, 0L, 2L, 2L, 0L), 3L, 1, 128L)
  expect_equal(out[[2]]$gram, matrix(0, 6, 6))
  expect_equal(out[[2]]$n, 0)
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
  # no rows is a data set too (under add/remove a neighbour of one row)
  s0 <- second_moment(matrix(numeric(0), 0, 2), clip = 1)
  expect_identical(s0$n, 0)
  expect_equal(s0$gram, matrix(0, 2, 2))
  expect_error(second_moment(function() NULL), "returned no rows")
})

test_that("the kernel's own NA/NaN/Inf detection gives the errors of check_data_matrix()", {
  set.seed(34)
  x <- matrix(rnorm(1300 * 3), 1300, 3)  # three row blocks of the kernel
  msg_na <- "`x` contains NA or NaN values; remove or impute them first."
  msg_inf <- "`x` contains infinite values."
  expect_refusal <- function(y, msg, clip) {
    e <- tryCatch(second_moment(y, clip = clip), error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_identical(conditionMessage(e), msg)
    expect_identical(e$arg, "x")
    # the same refusal as the separate scans (check_data_matrix with finite = TRUE)
    expect_identical(conditionMessage(tryCatch(dpcov:::check_data_matrix(y), error = identity)), msg)
  }
  for (clip in c(0.5, Inf)) {
    for (pos in list(c(1, 1), c(700, 2), c(1300, 3))) {
      for (v in list(NA_real_, NaN, Inf, -Inf)) {
        y <- x
        y[pos[1], pos[2]] <- v
        expect_refusal(y, if (is.infinite(v)) msg_inf else msg_na, clip)
      }
    }
    # NA wins over an infinite value met earlier in the pass
    y <- x; y[2, 1] <- Inf; y[1200, 3] <- NA
    expect_refusal(y, msg_na, clip)
    # in the same row
    y <- x; y[5, 1] <- -Inf; y[5, 3] <- NaN
    expect_refusal(y, msg_na, clip)
    # integer, logical and data-frame input
    yi <- matrix(1:12, 4); yi[2, 2] <- NA
    expect_refusal(yi, msg_na, clip)
    expect_refusal(matrix(c(TRUE, NA, FALSE, TRUE), 2), msg_na, clip)
    expect_refusal(data.frame(a = c(1, 2, Inf), b = 1:3), msg_inf, clip)
  }
  # squares that overflow are not infinite values: clipped exactly, or refused
  # as overflow when there is no clip bound
  y <- x; y[3, ] <- c(3e200, -4e200, 0)
  expect_equal(second_moment(y, clip = 2)$gram, ref_clipped_gram(y[-3, ], 2) + tcrossprod(c(1.2, -1.6, 0)),
               tolerance = 1e-12)
  expect_error(second_moment(y, clip = Inf), "squared row norms of `x` overflow", class = "dpcov_error")
  # clean data: nothing reported, results as before
  g <- dpcov:::clipped_gram_cpp(x, 1)
  expect_identical(g$nonfinite, 0L)
  expect_equal(second_moment(x, clip = 1)$gram, ref_clipped_gram(x, 1), tolerance = 1e-12)
  expect_equal(second_moment(x, clip = 1)$sum, colSums(x * pmin(1, 1 / sqrt(rowSums(x^2)))),
               tolerance = 1e-12, ignore_attr = TRUE)
})
