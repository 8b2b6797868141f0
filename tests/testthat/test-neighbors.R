# Brute-force audit of every (mechanism, neighbour notion) pair on the rows the
# mechanism actually sees: centred at a released mean (dp_cov), augmented with
# an intercept and a formula's terms (dp_lm), scaled, or raw. The worst
# neighbouring pair the search finds must never move the statistic more than
# the sensitivity the release's noise is calibrated for; the search must come
# close to it where the bound is tight (it has power); and the calibration
# that ignored the transformation (zero-out as B^2 on centred or intercept
# rows) must be exceeded by it (the control that fails).

notions <- c("add-remove", "replace-one", "zero-out")

test_that("dp_cov, mean step: no neighbour moves the clipped sums (and count) beyond the calibration", {
  set.seed(101)
  x <- cbind(rnorm(60, 10), rnorm(60, 10), rnorm(60, -5))
  C <- 20
  for (notion in notions) {
    r <- dp_cov(x, 1, 1e-6, clip = 2, clip_mean = C, neighbor = notion)
    stated <- stated_sensitivity(r$params$sigma_mean, r$params$epsilon_mean, r$params$delta_mean)
    f <- function(D) {
      s <- colSums(clip_rows(D, C))
      if (notion == "add-remove") c(s, C * nrow(D)) else s
    }
    found <- neighbor_search(f, x[1:30, ], neighbor_candidates(3, 1e3, toward = colMeans(x)), notion)
    expect_lte(found, stated * (1 + 1e-9))
    expect_gte(found, 0.97 * stated)
  }
})

test_that("dp_cov, second step: rows centred at the released mean, every notion and mechanism", {
  set.seed(102)
  x <- cbind(rnorm(60, 10), rnorm(60, 10), rnorm(60, -5))
  B <- 2
  for (mech in c("analyze_gauss", "threshold")) for (notion in notions) {
    if (mech == "threshold" && notion == "add-remove") {
      # its noise scale uses n, which add/remove keeps private: refused
      expect_error(dp_cov(x, 1, 1e-6, clip = B, clip_mean = 40, neighbor = notion, mechanism = mech),
                   class = "dpcov_error")
      next
    }
    r <- dp_cov(x, 1, 1e-6, clip = B, clip_mean = 40, neighbor = notion, mechanism = mech)
    mu <- unname(r$center)
    stated <- stated_sensitivity(r$params$sigma_second, r$params$epsilon_second, r$params$delta_second)
    # Analyze Gauss perturbs the centred sum, thresholding the average (n public)
    f <- function(D) {
      G <- crossprod(clip_rows(sweep(D, 2, mu), B))
      if (mech == "threshold") G / nrow(D) else G
    }
    base <- x[1:(nrow(x) - 1), ]
    found <- neighbor_search(f, base, neighbor_candidates(3, 1e3, toward = mu), notion)
    expect_lte(found, stated * (1 + 1e-9))
    expect_gte(found, 0.97 * stated)
    if (notion == "zero-out") {
      # the control: zero-out calibrated as if the zeroed record stayed the zero row
      naive <- second_moment_sensitivity(B, "zero-out", n = if (mech == "threshold") nrow(x) else NULL)
      expect_gt(found, 1.3 * naive)
    }
  }
})

test_that("dp_cov, second step with a small released mean: zero-out's sensitivity is sqrt(B^4 + |mu|^4), attained", {
  set.seed(103)
  x <- matrix(rnorm(150, 0.3), 50, 3)
  B <- 3
  r <- dp_cov(x, 2, 1e-6, clip = B, clip_mean = 6, neighbor = "zero-out")
  mu <- unname(r$center)
  w <- min(sqrt(sum(mu^2)), B)
  stated <- stated_sensitivity(r$params$sigma_second, r$params$epsilon_second, r$params$delta_second)
  expect_equal(stated, sqrt(B^4 + w^4), tolerance = 1e-8)
  found <- neighbor_search(function(D) crossprod(clip_rows(sweep(D, 2, mu), B)), x[1:20, ],
                           neighbor_candidates(3, 1e3, toward = mu), "zero-out")
  expect_lte(found, stated * (1 + 1e-9))
  expect_gte(found, 0.97 * stated)
})

