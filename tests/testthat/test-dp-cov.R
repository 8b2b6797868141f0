# dp_cov(): private covariance centred at a private mean; what every release
# estimates (scale, centred, ridge) and dp_as_cov().

# Data with large means (50, 75, 50), unit-scale spread, correlated columns.
big_mean_data <- function(n) {
  z <- matrix(rnorm(n * 3), n, 3)
  x <- cbind(a = z[, 1] + 50, b = z[, 2] + 0.5 * z[, 1] + 75, c = z[, 3] + 50)
  x
}

# The two Gaussian steps of dp_cov()'s row-norm path with Analyze Gauss
# (analytic calibration, delta > 0), composed by zCDP: rho(epsilon, delta)
# less the private clips' epsilon_b^2 / 8 each, less a margin of 1e-6 of it,
# shared in proportion to split^2 and (1 - split)^2; each step runs as the
# analytic Gaussian at its exact epsilon for that noise at its share of
# delta. Returns the steps' (epsilon, delta) and noise-to-sensitivity ratios.
ref_zcdp_steps <- function(epsilon, delta, split, rho_before = 0) {
  rho <- (dpcov:::zcdp_rho(epsilon, delta) - rho_before) * (1 - 1e-6)
  w <- c(split, 1 - split)^2
  ratio <- 1 / sqrt(2 * rho * w / sum(w))
  d <- c(split, 1 - split) * delta
  e <- mapply(dpcov:::gaussian_mechanism_epsilon, ratio, d)
  list(epsilon = e, delta = d, ratio = mapply(function(a, b) gaussian_sigma(1, a, b), e, d))
}

# Plain-R dp_cov() (add/remove, Analyze Gauss, analytic), drawing from R's RNG
# in the same order: the p noisy sums and the scaled count, then the upper
# triangle of the symmetric noise column by column.
ref_dp_cov <- function(x, epsilon, delta, clip, clip_mean, split) {
  n <- nrow(x); p <- ncol(x)
  st <- ref_zcdp_steps(epsilon, delta, split)
  s1 <- sqrt(2) * clip_mean * st$ratio[1]
  norms <- sqrt(rowSums(x^2))
  sums <- colSums(x * ifelse(norms > clip_mean, clip_mean / norms, 1))
  noisy <- c(sums, clip_mean * n) + s1 * rnorm(p + 1)
  n_hat <- max(2, noisy[p + 1] / clip_mean)
  mu <- noisy[1:p] / n_hat
  G <- ref_clipped_gram(sweep(x, 2, mu), clip)
  s2 <- clip^2 * st$ratio[2]
  N <- matrix(0, p, p)
  for (j in 1:p) for (i in 1:j) {
    z <- s2 * rnorm(1)
    N[i, j] <- N[i, j] + z
    if (i != j) N[j, i] <- N[j, i] + z
  }
  C <- (G + N - diag(s1^2 / n_hat, p)) / n_hat
  e <- eigen(C, symmetric = TRUE)
  list(cov = e$vectors %*% diag(pmax(e$values, 0)) %*% t(e$vectors), center = mu, n_hat = n_hat)
}

test_that("the row-norm path's two Gaussian steps compose by zCDP within the budget, with less noise than basic composition", {
  for (e in c(0.1, 1, 4)) for (sp in c(0.3, 0.6)) for (nb in c(0, 2)) {
    rho_b <- nb * (0.15 * e)^2 / 8
    st <- ref_zcdp_steps(e, 1e-6, sp, rho_b)
    # the steps' rho (from the noise each actually calibrates to) fit in the budget's
    total <- rho_b + sum(1 / (2 * st$ratio^2))
    expect_lte(total, dpcov:::zcdp_rho(e, 1e-6))
    expect_gt(total, dpcov:::zcdp_rho(e, 1e-6) * (1 - 1e-5))
    expect_lte(dpcov:::zcdp_epsilon(total, 1e-6), e)
    # each step's own guarantee is exact at its delta (Balle and Wang's delta at that epsilon)
    for (i in 1:2) {
      expect_lte(dpcov:::gaussian_mechanism_delta(st$ratio[i], 1, st$epsilon[i]), st$delta[i] * (1 + 1e-6))
    }
    # less noise than basic composition at the shares of epsilon (after the clips' epsilon)
    er <- e - nb * 0.15 * e
    expect_true(all(st$ratio < c(gaussian_sigma(1, sp * er, sp * 1e-6), gaussian_sigma(1, (1 - sp) * er, (1 - sp) * 1e-6))))
  }
  # the package plans the same noise: params, the guarantee's words, the ledger
  set.seed(4)
  x <- big_mean_data(400)
  b <- dp_budget(1, 1e-6)
  r <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 110, split = 0.3, budget = b)
  st <- ref_zcdp_steps(1, 1e-6, 0.3)
  expect_identical(r$params$composition, "zCDP")
  expect_equal(c(r$params$epsilon_mean, r$params$epsilon_second), st$epsilon)
  expect_equal(r$params$sigma_mean, sqrt(2) * 110 * st$ratio[1])
  expect_equal(r$params$sigma_second, 25 * st$ratio[2])
  expect_lte(budget_spent(b)$epsilon, 1)
  expect_equal(budget_spent(b)$epsilon, 1, tolerance = 1e-5)
  # an under-noised control: 3% less noise in the second step exceeds the budget
  expect_gt(dpcov:::zcdp_epsilon(sum(1 / (2 * (st$ratio * c(1, 0.97))^2)), 1e-6), 1)
  # the classic calibration and the other second mechanisms keep basic composition
  rc <- dp_cov(x, 0.9, 1e-6, clip = 5, clip_mean = 110, calibration = "classic")
  expect_identical(rc$params$composition, "basic")
  expect_equal(rc$params$epsilon_mean + rc$params$epsilon_second, 0.9)
  expect_match(rc$guarantee, "^\\(0.9, 1e-06\\)-differential privacy by basic composition")
  rw <- dp_cov(x, 0.5, 1e-6, clip = 5, clip_mean = 110, mechanism = "wishart")
  expect_false(grepl("zero-concentrated", rw$guarantee))
  # private clips: their rho counted before the Gaussians'
  b2 <- dp_budget(1, 1e-6, neighbor = "replace-one")
  r2 <- dp_cov(x, 1, 1e-6, budget = b2, neighbor = "replace-one", clip_mean = 110)
  expect_lte(budget_spent(b2)$epsilon, 1)
  st2 <- ref_zcdp_steps(1, 1e-6, 0.6, 0.15^2 / 8)
  expect_equal(c(r2$params$epsilon_mean, r2$params$epsilon_second), st2$epsilon)
  expect_match(r2$guarantee, "the private bounds' rho = 0.002812", fixed = TRUE)
})

