# Compression (Zhou, Ligett and Wasserman): exact agreement with plain-R
# references under the same seed, moments and distribution of both paths,
# truncation, normalisation, singular X'X, analyses, accounting, errors.

zlw_c1 <- 4 * exp(1) / sqrt(6 * pi)
zlw_c2 <- sqrt(8) * exp(1)  # 7.6885 as the paper states (it prints sqrt(8e) = 4.66, see R/privacy.R)

# Data with unequal column scales and correlation, so normalisation matters.
make_x <- function(n, p, seed = 11) {
  set.seed(seed)
  L <- matrix(0.4, p, p) + diag(0.6, p)
  matrix(rnorm(n * p), n, p) %*% chol(L) %*% diag(seq_len(p))
}
norm_cov <- function(x) {
  xs <- sweep(x, 2, sqrt(colSums(x^2) / nrow(x)), "/")
  crossprod(xs) / nrow(x)
}
sym_sqrt <- function(S) {
  e <- eigen(S, symmetric = TRUE)
  e$vectors %*% diag(sqrt(pmax(e$values, 0)), nrow(S)) %*% t(e$vectors)
}
# Entries (upper triangle) of C'C/m for each of `reps` releases.
cov_draws <- function(reps, ...) {
  out <- NULL
  for (i in seq_len(reps)) {
    s <- compressed_cov(dp_compress(...))
    v <- s[upper.tri(s, diag = TRUE)]
    if (is.null(out)) out <- matrix(0, reps, length(v))
    out[i, ] <- v
  }
  out
}
# Largest |z| of the CLT tests of E[(C'C/m)_jk] = S_jk and
# Var((C'C/m)_jk) = (S_jk^2 + S_jj S_kk) / m over the upper triangle.
moment_z <- function(draws, S, m) {
  ij <- which(upper.tri(S, diag = TRUE), arr.ind = TRUE)
  mu <- S[upper.tri(S, diag = TRUE)]
  v <- (mu^2 + diag(S)[ij[, 1]] * diag(S)[ij[, 2]]) / m
  R <- nrow(draws)
  dev <- sweep(draws, 2, mu)
  z_mean <- colMeans(dev) / sqrt(v / R)
  sq <- dev^2
  z_var <- (colMeans(sq) - v) / (apply(sq, 2, sd) / sqrt(R))
  c(mean = max(abs(z_mean)), var = max(abs(z_var)))
}
crit <- function(k) qnorm(1 - 1e-6 / (2 * k))  # alpha = 1e-6, Bonferroni over k tests

test_that("explicit path equals plain-R Phi %*% X (normalised) under the same seed", {
  x <- make_x(300, 3)
  n <- 300; m <- 170
  set.seed(5)
  r <- dp_compress(x, m = m, method = "explicit", truncate = FALSE)
  set.seed(5)
  phi <- matrix(rnorm(m * n), m, n) / sqrt(n)
  xs <- x %*% diag(sqrt(n / colSums(x^2)))
  expect_equal(colSums(xs^2), rep(n, 3))
  expect_equal(unname(as.matrix(r)), phi %*% xs, tolerance = 1e-12)
  # affine noise is drawn after Phi, column by column
  set.seed(6)
  r <- dp_compress(x, m = m, method = "explicit", truncate = FALSE, affine_sd = 0.3)
  set.seed(6)
  phi <- matrix(rnorm(m * n), m, n) / sqrt(n)
  delta <- matrix(rnorm(m * 3, sd = 0.3), m, 3)
  expect_equal(unname(as.matrix(r)), phi %*% xs + delta, tolerance = 1e-12)
})

test_that("gram path equals plain-R Z %*% sqrt(S) under the same seed; same seed, same result", {
  x <- make_x(400, 4)
  S <- norm_cov(x)
  set.seed(9)
  r <- dp_compress(x, m = 200, truncate = FALSE)
  set.seed(9)
  ref <- matrix(rnorm(200 * 4), 200, 4) %*% sym_sqrt(S)
  expect_equal(unname(as.matrix(r)), ref, tolerance = 1e-10)
  set.seed(9)
  expect_identical(as.matrix(dp_compress(x, m = 200, truncate = FALSE)), as.matrix(r))
  # a data frame gives the same release, with its column names
  set.seed(9)
  df <- as.data.frame(x)
  r_df <- dp_compress(df, m = 200, truncate = FALSE)
  expect_equal(unname(as.matrix(r_df)), unname(as.matrix(r)))
  expect_identical(colnames(as.matrix(r_df)), names(df))
  # truncation on, first draw accepted: identical to the untruncated draw
  set.seed(9)
  expect_identical(as.matrix(dp_compress(x, m = 200)), as.matrix(r))
  # sufficient statistics and a chunk reader give the same release
  set.seed(9)
  expect_equal(as.matrix(dp_compress(second_moment(x), m = 200, truncate = FALSE)),
               as.matrix(r), tolerance = 1e-12)
  i <- 0
  reader <- function() {
    if (i >= 400) return(NULL)
    rows <- (i + 1):(i + 100); i <<- i + 100
    x[rows, , drop = FALSE]
  }
  set.seed(9)
  expect_equal(as.matrix(dp_compress(reader, m = 200, truncate = FALSE)),
               as.matrix(r), tolerance = 1e-10)
})

test_that("the PSD square root is the symmetric root, also for singular matrices", {
  set.seed(2)
  A <- matrix(rnorm(5 * 3), 5, 3)
  S <- A %*% t(A)  # 5 x 5 of rank 3
  R <- dpcov:::psd_sqrt_cpp(S)
  expect_equal(R, t(R), tolerance = 1e-12)
  expect_equal(R %*% R, S, tolerance = 1e-10)
  expect_gt(min(eigen(R, symmetric = TRUE)$values), -1e-7)
  expect_equal(R, sym_sqrt(S), tolerance = 1e-7)
})

test_that("both paths have E[C'C/m] = S and Var((C'C/m)_jk) = (S_jk^2 + S_jj S_kk)/m", {
  x <- make_x(400, 3)
  S <- norm_cov(x)
  m <- 160
  expect_gte(m, compression_m_min(400, 3))
  reps <- if (extended_tests()) 1500 else 500
  set.seed(21)
  fast <- cov_draws(2 * reps, x, m = m, truncate = FALSE)
  set.seed(22)
  expl <- cov_draws(reps, x, m = m, truncate = FALSE, method = "explicit")
  k <- 2 * 2 * ncol(fast)
  z_fast <- moment_z(fast, S, m)
  z_expl <- moment_z(expl, S, m)
  expect_lt(max(z_fast), crit(k))
  expect_lt(max(z_expl), crit(k))
  # the two paths agree in distribution entry by entry (two-sample KS)
  p_ks <- vapply(seq_len(ncol(fast)), function(j) suppressWarnings(ks.test(fast[, j], expl[, j])$p.value), 0)
  expect_gt(min(p_ks), 1e-6 / ncol(fast))
  # negative control: releases with 4x as many rows, audited as if m rows,
  # have a quarter of the variance; the same variance test must fail
  set.seed(23)
  four <- cov_draws(4 * reps, x, m = m, truncate = FALSE)
  under <- rowsum(four, rep(seq_len(reps), each = 4)) / 4  # = one release with 4m rows
  z_under <- moment_z(under, S, m)
  expect_lt(z_under[["mean"]], crit(k))
  expect_gt(z_under[["var"]], crit(k))
})

test_that("rows of the gram-path output are iid N(0, S)", {
  x <- make_x(3000, 3)
  S <- norm_cov(x)
  set.seed(31)
  C <- as.matrix(dp_compress(x, m = 3000, truncate = FALSE))
  w <- C %*% solve(sym_sqrt(S))  # whitened: iid N(0, 1)
  expect_gt(ks.test(as.vector(w), "pnorm")$p.value, 1e-6)
  # negative control: the same test on a root scaled by 0.9 fails
  expect_lt(ks.test(as.vector(w / 0.9), "pnorm")$p.value, 1e-6)
})

