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
  # a reader with no block at all leaves the columns unknown
  expect_error(second_moment(function() NULL), "returned no block", class = "dpcov_error")
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

# The kernels (issue 21): the AVX2/FMA kernels chosen at run time and the
# portable one (Eigen's rank update), each against plain R, on shapes that
# reach every edge of the AVX2 kernels' tiles: the dot-product kernel's 3 x 4
# tiles and 4-row steps (p < 80), the packed kernel's 12 x 4 tiles, 4-column
# panels padded with zeros and last tile rows of 4, 8 or 12 columns (p = 80,
# 85, 94, 99: p mod 4 = 0, 1, 2, 3), one block, several blocks and several
# slices.
gram_kernel <- function(x, clip, threads = 1L, portable = FALSE) {
  dpcov:::clipped_gram_cpp(x, clip, threads, portable)
}

test_that("both Gram kernels equal plain R: Gram, column sums, n_clipped", {
  set.seed(35)
  rel <- function(a, b) max(abs(a - b)) / max(abs(b))
  worst <- list()
  for (p in c(1:8, 13, 20, 50, 80, 85, 94, 99)) {
    for (n in c(1, 3, 5, 130, 2051)) {
      x <- matrix(rnorm(n * p), n, p) * 2 / sqrt(p)
      for (B in c(1, Inf)) {
        s <- pmin(1, B / sqrt(rowSums(x^2)))
        ref <- ref_clipped_gram(x, B)
        for (portable in c(FALSE, TRUE)) {
          g <- gram_kernel(x, B, portable = portable)
          # one summary per case (thousands of expectations would be slow)
          worst[[length(worst) + 1]] <- c(
            gram = rel(g$gram, ref), sum = rel(g$sum, colSums(x * s)),
            n_clipped = g$n_clipped != sum(s < 1), nonfinite = g$nonfinite != 0L,
            asymmetric = !isSymmetric(g$gram), n = g$n != n)
        }
      }
    }
  }
  worst <- do.call(rbind, worst)
  expect_equal(nrow(worst), 15 * 5 * 2 * 2)
  expect_lt(max(worst[, "gram"]), 1e-13)
  expect_lt(max(worst[, "sum"]), 1e-13)
  expect_identical(colSums(worst[, c("n_clipped", "nonfinite", "asymmetric", "n")]),
                   c(n_clipped = 0, nonfinite = 0, asymmetric = 0, n = 0))
  g <- gram_kernel(matrix(1, 2, 2), 1)
  expect_identical(gram_kernel(matrix(1, 2, 2), 1, portable = TRUE)$kernel, "portable")
  # x86-64 with AVX2 and FMA (as the machine of issue 21) dispatches to them
  cpu <- if (file.exists("/proc/cpuinfo")) readLines("/proc/cpuinfo") else character()
  flags <- strsplit(sub(".*: ", "", grep("^flags", cpu, value = TRUE)[1]), " ")[[1]]
  if (R.version$arch == "x86_64" && .Platform$OS.type == "unix" && all(c("avx2", "fma") %in% flags)) {
    expect_identical(g$kernel, "avx2")
  }
})

test_that("the Gram is bitwise the same for 1, 2, 3 and 4 threads, in both kernels", {
  set.seed(36)
  # 20000 x 7: 20 blocks of 1024 rows in 5 slices; 3001 x 60: 6 blocks of 544 rows, 1 slice;
  # 24000 x 90 (the packed kernel): 69 blocks of 352 rows in 16 slices, more than the
  # partial sums kept at once (two per thread), so that they are reused
  for (shape in list(c(20000, 7), c(9001, 20), c(3001, 60), c(24000, 90))) {
    x <- matrix(rnorm(prod(shape)), shape[1], shape[2]) / sqrt(shape[2]) * 1.5
    x[17, 2] <- 1e200  # overflows when squared: the copied-block path, in one slice
    for (B in c(1, Inf)) {
      for (portable in c(FALSE, TRUE)) {
        one <- gram_kernel(x, B, 1L, portable)
        for (t in 2:4) expect_identical(gram_kernel(x, B, t, portable), one)
        if (is.finite(B)) {
          # row 17 clipped to norm B (plain R's norm of it overflows)
          u <- x[17, ] / 1e200
          ref <- ref_clipped_gram(x[-17, ], B) + tcrossprod(u / sqrt(sum(u^2)) * B)
          expect_equal(one$gram, ref, tolerance = 1e-12)
          expect_identical(one$n_clipped, as.double(sum(sqrt(rowSums((x / 1e100)^2)) * 1e100 > B)))
        }
      }
    }
    # NA/NaN/Inf in a late slice are reported whatever the thread count
    y <- x
    y[nrow(y) - 3, 1] <- Inf
    for (t in 1:4) expect_identical(gram_kernel(y, 1, t)$nonfinite, 2L)
    y[5, shape[2]] <- NA
    for (t in 1:4) expect_identical(gram_kernel(y, 1, t)$nonfinite, 1L)
    for (t in 1:4) expect_identical(gram_kernel(y, Inf, t)$nonfinite, 1L)
  }
  # through second_moment() and options(dpcov.threads)
  x <- matrix(rnorm(30000 * 5), 30000, 5)
  old <- options(dpcov.threads = 1)
  on.exit(options(old))
  one <- second_moment(x, clip = 1)
  options(dpcov.threads = 3)
  expect_identical(second_moment(x, clip = 1), one)
  expect_equal(one$gram, ref_clipped_gram(x, 1), tolerance = 1e-12, ignore_attr = TRUE)
})