test_that("dp_cov equals a plain-R reference under the same seed", {
  set.seed(1)
  x <- big_mean_data(500)
  set.seed(2); r <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 110)
  set.seed(2); ref <- ref_dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 110, split = 0.6)
  expect_equal(unname(r$estimate), ref$cov, tolerance = 1e-9)
  expect_equal(unname(r$center), unname(ref$center), tolerance = 1e-12)
  expect_equal(r$params$n_noisy, ref$n_hat)
})

test_that("dp_cov is close to stats::cov() on data with means 50 (tolerance from the calibration, 20 seeds)", {
  n <- 40000; p <- 3; eps <- 1; del <- 1e-6; clip <- 7; clip_mean <- 110; split <- 0.6
  st <- ref_zcdp_steps(eps, del, split)
  s_mean <- sqrt(2) * clip_mean * st$ratio[1]
  s_second <- clip^2 * st$ratio[2]
  # entry sd of the covariance error: the second-moment noise over n, the
  # centring error's squares (sd sqrt(2) (s_mean / n)^2 around the correction),
  # plus the noisy count's relative error times the entries (all below 3)
  entry_sd <- s_second / n + 2 * (s_mean / n)^2 + 3 * s_mean / (clip_mean * n)
  # every entry within 6 sd (p.s. the projection onto the PSD cone only moves
  # the estimate closer to the PSD truth in Frobenius norm)
  tol_frob <- 6 * entry_sd * p
  # the centre: sums' noise over n and the count's relative error times the mean
  tol_center <- 6 * (s_mean / n + 80 * s_mean / (clip_mean * n))
  for (seed in 1:20) {
    set.seed(seed)
    x <- big_mean_data(n)
    r <- dp_cov(as.data.frame(x), eps, del, clip = clip, clip_mean = clip_mean)
    expect_lt(norm(r$estimate - stats::cov(x), "F"), tol_frob)
    expect_lt(max(abs(r$center - colMeans(x))), tol_center)
  }
  expect_lt(tol_frob, 0.4)  # the tolerance is informative: the entries are near 1
})

test_that("dp_cov has a guarantee by default that states both shares, and keeps column names", {
  set.seed(3)
  x <- as.data.frame(big_mean_data(300))
  r <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 110)
  expect_s3_class(r, c("dp_cov", "dp_release"))
  expect_true(has_guarantee(r))
  expect_match(r$guarantee, "^\\(1, 1e-06\\)-differential privacy by zero-concentrated composition")
  # each step's own guarantee, at its share of delta
  expect_match(r$guarantee, sprintf("(%s, 6e-07)-DP; raw rows clipped to L2 norm <= 110",
                                    format(r$params$epsilon_mean)), fixed = TRUE)
  expect_match(r$guarantee, sprintf("(%s, 4e-07)-DP; centred rows clipped to L2 norm <= 5",
                                    format(r$params$epsilon_second)), fixed = TRUE)
  expect_identical(dimnames(r$estimate), list(c("a", "b", "c"), c("a", "b", "c")))
  expect_named(r$center, c("a", "b", "c"))
  expect_identical(r$scale, "covariance")
  expect_true(r$centred)
  expect_true(is.na(r$n))          # add/remove: n not released ...
  expect_true(is.finite(r$params$n_noisy))  # ... a noisy count is
  expect_equal(c(r$params$epsilon_mean, r$params$epsilon_second), ref_zcdp_steps(1, 1e-6, 0.6)$epsilon)
  expect_output(print(r), "Estimates: the covariance matrix, centred at a private mean")
  expect_gte(min(eigen(r$estimate, only.values = TRUE)$values), -1e-10)
  rc <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 110, type = "correlation")
  expect_identical(rc$scale, "correlation")
  expect_equal(unname(diag(rc$estimate)), rep(1, 3))
  r1 <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 110, neighbor = "replace-one", divisor = "n - 1")
  expect_identical(r1$n, 300)
  expect_match(r1$guarantee, "n is public")
  for (m in c("threshold", "wishart")) {
    rm <- dp_cov(x, 0.5, 1e-6, clip = 5, clip_mean = 110, mechanism = m,
                 neighbor = if (m == "threshold") "replace-one" else "add-remove")
    expect_true(has_guarantee(rm))
    expect_identical(rm$params$second_mechanism, m)
  }
})

test_that("dp_cov holds no noiseless statistic (leak scanner, with its secrets)", {
  X <- audit_matrix(60, 4) * 3 + 5
  X2 <- X + 0.013 * cos(outer(seq_len(60), 1:4, function(i, j) 0.71 * i + 1.3 * j))
  secrets <- function(x, r) {
    centred <- sweep(x, 2, r$center)
    list(mean_step = leak_secrets(x, 12), second = leak_secrets(x, 2),
         centred = leak_secrets(centred, 2)[c("raw", "clipped")])
  }
  for (m in c("analyze_gauss", "threshold", "wishart")) {
    for (nb in if (m == "threshold") c("replace-one", "zero-out") else c("add-remove", "replace-one")) {
      set.seed(7); r <- dp_cov(X, 0.5, 1e-5, clip = 2, clip_mean = 12, mechanism = m, neighbor = nb)
      set.seed(8); r2 <- dp_cov(X2, 0.5, 1e-5, clip = 2, clip_mean = 12, mechanism = m, neighbor = nb)
      expect_no_leak(r, secrets(X, r), rerun = r2, rerun_secrets = secrets(X2, r2),
                     label = paste("dp_cov", m, nb))
      expect_length(calls_with_values(r), 0L)
    }
  }
  # one pass, from the statistics (which hold the sums and the Gram)
  set.seed(7); r <- dp_cov(second_moment(X, 12), 0.5, 1e-5)
  set.seed(8); r2 <- dp_cov(second_moment(X2, 12), 0.5, 1e-5)
  expect_no_leak(r, secrets(X, r), rerun = r2, rerun_secrets = secrets(X2, r2), label = "dp_cov one pass")
  r <- do.call(dp_cov, list(as.data.frame(X), 0.5, 1e-5, clip = 2, clip_mean = 12, type = "correlation"))
  expect_identical(r$call[[2]], as.symbol("<data>"))
  expect_no_leak(r, secrets(X, r), label = "dp_cov correlation via do.call")
})