test_that("every accepted output satisfies the truncation bound, and truncation bites", {
  x <- make_x(400, 3)
  S <- norm_cov(x)
  m <- 160
  thr <- compression_threshold(400, 3, m, delta_max = 0)
  expect_equal(thr, sqrt(2 * (zlw_c1 + zlw_c2)) * sqrt(log(2 * 400 * 3) / m), tolerance = 1e-7)
  # a public reference shifted by thr in entry (1,1): about half of all draws
  # (those with (C'C/m)_11 < S_11) violate (12) and must be redrawn
  ref <- S
  ref[1, 1] <- S[1, 1] + thr
  dev <- numeric(400)
  e11 <- numeric(400)
  for (method in c("gram", "explicit")) {
    set.seed(41)
    for (i in seq_along(dev)) {
      r <- dp_compress(x, m = m, delta_max = 0, reference = ref, method = method)
      s <- compressed_cov(r)
      dev[i] <- max(abs(s - ref))
      e11[i] <- s[1, 1]
    }
    expect_true(all(dev <= thr))
    expect_true(all(e11 >= S[1, 1]))  # only the upper half survives
  }
  expect_null(dp_compress(x, m = m, reference = ref)$tuning$detail)
  # a reference no draw can meet: a clear error after max_tries draws
  expect_error(dp_compress(x, m = m, reference = S + 10, max_tries = 5),
               "every one of the 5 draws was discarded")
})

test_that("the release reveals neither the data nor the number of discarded draws", {
  x <- make_x(400, 3)
  S <- norm_cov(x)
  set.seed(1)
  r <- dp_compress(x, m = 160)
  expect_s3_class(r, c("dp_compress", "dp_release"))
  expect_setequal(names(r$params), c("m", "normalize", "truncate", "threshold", "delta_max",
                                     "affine_sd", "method", "m_min", "m_condition",
                                     "reference", "no_formal_guarantee"))
  leaves <- Filter(is.numeric, unlist(r[setdiff(names(r), "estimate")], recursive = TRUE))
  expect_false(any(leaves %in% c(S, x, crossprod(x))))
  # two releases with different numbers of discarded draws look alike
  ref <- S
  ref[1, 1] <- S[1, 1] + compression_threshold(400, 3, 160, 0)
  set.seed(3)
  a <- dp_compress(x, m = 160, delta_max = 0, reference = ref)
  set.seed(4)
  b <- dp_compress(x, m = 160, delta_max = 0, reference = ref)
  expect_identical(lapply(a[setdiff(names(a), c("estimate", "call"))], identity),
                   lapply(b[setdiff(names(b), c("estimate", "call"))], identity))
})

test_that("the guarantee is distributional privacy, not (epsilon, delta)-DP, and says when it fails", {
  x <- make_x(400, 3)
  r <- dp_compress(x, m = 160)
  expect_false(has_guarantee(r))
  expect_true(is.na(r$epsilon) && is.na(r$delta))
  expect_match(r$guarantee, "distributional privacy")
  expect_match(r$guarantee, "Assumption 1")
  expect_match(r$guarantee, "NOT \\(epsilon, delta\\)-differential privacy")
  out <- wide_output(print(r))
  expect_true(any(grepl("NOT \\(epsilon, delta\\)", out)))
  expect_true(any(grepl("truncation reference", out)))
  expect_false(isFALSE(dp_compress(x, m = 160, reference = norm_cov(x))$tuning$private))
  expect_warning(small <- dp_compress(x, m = 20), "m = 20 < 2 \\(C1 \\+ C2\\) ln\\(2np\\) = 159")
  expect_false(small$params$m_condition)
  expect_match(small$guarantee, "Theorem 4.6 does NOT apply")
  expect_match(dp_compress(x, m = 160, truncate = FALSE)$guarantee, "no truncation")
  expect_match(dp_compress(x, m = 160, normalize = FALSE)$guarantee, "not normalised")
  expect_equal(compression_m_min(400, 3), ceiling(2 * (zlw_c1 + zlw_c2) * log(2400)))
})

test_that("normalisation gives every column squared norm n", {
  # explicit path vs plain R shown above; here the released covariance of
  # wildly scaled columns has unit diagonal on average, and without
  # normalisation it keeps the scales
  set.seed(51)
  x <- cbind(rnorm(500, sd = 100), rnorm(500, sd = 0.01), rnorm(500))
  d_norm <- colMeans(cov_draws(400, x, m = 200, truncate = FALSE)[, c(1, 3, 6)])
  expect_equal(d_norm, rep(1, 3), tolerance = 4 * sqrt(2 / 200 / 400) * 3)
  d_raw <- colMeans(cov_draws(400, x, m = 200, normalize = FALSE, truncate = FALSE)[, c(1, 3, 6)])
  expect_equal(d_raw, colSums(x^2) / 500, tolerance = 0.02)
})

test_that("singular X'X works on both paths", {
  set.seed(61)
  z <- matrix(rnorm(400 * 2), 400, 2)
  x <- cbind(z, z[, 1] + z[, 2])  # rank 2
  for (method in c("gram", "explicit")) {
    expect_warning(r <- dp_compress(x, m = 160, method = method), "singular")
    C <- as.matrix(r)
    expect_true(all(is.finite(C)))
    # output lies in the column space: normalised col3 = a col1 + b col2
    s <- sqrt(400 / colSums(x^2))
    null_vec <- c(1 / s[1], 1 / s[2], -1 / s[3])
    expect_lt(max(abs(C %*% null_vec)), 1e-6 * max(abs(C)))
    expect_equal(qr(C)$rank, 2L)
  }
  # moments on the gram path with a singular S
  S <- norm_cov(x)
  set.seed(62)
  d <- suppressWarnings(cov_draws(2000, x, m = 160, truncate = FALSE))
  expect_lt(max(moment_z(d, S, 160)), crit(24))
})

test_that("compressed PCA matches prcomp on C", {
  set.seed(71)
  r <- dp_compress(make_x(500, 4), m = 200)
  C <- as.matrix(r)
  pc <- compressed_pca(r)
  ref <- prcomp(C, center = FALSE)
  expect_s3_class(pc, c("compressed_pca", "dp_pca", "prcomp"))
  expect_true(is.na(pc$scale))  # normalised columns: scales not in the release
  expect_false(pc$center)
  expect_identical(pc$guarantee, r$guarantee)
  expect_equal(unname(pc$rotation), unname(ref$rotation), tolerance = 1e-10)
  expect_equal(pc$sdev * sqrt(200 / 199), ref$sdev, tolerance = 1e-10)
  expect_equal(unname(pc$x), unname(ref$x), tolerance = 1e-10)
  expect_equal(pc$sdev^2, eigen(compressed_cov(r), symmetric = TRUE)$values, tolerance = 1e-10)
  expect_equal(as.matrix(compressed_cov(r)), crossprod(C) / 200)
  expect_equal(ncol(compressed_pca(C, rank = 2)$rotation), 2L)
  expect_error(compressed_pca(C, rank = 5), "`rank` must be <= p = 4")
})

test_that("one compressed row (an m = 1 release, or its matrix) is accepted alike", {
  set.seed(72)
  r <- suppressWarnings(dp_compress(make_x(300, 3), m = 1))
  C1 <- as.matrix(r)
  expect_equal(dim(C1), c(1L, 3L))
  expect_equal(as.matrix(compressed_cov(C1)), crossprod(C1), ignore_attr = TRUE)
  expect_equal(as.matrix(compressed_cov(C1)), as.matrix(compressed_cov(r)), ignore_attr = TRUE)
  expect_equal(unname(compressed_pca(C1)$rotation[, 1]), unname(compressed_pca(r)$rotation[, 1]))
  expect_error(compressed_cov(matrix(numeric(0), 0, 3)), class = "dpcov_error")
})