test_that("dp_lm: intercept-augmented, scaled and transformed design rows, every notion", {
  set.seed(104)
  d <- data.frame(x1 = rnorm(40), x2 = rnorm(40), y = rnorm(40))
  B <- 1.5
  forms <- list(y ~ x1 + x2, y ~ x1 + I(x2 / 10), y ~ x1 + I(x1^2) - 1, I(y / 2 + 1) ~ x1 + exp(x2 / 400))
  for (fo in forms) for (notion in notions) {
    fit <- dp_lm(fo, d, 1, 1e-6, clip = B, neighbor = notion, B = 0)
    stated <- stated_sensitivity(fit$release$params$sigma, 1, 1e-6)
    tt <- stats::delete.response(stats::terms(fo))
    design <- function(D) {
      D <- as.data.frame(D)
      names(D) <- c("x1", "x2", "y")
      X <- stats::model.matrix(tt, stats::model.frame(tt, D))
      if (attr(tt, "intercept") == 0) X <- cbind(1, X)
      cbind(X, eval(fo[[2]], D))
    }
    f <- function(D) crossprod(clip_rows(design(D), B))
    base <- as.matrix(d[1:25, ])
    found <- neighbor_search(f, base, neighbor_candidates(3, 1e3, toward = c(1, 0, 0)), notion)
    expect_lte(found, stated * (1 + 1e-9))
    if (notion == "zero-out") {
      # the zeroed record's design row is not the zero row; B^2 alone is exceeded
      expect_gt(found, 1.05 * second_moment_sensitivity(B, "zero-out"))
    } else {
      expect_gte(found, 0.97 * stated)
    }
  }
})

test_that("dp_lm under zero-out calibrates for the zeroed record's own design row", {
  set.seed(105)
  d <- data.frame(x = rnorm(500), y = rnorm(500))
  # the issue's case: clip = 1, the zeroed record becomes (1, 0, 0) of norm 1
  f <- dp_lm(y ~ x, d, 1, 1e-6, clip = 1, neighbor = "zero-out", B = 0)
  expect_equal(stated_sensitivity(f$release$params$sigma, 1, 1e-6), sqrt(2), tolerance = 1e-8)
  expect_equal(f$release$params$zero_row, 1)
  # clip = 4: sqrt(4^4 + 1), tighter than replace-one's sqrt(2) 4^2
  f <- dp_lm(y ~ x, d, 1, 1e-6, clip = 4, neighbor = "zero-out", B = 0)
  expect_equal(stated_sensitivity(f$release$params$sigma, 1, 1e-6), sqrt(4^4 + 1), tolerance = 1e-8)
  # a factor: the all-zero record has no level, so the worst case (replace-one's) is used
  d$g <- factor(rep(c("a", "b"), 250), levels = c("a", "b"))
  f <- dp_lm(y ~ x + g, d, 1, 1e-6, clip = 4, neighbor = "zero-out", B = 0)
  expect_equal(stated_sensitivity(f$release$params$sigma, 1, 1e-6), sqrt(2) * 16, tolerance = 1e-8)
})

test_that("raw and scaled rows: Analyze Gauss and thresholding keep their table sensitivities", {
  set.seed(106)
  x <- matrix(rnorm(120), 40, 3)
  B <- 1.2
  for (notion in notions) {
    ag <- analyze_gauss(x / 10, 1, 1e-6, clip = B, neighbor = notion)
    stated <- stated_sensitivity(ag$params$sigma, 1, 1e-6)
    expect_equal(stated, second_moment_sensitivity(B, notion), tolerance = 1e-8)
    found <- neighbor_search(function(D) crossprod(clip_rows(D / 10, B)), x[1:20, ],
                             neighbor_candidates(3, 1e4), notion)
    expect_lte(found, stated * (1 + 1e-9))
    expect_gte(found, 0.97 * stated)
    if (notion == "add-remove") {
      # the average's noise scale discloses n, which add/remove keeps private
      expect_error(dp_threshold(x, 1, 1e-6, clip = B, neighbor = notion), class = "dpcov_error")
      next
    }
    th <- dp_threshold(x, 1, 1e-6, clip = B, neighbor = notion)
    stated <- stated_sensitivity(th$params$noise_sd, 1, 1e-6)
    found <- neighbor_search(function(D) crossprod(clip_rows(D, B)) / nrow(D), x[1:39, ],
                             neighbor_candidates(3, 1e3), notion)
    expect_lte(found, stated * (1 + 1e-9))
    expect_gte(found, 0.97 * stated)
  }
})

test_that("the sensitivities on transformed rows in privacy.R are attained by their worst pair", {
  B <- 2
  for (w in c(0, 0.5, 2, 7)) {
    s <- dpcov:::gram_sensitivity(B, "zero-out", zero_row = w)
    v <- c(B, 0)
    t0 <- c(0, min(w, B))
    expect_equal(sqrt(sum((tcrossprod(v) - tcrossprod(t0))^2)), s)
    expect_equal(dpcov:::mean_step_sensitivity(3, "zero-out", zero_row = w), 3 + min(w, 3))
  }
})

