test_that("rwishart equals the plain-R Bartlett reference and stats::rWishart under the same seed", {
  S <- test_scale(4)
  for (df in c(3.5, 4, 11.25)) {
    set.seed(11); ours <- rwishart(5, df, S)
    set.seed(11); ref <- ref_rwishart(5, df, S)
    expect_equal(unname(ours), ref, tolerance = 1e-10)
    if (df >= nrow(S)) { # stats::rWishart refuses df < p
      set.seed(11); base <- stats::rWishart(5, df, S)
      expect_equal(unname(ours), unname(base), tolerance = 1e-10)
    }
  }
})

test_that("riwishart equals the plain-R reference under the same seed", {
  S <- test_scale(5)
  set.seed(12); ours <- riwishart(4, 7.5, S)
  set.seed(12); ref <- ref_riwishart(4, 7.5, S)
  expect_equal(unname(ours), ref, tolerance = 1e-10)
})

test_that("chol = TRUE returns lower-triangular factors of the same draws", {
  S <- test_scale(4)
  for (f in list(rwishart, riwishart)) {
    set.seed(13); L <- f(3, 9, S, chol = TRUE)
    set.seed(13); W <- f(3, 9, S)
    for (k in 1:3) {
      expect_equal(L[, , k][upper.tri(L[, , k])], rep(0, 6))
      expect_true(all(diag(L[, , k]) > 0))
      expect_equal(L[, , k] %*% t(L[, , k]), W[, , k], tolerance = 1e-10)
    }
  }
})

test_that("same seed gives the same draws; results are p x p x n arrays with dimnames kept", {
  S <- test_scale(3)
  dimnames(S) <- list(letters[1:3], letters[1:3])
  set.seed(5); a <- riwishart(2, 6, S)
  set.seed(5); b <- riwishart(2, 6, S)
  expect_identical(a, b)
  expect_equal(dim(a), c(3L, 3L, 2L))
  expect_equal(dimnames(a)[[1]], letters[1:3])
})

# Studentised mean of each entry over N draws: a CLT z-score per entry.
entry_z <- function(draws, mean, var) {
  N <- dim(draws)[3]
  (apply(draws, 1:2, mean) - mean) / sqrt(var / N)
}
z_crit <- stats::qnorm(1 - 1e-6 / 2)

test_that("Wishart mean is df * Sigma and Var(W_ij) = df (S_ij^2 + S_ii S_jj)", {
  set.seed(21)
  S <- test_scale(4); df <- 6.5; N <- 40000
  W <- rwishart(N, df, S)
  v <- df * (S^2 + outer(diag(S), diag(S)))
  expect_lt(max(abs(entry_z(W, df * S, v))), z_crit)
  # sample variance against theory, 4th-moment free check via ratio bounds
  sv <- apply(W, 1:2, var)
  expect_lt(max(abs(sv / v - 1)), 0.06)
  # negative control: a draw with the wrong df fails the same mean test
  Wbad <- rwishart(N, df + 0.5, S)
  expect_gt(max(abs(entry_z(Wbad, df * S, v))), z_crit)
})

test_that("inverse-Wishart mean is Psi / (df - p - 1)", {
  set.seed(22)
  S <- test_scale(3); df <- 12; p <- 3; N <- 40000
  M <- riwishart(N, df, S)
  # exact variance of inverse-Wishart entries
  k <- df - p - 1
  v <- ((df - p + 1) * S^2 + (df - p - 1) * outer(diag(S), diag(S))) /
    ((df - p) * (df - p - 1)^2 * (df - p - 3))
  expect_lt(max(abs(entry_z(M, S / k, v))), z_crit)
  Mbad <- riwishart(N, df - 0.5, S)
  expect_gt(max(abs(entry_z(Mbad, S / k, v))), z_crit)
})