test_that("subspace distance and the Proposition 3.4 bound", {
  a <- diag(c(4, 2, 1))
  th <- 0.1
  rot <- diag(3)
  rot[1:2, 1:2] <- c(cos(th), sin(th), -sin(th), cos(th))
  b <- rot %*% a %*% t(rot)
  s <- subspace_distance(a, b, dim = 1)
  # top eigenvector rotated by th: ||P_a - P_b||_F = sqrt(2) sin(th)
  expect_equal(s$distance, sqrt(2) * sin(th), tolerance = 1e-10)
  expect_equal(s$delta_D, 1)
  expect_equal(s$norm_B, norm(b - a, "F"))
  expect_equal(s$bound, norm(b - a, "F") / 1)
  expect_true(s$bound_applies)
  expect_lte(s$distance, s$bound)
  # on compressed data whenever the proposition applies, the bound holds
  x <- make_x(2000, 4)
  A <- norm_cov(x)
  set.seed(81)
  res <- do.call(rbind, lapply(1:30, function(i) subspace_distance(A, dp_compress(x, m = 1500), dim = 1)))
  expect_true(all(res$distance[res$bound_applies] <= res$bound[res$bound_applies]))
  expect_error(subspace_distance(a, b, dim = 3), "`dim` must be < p = 3")
  expect_error(subspace_distance(a, b[1:2, 1:2], dim = 1), "same dimension")
  # named matrices are matched by name, not by position (audit)
  nm <- list(c("u", "v", "w"), c("u", "v", "w"))
  an <- `dimnames<-`(a, nm)
  bn <- `dimnames<-`(b, nm)
  expect_equal(subspace_distance(an, bn[3:1, 3:1], dim = 1), s)
  expect_equal(subspace_distance(an, an[3:1, 3:1], dim = 1)$distance, 0)
  # row names alone name the variables
  expect_equal(subspace_distance(an, `rownames<-`(b[3:1, 3:1], c("w", "v", "u")), dim = 1), s)
  e <- expect_error(subspace_distance(an, `dimnames<-`(b, list(c("u", "v", "x"), c("u", "v", "x"))), dim = 1),
                    class = "dpcov_error")
  expect_identical(e$arg, "b")
  expect_equal(subspace_distance(an, b[3:1, 3:1], dim = 1), subspace_distance(a, b[3:1, 3:1], dim = 1))
})

test_that("least squares and ridge on compressed (X, y)", {
  set.seed(91)
  n <- 4000
  x <- matrix(rnorm(n * 3), n, 3)
  y <- drop(x %*% c(1, -0.5, 0.25)) + rnorm(n, sd = 0.5)
  r <- dp_compress(cbind(x, y = y), m = 800)
  C <- as.matrix(r)
  fit <- compressed_lm(r, response = "y")
  ref <- lm.fit(C[, 1:3], C[, 4])$coefficients
  expect_equal(unname(coef(fit)), unname(ref), tolerance = 1e-10)
  ridge <- compressed_lm(r, response = 4, lambda = 0.1)
  expect_equal(unname(coef(ridge)),
               unname(drop(solve(crossprod(C[, 1:3]) / 800 + 0.1 * diag(3), crossprod(C[, 1:3], C[, 4]) / 800))))
  expect_equal(unname(coef(compressed_lm(r, response = "y", features = 1:2))),
               unname(lm.fit(C[, 1:2], C[, 4])$coefficients), tolerance = 1e-10)
  # close to the uncompressed fit of the normalised data
  xs <- cbind(x, y) %*% diag(sqrt(n / colSums(cbind(x, y)^2)))
  full <- lm.fit(xs[, 1:3], xs[, 4])$coefficients
  expect_lt(max(abs(coef(fit) - full)), 0.1)
  expect_output(print(fit), "compressed data")
  expect_error(compressed_lm(r, response = "z"), "no column named z")
  expect_error(compressed_lm(r, response = "y", lambda = -1), "`lambda`")
})

test_that("compression_alpha matches a hand computation of bound (15)", {
  x1 <- cbind(c(1, 2, -1, 0.5, -2, 1), c(0.5, -1, 1, 2, 0, -1))
  x2 <- x1
  x2[1, ] <- c(-1, 1)
  n <- 6; p <- 2
  # Theorem 4.6 is for columns of squared norm n: with normalize = FALSE
  # other data are refused (alpha would change with the units), and
  # normalised data give the hand computation
  e <- expect_error(compression_alpha(x1, x2, m = 3, normalize = FALSE), "squared norm n", class = "dpcov_error")
  expect_identical(e$arg, "normalize")
  unit <- function(x) sweep(x, 2, sqrt(colSums(x^2) / nrow(x)), "/")
  x1 <- unit(x1)
  x2 <- unit(x2)
  s1 <- crossprod(x1) / n
  s2 <- crossprod(x2) / n
  d <- s1 - s2
  nd <- sqrt(sum(d^2))
  l1 <- min(eigen(s1)$values); l2 <- min(eigen(s2)$values)
  dmax <- max(abs(d))
  m <- c(3, 5)
  hand <- m * p * nd / (2 * l1 * l2) *
    (sqrt(2 * (2.504401 + 7.688462)) * sqrt(log(2 * n * p) / m) + dmax +
       2 * nd * max(eigen(s1)$values)^2 / (p * l1 * l2))
  a <- compression_alpha(x1, x2, m = m, normalize = FALSE)
  expect_equal(a$alpha, hand, tolerance = 1e-5)
  expect_equal(a$m, m)
  expect_equal(a$delta_max, rep(dmax, 2))
  expect_equal(a$condition_9, p^2 * dmax * sqrt(m * log(2 * n * p)))
  expect_equal(a$m_p2_delta_max2, m * p^2 * dmax^2)
  # normalisation first, as dp_compress does
  a_n <- compression_alpha(x1, x2, m = 5)
  expect_equal(a_n$norm_Delta, norm(norm_cov(x1) - norm_cov(x2), "F"))
  expect_equal(compression_alpha(x1, x1, m = 5)$alpha, 0)
  cond <- compression_condition(n = 1000, p = 5, m = c(100, 400), delta_max = 1e-3)
  expect_equal(cond$m_condition, c(FALSE, TRUE))
  expect_equal(cond$p_delta_max, c(5e-3, 5e-3))
  expect_error(compression_alpha(x1, x2[1:5, ], m = 5), "same dimension")
  expect_error(compression_alpha(x1[1:2, ], x2[1:2, ], m = 1), "p = 2 columns and only n = 2 rows")
  sing <- cbind(x1, x1[, 1])
  expect_error(compression_alpha(cbind(sing, 1:6), cbind(sing, 1:6), m = 5), "singular")
})

test_that("bad inputs give clear errors", {
  x <- make_x(50, 3)
  expect_error(dp_compress(x, m = 0), "`m` must be >= 1")
  expect_error(dp_compress(x, m = 2.5), "`m` must be a single whole number")
  expect_error(dp_compress(x, m = 51), "`m` must be <= n = 50")
  # zero and constant columns are valid data: refusing them would make the
  # release fail or succeed on the private values
  x0 <- x
  x0[, 2] <- 0
  r0 <- dp_compress(x0, m = 10)
  expect_true(all(is.finite(r0$estimate)))
  expect_true(all(r0$estimate[, 2] == 0))
  xc <- x
  xc[, 3] <- 7
  expect_true(all(is.finite(dp_compress(xc, m = 10)$estimate)))
  expect_error(suppressWarnings(dp_compress(xc, m = 10, normalize = FALSE)), NA)
  xn <- x
  xn[3, 1] <- NA
  expect_error(dp_compress(xn, m = 10), "NA")
  xn[3, 1] <- Inf
  expect_error(dp_compress(xn, m = 10), "infinite")
  expect_error(dp_compress(matrix(rnorm(40), 4, 10), m = 2), "p = 10 columns and only n = 4 rows.*needs p < n")
  expect_error(dp_compress(x, m = 10, method = "fast"), "`method` must be one of")
  expect_error(dp_compress(second_moment(x), m = 10, method = "explicit"), "pass the data matrix, not sufficient")
  # a reader is refused before it is read (audit: it read the whole source first)
  reads <- 0L
  rd <- function() {
    reads <<- reads + 1L
    NULL
  }
  e <- expect_error(dp_compress(rd, m = 10, method = "explicit"), "pass the data matrix, not a reader",
                    class = "dpcov_error")
  expect_identical(e$arg, "method")
  expect_identical(reads, 0L)
  expect_error(dp_compress(x, m = 10, affine_sd = -1), "`affine_sd`")
  expect_error(dp_compress(x, m = 10, delta_max = -1), "`delta_max`")
  expect_error(dp_compress(x, m = 10, reference = diag(2)), "`reference` must be 3 x 3")
  expect_error(dp_compress(x, m = 10, reference = matrix(1:9 + 0, 3)), "symmetric")
  expect_error(dp_compress(x, m = 10, normalize = NA), "`normalize` must be TRUE or FALSE")
  expect_error(dp_compress("a", m = 1), "numeric")
  expect_error(compressed_cov(analyze_gauss(x, 0.5, 1e-5, clip = 1)), "`dp_compress` release")
})