test_that("rows whose clip factor squared would underflow are clipped exactly", {
  set.seed(37)
  for (p in c(6, 90)) {  # both AVX2 kernels
    x <- matrix(rnorm(40 * p), 40, p)
    x[3, ] <- x[3, ] * 1e140  # c = 1e-50 / ||x|| < 1e-100: scaled before squaring
    B <- 1e-50
    u <- x[3, ] / sqrt(sum(x[3, ]^2)) * B
    for (portable in c(FALSE, TRUE)) {
      g <- gram_kernel(x, B, portable = portable)
      expect_equal(g$gram, ref_clipped_gram(x, B), tolerance = 1e-12)
      expect_equal(g$gram, ref_clipped_gram(x[-3, ], B) + tcrossprod(u), tolerance = 1e-12)
      expect_equal(g$sum, colSums(x * pmin(1, B / sqrt(rowSums(x^2)))), tolerance = 1e-12)
    }
  }
})

test_that("a huge row against a tiny clip is clipped to norm B, not above it and not to 0", {
  # a row whose squares overflow was scaled by (B / top) / r: for B = 1e-20 and
  # top near 1e303 that factor is subnormal, and its rounding let the row count
  # for up to 2 B (norm^2 3.995 B^2) or for nothing. Now (x / top) * (B / r)
  set.seed(38)
  B <- 1e-20
  tops <- 10^seq(300, 308, by = 0.01)
  for (p in c(2, 6, 90)) {  # the scalar, AVX2 and packed kernels
    worst <- c(hi = 0, lo = Inf)
    for (tp in tops) {
      x <- rbind(c(tp, rep(tp / 3, p - 1)) * sign(rnorm(p)), matrix(rnorm(3 * p), 3, p) * 1e-25)
      for (portable in c(FALSE, TRUE)) {
        g <- gram_kernel(x, B, portable = portable)
        r <- g$gram[1, 1] + sum(diag(g$gram)[-1]) - sum(x[-1, ]^2)  # the huge row's norm^2
        worst <- c(hi = max(worst[["hi"]], r / B^2), lo = min(worst[["lo"]], r / B^2))
      }
    }
    expect_lte(worst[["hi"]], 1 + 1e-12)
    expect_gte(worst[["lo"]], 1 - 1e-12)
  }
  # the R copies (dp_cov()'s mean step, the local model's reports) and a reader
  x <- rbind(c(2.83e303, 0), c(1e-21, 2e-21))
  cs <- dpcov:::clipped_col_sums(x, B)
  expect_equal(cs, c(B + 1e-21, 2e-21), tolerance = 1e-12)
  cr <- dpcov:::clipped_rows(x, B)
  expect_equal(sqrt(sum(cr[1, ]^2)), B, tolerance = 1e-14)
  k <- 0
  reader <- function() { k <<- k + 1; if (k == 1) x else NULL }
  expect_equal(second_moment(reader, B)$gram[1, 1], B^2 + 1e-42, tolerance = 1e-12)
  # Sheffet's JL projection clips its rows with clip_row(): with one row a,
  # P'P / r = a a' |g|^2 / r for the same Gaussian draws g
  for (tp in 10^seq(300, 308, by = 0.25)) {
    set.seed(2); G <- dpcov:::jl_project_gram_cpp(rbind(c(tp, tp / 3)), B, 0, 500L)
    set.seed(2); g2 <- sum(stats::rnorm(500)^2)
    expect_equal(sum(diag(G)) / g2, B^2, tolerance = 1e-12)
  }
})

test_that("option dpcov.threads is checked", {
  x <- matrix(1, 2, 2)
  for (bad in list(0, 1.5, -1, NA, "2", c(1, 2), Inf)) {
    old <- options(dpcov.threads = bad)
    e <- tryCatch(second_moment(x, clip = 1), error = identity)
    options(old)
    expect_s3_class(e, "dpcov_error")
    expect_match(conditionMessage(e), "option `dpcov.threads` must be a whole number >= 1")
  }
})

test_that("a classed number under I() is refused like the bare classed column, not read as its storage", {
  # bit64's integer64 is a double vector of int64 bits classed "integer64"
  # (is.numeric() is TRUE): under I() its bits were read as doubles (~1e-321)
  i64 <- structure(as.double(seq_len(20)), class = "integer64")
  for (col in list(i64, I(i64), I(structure(as.double(1:20), class = "myunit")))) {
    df <- data.frame(b = 1:20)
    df$a <- col  # (data.frame() itself needs bit64 loaded for the bare class)
    e <- tryCatch(second_moment(df), error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "non-numeric column\\(s\\): a;")
  }
  # a classed matrix under I() too
  m <- I(structure(matrix(as.double(1:20), 10), class = "integer64"))
  expect_error(second_moment(m), class = "dpcov_error")
  # I() alone marks a plain number: accepted, as the number
  expect_equal(second_moment(data.frame(a = I(as.double(1:20)), b = 1:20))$gram,
               crossprod(cbind(a = as.double(1:20), b = 1:20)))
})