test_that("a'Wa / a'Sigma a is chi-square(df): KS test at alpha = 1e-6", {
  set.seed(23)
  S <- test_scale(5); df <- 7.3; a <- c(1, -2, 0.5, 0, 1)
  W <- rwishart(20000, df, S)
  q <- apply(W, 3, function(w) drop(t(a) %*% w %*% a)) / drop(t(a) %*% S %*% a)
  expect_gt(suppressWarnings(ks.test(q, "pchisq", df = df))$p.value, 1e-6)
  expect_lt(suppressWarnings(ks.test(q, "pchisq", df = df + 1))$p.value, 1e-6)
  # the inverse-Wishart: a' M^{-1} a / a' Psi^{-1} a ~ chisq(df) too
  M <- riwishart(20000, df, S)
  Si <- solve(S)
  qi <- apply(M, 3, function(m) drop(t(a) %*% solve(m, a))) / drop(t(a) %*% Si %*% a)
  expect_gt(suppressWarnings(ks.test(qi, "pchisq", df = df))$p.value, 1e-6)
})

test_that("large df and p = 1 work", {
  set.seed(24)
  expect_equal(dim(rwishart(2, 1e5, diag(100))), c(100L, 100L, 2L))
  w <- rwishart(20000, 3, matrix(2))
  expect_gt(suppressWarnings(ks.test(drop(w) / 2, "pchisq", df = 3))$p.value, 1e-6)
})

test_that("bad sampler inputs give clear R errors", {
  S <- diag(3)
  expect_error(rwishart(0, 5, S), "`n` must be >= 1")
  expect_error(rwishart(1.5, 5, S), "`n` must be a single whole number")
  expect_error(rwishart(1, 2, S), "`df` must be > p - 1 = 2")
  expect_error(riwishart(1, 1.9, S), "`df` must be > p - 1")
  expect_error(rwishart(1, NA_real_, S), "`df` must be a single finite number")
  expect_error(rwishart(1, 5, matrix(1, 2, 3)), "must be square")
  expect_error(rwishart(1, 5, matrix(c(1, 0.5, 0, 1), 2)), "must be symmetric")
  # symmetry is judged relative to the entries' size: a small asymmetric scale
  # was accepted and sampled from its lower triangle (audit)
  for (k in c(1e-14, 1e-150)) {
    e <- expect_error(rwishart(1, 5, k * matrix(c(1, 0.2, 0.6, 1), 2)), "must be symmetric", class = "dpcov_error")
    expect_identical(e$arg, "Sigma")
    e <- expect_error(riwishart(1, 5, k * matrix(c(1, 0.9, -0.9, 1), 2)), "must be symmetric", class = "dpcov_error")
    expect_identical(e$arg, "Psi")
    # rounding-level asymmetry at that size is still accepted, and scales exactly
    S <- k * matrix(c(1, 0.2, 0.2 * (1 + 1e-15), 1), 2)
    set.seed(3)
    a <- rwishart(1, 5, S)
    set.seed(3)
    expect_equal(a / k, rwishart(1, 5, S / k), tolerance = 1e-12)
  }
  # a df close to p - 1 is printed with its digits
  set.seed(1)
  expect_error(riwishart(1, 1 + 1e-8, diag(2)), "`df` = 1.00000001 with p = 2", class = "dpcov_error")
  # df - p + 1 printed without cancellation, and both causes named
  e <- expect_error(riwishart(1, 1e-300, matrix(1)), class = "dpcov_error")
  expect_match(conditionMessage(e), "df - p \\+ 1 = 1e-300")
  expect_match(conditionMessage(e), "near the double range")
  expect_error(riwishart(1, 5, matrix(c(1, 2, 2, 1), 2)), "`Psi` must be positive definite")
  expect_error(rwishart(1, 5, matrix(c(1, NA, NA, 1), 2)), "NA, NaN or infinite")
  expect_error(rwishart(1, 5, matrix("a")), "numeric matrix")
  expect_error(rwishart(1, 5, S, chol = NA), "`chol` must be TRUE or FALSE")
})