test_that("affine noise adds affine_sd^2 to the variance of every entry", {
  x <- make_x(400, 2)
  set.seed(101)
  C <- as.matrix(dp_compress(x, m = 400, truncate = FALSE, affine_sd = 2))
  # entries of column j are iid N(0, S_jj + sd^2) = N(0, 5)
  expect_gt(ks.test(as.vector(C) / sqrt(5), "pnorm")$p.value, 1e-6)
  expect_lt(ks.test(as.vector(C) / sqrt(1), "pnorm")$p.value, 1e-6)
})

test_that("compression_pca_study: reproducible, consistent with subspace_distance, plots", {
  set.seed(111)
  f <- rnorm(1000)
  x <- cbind(f, f, f, 0, 0) + matrix(rnorm(1000 * 5), 1000, 5)
  set.seed(1)
  s1 <- compression_pca_study(x, m = c(200, 400), dim = 1, reps = 3)
  set.seed(1)
  s2 <- compression_pca_study(x, m = c(200, 400), dim = 1, reps = 3)
  expect_identical(s1, s2)
  expect_s3_class(s1, "compression_study")
  expect_equal(nrow(s1), 6L)
  expect_equal(s1$m, rep(c(200, 400), each = 3))
  ev <- eigen(norm_cov(x), symmetric = TRUE)$values
  # Theorem 5.1: ||B||_F <= p tau, tau = C sqrt(ln(2np) / m) + 2 Delta_max, with
  # the Delta_max the releases were truncated with (dp_compress()'s default)
  tau <- sqrt(2 * (zlw_c1 + zlw_c2)) * sqrt(log(2 * 1000 * 5) / s1$m) + 2 * sqrt(log(1000) / 1000)
  expect_equal(s1$worst_case, 5 * tau / ((ev[1] - ev[2]) / 2), tolerance = 1e-6)
  # the truncation bound it contains holds for every release: max_jk |B_jk|
  # is at most the threshold C sqrt(ln(2np) / m) + Delta_max <= tau
  expect_true(all(s1$norm_B <= 5 * tau))
  expect_equal(s1$bound, s1$norm_B / s1$delta_D)
  expect_true(all(s1$distance >= 0 & s1$distance <= sqrt(2)))
  pdf(NULL)
  a <- plot(s1)
  dev.off()
  expect_equal(a$distance, as.vector(tapply(s1$distance, s1$m, mean)))
  expect_warning(compression_pca_study(x, m = 50, dim = 1, reps = 1), "below 2 \\(C1 \\+ C2\\)")
  expect_error(compression_pca_study(x, m = 2000, dim = 1), "`m` must be whole numbers in 1..n = 1000")
  expect_error(compression_pca_study(x, m = 200, dim = 5), "`dim` must be < p = 5")
})

test_that("the one-pass input path gives the releases and refusals of the previous implementation", {
  # Fixtures: dp_compress() output of the implementation that scanned X for
  # NA/Inf and overflow before a separate X'X pass (commit dd377f4), same seeds.
  set.seed(41)
  x <- matrix(rnorm(300 * 3), 300, 3) %*% diag(c(1, 3, 0.2))
  gram_prev <- structure(c(1.28809234347767, -0.558700471166441, 0.271739814193848,
    0.556918279528797, 0.338686030860181, -0.0880123440244432, 1.48450908878055,
    -0.140414312747298, 1.96557130696573, -0.0421415890197104, 1.27416491022158,
    2.26461052883), dim = 4:3)
  explicit_prev <- structure(c(-1.20025608170895, 1.14809027191974, -0.815398697413887,
    2.08248729652404, -0.0789086142629765, 1.03194501282669, -0.102331360403439,
    -2.62464454225921, -0.83538506852815, -0.982591147407869, 0.00937463790449309,
    0.689223086398779), dim = 4:3)
  set.seed(42); g <- suppressWarnings(dp_compress(x, m = 4))
  set.seed(42); e <- suppressWarnings(dp_compress(x, m = 4, method = "explicit"))
  expect_equal(unname(g$estimate), gram_prev, tolerance = 1e-10)
  expect_equal(unname(e$estimate), explicit_prev, tolerance = 1e-10)
  # X'X from the rank update equals crossprod(); the data frame and integer paths agree
  expect_equal(dpcov:::crossprod_cpp(x), crossprod(x), tolerance = 1e-12)
  set.seed(42); gd <- suppressWarnings(dp_compress(as.data.frame(x), m = 4))
  expect_identical(unname(gd$estimate), unname(g$estimate))
  refusal <- function(y) conditionMessage(tryCatch(suppressWarnings(dp_compress(y, m = 4)), error = identity))
  set_entry <- function(v, i = 7, j = 2) { y <- x; y[i, j] <- v; y }
  expect_identical(refusal(set_entry(NA)), "`x` contains NA or NaN values; remove or impute them first.")
  expect_identical(refusal(set_entry(-Inf)), "`x` contains infinite values.")
  both <- set_entry(Inf); both[9, 3] <- NaN  # NA/NaN wins, as before
  expect_identical(refusal(both), "`x` contains NA or NaN values; remove or impute them first.")
  # without normalisation X'X/n is released in the data's units: x_j'x_j must
  # stay 1e-6 below the double range (the compressed rows' squared sums must
  # be finite: the old bound max|x|^2 <= xmax / n let C'C overflow), refused
  # whether or not X'X itself is finite (the message does not quote the
  # largest entry: it is a value of the data)
  refusal_raw <- function(y) conditionMessage(tryCatch(suppressWarnings(dp_compress(y, m = 4, normalize = FALSE)),
                                                       error = identity))
  too_large <- "^`x` has columns too large to compress in the data's units"
  expect_match(refusal_raw(set_entry(1e153)), too_large)
  expect_match(refusal_raw(set_entry(1e200)), too_large)
  expect_match(refusal_raw(set_entry(5e152)), too_large)
  expect_equal(dim(suppressWarnings(dp_compress(set_entry(1e150), m = 4, normalize = FALSE, truncate = FALSE))$estimate),
               c(4L, 3L))
  # normalised, such entries are data like any other (see the scale-free test)
  expect_equal(dim(suppressWarnings(dp_compress(set_entry(1e200), m = 4))$estimate), c(4L, 3L))
  yi <- matrix(1:600, 300); yi[4, 1] <- NA
  expect_identical(refusal(yi), "`x` contains NA or NaN values; remove or impute them first.")
})