test_that("noise audit: the mean step's noise is N(0, sigma^2); an under-noised control fails", {
  X <- audit_matrix(400, 3) * 4 + 2
  clip_mean <- 5
  norms <- sqrt(rowSums(X^2))
  sums <- colSums(X * ifelse(norms > clip_mean, clip_mean / norms, 1))
  set.seed(9)
  for (nb in c("add-remove", "replace-one", "zero-out")) {
    st <- ref_zcdp_steps(2, 1e-6, 0.6)
    sigma <- dpcov:::mean_step_sigma(clip_mean, nb, st$epsilon[1], st$delta[1])
    expect_equal(sigma, c("add-remove" = sqrt(2), "replace-one" = 2, "zero-out" = 1)[[nb]] * clip_mean * st$ratio[1])
    draw <- function() dp_cov(X, 2, 1e-6, clip = 2, clip_mean = clip_mean, neighbor = nb)
    pivot <- function(r) {
      if (nb == "add-remove") {
        n_hat <- r$params$n_noisy  # the noisy count is far above the floor of 2
        c(r$center * n_hat - sums, clip_mean * (n_hat - 400)) / sigma
      } else {
        (r$center * 400 - sums) / sigma
      }
    }
    reps <- if (extended_tests()) 300 else 100
    expect_true(privacy_audit(draw, pivot, reps))
    # the same releases, judged as if half the noise had been added, fail
    expect_false(privacy_audit(draw, function(r) 2 * pivot(r), reps))
  }
})

test_that("noise audit: the second-moment step given the released mean; an under-noised control fails", {
  # n large enough that the projection to the PSD cone is inactive, so the
  # noisy centred sum is recovered exactly from the estimate (n is public)
  set.seed(10)
  X <- matrix(rnorm(3000 * 3), 3000, 3) + 4
  clip <- 3
  sigma <- sqrt(2) * clip^2 * ref_zcdp_steps(1, 1e-6, 0.6)$ratio[2]
  draw <- function() dp_cov(X, 1, 1e-6, clip = clip, clip_mean = 12, neighbor = "replace-one")
  pivot <- function(r) {
    S <- r$estimate * 3000 + diag(r$params$mean_correction, 3)
    G <- ref_clipped_gram(sweep(X, 2, r$center), clip)
    upper_entries(S - G) / sigma
  }
  expect_true(privacy_audit(draw, pivot, 300))
  expect_false(privacy_audit(draw, function(r) 2 * pivot(r), 300))
})

test_that("a re-readable chunk reader gives the release of the matrix; a one-shot reader is refused", {
  set.seed(11)
  x <- big_mean_data(700)
  i <- 0
  reader <- function() {
    if (i >= 700) { i <<- 0; return(NULL) }
    rows <- (i + 1):min(i + 250, 700); i <<- i + 250
    x[rows, , drop = FALSE]
  }
  set.seed(12); a <- dp_cov(reader, 1, 1e-6, clip = 5, clip_mean = 110)
  set.seed(12); b <- dp_cov(x, 1, 1e-6, clip = 5, clip_mean = 110)
  expect_equal(a$estimate, b$estimate, tolerance = 1e-10)
  expect_equal(a$center, b$center)
  done <- FALSE
  once <- function() if (done) NULL else { done <<- TRUE; x }
  e <- expect_error(dp_cov(once, 1, 1e-6, clip = 5, clip_mean = 110), class = "dpcov_error")
  expect_identical(e$arg, "x")
  expect_match(conditionMessage(e), "reads the reader twice")
})

test_that("hostile inputs to dp_cov give classed errors that say what to do", {
  x <- big_mean_data(50)
  err <- function(expr, arg, pattern = NULL) {
    e <- expect_error(expr, class = "dpcov_error")
    expect_identical(e$arg, arg)
    if (!is.null(pattern)) expect_match(conditionMessage(e), pattern)
  }
  na <- x; na[3, 2] <- NA
  err(dp_cov(na, 1, 1e-6, 5, 110), "x", "remove or impute")
  df <- as.data.frame(x); df$g <- factor(rep(c("u", "v"), 25))
  err(dp_cov(df, 1, 1e-6, 5, 110), "x", "model.matrix")
  df$g <- as.character(df$g)
  err(dp_cov(df, 1, 1e-6, 5, 110), "x", "non-numeric")
  s <- second_moment(x, 110)
  err(dp_cov(s, 1, 1e-6, 5), "clip", "differs from the bound")
  err(dp_cov(s, 1, 1e-6, clip_mean = 100), "clip_mean", "differs from the bound")
  no_sums <- s; no_sums["sum"] <- list(NULL)
  err(dp_cov(no_sums, 1, 1e-6), "x", "column sums")
  err(dp_cov(second_moment(x, Inf), 1, 1e-6), "x", "finite")
  forged <- s; forged$sum <- s$sum * 100
  err(dp_cov(forged, 1, 1e-6), "x", "column sums of the rows")
  forged$sum <- c(1, 2)
  err(dp_cov(forged, 1, 1e-6), "x", "p finite numbers")
  # n is public under replace-one: too few rows is a public fact
  err(dp_cov(second_moment(x[1, , drop = FALSE], 110), 1, 1e-6, neighbor = "replace-one"), "x", "at least 2 rows")
  err(dp_cov(x, 1, 1e-6, Inf, 110), "clip", "finite")
  err(dp_cov(x, 1, 1e-6, 5, bound_share = 0.7), "bound_share")
  err(dp_cov(x, 1, 1e-6, 5, bound_quantile = 2), "bound_quantile")
  err(dp_cov(x, 1, 1e-6, 5, bound_factor = -1), "bound_factor")
  for (v in list(c(10, 1), c(0, 1), NA, 1, c(1, Inf), "a")) err(dp_cov(x, 1, 1e-6, bound_range = v), "bound_range")
  err(dp_cov(x, 1, 1e-6, 5, -1), "clip_mean")
  err(dp_cov(x, 1, 1e-6, 5, 110, split = 1), "split")
  err(dp_cov(x, 1, 1e-6, 5, 110, split = 0), "split")
  err(dp_cov(x, 3, 1e-6, 5, 110, mechanism = "wishart"), "epsilon", "below 1")
  err(dp_cov(x, 1, 1e-6, 5, 110, mechanism = "bogus"), "mechanism")
  err(dp_cov(x, 1, 1e-6, 5, 110, type = "cor"), "type")
  err(dp_cov(x, 1, 1e-6, 5, 110, divisor = "n-1"), "divisor")
  err(dp_cov(x[, 1, drop = FALSE], 1, 1e-6, 5, 110, mechanism = "threshold", neighbor = "replace-one"), "mechanism")
  err(dp_cov(x[1, , drop = FALSE], 1, 1e-6, 5, 110, neighbor = "replace-one"), "x")
  err(dp_cov(x, 2, 1e-6, 5, 110, calibration = "classic"), "calibration")
})

