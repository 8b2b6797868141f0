# Sheffet's mechanisms (Algorithms 1-5) and the Analyze Gauss variants:
# plain-R references under the same seed, noise-distribution audits with an
# under-noised negative control, fast vs explicit paths, clipping, errors.

alpha <- 1e-6

fixture <- function(n = 60, d = 4, seed = 11) {
  set.seed(seed)
  x <- cbind(matrix(rnorm(n * (d - 1)), n, d - 1), 1)
  colnames(x) <- c(paste0("x", seq_len(d - 1)), "one")
  x
}
B <- 2; eps <- 0.5; del <- 1e-4

gram_of <- function(x, clip = B) second_moment(x, clip)$gram

# upper-triangle (with diagonal) entries of a matrix
upper <- function(M) M[upper.tri(M, diag = TRUE)]

# ---- calibrations -------------------------------------------------------------

test_that("calibrations are the formulas of the algorithm boxes", {
  L4 <- log(4 / del); L8 <- log(8 / del)
  expect_equal(sheffet_wishart_k(22, 0.1, exp(-9)), floor(22 + 14 / 0.01 * 2 * log(4 * exp(9))))
  expect_equal(sheffet_jl_w2(B, 10, eps, del), 4 * B^2 * (sqrt(2 * 10 * L4) + L4) / eps)
  expect_equal(sheffet_jl_adaptive_w2(B, 10, eps, del), 8 * B^2 / eps * (sqrt(2 * 10 * L8) + L8))
  expect_equal(sheffet_iwishart_psi(B, 100, 4, eps, del),
               2 * B^2 / eps * (2 * sqrt(2 * 104 * L4) + 2 * L4))
  expect_equal(sheffet_iwishart_adaptive_psi(B, 8, eps, del),
               4 * B^2 / eps * (2 * sqrt(2 * 8 * L8) + 2 * L8))
  expect_equal(sheffet_wishart_safe_shift(B, 500, 4, del), B^2 * (sqrt(500) - sqrt(4) - sqrt(2 * L4))^2)
  expect_equal(sheffet_eigen_laplace_scale(B, eps), 2 * B^2 / eps)
  expect_equal(sheffet_eigen_offset(B, eps, del), 2 * B^2 * log(2 / del) / eps)
  # r* and k* are the largest integers satisfying their inequalities
  s <- 5e4
  r <- sheffet_jl_rstar(s, B, eps, del)
  expect_lte(sheffet_jl_adaptive_w2(B, r, eps, del), s)
  expect_gt(sheffet_jl_adaptive_w2(B, r + 1, eps, del), s)
  k <- sheffet_iwishart_kstar(s, B, eps, del)
  expect_lte(sheffet_iwishart_adaptive_psi(B, k, eps, del), s)
  expect_gt(sheffet_iwishart_adaptive_psi(B, k + 1, eps, del), s)
  expect_equal(sheffet_jl_rstar(1, B, eps, del), 0)
})

test_that("the adaptive algorithms' noisy smallest eigenvalue is lambda_min - 2B^2 ln(2/delta)/eps + Lap(2B^2/eps) (plain R)", {
  # at its call site, on data where s > 0 (a clamped s at 0 hides the noise)
  set.seed(6)
  x <- matrix(rnorm(4e4 * 3), ncol = 3)
  Bc <- 4; ec <- 0.5; dc <- 1e-4
  G <- crossprod(x * pmin(1, Bc / sqrt(rowSums(x^2))))
  lmin <- min(eigen(G, symmetric = TRUE, only.values = TRUE)$values)
  for (seed in 1:5) {
    ref_s <- function() {
      e <- ref_exp() * 2 * Bc^2 / ec
      if (runif(1) < 0.5) e <- -e
      max(0, lmin - 2 * Bc^2 * log(2 / dc) / ec + e)
    }
    set.seed(seed); M <- jl_adaptive(x, ec, dc, Bc, r0 = 6)
    set.seed(seed); expect_equal(M$params$s, ref_s(), tolerance = 1e-10)
    expect_gt(M$params$s, 0)
    set.seed(seed); W <- iwishart_adaptive(x, ec, dc, Bc, k0 = 6)
    set.seed(seed); expect_equal(W$params$s, ref_s(), tolerance = 1e-10)
  }
})

test_that("Algorithm 5's k* branch never takes df below k0 (floor()'s rounding at s = psi0)", {
  # at s = psi0 exactly, k* is k0 in exact arithmetic, but floor() of the
  # rounded a^2 / (2L) gives k0 - 1 for many k0; on the box path k0 = p + 2
  # would then give df = p + 1, a draw with no finite mean
  rounded_down <- 0
  for (k0 in 2:300) {
    psi0 <- sheffet_iwishart_adaptive_psi(B, k0, eps, del)
    rounded_down <- rounded_down + (sheffet_iwishart_kstar(psi0, B, eps, del) < k0)
    br <- iwishart_adaptive_branch(psi0, TRUE, B, k0, eps, del)
    expect_equal(br$branch, "kstar")
    expect_identical(br$df >= k0, TRUE)
    expect_equal(br$psi, 0)
    # just below psi0: the prior branch with df k0 and the ridge psi0 - s
    s_below <- psi0 * (1 - 1e-9)
    below <- iwishart_adaptive_branch(s_below, TRUE, B, k0, eps, del)
    expect_equal(below, list(branch = "prior", psi = psi0 - s_below, df = k0))
  }
  expect_gt(rounded_down, 0)  # the case the guard is for does occur
  # above psi0, k* as the paper's formula gives it
  s <- 5e4
  expect_equal(iwishart_adaptive_branch(s, TRUE, B, 2, eps, del)$df, sheffet_iwishart_kstar(s, B, eps, del))
  expect_equal(iwishart_adaptive_branch(s, FALSE, B, 2, eps, del)[c("branch", "df")],
               list(branch = "prior (A'A singular)", df = 2))
})

# ---- equality with plain-R references under the same seed ------------------------