test_that("normalised compression is scale-free: columns of any finite size give the same release", {
  x <- make_x(2000, 3)
  rel <- function(y, ...) {
    set.seed(7)
    suppressWarnings(dp_compress(y, m = 300, ...))$estimate
  }
  for (method in c("gram", "explicit")) {
    ref <- rel(x, method = method)
    for (f in c(1e-160, 1e-300, 1e200, 1e307)) {
      y <- x
      y[, 2] <- y[, 2] * f
      # 1e-160: n / diag(X'X) overflowed (an unclassed eigen() error); 1e-300:
      # the squares underflowed to an all-zero column, released silently;
      # 1e200, 1e307: refused though normalisation removes the scale
      expect_equal(rel(y, method = method), ref, tolerance = 1e-10,
                   label = sprintf("%s path, column 2 times %g", method, f))
    }
  }
  # every column tiny at once, and the accounting tools on the same data
  expect_equal(rel(x * 1e-250), rel(x), tolerance = 1e-10)
  y <- x
  y[, 3] <- y[, 3] * 1e-300
  x2 <- x
  x2[1, ] <- c(0.1, -0.2, 0.3)
  y2 <- x2
  y2[, 3] <- y2[, 3] * 1e-300
  expect_equal(compression_alpha(y, y2, m = 500)$alpha, compression_alpha(x, x2, m = 500)$alpha, tolerance = 1e-8)
  set.seed(3)
  s_y <- compression_pca_study(y, m = 400, dim = 1, reps = 2)
  set.seed(3)
  s_x <- compression_pca_study(x, m = 400, dim = 1, reps = 2)
  expect_equal(as.data.frame(s_y), as.data.frame(s_x), tolerance = 1e-8)
  # what cannot be computed is refused with a classed error naming x
  sub <- x
  sub[, 1] <- sub[, 1] * 1e-320  # subnormal numbers only
  e <- expect_error(dp_compress(sub, m = 300), class = "dpcov_error")
  expect_identical(e$arg, "x")
  tiny <- x
  tiny[, 2] <- tiny[, 2] * 1e-160
  e <- expect_error(dp_compress(tiny, m = 300, normalize = FALSE), class = "dpcov_error")
  expect_identical(e$arg, "x")
  # sufficient statistics cannot be rescaled: a Gram whose products may have
  # underflowed is refused, never released as zeros
  e <- expect_error(dp_compress(second_moment(tiny), m = 300), class = "dpcov_error")
  expect_identical(e$arg, "x")
  under <- x
  under[, 2] <- under[, 2] * 1e-300
  e <- expect_error(dp_compress(second_moment(under), m = 300), class = "dpcov_error")
  expect_identical(e$arg, "x")
})

test_that("an all-zero column is compressed to exact zeros, and compressed_lm() refuses a singular system", {
  set.seed(5)
  x <- make_x(3000, 4)
  y <- drop(x %*% c(1, 0.5, -1, 2)) + rnorm(3000)
  x[, 2] <- 0
  d <- cbind(x, y = y)
  colnames(d) <- c("a", "b", "c", "d", "y")
  for (method in c("gram", "explicit")) {
    r <- suppressWarnings(dp_compress(d, m = 500, method = method))
    expect_true(all(r$estimate[, "b"] == 0), label = method)
    # the zero feature leaves C_X'C_X singular: a classed error naming it,
    # not LAPACK's unclassed "exactly singular"
    e <- expect_error(compressed_lm(r, response = "y"), class = "dpcov_error")
    expect_identical(e$arg, "features")
    expect_match(conditionMessage(e), "all-zero feature column\\(s\\): b")
    # without it, or with a ridge, the fit is defined
    C <- unclass(r$estimate)
    fit <- compressed_lm(r, response = "y", features = c("a", "c", "d"))
    expect_equal(unname(coef(fit)), unname(lm.fit(C[, c(1, 3, 4)], C[, 5])$coefficients), tolerance = 1e-10)
    expect_true(all(is.finite(coef(compressed_lm(r, response = "y", lambda = 0.1)))))
  }
  # collinear features too
  set.seed(6)
  z <- matrix(rnorm(2000 * 2), 2000, 2)
  w <- cbind(z, z[, 1] + z[, 2], rnorm(2000))
  colnames(w) <- c("a", "b", "c", "y")
  r <- suppressWarnings(dp_compress(w, m = 300))
  e <- expect_error(compressed_lm(r, response = "y"), class = "dpcov_error")
  expect_identical(e$arg, "features")
})

test_that("compression and its covariance say in class and print that they are not private", {
  x <- make_x(2000, 3)
  set.seed(12)
  r <- dp_compress(x, m = 400)
  # no (epsilon, delta) guarantee: labelled as the package's other non-private outputs
  expect_false(has_guarantee(r))
  expect_s3_class(r, "dp_nonprivate")
  expect_s3_class(r, "dp_release")
  out <- wide_output(print(r))
  expect_match(out[1], "^<dp_compress> NOT a private release: compression .* not \\(epsilon, delta\\)-differentially private")
  expect_true(any(grepl("^Guarantee: distributional privacy", out)))
  expect_identical(sum(grepl("NOT a private release", out)), 1L)
  # its covariance: labelled and printed as such; as.matrix() the plain matrix
  S <- compressed_cov(r)
  expect_s3_class(S, "dp_nonprivate")
  expect_match(wide_output(print(S))[1], "NOT a private release")
  M <- as.matrix(S)
  expect_false(is.object(M))
  expect_null(attr(M, "class"))
  expect_equal(M, crossprod(r$estimate) / 400)
  expect_equal(eigen(S, symmetric = TRUE)$values, eigen(M, symmetric = TRUE)$values)
  # a labelled matrix is accepted where a covariance matrix is expected
  A <- norm_cov(x)
  expect_equal(subspace_distance(A, S, dim = 1), subspace_distance(A, M, dim = 1))
  expect_equal(subspace_distance(A, r, dim = 1), subspace_distance(A, M, dim = 1))
  # of a plain matrix, too
  expect_s3_class(compressed_cov(unclass(r$estimate)), "dp_nonprivate")
  # a malformed one given to its methods: a classed error naming it
  for (bad in list(structure("a", class = c("compressed_cov", "dp_nonprivate")),
                   structure(matrix(1, 2, 3), class = c("compressed_cov", "dp_nonprivate")),
                   structure(list(), class = c("compressed_cov", "dp_nonprivate")))) {
    for (f in list(print, as.matrix)) {
      e <- expect_error(capture.output(f(bad)), class = "dpcov_error")
      expect_identical(e$arg, "x")
    }
  }
})

test_that("print, summary and diagnostics of compressed rows read no diagonal (audit)", {
  # the m x p rows are no second-moment matrix: clamp_checks() took diag() of
  # them (an R recycling warning when m < p), and a zero column's 0 on the
  # diagonal was called a variance thresholded to 0
  set.seed(9)
  x <- matrix(rnorm(2000), 400, 5)
  xz <- x
  xz[, 2] <- 0
  for (m in c(3L, 5L, 200L)) for (data in list(x, xz)) {
    set.seed(1)
    r <- suppressWarnings(dp_compress(data, m = m))
    expect_no_warning(out <- c(capture.output(print(r)), capture.output(print(summary(r)))))
    expect_no_warning(d <- release_diagnostics(r))
    expect_null(d$at_bounds)
    expect_identical(d$clip_fill, NA_real_)
    expect_length(d$messages, 0L)
    expect_identical(d$level, "ok")
    expect_false(any(grepl("thresholded", out)))
    # not private: summary says so too, as print does
    expect_match(out[grepl("^NOT a private release:|^Private release:", out)], "^NOT a private release: Compression")
  }
  # the control: a private release's summary keeps its words
  expect_match(capture.output(print(summary(analyze_gauss(x, 1, 1e-5, clip = 3))))[1], "^Private release:")
})