# ---- what every release estimates ----------------------------------------------

test_that("every family records its scale and centring, prints it, and dp_as_cov converts or refuses", {
  set.seed(13)
  x <- matrix(rnorm(400 * 3), 400, 3) / 2 + 1
  colnames(x) <- c("a", "b", "c")
  mu <- colMeans(x)  # a stand-in for a private mean (tests only)
  scale_of <- function(r) c(r$scale, r$centred)
  # the sum A'A
  ag <- analyze_gauss(x, 0.5, 1e-5, clip = 3, neighbor = "replace-one")
  expect_identical(scale_of(ag), c("sum", "FALSE"))
  cv <- dp_as_cov(ag, center = mu)
  expect_identical(cv$scale, "covariance")
  expect_true(cv$centred)
  expect_equal(cv$estimate, ag$estimate / 400 - tcrossprod(mu), ignore_attr = TRUE)
  expect_match(cv$guarantee, "separately released mean")
  # a noisy covariance need not be PSD: correlations are kept in [-1, 1]
  expect_equal(dp_as_cov(ag, "correlation", center = mu)$estimate,
               pmin(pmax(stats::cov2cor(cv$estimate), -1), 1))
  # near-noiseless release: the conversion estimates the covariance (divisor n)
  big <- analyze_gauss(x, 1000, 0.1, clip = 5, neighbor = "replace-one")
  big_sd <- gaussian_sigma(sqrt(2) * 25, 1000, 0.1) / 400
  expect_lt(max(abs(dp_as_cov(big, center = mu)$estimate - cov(x) * 399 / 400)), 6 * big_sd)
  expect_lt(6 * big_sd, 0.02)
  # add/remove: n not released, so a sum cannot be divided by it
  e <- expect_error(dp_as_cov(analyze_gauss(x, 0.5, 1e-5, clip = 3), center = mu), class = "dpcov_error")
  expect_identical(e$arg, "release")
  e <- expect_error(dp_as_cov(ag), class = "dpcov_error")
  expect_identical(e$arg, "center")
  agp <- analyze_gauss(x, 0.5, 1e-5, clip = 3, post = "psd")
  expect_identical(agp$scale, "sum")
  # sum + ridge
  jl <- jl_ridge(x, 0.5, 1e-4, clip = 3)
  expect_identical(scale_of(jl), c("sum + ridge", "FALSE"))
  expect_identical(jl$ridge, jl$params$w2)
  expect_output(print(jl), "Estimates: A'A \\+ w I with public w")
  expect_error(dp_as_cov(jl, center = mu), class = "dpcov_error")
  ja <- jl_adaptive(x, 0.5, 1e-4, clip = 3)
  expect_identical(ja$scale, if (ja$params$w2 > 0) "sum + ridge" else "sum")
  w <- wishart_noise(x, 0.5, 1e-4, clip = 3)
  expect_identical(w$scale, "sum + ridge")
  expect_equal(w$ridge, w$params$k * 9)
  ws <- wishart_noise(x, 0.5, 1e-4, clip = 3, shift = TRUE)
  expect_identical(ws$scale, if (ws$params$shift_type == "expected") "sum" else "sum + ridge")
  expect_equal(ws$ridge, ws$params$k * 9 - ws$params$shift)
  # posterior sample: E M = (A'A + psi I) / (n - 1) for Algorithm 4
  iw <- iwishart_posterior(x, 0.5, 1e-4, clip = 3)
  expect_identical(scale_of(iw), c("posterior sample", "FALSE"))
  expect_output(print(iw), "Estimates: one posterior draw")
  expect_equal(dp_as_cov(iw, center = mu)$estimate,
               (iw$estimate * (iw$params$df - 4) - diag(iw$params$psi, 3)) / 400 - tcrossprod(mu),
               ignore_attr = TRUE)
  ia <- iwishart_adaptive(x, 0.5, 1e-4, clip = 3)
  expect_identical(ia$scale, "posterior sample")
  expect_error(dp_as_cov(ia, center = mu), class = "dpcov_error")  # n not released
  # averages
  th <- dp_threshold(x, 0.5, 1e-3, clip = 3)
  expect_identical(scale_of(th), c("average", "FALSE"))
  expect_equal(dp_as_cov(th, center = mu)$estimate, th$estimate - tcrossprod(mu), ignore_attr = TRUE)
  agg <- ldp_aggregate(ldp_perturb(x, 0.5, 1e-3, clip = 3))
  expect_identical(scale_of(agg), c("average", "FALSE"))
  expect_output(print(agg), "Estimates: A'A / n")
  # compressed rows
  cp <- suppressWarnings(dp_compress(matrix(rnorm(600), 200, 3), m = 60))
  expect_identical(scale_of(cp), c("compressed rows", "FALSE"))
  expect_output(print(cp), "not a second-moment matrix")
  e <- expect_error(dp_as_cov(cp), class = "dpcov_error")
  expect_identical(e$arg, "release")
  # dp_cov: covariance and correlation; dp_cov's own centre can centre others
  dc <- dp_cov(x, 1, 1e-6, clip = 3, clip_mean = 6)
  expect_identical(dp_as_cov(dc), dc)
  expect_equal(dp_as_cov(dc, "correlation")$estimate, stats::cov2cor(dc$estimate))
  expect_equal(dp_as_cov(th, center = dc)$estimate, th$estimate - tcrossprod(dc$center),
               ignore_attr = TRUE)
  dr <- dp_cov(x, 1, 1e-6, clip = 3, clip_mean = 6, type = "correlation")
  expect_identical(dp_as_cov(dr, "correlation"), dr)
  e <- expect_error(dp_as_cov(dr), class = "dpcov_error")
  expect_identical(e$arg, "to")
  e <- expect_error(dp_as_cov(th, center = 1:2), class = "dpcov_error")
  expect_identical(e$arg, "center")
})