# (the mechanisms' chi-squares have neither tail cut: the references draw
# them as the package does, ref_chisq_exact(), not with rchisq())
test_that("Bartlett fast paths equal Wishart and inverse-Wishart draws of the stated law", {
  x <- fixture(); G <- gram_of(x); d <- ncol(x); n <- nrow(x)
  set.seed(1); M <- jl_ridge(x, eps, del, B, r = 9)
  w2 <- sheffet_jl_w2(B, 9, eps, del)
  set.seed(1); ref <- ref_rwishart(1, 9, G + diag(w2, d), exact = TRUE)[, , 1] / 9
  expect_equal(unname(M$estimate), unname(ref), tolerance = 1e-10)
  expect_equal(M$params$w2, w2)

  set.seed(2); M <- wishart_noise(x, eps, del, B)
  k <- sheffet_wishart_k(d, eps, del)
  set.seed(2); ref <- G + ref_rwishart(1, k, diag(B^2, d), exact = TRUE)[, , 1]
  expect_equal(unname(M$estimate), unname(ref), tolerance = 1e-10)

  set.seed(3); M <- iwishart_posterior(x, eps, del, B)
  psi <- sheffet_iwishart_psi(B, n, d, eps, del)
  set.seed(3); ref <- ref_riwishart(1, n + d, G + diag(psi, d), exact = TRUE)[, , 1]
  expect_equal(unname(M$estimate), unname(ref), tolerance = 1e-10)
})

test_that("adaptive algorithms follow their boxes (Laplace draw, then the Wishart draw)", {
  x <- fixture(); G <- gram_of(x); d <- ncol(x)
  lap <- function(b) { e <- ref_exp() * b; if (runif(1) < 0.5) -e else e }
  lmin <- min(eigen(G, symmetric = TRUE, only.values = TRUE)$values)
  set.seed(4); M <- jl_adaptive(x, eps, del, B, r0 = 10)
  set.seed(4)
  s <- max(0, lmin - sheffet_eigen_offset(B, eps, del) + lap(sheffet_eigen_laplace_scale(B, eps)))
  w2 <- max(0, sheffet_jl_adaptive_w2(B, 10, eps, del) - s)
  ref <- ref_rwishart(1, 10, G + diag(w2, d), exact = TRUE)[, , 1] / 10
  expect_equal(M$params$s, s)
  expect_equal(M$params$branch, "ridge")
  expect_equal(unname(M$estimate), unname(ref), tolerance = 1e-10)

  set.seed(5); M <- iwishart_adaptive(x, eps, del, B, k0 = 8)
  set.seed(5)
  s <- max(0, lmin - sheffet_eigen_offset(B, eps, del) + lap(sheffet_eigen_laplace_scale(B, eps)))
  psi <- max(0, sheffet_iwishart_adaptive_psi(B, 8, eps, del) - s)
  ref <- ref_riwishart(1, 8, G + diag(psi, d), exact = TRUE)[, , 1]
  expect_equal(unname(M$estimate), unname(ref), tolerance = 1e-10)
})

test_that("with a large smallest eigenvalue the adaptive algorithms take the r*/k* branch", {
  set.seed(6)
  x <- matrix(rnorm(4e4 * 3), ncol = 3)
  G <- gram_of(x, 4); d <- 3
  set.seed(7); M <- jl_adaptive(x, 0.5, del, 4, r0 = 6)
  expect_equal(M$params$branch, "rstar")
  expect_equal(M$params$w2, 0)
  r <- sheffet_jl_rstar(M$params$s, 4, 0.5, del)
  expect_equal(M$params$r, r)
  expect_gte(r, 6)
  set.seed(7); invisible(ref_exp()); invisible(runif(1))  # the Laplace draw: exponential, then sign
  ref <- ref_rwishart(1, r, G, exact = TRUE)[, , 1] / r
  expect_equal(unname(M$estimate), unname(ref), tolerance = 1e-10)

  set.seed(8); M <- iwishart_adaptive(x, 0.5, del, 4, k0 = 6)
  expect_equal(M$params$branch, "kstar")
  expect_equal(M$params$psi, 0)
  k <- sheffet_iwishart_kstar(M$params$s, 4, 0.5, del)
  expect_equal(M$params$df, k)
  set.seed(8); invisible(ref_exp()); invisible(runif(1))
  expect_equal(unname(M$estimate), unname(ref_riwishart(1, k, G, exact = TRUE)[, , 1]), tolerance = 1e-10)
})

test_that("explicit paths equal the literal construction in plain R", {
  x <- fixture(n = 30, d = 3); G <- gram_of(x); d <- 3
  # Algorithm 1: R (r x (n + d)) iid N(0,1), column by column; A' = [clipped A; w I]
  set.seed(9); M <- jl_ridge(x, eps, del, B, r = 5, method = "explicit")
  w <- sqrt(sheffet_jl_w2(B, 5, eps, del))
  nr <- sqrt(rowSums(x^2)); xc <- x * pmin(1, B / nr)
  set.seed(9); R <- matrix(rnorm(5 * (30 + d)), 5)
  ref <- crossprod(R %*% rbind(xc, diag(w, d))) / 5
  expect_equal(unname(M$estimate), unname(ref), tolerance = 1e-10)
  # Algorithm 3: the sum of k outer products of N(0, B^2 I) rows
  set.seed(10); M <- wishart_noise(x, eps, del, B, method = "explicit")
  k <- sheffet_wishart_k(d, eps, del)
  set.seed(10); V <- matrix(rnorm(k * d), k, d, byrow = TRUE) * B
  expect_equal(unname(M$estimate), unname(G + crossprod(V)), tolerance = 1e-9)
})

# ---- noise audits: calibrated noise passes, under-noised variants fail ----------