test_that("truncation without normalisation is judged on the normalised scale, in any units (audit)", {
  # the threshold (and Delta_max, Lemma 4.4) is for columns of squared norm n:
  # compared in raw units, data at scale 10 had every draw discarded at any m
  set.seed(12)
  x <- matrix(rnorm(1200), 300, 4)
  rms <- sqrt(colSums(x^2) / nrow(x))
  thr <- compression_threshold(300, 4, 200, sqrt(log(300) / 300))
  for (k in list(10, 1e-3, c(1, 1e3, 1e-2, 7), 1e100)) {
    xs <- sweep(x, 2, k, "*")
    S <- crossprod(xs) / nrow(xs)
    for (seed in 1:3) {
      set.seed(seed)
      raw <- dp_compress(xs, m = 200, normalize = FALSE, method = "explicit")
      set.seed(seed)
      norm <- dp_compress(x, m = 200, method = "explicit")
      # the same Phi, kept or discarded as its normalised version: the same draw in the data's units
      expect_equal(raw$estimate, sweep(norm$estimate, 2, rms * k, "*"), tolerance = 1e-10)
      # the accepted draw is within the threshold on the normalised scale (plain R)
      dev <- abs(crossprod(raw$estimate) / 200 - S) / sqrt(tcrossprod(diag(S)))
      expect_lte(max(dev), thr)
      set.seed(seed)
      expect_s3_class(dp_compress(xs, m = 200, normalize = FALSE), "dp_compress")
    }
  }
  # truncation still bites: a reference shifted by 3 thresholds on the
  # normalised scale in entry (1, 2) is never met
  xs <- x * 10
  ref <- crossprod(xs) / nrow(xs)
  ref[1, 2] <- ref[2, 1] <- ref[1, 2] + 3 * thr * sqrt(ref[1, 1] * ref[2, 2])
  expect_error(dp_compress(xs, m = 200, normalize = FALSE, reference = ref, max_tries = 5),
               "every one of the 5 draws was discarded", class = "dpcov_error")
  # the PCA's subspace bound read params$threshold as a raw-unit bound on |B_jk|
  set.seed(1)
  expect_null(dp_pca(dp_compress(xs, m = 200, normalize = FALSE))$subspace_bound)
  set.seed(1)
  expect_false(is.null(dp_pca(dp_compress(x, m = 200))$subspace_bound))
  # the study's worst case: |B_jk| <= tau sqrt(A_jj A_kk), ||B||_F <= tau tr(A)
  set.seed(1)
  st <- compression_pca_study(xs, m = 200, dim = 1, reps = 2, normalize = FALSE)
  A <- crossprod(xs) / nrow(xs)
  ev <- eigen(A, symmetric = TRUE)$values
  tau <- sqrt(2 * (zlw_c1 + zlw_c2)) * sqrt(log(2 * 300 * 4) / 200) + 2 * sqrt(log(300) / 300)
  expect_equal(st$worst_case, rep(tau * sum(diag(A)) / ((ev[1] - ev[2]) / 2), 2), tolerance = 1e-6)
  expect_true(all(st$norm_B <= tau * sum(diag(A))))
  # print says in which units the rows are
  set.seed(1)
  out <- gsub("\\s+", " ", paste(capture.output(print(dp_compress(xs, m = 200, normalize = FALSE))), collapse = " "))
  expect_match(out, "Phi X of the data, in its units", fixed = TRUE)
})

test_that("dp_regression() and dp_lm() refuse compressed rows, also square ones, and point to compressed_lm()", {
  set.seed(31)
  x <- matrix(rnorm(400 * 4), 400, 4, dimnames = list(NULL, c("a", "b", "c", "y")))
  for (m in c(4, 6)) {  # m = p: a square matrix that is rows, not a second moment
    set.seed(32); r <- dp_compress(x, m = m)
    e <- expect_error(dp_regression(r, "y"), class = "dpcov_error")
    expect_identical(e$arg, "release")
    expect_match(conditionMessage(e), "compressed_lm()", fixed = TRUE)
    e <- expect_error(dp_lm(r, y ~ a + b), class = "dpcov_error")
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "compressed_lm()", fixed = TRUE)
    e <- expect_error(dp_as_cov(r), class = "dpcov_error")
    expect_identical(e$arg, "release")
    expect_match(conditionMessage(e), "compressed_cov()", fixed = TRUE)
  }
})

test_that("the gram path without normalisation is the normalised draw in the data's units, whatever the columns' scales (review)", {
  # the root is taken on the correlation scale: Z sqrt(P) D; a raw-unit root carried an
  # error of eps ||S|| that swamped a column 1e16 times smaller (every draw then failed
  # the truncation, and without it the small column's second moment was 2.4 times the truth)
  set.seed(1)
  n <- 2000
  x0 <- matrix(rnorm(n * 3), n, 3)
  x0[, 2] <- x0[, 2] + 0.5 * x0[, 1]
  xx <- sweep(x0, 2, c(1e8, 1e-8, 1), "*")
  d <- sqrt(colSums(xx^2) / n)
  set.seed(2); raw <- suppressWarnings(dp_compress(xx, m = 300, normalize = FALSE, truncate = FALSE, affine_sd = 0))
  set.seed(2); nrm <- suppressWarnings(dp_compress(xx, m = 300, normalize = TRUE, truncate = FALSE, affine_sd = 0))
  expect_equal(unname(raw$estimate), unname(nrm$estimate %*% diag(d)), tolerance = 1e-8)
  # the truncation passes as it does for the normalised columns, and no singularity is claimed
  expect_no_warning(r <- dp_compress(xx, m = 2000, normalize = FALSE))
  expect_identical(dim(r$estimate), c(2000L, 3L))
})

test_that("the compression's warnings are dpcov_warnings (a class handlers can select)", {
  set.seed(3)
  x <- matrix(rnorm(600), 200, 3)
  expect_warning(dp_compress(x, m = 20), class = "dpcov_warning")
  x[, 3] <- x[, 1]  # singular X'X/n
  expect_warning(dp_compress(x, m = 150), "X'X/n is singular", class = "dpcov_warning")
})

test_that("the analyses remove the affine noise's s^2 I: compressed_cov(), compressed_lm(), the PCA", {
  set.seed(1)
  n <- 5000
  x <- matrix(rnorm(n * 2), n, 2) %*% chol(matrix(c(1, 0.8, 0.8, 1), 2))
  xn <- sweep(x, 2, sqrt(colSums(x^2) / n), "/")
  target <- crossprod(xn) / n
  set.seed(2)
  r <- dp_compress(x, m = 1000, affine_sd = 1)
  C <- as.matrix(r)
  # exactly C'C / m - s^2 I (and the plain matrix keeps C'C / m)
  expect_equal(unname(as.matrix(compressed_cov(r))), unname(crossprod(C) / 1000 - diag(2)))
  expect_equal(unname(as.matrix(compressed_cov(C))), unname(crossprod(C) / 1000))
  expect_equal(compressed_pca(r)$sdev^2, eigen(crossprod(C) / 1000, only.values = TRUE)$values - 1)
  # unbiased: over 200 releases the mean of the corrected diagonal is 1 (the
  # uncorrected one is 2); sd of one entry about sqrt(2 (1 + 1)^2 / m) = 0.09
  d <- replicate(200, diag(as.matrix(compressed_cov(dp_compress(x, m = 1000, affine_sd = 1))))[1])
  expect_lt(abs(mean(d) - 1), 5.3 * 0.09 / sqrt(200))
  # the regression's slope is no longer shrunk by 1 / (1 + s^2), and its
  # intervals cover the full-data fit (0 of 40 before)
  b <- qr.solve(xn[, 2, drop = FALSE], xn[, 1])
  cover <- replicate(100, {
    ci <- confint(compressed_lm(dp_compress(x, m = 1000, affine_sd = 1), response = 1))
    ci[1] <= b && b <= ci[2]
  })
  expect_gt(mean(cover), 0.85)
  # a noise larger than the features hold: C_X'C_X / m - s^2 of either sign
  # (its sd, about s^2 sqrt(2 / m) = 40, dwarfs the signal 1); refused in
  # words where it is not positive, the corrected slope where it is
  seen <- c(refused = 0, fitted = 0)
  for (seed in 1:20) {
    set.seed(seed)
    rr <- dp_compress(x, m = 1000, affine_sd = 30)
    Cr <- as.matrix(rr)
    h <- sum(Cr[, 2]^2) / 1000 - 900
    if (h > 1e-8 * 900) {
      expect_equal(unname(coef(compressed_lm(rr, response = 1))), sum(Cr[, 1] * Cr[, 2]) / 1000 / h)
      seen["fitted"] <- seen["fitted"] + 1
    } else {
      e <- expect_error(compressed_lm(rr, response = 1), class = "dpcov_error")
      expect_match(conditionMessage(e), "affine noise's variance", fixed = TRUE)
      seen["refused"] <- seen["refused"] + 1
    }
  }
  expect_true(all(seen > 0))
  # the print states what C'C / m estimates
  expect_match(paste(capture.output(print(r)), collapse = " "), "X'X / n + s^2 I", fixed = TRUE)
  expect_output(print(compressed_cov(r)), "less s^2 I, s = 1", fixed = TRUE)
  # a hand-made affine_sd is checked
  h <- r
  h$params$affine_sd <- -1
  expect_error(compressed_cov(h), class = "dpcov_error")
})