test_that("a covariance with a non-positive diagonal is projected before scaling, and says so", {
  set.seed(14)
  r <- dp_cov(matrix(rnorm(300), 100, 3), 1, 1e-6, clip = 3, clip_mean = 4)
  r$estimate <- matrix(c(-1, 0.5, 0, 0.5, 2, 0.3, 0, 0.3, 1), 3)
  expect_warning(cr <- dp_as_cov(r, "correlation"), "projected to the PSD cone")
  expect_equal(diag(cr$estimate), rep(1, 3))
  expect_true(all(abs(cr$estimate) <= 1))
  expect_gte(min(eigen(cr$estimate, only.values = TRUE)$values), -1e-10)
})

test_that("check_release validates the scale fields of hand-made objects", {
  r <- analyze_gauss(matrix(rnorm(30), 10, 3), 0.5, 1e-5, clip = 1)
  bad <- function(obj) {
    e <- expect_error(print(obj), class = "dpcov_error")
    expect_identical(e$arg, "x")
  }
  bad(within(unclass(r), scale <- NULL) |> structure(class = class(r)))
  r1 <- r; r1$scale <- "bogus"; bad(r1)
  r1 <- r; r1$scale <- NA_character_; bad(r1)
  r1 <- r; r1$centred <- NA; bad(r1)
  r1 <- r; r1$ridge <- -1; bad(r1)
  r1 <- r; r1$scale <- "compressed rows"; bad(r1)
  r1 <- r; r1$scale <- "posterior sample"; bad(r1)  # no df
})

test_that("without any bounds, dp_cov chooses per-column bounds privately, then takes the box path, and says so", {
  set.seed(31)
  x <- big_mean_data(20000)
  set.seed(32)
  r <- dp_cov(x, epsilon = 1, delta = 1e-6)
  expect_true(has_guarantee(r))
  expect_identical(r$tuning$method, "private column bounds")
  expect_true(r$tuning$private)
  expect_identical(r$params$bounds_source, "private")
  # the budget: half of epsilon and delta on the bounds (their 8p choices
  # zCDP-composed), then one Gaussian mechanism on the mean and the Gram (the
  # mean's share 0.4 of the squared sensitivity-to-noise ratio, the box
  # default) with the rest of the zCDP budget: rho(1, 1e-6) less the bounds' rho
  cb <- r$params$column_bounds
  expect_identical(cb$composition, "zCDP")
  expect_equal(cb$epsilon, 0.5)
  expect_equal(cb$delta, 0.5e-6)
  expect_identical(r$params$composition, "zCDP")
  rho_g <- dpcov:::zcdp_rho(1, 1e-6) - cb$rho
  expect_equal(r$params$mu_total, sqrt(2 * rho_g))
  # less noise than the analytic Gaussian at the rest by basic composition
  expect_gt(r$params$mu_total, 1 / gaussian_sigma(1, 0.5, 0.5e-6))
  # the Gaussian step's own guarantee: exact at its delta, above the rest's epsilon
  expect_equal(r$params$delta_steps, 0.5e-6)
  expect_equal(dpcov:::gaussian_mechanism_delta(1 / r$params$mu_total, 1, r$params$epsilon_steps), 0.5e-6,
               tolerance = 1e-6)
  expect_gt(r$params$epsilon_steps, 0.5)
  expect_equal(r$params$split, 0.4)
  expect_match(r$guarantee, "^\\(1, 1e-06\\)-differential privacy by zero-concentrated composition \\(the bounds' rho")
  expect_match(r$guarantee, "of per-column bounds chosen privately \\(\\(0.5, 5e-07\\)-differential privacy")
  # the box step's clamping clause names those bounds, not public ones (dp_lm() and dp_pca() likewise)
  expect_match(r$guarantee, "clamped to the per-column bounds chosen privately in the first step (params$bounds)",
               fixed = TRUE)
  expect_false(grepl("public per-column", r$guarantee, fixed = TRUE))
  d <- stats::setNames(as.data.frame(x), paste0("v", seq_len(ncol(x))))
  f <- dp_lm(v1 ~ v2, d, 1, 1e-6, B = 5)
  expect_match(f$release$guarantee, "clamped to the per-column bounds chosen privately in the first step", fixed = TRUE)
  expect_false(grepl("public per-column", f$guarantee, fixed = TRUE))
  pc <- dp_pca(x, epsilon = 1, delta = 1e-6)
  expect_false(grepl("public per-column", pc$guarantee, fixed = TRUE))
  # an explicit share is kept, and the classic calibration composes by basic composition
  r3 <- dp_cov(x, epsilon = 0.9, delta = 1e-6, bound_share = 0.1, calibration = "classic")
  expect_equal(r3$params$column_bounds$epsilon, 0.18)
  expect_identical(r3$params$composition, "basic")
  expect_equal(r3$params$epsilon_steps, 0.72)
  expect_equal(r3$params$mu_total, 1 / gaussian_sigma(1, 0.72, 0.8e-6, "classic"))
  expect_match(r3$guarantee, "^\\(0.9, 1e-06\\)-differential privacy by basic composition of per-column bounds")
  # the bounds are those of dp_column_bounds()'s mechanism under the same seed
  set.seed(32)
  b <- dpcov:::column_bounds_mechanism(x, cb$epsilon_quantile, 1e6, 0.01, 16, 0.25, 2)
  expect_equal(r$params$bounds$lower, b$lower)
  expect_equal(r$params$bounds$upper, b$upper)
  # and the estimate is useful: close to stats::cov() at this n
  expect_lt(max(abs(r$estimate - stats::cov(x))), 0.5)
  # (a rerun on other data, of another spread: the estimate, close to cov(x), may equal a variance or
  # an sd near 1 to 4 digits by chance; a leaked statistic would show in both)
  x2 <- big_mean_data(20000) * 1.3
  r2 <- dp_cov(x2, epsilon = 1, delta = 1e-6)
  expect_no_leak(r, leak_secrets(x), rerun = r2, rerun_secrets = leak_secrets(x2))
  # the print says when the bounds clamp many rows (here they do not)
  expect_false(any(grepl("WARNING", wide_output(print(r)))))
  small <- dp_cov(x[1:300, ], epsilon = 0.5, delta = 1e-6)
  expect_true(any(grepl("WARNING: n * epsilon is too small for private bounds", wide_output(print(small)),
                        fixed = TRUE)))
  # one row-norm bound given: the row-norm path, the other bound chosen privately with its share
  set.seed(33)
  r1 <- dp_cov(x, epsilon = 1, delta = 1e-6, clip_mean = 120)
  expect_identical(r1$tuning$method, "private clipping bound")
  expect_named(r1$tuning$value, "clip")
  # the private clip (0.15 of epsilon, an exponential mechanism: 0.15^2/8-zCDP) and the two Gaussians by zCDP
  expect_equal(c(r1$params$epsilon_mean, r1$params$epsilon_second), ref_zcdp_steps(1, 1e-6, 0.6, 0.15^2 / 8)$epsilon)
})