test_that("Sheffet's mechanisms state and charge the notions of the one table, on every path", {
  set.seed(108)
  X <- matrix(runif(60), 20)
  tab <- dpcov:::sheffet_notions
  expect_setequal(names(tab), c("jl_ridge", "jl_adaptive", "wishart_noise", "iwishart_posterior", "iwishart_adaptive"))
  for (fn in names(tab)) {
    stated <- if (tab[[fn]] == "any") "add-remove" else tab[[fn]]
    f <- getExportedValue("dpcov", fn)
    b <- dp_budget(10, 1e-3, neighbor = stated)
    r_clip <- suppressWarnings(f(X, 0.5, 1e-4, clip = 2, budget = b))
    r_box <- suppressWarnings(f(X, 0.5, 1e-4, lower = 0, upper = 1, budget = b))
    expect_identical(c(r_clip$neighbor, r_box$neighbor), rep(stated, 2), info = fn)
    expect_identical(r_clip$n_public, stated != "add-remove", info = fn)
    expect_identical(dpcov:::check_budget(b)$ledger$neighbor, rep(tab[[fn]], 2), info = fn)
    # bounds released under replace-one: refused before any charge by an add/remove mechanism
    cb <- suppressWarnings(dp_column_bounds(X, 1, 1e-6, neighbor = "replace-one"))
    b2 <- dp_budget(10, 1e-3, neighbor = stated)
    if (stated == "add-remove") {
      expect_error(f(X, 0.5, 1e-4, bounds = cb, budget = b2), class = "dpcov_error")
      expect_identical(nrow(dpcov:::check_budget(b2)$ledger), 0L)
    } else {
      expect_identical(suppressWarnings(f(X, 0.5, 1e-4, bounds = cb, budget = b2))$neighbor, stated)
    }
  }
  # dp_lm()'s Sheffet mechanisms read the same table
  d <- data.frame(y = runif(50), x = runif(50))
  fun <- c(wishart = "wishart_noise", jl_ridge = "jl_ridge", iwishart_posterior = "iwishart_posterior")
  for (m in names(fun)) {
    stated <- if (tab[[fun[[m]]]] == "any") "add-remove" else tab[[fun[[m]]]]
    other <- setdiff(c("add-remove", "replace-one"), stated)
    expect_error(dp_lm(y ~ x, d, 0.5, 1e-4, clip = 2, mechanism = m, neighbor = other), class = "dpcov_error")
    b <- dp_budget(10, 1e-3, neighbor = stated)
    fit <- suppressWarnings(dp_lm(y ~ x, d, 0.5, 1e-4, clip = 2, mechanism = m, neighbor = stated, B = 0, budget = b))
    expect_identical(fit$release$neighbor, stated, info = m)
    expect_identical(dpcov:::check_budget(b)$ledger$neighbor, tab[[fun[[m]]]], info = m)
  }
  # a mechanism missing from the table is an internal error, never a default notion
  expect_error(dpcov:::sheffet_release_notion("new_mechanism"), "no neighbour notion recorded")
})

test_that("dp_cov in one pass on statistics with a zeroed record's row: the mean step calibrates for it too", {
  # statistics whose zero-out record enters as a row of norm w (zero_row):
  # the column sums move by C + min(w, C), as the Gram's calibration says
  set.seed(7)
  s <- second_moment(matrix(rnorm(2000), 1000, 2), clip = 2)
  s$zero_row <- 1.5
  r <- dp_cov(s, epsilon = 1, delta = 1e-6, neighbor = "zero-out")
  stated <- stated_sensitivity(r$params$sigma_mean, r$params$epsilon_mean, r$params$delta_mean)
  expect_equal(stated, 2 + 1.5, tolerance = 1e-8)
  # the sums of a worst pair: the zeroed record (its row, norm 1.5) against
  # a row of norm 2 pointing the other way
  expect_equal(sqrt(sum((c(1.5, 0) - c(-2, 0))^2)), 3.5)
  # control: raw statistics (no zeroed row) calibrate for C alone, which the
  # pair above exceeds
  s$zero_row <- NULL
  r0 <- dp_cov(s, epsilon = 1, delta = 1e-6, neighbor = "zero-out")
  stated0 <- stated_sensitivity(r0$params$sigma_mean, r0$params$epsilon_mean, r0$params$delta_mean)
  expect_equal(stated0, 2, tolerance = 1e-8)
  expect_gt(3.5, stated0 * (1 + 1e-6))
})