test_that("the subspace bound refuses a release whose threshold is not the formula's", {
  set.seed(1)
  r <- dp_compress(matrix(rnorm(1500), 500) %*% diag(c(3, 1, 0.2)), 200)
  expect_true(is.data.frame(compressed_pca(r)$subspace_bound))
  for (tau in c(-1, 0, r$params$threshold / 2)) {
    h <- r
    h$params$threshold <- tau
    e <- expect_error(compressed_pca(h), class = "dpcov_error")
    expect_identical(e$arg, "release")
  }
})

test_that("compression's refusals name their argument, names are filled and escaped, and n beyond the integer range is formatted (audit)", {
  set.seed(52)
  X <- matrix(rnorm(1500), 500, 3)
  # empty column names are filled as dp_cov() fills them, in the release and a named reference
  Xy <- cbind(X, y = X[, 1] + rnorm(500))
  r <- suppressWarnings(dp_compress(Xy, m = 250))
  expect_identical(colnames(r$estimate), c("V1", "V2", "V3", "y"))
  r <- suppressWarnings(dp_compress(Xy, m = 250, reference = cor(Xy)))
  expect_identical(colnames(r$estimate), c("V1", "V2", "V3", "y"))
  expect_identical(names(coef(compressed_lm(r, response = "y"))), c("V1", "V2", "V3"))
  # a name with a backtick or a backslash: a fit with the names as given
  for (nm in list(c("a`b", "x y", "y"), c("a\\b", "x y", "y"))) {
    colnames(X) <- nm
    f <- compressed_lm(suppressWarnings(dp_compress(X, m = 200)), response = 3)
    expect_identical(names(coef(f)), nm[1:2])
    expect_identical(attr(terms(f), "term.labels"), vapply(nm[1:2], function(v) deparse1(as.name(v), backtick = TRUE), "",
                                                         USE.NAMES = FALSE))
  }
  colnames(X) <- NULL
  # n beyond the integer range: a classed refusal naming `m`, not sprintf's error
  s <- second_moment(X, clip = Inf)
  s$n <- 3e9
  s$gram <- s$gram * 6e6
  s$sum <- s$sum * 6e6
  e <- expect_error(dp_compress(s, m = 4e9), "n = 3e\\+09", class = "dpcov_error")
  expect_identical(e$arg, "m")
  # compression_alpha(): p >= n names x1, a mismatched x2 names x2
  e <- expect_error(compression_alpha(X[1:2, 1:2], X[1:2, 1:2], m = 1), "p = 2 columns and only n = 2 rows", class = "dpcov_error")
  expect_identical(e$arg, "x1")
  e <- expect_error(compression_alpha(X, X[-1, ], m = 10), "same dimension", class = "dpcov_error")
  expect_identical(e$arg, "x2")
  # every draw discarded with a reference given: the reference is named, with its scale
  e <- expect_error(dp_compress(X, m = 200, reference = crossprod(X) / 500 * 4, max_tries = 3),
                    "unit diagonal", class = "dpcov_error")
  expect_identical(e$arg, "reference")
})

test_that("rows in the data's units near the double range: C'C / m stays finite, or the input is refused", {
  n <- 1000
  set.seed(4)
  signs <- matrix(sample(c(-1, 1), n * 2, TRUE), n, 2)
  # x_j'x_j just below 1e-6 of the double range: accepted, and every analysis finite
  v <- sqrt(1e-6 * .Machine$double.xmax / n) * 0.99
  set.seed(1)
  r <- dp_compress(signs * v, m = n, normalize = FALSE, truncate = FALSE)
  S <- unclass(compressed_cov(r)) / v^2
  expect_true(all(is.finite(S)))
  # E[C'C / m] = X'X / n = v^2 I (up to the signs' cross-products): within 6 sds of sqrt(2 / m)
  expect_lt(max(abs(diag(S) - 1)), 6 * sqrt(2 / n))
  expect_true(all(is.finite(compressed_pca(r)$sdev)))
  expect_true(all(is.finite(unlist(coef(compressed_lm(r, response = 2))))))
  # the truncation's test reads C'C / m (a property: at this room the old C'C
  # did not overflow either; the old defect is the refusal of `big` below):
  # over 40 releases the accepted draws' C'C / m averages 1
  set.seed(2)
  acc <- replicate(40, unclass(compressed_cov(dp_compress(signs * v, m = n, normalize = FALSE)))[1, 1] / v^2)
  expect_lt(abs(mean(acc) - 1), 6 * sqrt(2 / n) / sqrt(40))
  # the same data with the old bound's room (max|x|^2 <= xmax / n): refused, naming x, before any draw
  big <- signs * sqrt(.Machine$double.xmax / n) * 0.99
  e <- expect_error(dp_compress(big, m = n, normalize = FALSE), "too large to compress in the data's units",
                    class = "dpcov_error")
  expect_identical(e$arg, "x")
  expect_error(dp_compress(second_moment(big / 1e10, clip = Inf) |> (\(s) { s$gram <- s$gram * 1e20; s$sum <- s$sum * 1e10; s })(),
                           m = 100, normalize = FALSE), "too large to compress", class = "dpcov_error")
  # normalised, the same data compress (scale-free)
  expect_true(all(is.finite(unclass(compressed_cov(dp_compress(big, m = 200))))))
  # a hand-made release whose rows are too large: refused by every analysis, never Inf
  h <- r
  h$estimate <- h$estimate * 1e150
  for (f in list(compressed_cov, compressed_pca, dp_pca, function(x) compressed_lm(x, response = 2))) {
    e <- expect_error(f(h), "too large", class = "dpcov_error")
    expect_identical(e$arg, "release")
  }
  # a plain matrix: C'C / m from C / sqrt(m), so large rows are fine where C'C itself overflows
  C <- matrix(1e153, 400, 2) * signs[1:400, ]
  expect_equal(unclass(compressed_cov(C))[1, 1] / 1e306, 1)
})

test_that("dp_compress() refuses from the shape before X'X, statistics that are no Gram matrix, and delta_max without truncation", {
  # p >= n from the shape: no 50,000 x 50,000 Gram is formed first
  e <- expect_error(dp_compress(matrix(0, 2, 50000), m = 1), "p = 50000 columns and only n = 2 rows", class = "dpcov_error")
  expect_identical(e$arg, "x")
  set.seed(3)
  x <- matrix(rnorm(6000), 2000, 3, dimnames = list(NULL, c("a", "b", "c")))
  s <- second_moment(x, clip = Inf)
  R <- matrix(c(1, .9, -.9, .9, 1, .9, -.9, .9, 1), 3)   # passes Cauchy-Schwarz, eigenvalue -0.8
  s$gram <- R * 2000
  dimnames(s$gram) <- list(c("a", "b", "c"), c("a", "b", "c"))
  e <- expect_error(dp_compress(s, m = 300), "not positive semidefinite", class = "dpcov_error")
  expect_identical(e$arg, "x")
  # control: the statistics as computed compress
  expect_s3_class(dp_compress(second_moment(x, clip = Inf), m = 300), "dp_compress")
  # the same indefinite block on a scale 1e-12 of a fourth column's: judged on
  # the correlation scale (a slack relative to the largest diagonal hid it)
  x4 <- cbind(x, d = rnorm(2000) * 1e6)
  s4 <- second_moment(x4, clip = Inf)
  s4$gram[1:3, 1:3] <- R * 2000
  e <- expect_error(dp_compress(s4, m = 300), "not positive semidefinite", class = "dpcov_error")
  expect_identical(e$arg, "x")
  # control: data on those scales, with a column that is a multiple of another
  # (a singular Gram) and one far below the others, are Gram matrices
  x5 <- cbind(x4, e = x[, 1] * 1e-9, f = rnorm(2000) * 1e-60)
  expect_s3_class(suppressWarnings(dp_compress(second_moment(x5, clip = Inf), m = 300)), "dp_compress")
  expect_true(gram_is_psd(crossprod(x5)))
  expect_true(gram_is_psd(crossprod(cbind(x5, g = rnorm(2000) * 1e-120))))
  expect_false(gram_is_psd(s4$gram))
  e <- expect_error(dp_compress(x, m = 300, truncate = FALSE, delta_max = 0.5), "applies to the truncation",
                    class = "dpcov_error")
  expect_identical(e$arg, "delta_max")
})