test_that("Analyze Gauss noise has the calibrated variance (KS and chi-square); sigma/2 fails", {
  x <- fixture(); G <- gram_of(x)
  sigma <- gaussian_sigma(B^2, eps, del)  # add/remove: sensitivity B^2
  set.seed(12)
  z <- unlist(lapply(1:400, function(i) upper(analyze_gauss(x, eps, del, B)$estimate - G))) / sigma
  expect_gt(ks.test(z, "pnorm")$p.value, alpha)
  chisq_p <- function(z) { s <- sum(z^2); 2 * min(pchisq(s, length(z)), pchisq(s, length(z), lower.tail = FALSE)) }
  expect_gt(chisq_p(z), alpha)
  expect_lt(ks.test(z / 2, "pnorm")$p.value, alpha)     # the same draws with sigma/2
  expect_lt(chisq_p(z / 2), alpha)
})

test_that("Analyze Gauss post-processing: scaled adds E||N|| I only when not PD; psd projects", {
  x <- fixture(); G <- gram_of(x); d <- ncol(x)
  sigma <- gaussian_sigma(B^2, 0.05, del)  # large noise: output usually indefinite
  set.seed(13); raw <- analyze_gauss(x, 0.05, del, B)$estimate
  set.seed(13); sc <- analyze_gauss(x, 0.05, del, B, post = "shift")
  set.seed(13); ps <- analyze_gauss(x, 0.05, del, B, post = "psd")$estimate
  c0 <- analyze_gauss_shift(d, sigma)
  if (min(eigen(raw, only.values = TRUE)$values) <= 0) {
    expect_equal(unname(sc$estimate), unname(raw + diag(c0, d)))
    expect_equal(sc$params$shift, c0)
  }
  e <- eigen(raw, symmetric = TRUE)
  expect_equal(unname(ps), unname(e$vectors %*% diag(pmax(e$values, 0)) %*% t(e$vectors)), tolerance = 1e-8)
  expect_gte(min(eigen(ps, only.values = TRUE)$values), -1e-8 * max(abs(ps)))
  big <- fixture(n = 20000)
  set.seed(14); pd <- analyze_gauss(big, 0.5, del, 3, post = "shift")  # noise << Gram: PD
  expect_equal(pd$params$shift, 0)
})

test_that("E||N|| by explicit Monte Carlo (reps =) is deterministic, leaves R's RNG alone, matches R and the table", {
  set.seed(15); u_plain <- stats::runif(1)
  set.seed(15)
  e1 <- analyze_gauss_shift(6, 1, reps = 2000)
  expect_identical(stats::runif(1), u_plain)  # R's stream untouched
  expect_identical(analyze_gauss_shift(6, 1, reps = 2000), e1)
  expect_equal(analyze_gauss_shift(6, 3, reps = 2000), 3 * e1)
  nrm <- replicate(4000, { N <- matrix(0, 6, 6); N[upper.tri(N, TRUE)] <- rnorm(21)
    N <- N + t(N) - diag(diag(N)); max(abs(eigen(N, TRUE, only.values = TRUE)$values)) })
  expect_lt(abs(mean(nrm) - e1) / sqrt(var(nrm) / 4000 + var(nrm) / 2000), 5)
  expect_lt(abs(analyze_gauss_shift(6, 1) - e1) / sqrt(var(nrm) / 2000), 5)  # the default table
})

test_that("additive Wishart noise: diag/B^2 is chi-square(k), mean k B^2 I, variances; scale B/sqrt(2) fails", {
  x <- fixture(n = 40, d = 3); G <- gram_of(x); d <- 3
  k <- sheffet_wishart_k(d, 0.9, 0.16)
  set.seed(16)
  W <- replicate(1500, wishart_noise(x, 0.9, 0.16, B)$estimate - G)
  diag1 <- W[1, 1, ] / B^2
  expect_gt(ks.test(diag1, "pchisq", df = k)$p.value, alpha)
  expect_lt(ks.test(diag1 / 2, "pchisq", df = k)$p.value, alpha)   # scale B/sqrt(2)
  # mean k B^2 I and Var(W_ii) = 2 k B^4, Var(W_ij) = k B^4 (z-scores of the mean)
  m <- apply(W, 1:2, mean)
  z_mean <- (m - diag(k * B^2, d)) / sqrt(matrix(k * B^4, d, d) * (1 + diag(d)) / 1500)
  expect_lt(max(abs(z_mean)), 5.5)
  v12 <- var(W[1, 2, ]); v11 <- var(W[1, 1, ])
  expect_lt(abs(v12 / (k * B^4) - 1), 5.5 * sqrt(2 / 1500) * 1.2)
  expect_lt(abs(v11 / (2 * k * B^4) - 1), 5.5 * sqrt(2 / 1500) * 1.2)
})

test_that("Algorithm 3's explicit sum of k outer products agrees in distribution with Bartlett", {
  x <- fixture(n = 40, d = 3); G <- gram_of(x)
  set.seed(17)
  fast <- replicate(600, wishart_noise(x, 0.9, 0.16, B)$estimate - G)
  slow <- replicate(600, wishart_noise(x, 0.9, 0.16, B, method = "explicit")$estimate - G)
  for (ij in list(c(1, 1), c(1, 2), c(3, 3), c(2, 3))) {
    a <- fast[ij[1], ij[2], ]; b <- slow[ij[1], ij[2], ]
    expect_lt(abs(mean(a) - mean(b)) / sqrt(var(a) / 600 + var(b) / 600), 5.5)
    expect_gt(var.test(a, b)$p.value, alpha)
  }
  expect_gt(ks.test(fast[1, 1, ], slow[1, 1, ])$p.value, alpha)
})