test_that("from a reader without bounds, the row-norm path chooses both bounds privately", {
  set.seed(31)
  x <- big_mean_data(5000)
  done <- FALSE
  reader <- function() {
    if (done) { done <<- FALSE; return(NULL) }
    done <<- TRUE
    x
  }
  set.seed(32)
  r <- dp_cov(reader, epsilon = 1, delta = 1e-6)
  expect_identical(r$tuning$method, "private clipping bound")
  expect_named(r$tuning$value, c("clip_mean", "clip"))
  expect_equal(c(r$params$epsilon_mean, r$params$epsilon_second), ref_zcdp_steps(1, 1e-6, 0.6, 2 * 0.15^2 / 8)$epsilon)
  expect_match(r$guarantee, "clipping bound\\(s\\) privately \\(0.3-DP in all\\)")
  expect_match(r$guarantee, "the private bounds' rho = 0.005625", fixed = TRUE)
  set.seed(32)
  b1 <- 2 * dp_clip_bound(x, 0.15, quantile = 0.5, count_share = 0)$bound
  expect_equal(r$params$clip_mean, b1)
  set.seed(34)
  r2 <- dp_cov(reader, epsilon = 1, delta = 1e-6, bound_range = c(500, 1000))
  expect_gte(r2$params$clip_mean, 2 * 500)
  expect_lte(r2$params$clip_mean, 2 * 1000)
})

# ---- one pass: dp_cov() from sufficient statistics --------------------------------

# Plain-R one-pass dp_cov() (Analyze Gauss, analytic): the noisy sums (and
# scaled count under add/remove), then the symmetric noise column by column.
ref_dp_cov_one_pass <- function(x, epsilon, delta, clip, split, neighbor) {
  n <- nrow(x); p <- ncol(x)
  st <- ref_zcdp_steps(epsilon, delta, split)
  sens1 <- if (neighbor == "add-remove") sqrt(2) * clip else 2 * clip
  s1 <- sens1 * st$ratio[1]
  norms <- sqrt(rowSums(x^2))
  xc <- x * ifelse(norms > clip, clip / norms, 1)
  if (neighbor == "add-remove") {
    noisy <- c(colSums(xc), clip * n) + s1 * rnorm(p + 1)
    n_hat <- max(2, noisy[p + 1] / clip)
  } else {
    noisy <- colSums(xc) + s1 * rnorm(p)
    n_hat <- n
  }
  mu <- noisy[1:p] / n_hat
  s2 <- (if (neighbor == "add-remove") clip^2 else sqrt(2) * clip^2) * st$ratio[2]
  N <- matrix(0, p, p)
  for (j in 1:p) for (i in 1:j) {
    z <- s2 * rnorm(1)
    N[i, j] <- N[i, j] + z
    if (i != j) N[j, i] <- N[j, i] + z
  }
  C <- (crossprod(xc) + N - n_hat * tcrossprod(mu) + diag(s1^2 / n_hat, p)) / n_hat
  e <- eigen(C, symmetric = TRUE)
  list(cov = e$vectors %*% diag(pmax(e$values, 0)) %*% t(e$vectors), center = mu)
}

test_that("dp_cov from a dp_suffstat (one pass) equals a plain-R reference, from a matrix and a reader", {
  set.seed(3)
  x <- matrix(rnorm(600 * 3), 600, 3) %*% diag(c(1, 2, 0.5)) + 1
  colnames(x) <- c("a", "b", "c")
  i <- 0
  reader <- function() {
    if (i >= 600) return(NULL)
    rows <- (i + 1):min(i + 250, 600); i <<- i + 250
    x[rows, , drop = FALSE]
  }
  s_mat <- second_moment(x, 4)
  s_read <- second_moment(reader, 4)
  expect_gt(s_mat$n_clipped, 0)   # clipping active
  expect_equal(s_read$sum, s_mat$sum, tolerance = 1e-12)
  for (nb in c("add-remove", "replace-one")) {
    set.seed(9); r <- dp_cov(s_mat, 2, 1e-6, neighbor = nb)
    set.seed(9); r2 <- dp_cov(s_read, 2, 1e-6, neighbor = nb)
    set.seed(9); ref <- ref_dp_cov_one_pass(x, 2, 1e-6, 4, 0.6, nb)
    expect_equal(unname(r$estimate), ref$cov, tolerance = 1e-9)
    expect_equal(unname(r$center), unname(ref$center), tolerance = 1e-12)
    # the same noise; the statistics differ only by the reader's summation order
    expect_equal(r$estimate, r2$estimate, tolerance = 1e-12)
    expect_identical(dimnames(r$estimate), list(colnames(x), colnames(x)))
    expect_identical(r$params$passes, 1)
    expect_match(r$guarantee, "same clipped rows, uncentred")
    expect_match(r$guarantee, "(2, 1e-06)-differential privacy", fixed = TRUE)
    expect_identical(r$tuning$method, "none")
  }
  # every second-moment mechanism runs from the statistics
  set.seed(1); expect_s3_class(dp_cov(s_mat, 0.9, 1e-6, mechanism = "wishart"), "dp_cov")
  set.seed(1); expect_s3_class(dp_cov(s_mat, 2, 1e-6, mechanism = "threshold", neighbor = "replace-one"), "dp_cov")
  # the budget is charged for both steps, none for bounds
  b <- dp_budget(5, 1e-5)
  dp_cov(s_mat, 2, 1e-6, budget = b)
  expect_lte(budget_spent(b)$epsilon, 2)
  expect_equal(budget_spent(b)$epsilon, 2, tolerance = 1e-5)
  expect_identical(budget_spent(b)$releases, 1L)
  expect_identical(budget_spent(b)$charges, 2L)
})