test_that("identity, diagonal and dense scales (each product path) equal stats::rWishart and the references", {
  # three scale kinds, each at a small, a medium and a large p (odd and even
  # dot-product lengths, so every tail of Eigen's vectorised dot is used)
  for (p in c(5L, 22L, 71L)) {
    dense <- test_scale(p)
    kinds <- list(identity = diag(p), diagonal = diag(seq(0.25, 4, length.out = p)), dense = dense,
                  # a scale whose Cholesky factor is dense but whose diagonal is 1
                  unit_diag = cov2cor(dense))
    for (k in names(kinds)) {
      S <- kinds[[k]]
      n <- if (p == 71L) 2L else 4L
      set.seed(21); ours <- rwishart(n, p + 2.5, S)
      set.seed(21); base <- stats::rWishart(n, p + 2.5, S)
      set.seed(21); ref <- ref_rwishart(n, p + 2.5, S)
      expect_equal(unname(ours), unname(base), tolerance = 1e-12, info = paste(p, k))
      expect_equal(unname(ours), ref, tolerance = 1e-12, info = paste(p, k))
      for (i in seq_len(n)) expect_identical(ours[, , i], t(ours[, , i]))  # exactly symmetric
      set.seed(21); L <- rwishart(n, p + 2.5, S, chol = TRUE)
      expect_true(all(L[, , 1][upper.tri(L[, , 1])] == 0))
      expect_equal(L[, , 1] %*% t(L[, , 1]), ours[, , 1], tolerance = 1e-12, info = paste(p, k))
      set.seed(22); iw <- riwishart(n, p + 2.5, S)
      set.seed(22); iref <- ref_riwishart(n, p + 2.5, S)
      expect_equal(unname(iw), iref, tolerance = 1e-10, info = paste(p, k))
    }
  }
})

test_that("a diagonal scale's draws have the Wishart mean and variances (the row-scaling path)", {
  # E W = df Sigma; Var W_ij = df (s_ij^2 + s_ii s_jj). 4000 draws: z-scores at alpha = 1e-6
  # (|z| < 5.3 for each of 6 entries) -- and a control drawn with the square root of
  # the scale (each side scaled by s rather than sqrt(s)) fails.
  s <- c(0.5, 2, 3)
  S <- diag(s)
  df <- 6.5
  set.seed(23)
  W <- rwishart(4000, df, S)
  m <- apply(W, 1:2, mean)
  v <- outer(s, s) + diag(s^2)
  z <- (m - df * S) / sqrt(df * v / 4000)
  expect_true(all(abs(z[lower.tri(z, diag = TRUE)]) < 5.3))
  wrong <- rwishart(4000, df, diag(sqrt(s)))
  z_wrong <- (apply(wrong, 1:2, mean) - df * S) / sqrt(df * v / 4000)
  expect_true(any(abs(z_wrong) > 5.3))
})

test_that("Algorithm 3's diagonal-scale draw equals the general factor product under the same seed", {
  for (d in c(4L, 22L, 90L)) {
    for (S in list(diag(2.5, d), diag(seq(1, 3, length.out = d)))) {
      set.seed(24); fast <- dpcov:::wishart_factor_draw_cpp(S, d + 40.5, FALSE)
      set.seed(24); base <- stats::rWishart(1, d + 40.5, S %*% S)[, , 1]
      expect_equal(fast, base, tolerance = 1e-12)
    }
  }
  # a non-diagonal factor still takes the general path
  F <- t(chol(test_scale(6)))
  set.seed(25); general <- dpcov:::wishart_factor_draw_cpp(F, 9, FALSE)
  set.seed(25); base <- stats::rWishart(1, 9, F %*% t(F))[, , 1]
  expect_equal(general, base, tolerance = 1e-12)
})