test_that("shifted Wishart output subtracts k B^2 I when PD, else Lemma A.3's shift", {
  x <- fixture(n = 60, d = 4); G <- gram_of(x); d <- 4
  set.seed(18); a <- wishart_noise(x, eps, del, B)$estimate
  set.seed(18); b <- wishart_noise(x, eps, del, B, shift = TRUE)
  k <- sheffet_wishart_k(d, eps, del)
  expected_pd <- !inherits(try(chol(a - diag(k * B^2, d)), silent = TRUE), "try-error")
  sh <- if (expected_pd) k * B^2 else sheffet_wishart_safe_shift(B, k, d, del)
  expect_equal(b$params$shift_type, if (expected_pd) "expected" else "safe")
  expect_equal(unname(b$estimate), unname(a - diag(sh, d)))
  # with a huge Gram matrix the expected shift always keeps PD
  set.seed(19); big <- wishart_noise(fixture(n = 20000), eps, del, 3, shift = TRUE)
  expect_equal(big$params$shift_type, "expected")
})

test_that("JL (Algorithm 1): r M_ii / (G + w^2 I)_ii is chi-square(r); a quarter ridge fails", {
  x <- fixture(n = 50, d = 3); G <- gram_of(x); d <- 3; r <- 7
  w2 <- sheffet_jl_w2(B, r, eps, del)
  set.seed(20)
  M <- replicate(1500, jl_ridge(x, eps, del, B, r = r)$estimate)
  u <- r * M[2, 2, ] / (G[2, 2] + w2)
  expect_gt(ks.test(u, "pchisq", df = r)$p.value, alpha)
  u_bad <- r * M[2, 2, ] / (G[2, 2] + w2 / 4)   # tampered: the ridge of w/2
  expect_lt(ks.test(u_bad, "pchisq", df = r)$p.value, alpha)
})

test_that("JL fast and explicit paths agree in distribution (means, variances, KS)", {
  x <- fixture(n = 50, d = 3)
  set.seed(21)
  fast <- replicate(800, jl_ridge(x, eps, del, B, r = 6)$estimate)
  slow <- replicate(800, jl_ridge(x, eps, del, B, r = 6, method = "explicit")$estimate)
  for (ij in list(c(1, 1), c(1, 2), c(3, 3), c(2, 3))) {
    a <- fast[ij[1], ij[2], ]; b <- slow[ij[1], ij[2], ]
    expect_lt(abs(mean(a) - mean(b)) / sqrt(var(a) / 800 + var(b) / 800), 5.5)
    expect_gt(var.test(a, b)$p.value, alpha)
  }
  expect_gt(ks.test(fast[1, 2, ], slow[1, 2, ])$p.value, alpha)
  set.seed(22)
  fast2 <- replicate(300, jl_adaptive(x, eps, del, B, r0 = 6)$estimate[1, 1])
  slow2 <- replicate(300, jl_adaptive(x, eps, del, B, r0 = 6, method = "explicit")$estimate[1, 1])
  expect_gt(ks.test(fast2, slow2)$p.value, alpha)
})

test_that("noisy smallest eigenvalue: Laplace(2B^2/eps) around lambda_min - offset; half scale fails", {
  set.seed(23)
  x <- matrix(rnorm(3000), ncol = 3) * 3
  G <- gram_of(x, 6); lmin <- min(eigen(G, TRUE, only.values = TRUE)$values)
  b <- sheffet_eigen_laplace_scale(6, 1); off <- sheffet_eigen_offset(6, 1, 0.01)
  expect_gt(lmin - off, 10 * b)  # s is never truncated at 0 here
  z <- replicate(1500, iwishart_adaptive(x, 1, 0.01, 6, k0 = 3)$params$s) - (lmin - off)
  plap <- function(q, b) ifelse(q < 0, 0.5 * exp(q / b), 1 - 0.5 * exp(-q / b))
  expect_gt(ks.test(z, plap, b = b)$p.value, alpha)
  expect_lt(ks.test(z / 2, plap, b = b)$p.value, alpha)
  z2 <- replicate(800, jl_adaptive(x, 1, 0.01, 6, r0 = 4)$params$s) - (lmin - off)
  expect_gt(ks.test(z2, plap, b = b)$p.value, alpha)
})

test_that("inverse-Wishart posterior: mean (G + psi I)/(n - 1) and v'M^-1 v law; psi/4 fails", {
  x <- fixture(n = 20, d = 3); G <- gram_of(x); d <- 3; n <- 20
  psi <- sheffet_iwishart_psi(B, n, d, 1, 0.01)
  S <- G + diag(psi, d)
  set.seed(24)
  M <- replicate(3000, iwishart_posterior(x, 1, 0.01, B)$estimate)
  mu <- S / (n - 1)
  sdv <- apply(M, 1:2, sd) / sqrt(3000)
  expect_lt(max(abs(apply(M, 1:2, mean) - mu) / sdv), 5.5)
  v <- c(1, -1, 0.5)
  q <- apply(M, 3, function(m) drop(t(v) %*% solve(m, v))) * drop(t(v) %*% solve(S, v))^-1
  expect_gt(ks.test(q, "pchisq", df = n + d)$p.value, alpha)
  Sbad <- G + diag(psi / 4, d)
  qbad <- apply(M, 3, function(m) drop(t(v) %*% solve(m, v))) * drop(t(v) %*% solve(Sbad, v))^-1
  expect_lt(ks.test(qbad, "pchisq", df = n + d)$p.value, alpha)
})

# ---- clipping, inputs, release contents ------------------------------------------

test_that("a row of norm 10 B contributes exactly like the same row at norm B", {
  x <- fixture(n = 30, d = 3)
  x1 <- x; x1[1, ] <- x1[1, ] / sqrt(sum(x1[1, ]^2)) * B
  x2 <- x1; x2[1, ] <- 10 * x1[1, ]
  calls <- list(
    function(z) analyze_gauss(z, eps, del, B)$estimate,
    function(z) jl_ridge(z, eps, del, B)$estimate,
    function(z) jl_ridge(z, eps, del, B, method = "explicit")$estimate,
    function(z) jl_adaptive(z, eps, del, B)$estimate,
    function(z) wishart_noise(z, eps, del, B, shift = TRUE)$estimate,
    function(z) iwishart_posterior(z, eps, del, B)$estimate,
    function(z) iwishart_adaptive(z, eps, del, B)$estimate)
  for (f in calls) {
    set.seed(25); a <- f(x1)
    set.seed(25); b <- f(x2)
    expect_equal(a, b, tolerance = 1e-12)
  }
})