test_that("one-pass dp_cov is unbiased for the clipped rows' covariance; omitting the centring correction fails", {
  # a noisy mean step (its bias term sigma_m^2 / n^2 is large) and a precise
  # second step, so the PSD projection is inactive and the mean is testable
  set.seed(11)
  n <- 1000
  x <- matrix(rnorm(n * 2), n, 2) %*% diag(c(1, sqrt(0.5)))
  s <- second_moment(x, 3)
  truth <- (s$gram - tcrossprod(s$sum) / n) / n
  eps <- 5.23; split <- 0.23 / eps
  R <- if (extended_tests()) 2000 else 400  # the control's |z| is about 28 at 2000, 12 at 400
  est <- matrix(0, R, 3); corr <- numeric(R)
  set.seed(12)
  for (k in seq_len(R)) {
    r <- dp_cov(s, eps, 2e-6, split = split, neighbor = "replace-one")
    est[k, ] <- r$estimate[c(1, 2, 4)]
    corr[k] <- r$params$mean_correction / n
  }
  expect_gt(mean(corr), 0.01)           # the correction matters
  zstat <- function(e) (colMeans(e) - truth[c(1, 2, 4)]) / (apply(e, 2, sd) / sqrt(R))
  crit <- stats::qnorm(1 - 1e-6 / 6)
  expect_true(all(abs(zstat(est)) < crit))
  # control: without the correction the diagonal is biased
  under <- est - cbind(corr, 0, corr)
  expect_true(any(abs(zstat(under)) > crit))
})

test_that("dp_as_cov() records the private mean it centred at, as print() says", {
  set.seed(91)
  x <- matrix(rnorm(30000, 5), 10000, 3, dimnames = list(NULL, c("a", "b", "c")))
  r <- dp_cov(x, 1, 1e-6, clip = 4, clip_mean = 12)
  ag <- analyze_gauss(x, 1, 1e-6, clip = 12, neighbor = "replace-one")
  for (center in list(r, unname(r$center))) {
    cv <- dp_as_cov(ag, center = center)
    expect_equal(cv$center, r$center)
    expect_equal(cv$estimate, (ag$estimate / 1e4 + t(ag$estimate / 1e4)) / 2 - tcrossprod(r$center),
                 ignore_attr = TRUE)
    expect_match(paste(wide_output(print(cv)), collapse = " "), "released in `center`", fixed = TRUE)
    expect_equal(dp_as_cov(ag, "correlation", center = center)$center, r$center)
  }
  # a release already centred keeps its own
  expect_identical(dp_as_cov(r, "correlation")$center, r$center)
})

test_that("data of logical columns alone take their coding [0, 1] as public bounds, with no at-bounds alarm", {
  set.seed(251)
  d <- data.frame(a = runif(400) < 0.3, b = runif(400) < 0.5)
  bud <- dp_budget(5, 1e-3)
  set.seed(2)
  r <- dp_cov(d, 1, 1e-4, budget = bud)
  led <- dpcov:::check_budget(bud)$ledger
  expect_identical(nrow(led), 1L)
  expect_equal(led$epsilon, 1)
  expect_identical(r$params$bounds_source, "public")
  expect_identical(r$params$coded_columns, c("a", "b"))
  expect_false("a" %in% names(r$diagnostics$at_bounds))
  expect_identical(r$diagnostics$level, "ok")
  # draw for draw the release with [0, 1] given as public bounds (logical
  # columns: coded there too); the same values as numbers, whose either-or
  # at-bounds message is the control
  set.seed(2)
  ref <- suppressWarnings(dp_cov(d, 1, 1e-4, lower = 0, upper = 1, tighten = FALSE))
  expect_identical(r$estimate, ref$estimate)
  expect_false(any(grepl("sit at their public bounds", ref$diagnostics$messages, fixed = TRUE)))
  set.seed(2)
  dnum <- as.data.frame(lapply(d, as.numeric))
  ctl <- suppressWarnings(dp_cov(dnum, 1, 1e-4, lower = 0, upper = 1, tighten = FALSE))
  expect_identical(ctl$estimate, r$estimate)
  expect_true(any(grepl("sit at their public bounds", ctl$diagnostics$messages, fixed = TRUE)))
  expect_identical(dp_cov(as.matrix(d), 1, 1e-4)$params$bounds_source, "public")
  e <- expect_error(dp_cov(d, 1, 1e-4, tighten = TRUE), class = "dpcov_error")
  expect_identical(e$arg, "tighten")
  # unnamed logical matrices and logical vectors too, with no at-bounds alarm and advice that fits
  set.seed(3)
  L <- matrix(runif(60000) < 0.5, 20000, 3)
  rL <- dp_cov(L, 1, 1e-6)
  expect_identical(rL$params$coded_columns, c("V1", "V2", "V3"))
  expect_identical(rL$diagnostics$level, "ok")
  expect_identical(dp_cov(runif(5000) < 0.1, 1, 1e-6)$params$bounds_source, "public")
  small <- suppressWarnings(dp_cov(matrix(runif(90) < .3, 30, 3, dimnames = list(NULL, c("a", "b", "c"))), 0.5, 1e-6))
  expect_true(any(grepl("the columns' coding [0, 1]", small$diagnostics$messages, fixed = TRUE)))
  expect_false(any(grepl("narrower public ranges", small$diagnostics$messages, fixed = TRUE)))
  # logical columns among numeric ones: their coding, the others' bounds chosen privately
  set.seed(5)
  dm <- data.frame(a = rnorm(20000), l = runif(20000) < 0.003, b = rnorm(20000) * 5)
  bm <- dp_budget(5, 1e-3)
  rm <- dp_cov(dm, 1, 1e-6, budget = bm)
  expect_identical(rm$params$bounds_source, "private")
  expect_identical(rm$params$coded_columns, "l")
  expect_equal(unlist(rm$params$bounds["l", ]), c(lower = 0, upper = 1))
  expect_identical(names(rm$params$column_bounds$scale), c("a", "b"))
  expect_match(rm$guarantee, "21 exponential mechanisms")  # 10 per non-logical column and the count
  expect_match(rm$guarantee, "the logical ones bounded by their coding [0, 1]", fixed = TRUE)
  v <- var(dm$l) * 19999 / 20000
  expect_gt(rm$estimate["l", "l"], v / 2)  # private bounds closed on 0: 7e-10 against 0.0034
  expect_lt(rm$estimate["l", "l"], 2 * v)
  # a numeric column among them keeps the private bounds (the control)
  d$x <- rnorm(400)
  expect_identical(suppressWarnings(dp_cov(d, 1, 1e-4))$params$bounds_source, "private")
})