# A singular Gram (last column = X b exactly) on which base::chol() succeeds by
# rounding but the samplers' LLT does not: the two criteria must not be mixed.
boundary_gram <- function() {
  set.seed(13)
  X <- matrix(rnorm(128 * 3), 128, 3)
  X <- cbind(X, X %*% c(1, -1, 0.5))
  crossprod(X)
}

test_that("positive definiteness has one criterion, the samplers' own", {
  S <- boundary_gram()
  # the premise: base::chol() and Eigen's LLT disagree on this matrix
  expect_false(inherits(try(chol(S), silent = TRUE), "try-error"))
  expect_false(dpcov:::is_pd_cpp(S))
  expect_identical(dpcov:::is_pd(S), dpcov:::is_pd_cpp(S))
  # a non-finite matrix is not positive definite (Eigen's LLT lets a NaN pivot through)
  expect_false(dpcov:::is_pd(matrix(c(NaN, 0, 0, 1), 2)))
  expect_false(dpcov:::is_pd(diag(c(Inf, 1))))
  expect_true(dpcov:::is_pd(diag(2)))
  # the exported samplers refuse it in R, with a classed error naming the argument
  e <- tryCatch(riwishart(1, 10, S), error = identity)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "Psi")
  e <- tryCatch(rwishart(1, 10, S), error = identity)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "Sigma")
  expect_error(rdata(5, S), class = "dpcov_error")
  # the internal draw raises its rounding floor until the sampler's Cholesky succeeds
  set.seed(1)
  M <- dpcov:::iwishart_from_gram(S, 140)
  expect_true(all(is.finite(M)))
  expect_true(isSymmetric(M))
})

test_that("the Sheffet study never fails on exactly collinear data (noise_sd = 0)", {
  # seeds 5 and 8 failed inside the non-private inverse-Wishart sample when
  # the two Cholesky criteria disagreed
  for (seed in c(5, 8, 1:12)) {
    set.seed(seed)
    st <- sheffet_study("single", n = 2^7, epsilon = 0.5, reps = 1, p = 2, noise_sd = 0)
    expect_s3_class(st, "sheffet_study")
    expect_true(all(is.finite(st$error)))
  }
})

test_that("riwishart never returns non-finite draws at df close to p - 1; rwishart stays finite there", {
  S <- diag(4)
  # df - p + 1 = 1e-3: the last Bartlett chi-square underflows in about 70% of
  # draws, and those draws have entries beyond the double range
  for (seed in 1:5) {
    set.seed(seed)
    e <- expect_error(riwishart(50, df = 3 + 1e-3, Psi = S), class = "dpcov_error")
    expect_identical(e$arg, "df")
    expect_match(conditionMessage(e), "cannot be represented")
  }
  # rarer failures (about 3% of draws at df - p + 1 = 0.01) are refused too
  set.seed(6)
  e <- expect_error(riwishart(2000, df = 3.01, Psi = S, chol = TRUE), class = "dpcov_error")
  expect_identical(e$arg, "df")
  # where every chi-square stays in range the draws are returned, finite,
  # with the right law: M_11 ~ W_1^{-1}(1, df - p + 1), so 1 / M_11 ~ chisq(0.3)
  set.seed(7)
  M <- riwishart(5000, df = 3.3, Psi = S)
  expect_true(all(is.finite(M)))
  expect_gt(ks.test(1 / M[1, 1, ], "pchisq", df = 0.3)$p.value, 1e-6)
  # rwishart at the same df: an underflowed chi-square only leaves the draw
  # numerically singular; every entry is finite and W = L L'
  set.seed(8)
  W <- rwishart(2000, df = 3 + 1e-3, Sigma = S)
  expect_true(all(is.finite(W)))
  set.seed(8)
  L <- rwishart(2000, df = 3 + 1e-3, Sigma = S, chol = TRUE)
  expect_true(all(is.finite(L)))
  expect_equal(L[, , 3] %*% t(L[, , 3]), W[, , 3])
})