test_that("data matrix, second_moment() and a chunk reader give the same release", {
  x <- fixture(n = 45, d = 3)
  i <- 0
  reader <- function() {
    if (i >= 45) return(NULL)
    rows <- (i + 1):min(i + 20, 45); i <<- i + 20
    x[rows, , drop = FALSE]
  }
  set.seed(26); a <- wishart_noise(x, eps, del, B)$estimate
  set.seed(26); b <- wishart_noise(second_moment(x, B), eps, del, B)$estimate
  set.seed(26); cc <- wishart_noise(reader, eps, del, B)$estimate
  expect_equal(a, b); expect_equal(a, cc, tolerance = 1e-12)
})

test_that("releases hold no data or Gram matrix and state their guarantee", {
  x <- fixture()
  rel <- list(jl_ridge(x, eps, del, B), jl_adaptive(x, eps, del, B), wishart_noise(x, eps, del, B),
              iwishart_posterior(x, eps, del, B), iwishart_adaptive(x, eps, del, B))
  for (r in rel) {
    expect_s3_class(r, c("dp_second_moment", "dp_release"))
    alg4 <- grepl("Algorithm 4", r$mechanism)
    expect_identical(r$neighbor, if (alg4) "replace-one" else "add-remove")
    expect_true(has_guarantee(r))
    expect_setequal(names(r), c("estimate", "mechanism", "epsilon", "delta", "neighbor", "n_public",
                                "clip", "n", "p", "scale", "centred", "ridge", "params", "tuning",
                                "guarantee", "call", "diagnostics"))
    expect_false(r$centred)
    # add/remove neighbours: n is neither released nor used by the noise,
    # except in Algorithm 4, whose prior psi and df grow with n (replace-one)
    expect_identical(r$n_public, alg4)
    expect_identical(is.na(r$n), !alg4)
    expect_match(r$guarantee, if (alg4) "n is public" else "n is not released")
    expect_false(any(vapply(r$params, function(v) is.matrix(v), logical(1))))
    expect_gt(min(eigen(r$estimate, TRUE, only.values = TRUE)$values), 0)
  }
  expect_output(print(rel[[3]]), "Additive Wishart")
  inf <- wishart_noise(x, eps, del, Inf, sigma_clip_inf = B)
  expect_false(has_guarantee(inf))
  expect_match(inf$guarantee, "NONE")
})

test_that("bad inputs and out-of-range parameters give clear errors", {
  x <- fixture()
  expect_error(wishart_noise(x, 1, del, B), "epsilon.*< 1.*Algorithm 3")
  expect_error(wishart_noise(x, 0, del, B), "epsilon.*> 0")
  expect_error(jl_ridge(x, eps, 0.5, B), "delta.*< 0.3678794.*Algorithm 1")
  expect_error(iwishart_posterior(x, eps, 0.4, B), "delta.*Algorithm 4")
  expect_error(iwishart_adaptive(x, eps, 0.4, B), "delta.*Algorithm 5")
  expect_error(jl_adaptive(x, eps, 1.2, B), "delta.*\\(0, 1\\)")
  expect_error(jl_ridge(x, eps, del, B, r = 4), "`r` must be >= 5")
  expect_error(jl_adaptive(x, eps, del, B, r0 = 2.5), "`r0` must be a single whole number")
  expect_error(iwishart_adaptive(x, eps, del, B, k0 = 3), "`k0` must be >= 4")
  expect_error(jl_ridge(x, eps, del), "clip.*required")
  expect_error(jl_ridge(x, eps, del, -1), "`clip` must be > 0")
  expect_error(jl_ridge(second_moment(x, B), eps, del, B, method = "explicit"), "explicit.*data matrix")
  expect_error(jl_ridge(x, eps, del, B, method = "fast"), "`method` must be one of")
  expect_error(wishart_noise(x, eps, del, Inf), "sigma_clip_inf")
  xna <- x; xna[2, 2] <- NA
  expect_error(wishart_noise(xna, eps, del, B), "NA or NaN")
  expect_error(wishart_noise("a", eps, del, B), "numeric matrix")
  expect_error(wishart_noise(x, eps, del, B, shift = NA), "`shift` must be TRUE or FALSE")
  expect_error(analyze_gauss(x, eps, del, B, post = "clip"), "`post` must be one of")
  expect_error(iwishart_posterior(cbind(x, x[, 1]), eps, del, B) , NA)  # prior ridge makes it PD
  expect_error(analyze_gauss_shift(0, 1), "`p` must be >= 1")
})

test_that("clip = Inf with data far beyond sigma_clip_inf: a classed data refusal before the draw (audit)", {
  # r* and k* grow as the square of lambda_min(A'A) / sigma_clip_inf^2: they
  # overflowed into a release of NaN ('not a valid dp_release'), an Inf x (n + d)
  # explicit projection, or 'degrees of freedom = Inf' naming `df`
  set.seed(4)
  x <- matrix(rnorm(600), 200, 3)
  calls <- list(
    function() jl_adaptive(x * 1e150, 0.9, 1e-6, clip = Inf, sigma_clip_inf = 1),
    function() jl_adaptive(x * 1e60, 0.9, 1e-6, clip = Inf, sigma_clip_inf = 1),
    function() jl_adaptive(x * 1e150, 0.9, 1e-6, clip = Inf, sigma_clip_inf = 1, method = "explicit"),
    function() iwishart_adaptive(x * 1e150, 0.9, 1e-6, clip = Inf, sigma_clip_inf = 1),
    function() jl_ridge(x * 1e147, 0.9, 1e-6, clip = Inf, sigma_clip_inf = 1, r = 1e12))
  for (f in calls) {
    set.seed(1)
    e <- expect_error(expect_no_warning(f()), class = "dpcov_data_error")
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "too large for .* with `clip` = Inf.*give a finite `clip`")
  }
  # the controls: data nearer sigma_clip_inf's scale are released, finite
  for (f in list(function() jl_adaptive(x * 1e50, 0.9, 1e-6, clip = Inf, sigma_clip_inf = 1),
                 function() iwishart_adaptive(x * 1e75, 0.9, 1e-6, clip = Inf, sigma_clip_inf = 1),
                 function() jl_adaptive(x * 1e150, 0.9, 1e-6, clip = 1))) {
    set.seed(1)
    r <- suppressWarnings(f())
    expect_true(all(is.finite(r$estimate)))
  }
})