test_that("a data frame of logical matrix columns alone is coded like a logical matrix, named as expanded", {
  # it took the private-bounds path and failed there, unclassed, after the charge
  set.seed(252)
  dl <- data.frame(id = seq_len(400))[, 0, drop = FALSE]
  dl$m <- matrix(runif(800) < 0.4, 400, 2)
  dl$l <- runif(400) < 0.6
  bud <- dp_budget(5, 1e-3)
  set.seed(4)
  r <- dp_cov(dl, 1, 1e-4, budget = bud)
  expect_identical(nrow(dpcov:::check_budget(bud)$ledger), 1L)
  expect_identical(r$params$bounds_source, "public")
  expect_identical(r$params$coded_columns, c("m.1", "m.2", "l"))
  expect_identical(rownames(r$params$bounds), c("m.1", "m.2", "l"))
  # draw for draw the release of the same columns as a logical matrix
  set.seed(4)
  ref <- dp_cov(as.matrix(dl), 1, 1e-4)
  expect_identical(r$estimate, ref$estimate)
  expect_identical(dimnames(r$estimate), list(c("m.1", "m.2", "l"), c("m.1", "m.2", "l")))
  # dp_column_bounds() codes them too, with the same names
  cb <- dp_column_bounds(dl, 1)
  expect_identical(cb$coded_columns, c("m.1", "m.2", "l"))
  expect_identical(rownames(cb$bounds), c("m.1", "m.2", "l"))
  # a numeric matrix column among them keeps the private bounds for its columns
  dl$z <- matrix(rnorm(800), 400, 2)
  rz <- suppressWarnings(dp_cov(dl, 1, 1e-4))
  expect_identical(rz$params$bounds_source, "private")
  expect_identical(rz$params$coded_columns, c("m.1", "m.2", "l"))
})

test_that("split's default is NULL, resolved by path; giving the documented default is the same release", {
  expect_null(formals(dp_cov)$split)
  set.seed(70)
  x <- big_mean_data(400)
  same <- function(args, split) {
    set.seed(71); a <- suppressWarnings(do.call(dp_cov, args))
    set.seed(71); b <- suppressWarnings(do.call(dp_cov, c(args, list(split = split))))
    # a wrapper that forwards split = NULL gets the default too
    set.seed(71); n <- suppressWarnings(do.call(dp_cov, c(args, list(split = NULL))))
    expect_identical(b$estimate, a$estimate)
    expect_identical(n$estimate, a$estimate)
    expect_identical(a$params$split, split)
  }
  box <- list(x = x, epsilon = 1, delta = 1e-6, lower = c(40, 60, 40), upper = c(60, 90, 60))
  same(box, 0.4)                                                   # public bounds, Analyze Gauss (joint)
  same(c(box, list(mechanism = "threshold", neighbor = "replace-one")), 0.15)  # public bounds, two steps
  same(utils::modifyList(box, list(mechanism = "wishart", epsilon = 0.5)), 0.15)
  same(list(x = x, epsilon = 1, delta = 1e-6), 0.4)                # private per-column bounds
  same(list(x = x > 50, epsilon = 1, delta = 1e-6), 0.4)           # logical columns: their coding
  same(list(x = x, epsilon = 1, delta = 1e-6, clip = 5, clip_mean = 110), 0.6)  # row-norm clips
  same(list(x = x, epsilon = 1, delta = 1e-6, clip = 5), 0.6)      # clip_mean chosen privately
  # a different split is a different release
  set.seed(71); a <- dp_cov(x, 1, 1e-6, lower = c(40, 60, 40), upper = c(60, 90, 60))
  set.seed(71); b <- dp_cov(x, 1, 1e-6, lower = c(40, 60, 40), upper = c(60, 90, 60), split = 0.6)
  expect_false(identical(a$estimate, b$estimate))
})

test_that("dp_cov() with bounds: each block's noise sd is its plain-R sensitivity over its share of the analytic Gaussian's ratio", {
  # a second line for the joint box calibration (test-box.R checks the release against a
  # plain-R reference): the sds the release records, from the box's sensitivities written out here
  analytic_mu <- function(eps, delta) {
    f <- function(mu) pnorm(mu / 2 - eps / mu) - exp(eps) * pnorm(-mu / 2 - eps / mu) - delta
    uniroot(f, c(1e-6, 100), tol = 1e-14)$root
  }
  set.seed(12)
  for (p in c(2, 5)) for (nb in c("replace-one", "add-remove")) for (eps in c(0.5, 2)) {
    x <- matrix(runif(400 * p), 400, p)
    r <- dp_cov(x, eps, 1e-6, lower = 0, upper = 1, neighbor = nb)
    mu <- analytic_mu(eps, 1e-6)
    expect_lte(r$params$mu_total, mu)
    expect_equal(r$params$mu_total, mu, tolerance = 1e-7)
    C <- sqrt(p) / 2  # rows of the centred unit box
    sens_mean <- if (nb == "replace-one") 2 * C else sqrt(2) * C  # add/remove: the count scaled by C
    sens_diag <- sqrt(p) / 4
    sens_off <- if (nb == "replace-one") C^2 else C^2 * sqrt((1 - 1 / p) / 2)
    expect_equal(r$params$sigma_mean, sens_mean / (sqrt(0.4) * r$params$mu_total), info = paste(p, nb, eps))
    expect_equal(r$params$sigma_second_diag, sens_diag / (sqrt(0.6 / 3) * r$params$mu_total))
    expect_equal(r$params$sigma_second, sens_off / (sqrt(0.6 * 2 / 3) * r$params$mu_total))
  }
})
