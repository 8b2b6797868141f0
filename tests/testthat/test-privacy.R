test_that("classic Gaussian sigma is Delta sqrt(2 log(1.25/delta)) / epsilon", {
  expect_equal(gaussian_sigma(1, 0.5, 1e-5, "classic"), sqrt(2 * log(1.25e5)) / 0.5)
  expect_equal(gaussian_sigma(3, 0.1, 1e-6, "classic"), 3 * sqrt(2 * log(1.25e6)) / 0.1)
  # outside its proven range the classic calibration is refused, not warned about
  expect_error(gaussian_sigma(1, 1, 1e-5, "classic"), "proven only for epsilon < 1", class = "dpcov_error")
  expect_error(gaussian_sigma(1, 10, 1e-5, "classic"), "proven only for epsilon < 1", class = "dpcov_error")
  # and the analytic one is the default
  expect_identical(gaussian_sigma(1, 0.5, 1e-5), gaussian_sigma(1, 0.5, 1e-5, "analytic"))
})

test_that("analytic Gaussian sigma matches published values and its defining equation", {
  # Balle & Wang (2018): epsilon = 1, delta = 1e-5, sensitivity 1 gives sigma ~ 3.73
  # (classic: 4.84); at epsilon = 0.5 the same delta gives about 7.03.
  expect_equal(gaussian_sigma(1, 1, 1e-5, "analytic"), 3.7306, tolerance = 1e-4)
  expect_equal(gaussian_sigma(1, 0.5, 1e-5, "analytic"), 7.0318, tolerance = 1e-4)
  for (eps in c(0.05, 0.5, 1, 3, 10)) for (del in c(1e-10, 1e-5, 0.01)) {
    s <- gaussian_sigma(2, eps, del, "analytic")
    d <- dpcov:::gaussian_mechanism_delta(s, 2, eps)
    # at or below the target, by the margin of sigma's rounding up only
    expect_lte(d, del)
    expect_equal(d, del, tolerance = 1e-6)
    if (eps < 1) expect_lt(s, gaussian_sigma(2, eps, del, "classic"))
  }
  expect_true(is.finite(gaussian_sigma(1, 20, 1e-5, "analytic")))
})

test_that("the analytic sigma meets delta at tiny epsilon and tiny delta, where the direct formula cancels", {
  # an independent evaluation of Balle and Wang's delta: log Phi(a - b) -
  # log Phi(-a - b) by the midpoint rule on the inverse Mills ratio (exact to
  # O(a^3), a < 1e-5 here), so the subtraction that cancels is avoided
  mills <- function(x) exp(dnorm(x, log = TRUE) - pnorm(x, log.p = TRUE))
  ref_delta <- function(sigma, eps) {
    a <- 1 / (2 * sigma); b <- eps * sigma
    exp(pnorm(a - b, log.p = TRUE)) * -expm1(-(2 * a * mills(-b) - eps))
  }
  # the direct formula's sigma had a true delta up to 4e-5 (relative) above these targets
  for (eps in c(1e-6, 2e-6, 5e-6)) for (del in c(1e-100, 1e-225, 1e-250)) {
    s <- gaussian_sigma(1, eps, del)
    expect_lte(ref_delta(s, eps), del)
    expect_gt(ref_delta(s, eps), del * (1 - 1e-5))
  }
  # where both evaluations are accurate they agree
  for (sg in c(2.1, 5, 10)) for (e in c(0.1, 1, 3)) {
    direct <- pnorm(1 / (2 * sg) - e * sg) - exp(e + pnorm(-1 / (2 * sg) - e * sg, log.p = TRUE))
    expect_equal(dpcov:::gaussian_mechanism_delta(sg, 1, e), direct, tolerance = 1e-10)
  }
})

test_that("the classic sigma at epsilon = 10 is not (10, 1e-5)-DP: why it is refused", {
  s <- sqrt(2 * log(1.25e5)) / 10
  expect_gt(dpcov:::gaussian_mechanism_delta(s, 1, 10), 2e-5)
})