test_that("clip = Inf with a Gram beyond half the largest double: released where representable, else refused whatever the draw (audit)", {
  # (M + t(M)) / 2 overflowed at entries past 9e307, so a finite Gram gave a
  # release of Inf ('not a valid dp_release'), and psd_project turned a
  # finite matrix infinite
  x <- cbind(c(0.9e154, 0.5e154), c(1, 2))  # Gram entry 1.06e308
  set.seed(1)
  r <- analyze_gauss(x, 1, 1e-5, clip = Inf, sigma_clip_inf = 1, post = "psd")
  expect_true(all(is.finite(r$estimate)))
  expect_equal(r$estimate[1, 1], 1.06e308, tolerance = 1e-10)
  set.seed(1)
  expect_true(all(is.finite(suppressWarnings(wishart_noise(x, 0.5, 1e-5, clip = Inf, sigma_clip_inf = 1))$estimate)))
  M <- matrix(c(1e308, 1, 1, 2), 2)
  expect_equal(dpcov:::psd_project_cpp(M)$matrix, M)
  expect_equal(dpcov:::symmetric_part(M), M)
  # JL at r = 3: its diagonal is (G_jj + w2) chi^2_3; the check used the mean
  # (fourfold, about one draw in 140 over) and the release failed at random.
  # Now the same refusal every time, before the draw
  y <- cbind(sqrt(1.4e307), 1)
  out <- vapply(1:200, function(i) {
    tryCatch({ suppressWarnings(jl_ridge(y, 0.5, 1e-5, clip = Inf, sigma_clip_inf = 1, r = 3)); "released" },
             dpcov_data_error = function(e) "refused")
  }, "")
  expect_identical(unique(out), "refused")
  # and a Gram a hundred times smaller is released every time
  out <- vapply(1:200, function(i) {
    tryCatch({ suppressWarnings(jl_ridge(y / 10, 0.5, 1e-5, clip = Inf, sigma_clip_inf = 1, r = 3)); "released" },
             dpcov_data_error = function(e) "refused")
  }, "")
  expect_identical(unique(out), "released")
})

test_that("Sheffet's mechanisms refuse (epsilon, delta) where the appendix does not prove the main text's constant", {
  x <- fixture(n = 40, d = 3)
  dl <- 1e-5
  L4 <- log(4 / dl); L8 <- log(8 / dl)
  emax_jl <- function(r, L) { X <- 2 * sqrt(2 * r * L) + 2 * L; X * L / (X + L) }
  # Theorem B.1 >= Theorem 3.1's w^2 exactly beyond the boundary (plain R)
  b1 <- function(r, e, L) 1 + (1 + e / L) / e * (2 * sqrt(2 * r * L) + 2 * L)
  t31 <- function(r, e, L) 4 * (sqrt(2 * r * L) + L) / e
  e1 <- emax_jl(6, L4)
  expect_lt(b1(6, e1 * 0.99, L4), t31(6, e1 * 0.99, L4))
  expect_gt(b1(6, e1 * 1.01, L4), t31(6, e1 * 1.01, L4))
  cases <- list(
    list(f = function(e, d, b) jl_ridge(x, e, d, B, budget = b), lim = e1, arg = "epsilon"),
    list(f = function(e, d, b) jl_adaptive(x, e, d, B, budget = b), lim = 2 * emax_jl(6, L8), arg = "epsilon"),
    list(f = function(e, d, b) iwishart_posterior(x, e, d, B, budget = b), lim = L4, arg = "epsilon"),
    list(f = function(e, d, b) iwishart_adaptive(x, e, d, B, budget = b), lim = 2 * L8, arg = "epsilon"))
  for (cs in cases) {
    b <- dp_budget(1000, 0.5, neighbor = "replace-one")
    err <- expect_error(cs$f(cs$lim * 1.001, dl, b), class = "dpcov_error")
    expect_identical(err$arg, cs$arg)
    expect_match(conditionMessage(err), "Sheffet's proof", fixed = TRUE)
    expect_identical(budget_spent(b)$charges, 0L)
    expect_s3_class(suppressWarnings(cs$f(cs$lim * 0.999, dl, b)), "dp_release")
  }
  # Algorithm 3: Theorem B.3 needs delta < 1/6
  err <- expect_error(wishart_noise(x, 0.9, 1 / 6, B), class = "dpcov_error")
  expect_identical(err$arg, "delta")
  expect_s3_class(suppressWarnings(wishart_noise(x, 0.9, 0.166, B)), "dp_release")
  # dp_lm() refuses before any charge too
  d <- data.frame(a = rnorm(300), y = rnorm(300))
  b <- dp_budget(1000, 0.5, neighbor = "replace-one")
  expect_error(dp_lm(y ~ a, d, epsilon = 40, delta = dl, clip = 5, mechanism = "iwishart_posterior",
                     neighbor = "replace-one", budget = b, B = 0), class = "dpcov_error")
  expect_error(dp_lm(y ~ a, d, epsilon = 0.5, delta = 0.3, clip = 5, mechanism = "wishart", B = 0),
               class = "dpcov_error")
  expect_identical(budget_spent(b)$charges, 0L)
})