test_that("a public reference conditions the draw toward it, and the release and its analyses say so (audit)", {
  set.seed(1)
  n <- 2000
  ref <- diag(3)
  f <- rnorm(n)
  xb <- cbind(f, -f + 0.05 * rnorm(n), rnorm(n))
  S <- norm_cov(xb)
  r <- dp_compress(xb, m = 300, reference = ref)
  cc <- compressed_cov(r)
  thr <- r$params$threshold
  # the accepted draw lies within the threshold of the reference, though the
  # data's X'X/n does not: C'C/m is pulled toward the reference
  expect_lte(max(abs(as.matrix(cc) - ref)), thr)
  expect_gt(abs(S[1, 2] - ref[1, 2]), thr)
  expect_true(attr(cc, "truncated_to_reference"))
  # print and summary do not claim E C'C/m = X'X/n, and say why
  out <- paste(wide_output(print(r)), collapse = "\n")
  expect_match(out, "TRUNCATED toward a public reference", fixed = TRUE)
  expect_match(out, "only where the data equal the reference", fixed = TRUE)
  expect_no_match(out, "X'X / n in normalised units", fixed = TRUE)
  expect_match(paste(wide_output(print(summary(r))), collapse = "\n"), "Truncated toward a public reference", fixed = TRUE)
  expect_match(r$guarantee, "E C'C / m = X'X / n no longer holds", fixed = TRUE)
  # and so do the analyses of it
  expect_match(paste(wide_output(print(cc)), collapse = "\n"), "Truncated toward a public reference", fixed = TRUE)
  expect_match(paste(wide_output(print(compressed_pca(r))), collapse = "\n"), "Truncated toward a public reference",
               fixed = TRUE)
  expect_match(paste(wide_output(print(compressed_lm(r, response = 3))), collapse = "\n"),
               "Truncated toward a public reference", fixed = TRUE)
  # control: the input's own reference, and no truncation, keep the unconditional statement
  for (own in list(dp_compress(xb, m = 300), dp_compress(xb, m = 300, truncate = FALSE))) {
    out <- paste(wide_output(print(own)), collapse = "\n")
    expect_match(out, "(E C'C / m = X'X / n in normalised units)", fixed = TRUE)
    expect_no_match(out, "Truncated toward", ignore.case = TRUE)
    expect_null(attr(compressed_cov(own), "truncated_to_reference"))
  }
  # whether any draw is accepted depends on the data: the refusal says so,
  # and returns no draw in place of the discarded ones
  e <- expect_error(dp_compress(xb, m = 1500, reference = ref), "every one of the 100 draws was discarded",
                    class = "dpcov_error")
  expect_identical(e$arg, "reference")
  expect_match(conditionMessage(e), "depends on the data", fixed = TRUE)
  expect_match(conditionMessage(e), "outside the databases Theorem 4.6 protects", fixed = TRUE)
  # control: data near the reference are released under the same settings
  expect_s3_class(dp_compress(matrix(rnorm(n * 3), n, 3), m = 1500, reference = ref), "dp_compress")
})

test_that("normalize = FALSE with a public reference: the truncation reads the data's scale, and the tuning says so (audit)", {
  x <- make_x(1000, 3)
  xs <- x %*% diag(c(1, 100, 0.01))
  set.seed(2)
  r <- dp_compress(xs, m = 300, normalize = FALSE, reference = crossprod(xs) / 1000)
  expect_identical(r$tuning$method, "truncation scale")
  expect_false(r$tuning$private)
  expect_true(any(grepl("WARNING: tuning looked at the private data", wide_output(print(r)), fixed = TRUE)))
  # control: normalised columns and a public reference read only C and the reference
  set.seed(2)
  r2 <- dp_compress(x, m = 300, reference = norm_cov(x))
  expect_identical(r2$tuning$method, "none")
  expect_true(r2$tuning$private)
})

test_that("compression_alpha() and compression_condition() refuse the shapes dp_compress() refuses (audit)", {
  x <- make_x(200, 3)
  x2 <- x
  x2[1, ] <- x2[1, ] + 1
  # m > n: the same message, naming `m`
  e0 <- expect_error(dp_compress(x, m = 201), class = "dpcov_error")
  e1 <- expect_error(compression_alpha(x, x2, m = c(100, 201)), class = "dpcov_error")
  e2 <- expect_error(compression_condition(n = 200, p = 3, m = 201, delta_max = 0.01), class = "dpcov_error")
  expect_identical(conditionMessage(e1), conditionMessage(e0))
  expect_identical(conditionMessage(e2), conditionMessage(e0))
  expect_identical(c(e0$arg, e1$arg, e2$arg), c("m", "m", "m"))
  # p >= n: dp_compress()'s message, naming the data (or `p`)
  e3 <- expect_error(compression_condition(n = 100, p = 500, m = 50, delta_max = 0.01),
                     "p = 500 columns and only n = 100 rows: the distributional-privacy guarantee", class = "dpcov_error")
  expect_identical(e3$arg, "p")
  e4 <- expect_error(dp_compress(x[1:3, ], m = 2), class = "dpcov_error")
  e5 <- expect_error(compression_alpha(x[1:3, ], x2[1:3, ], m = 2), class = "dpcov_error")
  expect_identical(conditionMessage(e5), sub("`x`", "`x1`", conditionMessage(e4), fixed = TRUE))
  expect_identical(e5$arg, "x1")
  # control: m = n and p < n are the shapes a release can have
  expect_identical(compression_condition(n = 200, p = 3, m = c(100, 200), delta_max = 0.01)$m, c(100, 200))
  expect_true(all(is.finite(compression_alpha(x, x2, m = c(100, 200))$alpha)))
})

test_that("assignment into a compressed_cov gives a plain labelled matrix, as `[<-` does (audit: `[[<-` kept the class)", {
  set.seed(2)
  cc <- compressed_cov(dp_compress(matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "c"))), m = 300))
  y1 <- cc
  y1[[2]] <- 9
  y2 <- cc
  y2[2] <- 9
  expect_identical(y1, y2)
  expect_identical(class(y1), c("dp_nonprivate", "matrix", "array"))
  expect_identical(y1[2, 1], 9)
  expect_identical(as.vector(y1)[-2], as.vector(unclass(cc))[-2])
  expect_match(wide_output(print(y1))[1], "NOT a private release")
  # an index out of range: classed, naming x
  e <- expect_error({y <- cc; y[[4, 1]] <- 1}, class = "dpcov_error")
  expect_identical(e$arg, "x")
  # dim<-: a non-square result is no covariance
  y <- cc
  dim(y) <- c(1, 9)
  expect_identical(class(y), c("dp_nonprivate", "matrix", "array"))
  expect_identical(dim(y), c(1L, 9L))
  expect_identical(as.vector(y), as.vector(unclass(cc)))
  # dimnames<-: the same names on rows and columns rename the variables (the
  # class stays); different ones do not describe a covariance
  y <- cc
  colnames(y) <- c("u", "v", "w")
  expect_identical(class(y), c("dp_nonprivate", "matrix", "array"))
  y <- cc
  dimnames(y) <- list(c("u", "v", "w"), c("u", "v", "w"))
  expect_s3_class(y, "compressed_cov", exact = FALSE)
  expect_identical(class(y), class(cc))
  expect_identical(unname(unclass(y)), unname(unclass(cc)))
  expect_identical(rownames(y), c("u", "v", "w"))
})