test_that("second-moment sensitivities for the three neighbour notions", {
  expect_equal(second_moment_sensitivity(1, "replace-one", n = 200), sqrt(2) / 200)
  expect_equal(second_moment_sensitivity(1, "add-remove", n = 200), sqrt(2) / 200)
  expect_equal(second_moment_sensitivity(1, "zero-out", n = 200), 1 / 200)
  expect_equal(second_moment_sensitivity(3, "add-remove"), 9)
  expect_equal(second_moment_sensitivity(3, "zero-out"), 9)
  expect_equal(second_moment_sensitivity(3, "replace-one"), 9 * sqrt(2))
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

# The Frobenius distance between the statistic of two data sets.
stat_dist <- function(a, b, average) {
  s <- function(x) if (average) crossprod(x) / nrow(x) else crossprod(x)
  sqrt(sum((s(a) - s(b))^2))
}

test_that("each sensitivity is attained by its worst-case pair and never exceeded by random neighbours", {
  B <- 1.7
  n <- 6
  e1 <- c(B, 0, 0)
  e2 <- c(0, B, 0)
  base <- matrix(rep(e2, n - 1), n - 1, byrow = TRUE)
  # worst cases: replace B e1 by B e2; zero out B e1; remove B e1 from n - 1 copies of B e2
  worst <- list(
    "replace-one" = list(rbind(base, e1), rbind(base, e2)),
    "zero-out" = list(rbind(base, e1), rbind(base, 0)),
    "add-remove" = list(rbind(base, e1), base))
  for (nb in names(worst)) {
    w <- worst[[nb]]
    expect_equal(stat_dist(w[[1]], w[[2]], FALSE), second_moment_sensitivity(B, nb), label = nb)
    # the average's sensitivity is for data sets of n rows (the larger one under add/remove)
    expect_equal(stat_dist(w[[1]], w[[2]], TRUE), second_moment_sensitivity(B, nb, n = n),
                 tolerance = 1e-12, label = paste(nb, "average"))
  }
  # random neighbours with rows of norm <= B never move the statistic more
  set.seed(11)
  rrow <- function() { v <- rnorm(3); v / sqrt(sum(v^2)) * B * runif(1)^0.2 }
  for (i in seq_len(if (extended_tests()) 2000 else 300)) {
    x <- t(replicate(n, rrow()))
    y <- x
    nb <- names(worst)[1 + i %% 3]
    y <- switch(nb, "replace-one" = { y[n, ] <- rrow(); y }, "zero-out" = { y[n, ] <- 0; y },
                "add-remove" = y[-n, , drop = FALSE])
    expect_lte(stat_dist(x, y, FALSE), second_moment_sensitivity(B, nb) * (1 + 1e-12))
    expect_lte(stat_dist(x, y, TRUE), second_moment_sensitivity(B, nb, n = n) * (1 + 1e-12))
  }
})

test_that("a Gaussian after private bounds takes the rest of the budget by the better of basic and zCDP composition", {
  composed <- dpcov:::composed_gaussian
  zeps <- dpcov:::zcdp_epsilon
  for (eps in c(0.25, 1, 4)) for (del in c(1e-8, 1e-6)) for (share in c(0.3, 0.5)) for (p in c(2L, 7L)) {
    cols <- dpcov:::column_bounds_epsilon(share * eps, share * del, p)
    g <- composed(eps, del, share * eps, cols$delta, cols$rho, "analytic")
    info <- sprintf("eps %g delta %g share %g p %d", eps, del, share, p)
    expect_identical(g$composition, "zCDP", info = info)
    # the whole release's zCDP total converts to (eps, delta), exactly up to the rounding down of rho ...
    rho_g <- 1 / (2 * g$ratio^2)
    expect_lte(zeps(cols$rho + rho_g, del), eps * (1 + 1e-9))
    expect_gt(zeps(cols$rho + rho_g, del), eps * (1 - 1e-6))
    # ... an under-noised Gaussian (3% less noise) would exceed it
    expect_gt(zeps(cols$rho + 1 / (2 * (0.97 * g$ratio)^2), del), eps * 1.01)
    # less noise than the analytic Gaussian at the rest of the budget (basic composition)
    expect_lt(g$ratio, gaussian_sigma(1, (1 - share) * eps, del - cols$delta), label = info)
    # the step's own guarantee for the ledger is exact for this ratio at the worst-case pair
    expect_equal(g$delta, del - cols$delta)
    expect_lte(dpcov:::gaussian_mechanism_delta(g$ratio, 1, g$epsilon), g$delta * (1 + 1e-9))
    expect_gt(dpcov:::gaussian_mechanism_delta(g$ratio, 1, g$epsilon * 0.999), g$delta)
  }
  # basic composition where zCDP gives no more: a large share of rho before, the classic calibration, delta = 0
  b <- composed(1, 1e-6, 0.6, 0, 0.9 * dpcov:::zcdp_rho(1, 1e-6), "analytic")
  expect_identical(b$composition, "basic")
  expect_equal(b$ratio, gaussian_sigma(1, 0.4, 1e-6))
  expect_equal(c(b$epsilon, b$delta), c(0.4, 1e-6))
  b <- composed(0.5, 1e-6, 0.15, 3e-7, 1e-4, "classic")
  expect_identical(b$composition, "basic")
  expect_equal(b$ratio, gaussian_sigma(1, 0.35, 7e-7, "classic"))
})

test_that("Sheffet's safe shift is zero where Lemma A.3 gives no positive bound", {
  # k = d + 28 log(4 / delta) / epsilon^2 with d large: sqrt(k) < sqrt(d) + sqrt(2 log(4 / delta));
  # squaring the negative bracket gave a shift of 6.3 B^2 at d = 5000, epsilon = 0.99
  k <- floor(5000 + 28 * log(4e6) / 0.99^2)
  expect_lt(sqrt(k), sqrt(5000) + sqrt(2 * log(4e6)))
  expect_identical(sheffet_wishart_safe_shift(2, k, 5000, 1e-6), 0)
  k <- 500
  expect_equal(sheffet_wishart_safe_shift(2, k, 4, 1e-6), 4 * (sqrt(500) - sqrt(4) - sqrt(2 * log(4e6)))^2)
})

test_that("the ledger's per-step epsilon is never below the exact one, at tiny epsilon too", {
  mills <- function(x) exp(dnorm(x, log = TRUE) - pnorm(x, log.p = TRUE))
  ref_delta <- function(sigma, eps) {  # as above: the midpoint rule on the inverse Mills ratio
    a <- 1 / (2 * sigma); b <- eps * sigma
    exp(pnorm(a - b, log.p = TRUE)) * -expm1(-(2 * a * mills(-b) - eps))
  }
  # an absolute root tolerance of 1e-13 was 1e-7 of an epsilon of 1e-6: the
  # step's true delta came out 1e-6 (relative) above the stated one
  for (eps in c(2e-6, 1e-5)) for (del in c(1e-50, 1e-200)) {
    s <- gaussian_sigma(1, eps, del)
    e <- dpcov:::gaussian_mechanism_epsilon(s, del)
    expect_lte(ref_delta(s, e), del)
    expect_gt(ref_delta(s, e), del * (1 - 1e-4))
  }
})

test_that("numeric extremes of the calibrations refuse, naming their own argument, or compute without warnings", {
  e <- expect_error(laplace_scale(.Machine$double.xmax, 1e-6), class = "dpcov_error")
  expect_identical(e$arg, "sensitivity")
  expect_identical(laplace_scale(2, 0.5), 4)
  e <- expect_error(laplace_scale(4.9e-324, 2), class = "dpcov_error")  # a scale of 0: no noise
  expect_identical(e$arg, "sensitivity")
  e <- expect_error(gaussian_sigma(1e308, 1e-6, 1e-5), class = "dpcov_error")
  expect_identical(e$arg, "sensitivity")
  # delta within 1e-12 of 1: Bun and Steinke's bound, no warnings from the search
  expect_no_warning(eps <- dpcov:::zcdp_epsilon(0.5, 1 - 1e-16))
  expect_equal(eps, 0.5 + 2 * sqrt(0.5 * log(1 / (1 - 1e-16))))
  expect_no_warning(dp_cov(matrix(rnorm(300), 100, 3), 1, 1 - 1e-16, clip = 3, clip_mean = 3))
  # the search elsewhere: unchanged, and never above Bun and Steinke's bound
  expect_lte(dpcov:::zcdp_epsilon(1, 1e-6), 1 + 2 * sqrt(log(1e6)))
  # dp_column_bounds(): a resolution whose axes would overflow is refused before any charge
  b <- dp_budget(10, 1e-3)
  e <- expect_error(dp_column_bounds(matrix(rnorm(300), 100, 3), 1, resolution = 1e-303, budget = b),
                    class = "dpcov_error")
  expect_identical(e$arg, "resolution")
  expect_equal(budget_spent(b)$charges, 0)
  expect_error(dp_column_bounds(matrix(rnorm(300), 100, 3), 1, range = 1e49, resolution = 1e-260), class = "dpcov_error")
  expect_s3_class(dp_column_bounds(matrix(rnorm(300), 100, 3), 1, resolution = 1e-280), "dp_column_bounds")
})

test_that("analyze_gauss_shift()'s Monte Carlo is bounded in work and can be interrupted", {
  e <- expect_error(analyze_gauss_shift(3, 1, reps = 1e9), class = "dpcov_error")
  expect_identical(e$arg, "reps")
  expect_error(analyze_gauss_shift(5000, 1, reps = 10), class = "dpcov_error")
  # a time limit stops it (the loop checks for interrupts); the old loop ran ~25 s to the end
  got <- tryCatch({
    setTimeLimit(elapsed = 1, transient = TRUE)
    analyze_gauss_shift(3, 1, reps = 5e7)
    "finished"
  }, interrupt = function(i) "stopped", error = function(e) "stopped", finally = setTimeLimit(elapsed = Inf))
  expect_identical(got, "stopped")
})

test_that("format_privacy() keeps 7 digits and the decimal point whatever the options, never rounding down", {
  old <- options(digits = 1, OutDec = ",")
  on.exit(options(old))
  expect_identical(format_privacy(c(0.149, 1.9e-6, 1.49, 1e-5, 0, Inf)), c("0.149", "1.9e-06", "1.49", "1e-05", "0", "Inf"))
  expect_identical(format_privacy(c(1 / 3, 2 / 3, 0.12345671)), c("0.3333334", "0.6666667", "0.1234568"))
  expect_identical(format_privacy(2 / 3, up = FALSE), "0.6666666")
  # a delta the user wrote as a decimal reads back as written, at every exponent
  # (signif() landed one unit off 1e-19 and printed 1.000001e-19)
  tens <- 10^-(1:320)
  expect_identical(format_privacy(tens), sprintf("%.7g", tens))
  expect_identical(format_privacy(tens, up = FALSE), sprintf("%.7g", tens))
  expect_identical(format_privacy(c(1e-19, 2.5e-26, 1e-300)), c("1e-19", "2.5e-26", "1e-300"))
  set.seed(41)
  v <- stats::runif(3000) * 10^stats::runif(3000, -12, 6)
  expect_true(all(as.numeric(format_privacy(v)) >= v * (1 - 8 * .Machine$double.eps)))
  expect_true(all(as.numeric(format_privacy(v, up = FALSE)) <= v * (1 + 8 * .Machine$double.eps)))
  # a sum's rounding is not read as a larger loss (it printed 0.0003000001)
  expect_identical(format_privacy(c(1e-4 + 1e-4 + 1e-4, 0.1 + 0.2)), c("0.0003", "0.3"))
  expect_identical(format_privacy(1e-4 + 1e-4 + 1e-4, up = FALSE), "0.0003")
  # beyond the slack it still rounds up
  expect_identical(format_privacy(0.3 * (1 + 1e-13)), "0.3000001")
  expect_true(all(abs(as.numeric(format_privacy(v)) / v - 1) < 1e-6))
})

test_that("guarantee texts do not depend on options(digits) or OutDec", {
  set.seed(42)
  x <- matrix(rnorm(3000), 1000, 3)
  old <- options(digits = 1, OutDec = ",")
  on.exit(options(old))
  # (R's own formatting warns that big.mark and OutDec are both ",")
  r <- suppressWarnings(analyze_gauss(x, 0.149, 1.9e-6, clip = 2.5))
  expect_match(r$guarantee, "^\\(0.149, 1.9e-06\\)-differential privacy")
  expect_match(r$guarantee, "L2 norm <= 2.5;", fixed = TRUE)
  expect_match(suppressWarnings(capture.output(print(r))), "Guarantee: (0.149, 1.9e-06)-differential privacy",
               fixed = TRUE, all = FALSE)
  expect_match(suppressWarnings(dp_cov(x, 0.149, 1.9e-6))$guarantee, "^\\(0.149, 1.9e-06\\)-differential privacy")
  expect_match(suppressWarnings(wishart_noise(x, 0.149, 1.9e-6, clip = 2.5))$guarantee, "^\\(0.149, 1.9e-06\\)-differential privacy")
  expect_match(suppressWarnings(dp_clip_bound(x, 0.149))$guarantee, "^0.149-differential privacy")
  expect_match(suppressWarnings(dp_column_bounds(x, 0.149, 1.9e-6))$guarantee, "(0.149, 1.9e-06)", fixed = TRUE)
  expect_match(suppressWarnings(dp_threshold(x, 0.149, 1.9e-6, clip = 2.5))$guarantee,
               "^\\(0.149, 1.9e-06\\)-differential privacy")
  # 7 digits, rounded up: an epsilon of 0.1234567891 is not stated as 0.1234568 - 1e-7
  r <- suppressWarnings(analyze_gauss(x, 0.12345671, 1.9e-6, clip = 2))
  expect_match(r$guarantee, "^\\(0.1234568, 1.9e-06\\)")
})

test_that("the zCDP conversion is never below a stable reference, and zcdp_rho() never overshoots", {
  # the conversion's objective with log1p (no cancellation), minimised on a fine grid then refined
  ref <- function(rho, delta) {
    L <- log(1 / delta)
    g <- function(u) { a <- 1 + exp(u); am1 <- a - 1; a * rho + (L + am1 * log1p(-1 / a) - log(a)) / am1 }
    u0 <- 0.5 * (log(L) - log(rho))
    u <- seq(u0 - 4, u0 + 4, length.out = 20001)
    v <- g(u)
    i <- which.min(v)
    min(v[i], stats::optimize(g, u[c(i - 1, i + 1)], tol = 1e-14)$objective)
  }
  # the audit's case: the rho the old conversion gave for epsilon 1e-6 converts to more than 1e-6
  # (1.00000000073e-06 to 200 bits)
  expect_gte(zcdp_epsilon(1.5264870642661414e-10, 1e-5), 1e-6)
  for (e in c(1e-6, 1e-5, 1e-3, 0.5, 5)) for (d in c(1e-5, 1e-10)) {
    rho <- zcdp_rho(e, d)
    expect_lte(ref(rho, d), e)
    expect_gte(zcdp_epsilon(rho, d), ref(rho, d))
    expect_lte(zcdp_epsilon(rho, d), ref(rho, d) * (1 + 1e-8))
  }
})

test_that("the exponential mechanisms draw from uniforms fine near 0: no candidate within 43 of the best is impossible", {
  # the package's draws equal the plain-R formula under one seed
  set.seed(5)
  g <- dpcov:::gumbel_noise(1000)
  set.seed(5)
  expect_identical(g, ref_gumbel(1000))
  set.seed(6)
  z <- vapply(1:200, function(i) dpcov:::rgeometric2(2, 0.3), numeric(1))
  set.seed(6)
  expect_identical(z, vapply(1:200, function(i) ref_geometric2(0.15), numeric(1)))
  set.seed(7)
  l <- dpcov:::laplace_draw_cpp(2)
  set.seed(7)
  v <- ref_fine_uniform(1)
  expect_equal(l, if (runif(1) < 0.5) 2 * log(v) else -2 * log(v))
  # runif() takes values in [2^-33, 1 - 2^-32]: one uniform's Gumbel lies in
  # [-3.13, 22.18], so a candidate 30 behind the best (log-weights 0 and -30)
  # could never win, and its probability under a neighbour where it is 30 -
  # epsilon behind would be no bound of it (the control)
  lo <- -log(-log(2^-33))
  hi32 <- -log(-log(1 - 2^-32))
  expect_lt(hi32 - 30, lo)
  # with the fine uniforms it wins when its draws are the smallest (V = 2^-63,
  # a Gumbel of 43.7) and the best's are middling: the first draw in the
  # lowest cell of 2^-30 takes a second for the point in it
  draws <- list(c(0.5, 2^-33), 2^-33)
  expect_equal(with_runif_queue(draws, dpcov:::fine_uniform(2)), c(0.5, 2^-63))
  expect_equal(-log(-log1p(-2^-63)), 63 * log(2), tolerance = 1e-12)  # fine_uniform()'s top: 43.67
  expect_gt(63 * log(2) - 30, lo)
  # the Gumbel noise refines without limit: a candidate 100 behind the best
  # (log-weights 0 and -100, far beyond fine_uniform()'s range, which a
  # choice's epsilon near 50 passes) wins when its uniform descends five
  # cells (V = 0.5 * 2^-150, a Gumbel of 104.3)
  deep <- c(list(c(0.5, 2^-33)), rep(list(2^-33), 4), list(0.5))
  expect_equal(with_runif_queue(deep, dpcov:::gumbel_noise(2)),
               c(-log(-log1p(-0.5)), 150 * log(2) + log(2)), tolerance = 1e-12)
  expect_equal(with_runif_queue(deep, dpcov:::bin_exp_mech(c(0, -200), 1, 1)), 2L)
  # the control: fine_uniform()'s Gumbel of the same draws stops at 43.7, and
  # the candidate never wins
  capped <- function(k) -log(-log1p(-dpcov:::fine_uniform(k)))
  expect_lt(max(with_runif_queue(list(c(0.5, 2^-33), 2^-33), capped(2))), 100)
  # beyond 33 levels (V below the normal doubles) -log(V), exact to V / 2
  very <- c(list(2^-33), rep(list(2^-33), 39), list(0.5))
  expect_equal(with_runif_queue(very, dpcov:::gumbel_noise(1)), 1200 * log(2) + log(2), tolerance = 1e-14)
  edge <- c(list(2^-33), rep(list(2^-33), 32), list(0.5))
  expect_equal(with_runif_queue(edge, dpcov:::gumbel_noise(1)), 990 * log(2) + log(2), tolerance = 1e-14)
})

test_that("the two-sided geometric has no end: at any epsilon a count can move (mocks; the law by chi-square; a capped control fails)", {
  # exponentials refined without limit: 30 log 2 per cell descended
  # (and each draw takes one more for its point in its 2^-32 cell, after the descents)
  deep <- list(c(0.5, 2^-33), 2^-33, 0.25, c(0.5, 0.5))
  expect_equal(with_runif_queue(deep, dpcov:::exp_fine(2)),
               c(-log(0.5 + 2^-33), 60 * log(2) - log(0.25 + 2^-33)), tolerance = 1e-14)
  # at rate 50 (dp_clip_bound()'s count at epsilon_count = 50, or a column
  # bound's count at epsilon_q = 100) a capped exponential (at most 43.7)
  # makes the noise always 0, so a count and its neighbour's are told apart
  # with certainty; the refined one moves the count with probability about
  # 2 e^-50, as the mechanism's law says
  expect_equal(with_runif_queue(list(c(2^-33, 0.5), 2^-33, 2^-33, 0.5, c(0.5, 0.5)), dpcov:::rgeometric2(1, 50)), 1)
  capped <- function(rate) floor(-log(dpcov:::fine_uniform(2)) / rate)
  expect_equal(with_runif_queue(list(c(2^-33, 0.5), 2^-33), capped(50)), c(0, 0))
  # the law at a moderate rate: P(Z = k) = (1 - a) / (1 + a) a^|k|, a = e^-rate
  set.seed(21)
  rate <- 0.7
  z <- vapply(1:40000, function(i) dpcov:::rgeometric2(1, rate), numeric(1))
  a <- exp(-rate)
  k <- -6:6
  p <- (1 - a) / (1 + a) * a^abs(k)
  p <- c(p, 1 - sum(p))  # the tail beyond +-6, one cell
  obs <- c(tabulate(match(z, k), length(k)), sum(abs(z) > 6))
  expect_gt(stats::chisq.test(obs, p = p)$p.value, 1e-6)
  # the control: the same draws read at a rate 10% lower (too little noise
  # claimed) fail
  a2 <- exp(-rate * 0.9)
  p2 <- (1 - a2) / (1 + a2) * a2^abs(k)
  expect_lt(stats::chisq.test(obs, p = c(p2, 1 - sum(p2)))$p.value, 1e-6)
})

test_that("fine_uniform() is uniform under every RNG kind, and fine in its lowest cell (KS; mocks; a coarse control fails)", {
  old <- RNGkind()
  on.exit(do.call(RNGkind, as.list(old)))
  for (kind in c("Mersenne-Twister", "Knuth-TAOCP-2002", "Wichmann-Hill")) {
    RNGkind(kind)
    set.seed(11)
    v <- dpcov:::fine_uniform(2e5)
    expect_gt(stats::ks.test(v, "punif")$p.value, 1e-6, label = kind)
  }
  RNGkind("Mersenne-Twister")
  # the lowest cell: every value there (each of the 2^2 Mersenne-Twister
  # grid points in it, Knuth-TAOCP's 0) is replaced by a point uniform in
  # [0, 2^-30) from the next draws, in order; the others are kept
  first <- c(0.3, 2^-33, 3 * 2^-32, 2^-30, 0.9)
  second <- c(0.25, 0.75)
  got <- with_runif_queue(list(first, second), dpcov:::fine_uniform(5))
  expect_equal(got, c(0.3, 0.25 * 2^-30, 0.75 * 2^-30, 2^-30, 0.9))
  # the law in the lowest cell, from its second draws: uniform on
  # [0, 2^-30); the control, one 32-bit draw, takes 4 values there
  set.seed(12)
  u <- runif(2000)
  in_cell <- vapply(u, function(ui) with_runif_queue(list(2^-33, ui), dpcov:::fine_uniform(1)), numeric(1))
  expect_gt(stats::ks.test(in_cell * 2^30, "punif")$p.value, 1e-6)
  coarse <- floor(runif(2000) * 4) / 4  # the 32-bit grid within the cell
  expect_lt(suppressWarnings(stats::ks.test(coarse, "punif"))$p.value, 1e-6)
})

test_that("the C++ Laplace draw (a fine uniform inverted, a fair sign) is Laplace(0, scale) (KS; an under-noised control fails)", {
  set.seed(13)
  z <- vapply(1:2e5, function(i) dpcov:::laplace_draw_cpp(2), numeric(1))
  plap <- function(b) function(q) ifelse(q < 0, exp(q / b) / 2, 1 - exp(-q / b) / 2)
  expect_gt(stats::ks.test(z, plap(2))$p.value, 1e-6)
  # the control: the same draws read as noise of scale 1.9, 5% too little
  expect_lt(stats::ks.test(z, plap(1.9))$p.value, 1e-6)
  expect_equal(mean(abs(z)), 2, tolerance = 0.02)
})

test_that("the decaying base measure's mass of an interval across 0 keeps its digits, however narrow (audit)", {
  lbm <- dpcov:::log_base_mass
  a <- -1.669538e-18
  b <- 1.113855e-16
  # the mass of exp(-|s| / 2) over [a, b] is (b - a) to within (b - a)^2
  expect_equal(lbm(a, b, 2), log(b - a), tolerance = 1e-12)
  expect_true(is.finite(lbm(-1e-300, 1e-300, 2)))
  # wide intervals and one-sided ones as before: 2 (2 - e^{a/2} - e^{-b/2})
  expect_equal(lbm(-1, 3, 2), log(2 * (2 - exp(-1 / 2) - exp(-3 / 2))), tolerance = 1e-14)
  expect_equal(lbm(1, 3, 2), log(2 * (exp(-1 / 2) - exp(-3 / 2))), tolerance = 1e-14)
  # (control: the difference as first written lost every digit there)
  old <- log(2) + log(2 - exp(a / 2) - exp(-b / 2))
  expect_gt(abs(old - log(b - a)), 0.5)
})

test_that("the geometric count's exponentials place each draw inside its 2^-32 cell (audit: lumps near 20.8)", {
  # the package's draws equal a plain-R reference that fills the cell, same seed
  set.seed(31)
  z <- vapply(1:300, function(i) dpcov:::rgeometric2(1, 0.001), numeric(1))
  set.seed(31)
  expect_identical(z, vapply(1:300, function(i) ref_geometric2(0.001), numeric(1)))
  # a draw at the first cell above the lowest (u = 2^-30, where the grid's
  # relative spacing is 1/4) takes its point inside [u, u + 2^-32): the
  # exponentials between the grid's values (20.79 and 20.56) are reached
  at <- vapply(c(0.01, 0.5, 0.99), function(v) with_runif_queue(list(2^-30, v), dpcov:::exp_fine(1)), 0)
  expect_equal(at, -log(2^-30 + c(0.01, 0.5, 0.99) * 2^-32), tolerance = 1e-14)
  expect_true(all(at < 30 * log(2) & at > -log(2^-30 + 2^-32)))
  # at rate 0.001 those are different counts (the lumps left about 200 between them empty)
  expect_identical(length(unique(floor(at / 0.001))), 3L)
  # and so after a descent, where the lumps sat near 41.6 (the review's catch)
  deep <- vapply(c(0.01, 0.5, 0.99), function(v) with_runif_queue(list(2^-33, 2^-30, v), dpcov:::exp_fine(1)), 0)
  expect_equal(deep, 30 * log(2) - log(2^-30 + c(0.01, 0.5, 0.99) * 2^-32), tolerance = 1e-14)
  expect_identical(length(unique(floor(deep / 0.001))), 3L)
  # (control: the single draw, as before, is one value for all three)
  expect_identical(length(unique(floor(rep(30 * log(2), 3) / 0.001))), 1L)
})

test_that("noise scales refuse subnormal sensitivities and scales, which round down on the subnormal grid", {
  u <- 2^-1074
  # 5u / 2 rounds to 2u on the grid: epsilon 2.5 protected where 2 was asked
  expect_true(5 * u / (5 * u / 2) > 2.4)
  for (f in list(function(s) laplace_scale(s, 2), function(s) gaussian_sigma(s, 0.5, 1e-5))) {
    e <- expect_error(f(5 * u), "below the smallest normal double", class = "dpcov_error")
    expect_identical(e$arg, "sensitivity")
  }
  # a normal sensitivity whose scale would be subnormal
  e <- expect_error(laplace_scale(1e-305, 1000), "Laplace scale", class = "dpcov_error")
  expect_identical(e$arg, "sensitivity")
  # controls: the smallest normal sensitivities are calibrated exactly
  expect_identical(laplace_scale(1e-300, 2), 1e-300 / 2)
  expect_true(gaussian_sigma(1e-300, 0.5, 1e-5) / 1e-300 > 7.0318)
  e <- expect_error(rwishart(1, Sigma = diag(2)), "missing", class = "dpcov_error")
  expect_identical(e$arg, "df")
  e <- expect_error(riwishart(1, Psi = diag(2)), "missing", class = "dpcov_error")
  expect_identical(e$arg, "df")
})