test_that("a posterior draw's print states its mean only where it is finite (df > p + 1)", {
  set.seed(3)
  x1 <- matrix(rnorm(1000), 1000, 1)
  r <- suppressWarnings(iwishart_adaptive(x1, 0.5, 1e-5, clip = 3))  # k0 = 2d = 2 = p + 1
  expect_identical(r$params$df, 2)
  out <- paste(capture.output(print(r)), collapse = " ")
  expect_match(out, "df <= p + 1, so E M is not finite", fixed = TRUE)
  expect_no_match(out, "(df - p - 1)", fixed = TRUE)
  r2 <- suppressWarnings(iwishart_posterior(matrix(rnorm(300), 100, 3), 0.5, 1e-5, clip = 3))
  expect_match(paste(capture.output(print(r2)), collapse = " "), "E M = (A'A + w I) / (df - p - 1)", fixed = TRUE)
})

test_that("the proof-range refusals come before every charge: dp_lm() after its bounds step, dp_cov()'s share, readers", {
  set.seed(1)
  X <- matrix(runif(3000), 1000, 3, dimnames = list(NULL, c("a", "b", "y")))
  df <- as.data.frame(X)
  rows <- function(b) nrow(dpcov:::check_budget(b)$ledger)
  # private bounds first (no clip, no bounds): refused before that step's charge and draws
  b <- dp_budget(100, 0.5)
  e <- expect_error(dp_lm(y ~ a + b, df, epsilon = 40, delta = 1e-6, mechanism = "jl_ridge", budget = b),
                    class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_match(conditionMessage(e), "leaves the mechanism epsilon = 20", fixed = TRUE)
  expect_identical(rows(b), 0L)
  # public bounds tightened first
  b <- dp_budget(100, 0.5, neighbor = "replace-one")
  expect_error(dp_lm(y ~ a + b, df, epsilon = 40, delta = 1e-6, lower = c(a = 0, b = 0, y = 0),
                     upper = c(a = 1, b = 1, y = 1), mechanism = "iwishart_posterior", neighbor = "replace-one",
                     budget = b), class = "dpcov_error")
  expect_identical(rows(b), 0L)
  # dp_cov()'s Wishart step gets (1 - split) of delta: its share must be below 1/6
  b <- dp_budget(100, 0.5)
  e <- expect_error(dp_cov(X, epsilon = 0.5, delta = 0.2, lower = 0, upper = 1, mechanism = "wishart", budget = b),
                    class = "dpcov_error")
  expect_identical(e$arg, "delta")
  expect_identical(rows(b), 0L)
  # a plain reader is neither read nor charged when r is given, or epsilon is beyond every r's bound
  reader <- function() {
    state <- new.env()
    state$read <- FALSE
    list(f = function() { if (state$read) return(NULL); state$read <- TRUE; X }, read = function() state$read)
  }
  b <- dp_budget(100, 0.5)
  rd <- reader()
  expect_error(jl_ridge(rd$f, epsilon = 40, delta = 1e-6, clip = 2, r = 6, budget = b), class = "dpcov_error")
  expect_false(rd$read())
  rd <- reader()
  expect_error(jl_adaptive(rd$f, epsilon = 40, delta = 1e-6, clip = 2, budget = b), class = "dpcov_error")
  expect_false(rd$read())
  expect_identical(rows(b), 0L)
})

test_that("clip = Inf with a rank-one Gram whose trace passes the largest double: released on every seed, summary prints (review)", {
  # the PSD projection rebuilt V diag(lam+) V' with the largest eigenvalue
  # (the trace, 2.4e308: Inf), so half the seeds failed on the release's own output
  x <- cbind(a = 1.09e154, b = 1.09e154, c = 0)
  for (s in 1:10) {
    set.seed(s)
    r <- suppressWarnings(analyze_gauss(x, 1, 1e-5, clip = Inf, sigma_clip_inf = 1, post = "psd"))
    expect_true(all(is.finite(r$estimate)))
  }
  M <- matrix(c(1.19e308, 1.19e308, 1.19e308, 1.18e308), 2)
  P <- dpcov:::psd_project_cpp(M)
  expect_true(all(is.finite(P$matrix)))
  expect_equal(P$n_negative, 1)
  # the projection equals the plain-R one on a scaled copy
  e <- eigen(M / 1e308, symmetric = TRUE)
  ref <- e$vectors %*% diag(pmax(e$values, 0)) %*% t(e$vectors) * 1e308
  expect_equal(P$matrix, ref, tolerance = 1e-12)
  set.seed(2)
  r <- suppressWarnings(analyze_gauss(x, 1, 1e-5, clip = Inf, sigma_clip_inf = 1, post = "none"))
  expect_output(print(summary(r)), "Inf")
})

test_that("Sheffet audit: an indefinite Gram, explicit JL with bounds, explicit sizes, study arguments, Algorithm 3's limits", {
  set.seed(1)
  h <- second_moment(matrix(rnorm(30), 10, 3), clip = 1)
  h$gram <- (1e6 / 3) * matrix(c(1, 1, -1, 1, 1, 1, -1, 1, 1), 3)   # eigenvalues 2a, 2a, -a: passes Cauchy-Schwarz
  h$n <- 1e6
  b <- dp_budget(10, 0.1, neighbor = "replace-one")
  for (f in list(iwishart_posterior, iwishart_adaptive, wishart_noise, jl_ridge, jl_adaptive)) {
    e <- expect_error(f(h, epsilon = 0.5, delta = 1e-4, clip = 1, budget = if (identical(f, iwishart_posterior)) b),
                      "not positive semidefinite", class = "dpcov_error")
    expect_identical(e$arg, "x")
  }
  expect_identical(budget_spent(b)$charges, 0L)
  # control: the statistics as computed are accepted (a rank-deficient Gram too)
  expect_s3_class(suppressWarnings(wishart_noise(second_moment(matrix(rnorm(300), 100, 3) %*% diag(c(1, 1, 0)), clip = 2),
                                                 0.5, 1e-4, clip = 2)), "dp_release")
  # explicit Wishart noise needs no rows: released with bounds, as before
  expect_s3_class(suppressWarnings(wishart_noise(matrix(rnorm(300), 100, 3, dimnames = list(NULL, c("a", "b", "c"))),
                                                 0.5, 1e-4, lower = -3, upper = 3, method = "explicit")), "dp_release")
  # explicit JL with bounds: refused for what it is, before a charge
  X <- matrix(rnorm(300), 100, 3, dimnames = list(NULL, c("a", "b", "c")))
  bb <- dp_budget(10, 0.1)
  for (f in list(jl_ridge, jl_adaptive)) {
    e <- expect_error(f(X, 0.5, 1e-4, lower = -3, upper = 3, method = "explicit", budget = bb),
                      "with per-column bounds", class = "dpcov_error")
    expect_identical(e$arg, "method")
  }
  expect_identical(budget_spent(bb)$charges, 0L)
  # an explicit projection too large: said in the method's words (it said "reduce `method`")
  e <- expect_error(jl_ridge(X, 0.5, 1e-4, clip = 2, r = 1e9, method = "explicit"), "use method = \"bartlett\"",
                    class = "dpcov_error")
  expect_identical(e$arg, "method")
  # Algorithm 3: delta's limit is 1/6 in its own words; k beyond 2^53 refused before the charge
  e <- expect_error(wishart_noise(X, 0.5, delta = 0.5, clip = 2), "needs delta < 1/6", class = "dpcov_error")
  expect_identical(e$arg, "delta")
  e <- expect_error(wishart_noise(X, epsilon = 1e-6, delta = 1e-300, clip = 2, budget = bb), "beyond 2\\^53",
                    class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_identical(budget_spent(bb)$charges, 0L)
  # dp_as_cov() on a Sheffet sum does not advise a `neighbor` the mechanisms lack
  e <- expect_error(dp_as_cov(jl_ridge(X, 0.5, 1e-4, clip = 2)), "leave n private", class = "dpcov_error")
  expect_no_match(conditionMessage(e), "neighbor =")
  # the study: the default m fits p; m refused where the figure has no labels
  st <- suppressWarnings(sheffet_study("multiple", n = 2^8, epsilon = 0.5, reps = 1, p = 3))
  expect_identical(sort(unique(summary(st)$m)), c(0, 1, 2))
  expect_error(sheffet_study("multiple", n = 2^8, epsilon = 0.5, reps = 1, p = 3, m = 5), class = "dpcov_error")
  e <- expect_error(plot(st, figure = 4, m = 1), "applies to figure 5", class = "dpcov_error")
  expect_identical(e$arg, "m")
})

test_that("dp_lm() on an inverse-Wishart release states its count noise on the sum's scale, takes df <= p + 3, and refuses the mechanism's share before the charge", {
  set.seed(22)
  x <- rnorm(3000)
  A <- cbind(one = 1, x = x, y = 1 + 2 * x + rnorm(3000))
  r <- suppressWarnings(iwishart_adaptive(A, epsilon = 0.5, delta = 1e-5, clip = 4, k0 = 40))
  fit <- suppressWarnings(dp_lm(r, y ~ x, ones = "one", B = 20))
  # the draw's sd times df - p - 1, as release_sum() rescales the draw
  expect_equal(fit$n_noise_sd, release_noise_sd(r)[1, 1] * (r$params$df - 3 - 1))
  # against the spread of the count over releases (the plug-in sd is within
  # a factor 2 of it; the draw's own sd, the old value, is 1/36 of it)
  nh <- replicate(200, release_sum(suppressWarnings(iwishart_adaptive(A, 0.5, 1e-5, clip = 4, k0 = 40)))[1, 1])
  expect_true(fit$n_noise_sd > sd(nh) / 2 && fit$n_noise_sd < 2 * sd(nh))
  expect_false(release_noise_sd(r)[1, 1] > sd(nh) / 2)
  # df - p <= 3 (the default k0 = 2d with three columns): a draw with no
  # finite variance, a count noise sd of Inf, and a fit its methods take
  set.seed(19)
  r3 <- suppressWarnings(iwishart_adaptive(A[1:2000, ], 0.5, 1e-5, clip = 4))
  expect_true(r3$params$df - 3 <= 3)
  fit3 <- suppressWarnings(dp_lm(r3, y ~ x, ones = "one", B = 20))
  expect_identical(fit3$n_noise_sd, Inf)
  expect_length(coef(fit3), 2L)
  expect_output(print(summary(fit3)), "Coefficients")
  # the mechanism's share, after the bounds' step, refused before any charge
  d <- data.frame(a = rnorm(500))
  d$y <- d$a + rnorm(500)
  b <- dp_budget(5, 0.01)
  e <- expect_error(dp_lm(y ~ a, d, epsilon = 0.5, delta = 1e-4, mechanism = "jl_ridge", bound_share = 0.4999999, budget = b),
                    "leaves the jl_ridge mechanism epsilon", class = "dpcov_error")
  expect_identical(e$arg, "bound_share")
  e <- expect_error(dp_lm(y ~ a, d, epsilon = 2.2e-6, delta = 1e-300, mechanism = "wishart", budget = b),
                    "beyond 2\\^53", class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_identical(budget_spent(b)$charges, 0L)
  # control: a share in range is released and charged
  expect_s3_class(suppressWarnings(dp_lm(y ~ a, d, epsilon = 0.5, delta = 1e-4, mechanism = "jl_ridge", budget = b)), "dp_lm")
  expect_true(budget_spent(b)$charges > 0L)
  # a limit in a refusal is rounded down, never above the value refused
  e <- expect_error(iwishart_posterior(A[1:10, ], log(4 / 1e-4) * 1.0000001, 1e-4, clip = 3), class = "dpcov_error")
  expect_match(conditionMessage(e), "epsilon <= ln(4 / delta) = 10.59663;", fixed = TRUE)
  expect_error(sheffet_study(delta = 0.2), "must be < 0.1666666 ", class = "dpcov_error")
})
