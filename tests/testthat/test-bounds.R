# dp_clip_bound(): the private row-norm bound. Its output distribution is
# the interval exponential mechanism's (computed here independently), its
# noisy count is calibrated, it ignores the data beyond the range, and it holds nothing
# computed from the data without noise.

# Rows with chosen norms `r` (in the plane, at irregular angles).
rows_with_norms <- function(r, p = 2) {
  t <- 1.3 * seq_along(r) + 0.4
  x <- cbind(r * cos(t), r * sin(t))
  if (p > 2) x <- cbind(x, matrix(0, length(r), p - 2))
  x
}

# Smith's interval exponential mechanism, written out here: the log norms,
# clamped to [log lower, log upper], cut the range into intervals; interval k
# (k norms at or below it) has probability proportional to its width times
# exp(-eps |k - q n| / 2), and log B is uniform in it.
em_intervals <- function(norms, epsilon, quantile, lower, upper) {
  z <- c(log(lower), sort(log(pmin(pmax(norms, lower), upper))), log(upper))
  k <- seq_along(norms) - 1
  k <- c(k, length(norms))
  w <- diff(z) * exp(-epsilon * abs(k - quantile * length(norms)) / 2)
  list(z = z, prob = w / sum(w))
}
# The density of log B at points `lb`.
em_log_density <- function(norms, epsilon, quantile, lower, upper, lb) {
  iv <- em_intervals(norms, epsilon, quantile, lower, upper)
  k <- findInterval(lb, iv$z, rightmost.closed = TRUE)
  log(iv$prob[k] / diff(iv$z)[k])
}

# 30 rows with norms from 0.15 to 8
norms30 <- exp(seq(log(0.15), log(8), length.out = 30)) * 1.01
X30 <- rows_with_norms(norms30)

test_that("the chosen bound is distributed as the interval exponential mechanism says (chi-square, alpha = 1e-6, with power)", {
  eps <- 0.5
  ref <- em_intervals(norms30, eps, 0.5, lower = 0.1, upper = 10)
  draw_index <- function(epsilon, reps) {
    vapply(seq_len(reps), function(i) {
      b <- dp_clip_bound(X30, epsilon, quantile = 0.5, lower = 0.1, upper = 10, count_share = 0)
      findInterval(log(b$bound), ref$z, rightmost.closed = TRUE)
    }, integer(1))
  }
  reps <- if (extended_tests()) 8000 else 3000
  set.seed(101)
  idx <- draw_index(eps, reps)
  expect_gt(chisq_p(idx, ref$prob), 1e-6)
  # power: the same test on a release with twice the epsilon (less randomness) fails
  idx2 <- draw_index(2 * eps, reps)
  expect_lt(chisq_p(idx2, ref$prob), 1e-6)
  # within an interval log B is uniform: position within the chosen interval
  set.seed(102)
  pos <- vapply(seq_len(reps / 2), function(i) {
    lb <- log(dp_clip_bound(X30, eps, quantile = 0.5, lower = 0.1, upper = 10, count_share = 0)$bound)
    k <- findInterval(lb, ref$z, rightmost.closed = TRUE)
    (lb - ref$z[k]) / (ref$z[k + 1] - ref$z[k])
  }, numeric(1))
  expect_gt(suppressWarnings(stats::ks.test(pos, "punif")$p.value), 1e-6)
  expect_lt(suppressWarnings(stats::ks.test(pos^1.3, "punif")$p.value), 1e-6)
})

test_that("dp_clip_bound() equals a plain-R reference of the interval mechanism and the geometric count, same seed", {
  # a same-seed reference sees a 10% error in either noise scale, which the
  # distribution tests above (controls at twice the epsilon) cannot
  set.seed(5)
  X <- matrix(rnorm(80), 40, 2) * rexp(40)
  norms <- sqrt(rowSums(X^2))
  seeds <- seq_len(if (extended_tests()) 100 else 40)
  for (nb in c("add-remove", "replace-one", "zero-out")) for (eps in c(0.3, 2)) for (seed in seeds) {
    set.seed(seed)
    r <- dp_clip_bound(X, eps, quantile = 0.7, lower = 0.01, upper = 100, neighbor = nb, count_share = 0.2)
    set.seed(seed)
    eb <- 0.8 * eps
    ec <- 0.2 * eps
    z <- c(log(0.01), sort(log(pmin(pmax(norms, 0.01), 100))), log(100))
    lw <- log(diff(z)) - eb * abs(0:40 - 0.7 * 40) / 2  # utility sensitivity 1 under every notion
    i <- which.max(lw + ref_gumbel(41))                 # Gumbel-max: the interval
    b <- exp(z[i] + runif(1) * (z[i + 1] - z[i]))       # uniform within it on the log axis
    cnt <- sum(norms > b) + ref_geometric2(ec)          # two-sided geometric, count sensitivity 1
    expect_equal(r$bound, b, tolerance = 1e-12)
    expect_equal(r$n_clipped, cnt)
  }
})

test_that("the mechanism is epsilon-DP: densities of neighbours differ by at most a factor e^epsilon_B", {
  set.seed(7)
  norms <- stats::rexp(25, 0.7)
  eps <- 0.8
  lb <- seq(log(0.05), log(20), length.out = 2001)
  logd <- function(r, q) em_log_density(r, eps, q, 0.05, 20, lb)
  for (q in c(0.1, 0.5, 0.9, 1)) {
    base <- logd(norms, q)
    for (i in 1:10) {
      added <- logd(c(norms, stats::rexp(1, 0.3)), q)
      removed <- logd(norms[-sample(25, 1)], q)
      replaced <- logd(replace(norms, sample(25, 1), stats::rexp(1, 0.3)), q)
      zeroed <- logd(replace(norms, sample(25, 1), 0), q)
      for (other in list(added, removed, replaced, zeroed)) {
        expect_lte(max(abs(other - base)), eps + 1e-9)
      }
    }
  }
  # and the package's interval weights are these
  r <- stats::rexp(25, 0.7)
  iv <- dpcov:::quantile_intervals(r, 0.5, 0.05, 20, eps, 1)
  ref <- em_intervals(r, eps, 0.5, 0.05, 20)
  expect_equal(iv$z, ref$z)
  expect_equal(exp(iv$log_weight) / sum(exp(iv$log_weight)), ref$prob)
})

test_that("the output is invariant to the data beyond the range", {
  x <- rows_with_norms(c(norms30, 50, 80, 0.01, 0.02, 3e6))
  far <- c(31, 32, 35)
  near0 <- c(33, 34)
  y <- x
  y[far, ] <- y[far, ] * 1e3      # above `upper` = 10: even further
  y[near0, ] <- y[near0, ] * 1e-4  # below `lower` = 0.1: even smaller
  drop_call <- function(b) b[names(b) != "call"]
  for (seed in 1:5) {
    set.seed(seed)
    a <- dp_clip_bound(x, 0.7, quantile = 0.8, lower = 0.1, upper = 10)
    set.seed(seed)
    b <- dp_clip_bound(y, 0.7, quantile = 0.8, lower = 0.1, upper = 10)
    expect_identical(drop_call(a), drop_call(b))
  }
  # but a change inside the range does change the distribution (a control)
  z <- x
  z[1:10, ] <- z[1:10, ] * 40
  res <- vapply(1:200, function(s) {
    set.seed(s)
    a <- dp_clip_bound(x, 5, quantile = 0.5, lower = 0.1, upper = 10)$bound
    set.seed(s)
    b <- dp_clip_bound(z, 5, quantile = 0.5, lower = 0.1, upper = 10)$bound
    a != b
  }, logical(1))
  expect_true(any(res))
})

test_that("same seed, same result; a chunk reader gives what the matrix gives", {
  set.seed(3)
  x <- matrix(stats::rnorm(500 * 4, sd = 3), 500, 4)
  set.seed(9)
  a <- dp_clip_bound(x, 1)
  set.seed(9)
  b <- dp_clip_bound(x, 1)
  expect_identical(a, b)
  reader_of <- function(m, size) {
    i <- 0
    function() {
      if (i >= nrow(m)) return(NULL)
      rows <- (i + 1):min(i + size, nrow(m))
      i <<- i + size
      m[rows, , drop = FALSE]
    }
  }
  drop_call <- function(b) b[names(b) != "call"]
  for (size in c(1, 37, 500, 1000)) {
    set.seed(9)
    r <- dp_clip_bound(reader_of(x, size), 1)
    expect_identical(drop_call(r), drop_call(a))
  }
  # a data frame and integer data are the matrix
  set.seed(9)
  expect_identical(drop_call(dp_clip_bound(as.data.frame(x), 1)), drop_call(a))
  xi <- round(x)
  set.seed(9)
  ai <- dp_clip_bound(xi, 1)
  storage.mode(xi) <- "integer"
  set.seed(9)
  expect_identical(drop_call(dp_clip_bound(xi, 1)), drop_call(ai))
})

test_that("for large n the bound is near the true quantile of the row norms", {
  # Tolerance: the rank error of the interval mechanism at n = 1e5 and
  # epsilon_B = 0.9 is a few tens of rows (the range's empty ends weigh
  # exp(-0.45 m) against intervals of log-width ~1e-5); we allow the
  # quantiles at q +- 0.01, 1000 rows.
  set.seed(21)
  n <- 1e5
  x <- matrix(stats::rnorm(n * 3, sd = 2), n, 3)
  norms <- sqrt(rowSums(x^2))
  for (q in c(0.5, 0.9, 0.99)) {
    lim <- stats::quantile(norms, c(q - 0.01, min(q + 0.01, 1)), names = FALSE)
    for (seed in 1:3) {
      set.seed(seed)
      b <- dp_clip_bound(x, 1, quantile = q)
      expect_gte(b$bound, lim[1])
      expect_lte(b$bound, lim[2])
      # and its noisy count is near the truth (sd 14 at epsilon_C = 0.1)
      expect_lt(abs(b$n_clipped - sum(norms > b$bound)), 14.2 * 8)
    }
  }
})

# CDF of the two-sided geometric distribution P(Z = k) = (1 - a)/(1 + a) a^|k|.
pgeom2 <- function(k, a) ifelse(k < 0, a^(-k) / (1 + a), 1 - a^(k + 1) / (1 + a))

test_that("the noisy count of clipped rows has two-sided geometric noise as calibrated (KS, under-noised control fails)", {
  noise_of <- function(epsilon, count_share, reps) {
    vapply(seq_len(reps), function(i) {
      b <- dp_clip_bound(X30, epsilon, quantile = 0.7, lower = 0.1, upper = 10,
                         count_share = count_share)
      b$n_clipped - sum(norms30 > b$bound)
    }, numeric(1))
  }
  # randomised probability integral transform: uniform iff Z has CDF F
  pit <- function(z, a) pgeom2(z - 1, a) + stats::runif(length(z)) * (pgeom2(z, a) - pgeom2(z - 1, a))
  set.seed(55)
  z <- noise_of(1, 0.5, 4000)  # epsilon_C = 0.5
  expect_true(all(z == round(z)))
  p_ok <- stats::ks.test(pit(z, exp(-0.5)), "punif")$p.value
  expect_gt(p_ok, 1e-6)
  # mean 0 and the sd the object reports
  b <- dp_clip_bound(X30, 1, count_share = 0.5, lower = 0.1, upper = 10)
  expect_equal(b$count_noise_sd, sqrt(2 * exp(-0.5)) / (1 - exp(-0.5)))
  expect_lt(abs(mean(z)) / (b$count_noise_sd / sqrt(4000)), 5)
  # under-noised control: epsilon_C = 1 tested as if it were 0.5
  z_under <- noise_of(2, 0.5, 4000)
  expect_lt(stats::ks.test(pit(z_under, exp(-0.5)), "punif")$p.value, 1e-6)
  # without a count share nothing is released
  nb <- dp_clip_bound(X30, 1, count_share = 0)
  expect_true(is.na(nb$n_clipped))
  expect_identical(nb$epsilon_bound, 1)
})

test_that("print states the guarantee; the bound works as a clip", {
  set.seed(1)
  x <- matrix(stats::rnorm(300), 100, 3)
  b <- dp_clip_bound(x, 0.5)
  out <- wide_output(print(b))
  expect_true(any(grepl("0.5-differential privacy (delta = 0)", out, fixed = TRUE)))
  expect_true(any(grepl("add/remove-one-row neighbours; n is not released", out, fixed = TRUE)))
  expect_true(any(grepl("Rows clipped by B (noisy count", out, fixed = TRUE)))
  for (nb in c("replace-one", "zero-out")) {
    expect_true(any(grepl("n is public", wide_output(print(dp_clip_bound(x, 0.5, neighbor = nb))), fixed = TRUE)))
  }
  expect_output(print(dp_clip_bound(x, 0.5, count_share = 0)), "not released \\(count_share = 0\\)")
  # the 0.9 quantile of the norms (about 25) lies above `upper` = 10; the 0.1
  # quantile of x / 10 (about 0.06) below `lower` = 0.1
  expect_output(print(dp_clip_bound(x * 10, 5, upper = 10)), "near the top of the range")
  expect_output(print(dp_clip_bound(x / 10, 5, quantile = 0.1, lower = 0.1)), "near the bottom of the range")
  expect_identical(as.numeric(b), b$bound)
  expect_identical(as.double(b), b$bound)
  expect_true(b$bound >= b$lower && b$bound <= b$upper)
  r <- analyze_gauss(x, 0.5, 1e-5, clip = b$bound)
  expect_true(has_guarantee(r))
  r2 <- analyze_gauss(x, 0.5, 1e-5, clip = as.numeric(b))
  expect_identical(r2$clip, b$bound)
  expect_false(inherits(b, "dp_nonprivate"))
  expect_identical(b$delta, 0)
})

test_that("the object holds no data-derived value (leak scanner)", {
  x <- audit_matrix(60, 4)
  x2 <- x + 0.013 * cos(outer(seq_len(60), seq_len(4), function(i, j) 0.71 * i + 1.3 * j))
  norms <- sqrt(rowSums(x^2))
  quants <- stats::quantile(norms, c(0.5, 0.9, 0.95), names = FALSE)
  for (args in list(list(), list(count_share = 0), list(neighbor = "replace-one", quantile = 0.5))) {
    set.seed(11)
    a <- do.call(dp_clip_bound, c(list(x, 0.5), args))
    set.seed(12)
    b <- do.call(dp_clip_bound, c(list(x2, 0.5), args))
    # (clipped at a fixed 1, not at B: rows clipped at B have norm B by construction)
    expect_no_leak(a, leak_secrets(x, clip = 1), extra = quants, rerun = b, rerun_secrets = leak_secrets(x2, clip = 1))
    expect_length(calls_with_values(a), 0L)
    expect_identical(a$call[[2]], as.symbol("<data>"))
  }
  # the data frame and reader forms keep no data in the call either
  rd <- local({ done <- FALSE; function() if (done) NULL else { done <<- TRUE; x } })
  set.seed(1)
  a <- dp_clip_bound(rd, 0.5)
  expect_no_leak(a, leak_secrets(x, clip = 1), extra = quants)
  expect_length(calls_with_values(a), 0L)
  # and no field named like a data summary exists
  expect_false(any(c("n", "norms", "counts", "hist", "at_most") %in% names(a)))
})

test_that("hostile inputs give classed errors naming the argument", {
  x <- matrix(stats::rnorm(30), 10, 3)
  err_arg <- function(expr) {
    e <- tryCatch(expr, dpcov_error = function(e) e)
    expect_s3_class(e, "dpcov_error")
    e$arg
  }
  expect_identical(err_arg(dp_clip_bound()), "x")
  expect_identical(err_arg(dp_clip_bound(x)), "epsilon")
  expect_identical(err_arg(dp_clip_bound(NULL, 1)), "x")
  expect_identical(err_arg(dp_clip_bound("a", 1)), "x")
  expect_identical(err_arg(dp_clip_bound(replace(x, 1, NA), 1)), "x")
  expect_identical(err_arg(dp_clip_bound(replace(x, 1, Inf), 1)), "x")
  # no rows is data too (under add/remove n is private): a bound drawn from the range alone
  b0 <- dp_clip_bound(x[0, , drop = FALSE], 1)
  expect_s3_class(b0, "dp_bound")
  expect_true(b0$bound >= 1e-3 && b0$bound <= 1e6)
  expect_identical(err_arg(dp_clip_bound(data.frame(a = letters[1:3]), 1)), "x")
  expect_identical(err_arg(dp_clip_bound(analyze_gauss(x, 1, 1e-5, clip = 1), 1)), "x")
  e <- tryCatch(dp_clip_bound(second_moment(x, 1), 1), dpcov_error = function(e) e)
  expect_identical(e$arg, "x")
  expect_match(conditionMessage(e), "holds no row norms")
  expect_identical(err_arg(dp_clip_bound(function() stop("boom"), 1)), "x")
  expect_identical(err_arg(dp_clip_bound(function() "junk", 1)), "x")
  expect_identical(err_arg(dp_clip_bound(function() NULL, 1)), "x")
  expect_identical(err_arg(dp_clip_bound(function(a) NULL, 1)), "x")
  two <- local({ k <- 0; function() { k <<- k + 1; if (k == 1) x else if (k == 2) x[, 1:2] else NULL } })
  expect_identical(err_arg(dp_clip_bound(two, 1)), "x")
  for (eps in list(0, -1, NA, Inf, "1", c(1, 1), 1e-300, 1e300, matrix(1))) {
    expect_identical(err_arg(dp_clip_bound(x, eps)), "epsilon")
  }
  for (q in list(0, -0.1, 1.5, NA, "a", c(0.5, 0.9), NULL)) {
    expect_identical(err_arg(dp_clip_bound(x, 1, quantile = q)), "quantile")
  }
  for (v in list(0, -1, Inf, NA, 1e-300, 1e300, "1", c(1, 2))) {
    expect_identical(err_arg(dp_clip_bound(x, 1, lower = v)), "lower")
    expect_identical(err_arg(dp_clip_bound(x, 1, upper = v)), "upper")
  }
  expect_identical(err_arg(dp_clip_bound(x, 1, lower = 5, upper = 5)), "upper")
  expect_identical(err_arg(dp_clip_bound(x, 1, lower = 5, upper = 1)), "upper")
  for (v in list(NA, "bogus", c("add-remove", "replace-one"), 1)) {
    expect_identical(err_arg(dp_clip_bound(x, 1, neighbor = v)), "neighbor")
  }
  for (v in list(1, -0.1, NA, "0.1", 2)) {
    expect_identical(err_arg(dp_clip_bound(x, 1, count_share = v)), "count_share")
  }
  # hand-made dp_bound objects
  b <- dp_clip_bound(x, 1)
  for (f in c("bound", "lower", "guarantee", "neighbor", "n_clipped")) {
    bad <- b
    bad[f] <- list(list("junk"))
    expect_identical(err_arg(print(bad)), "x")
    expect_identical(err_arg(as.numeric(bad)), "x")
  }
  expect_identical(err_arg(print(structure(list(), class = "dp_bound"))), "x")
  expect_identical(err_arg(print(b, digits = 0)), "digits")
})

test_that("dp_column_bounds() output is accepted as `bounds`; prcomp()'s arguments to dp_pca() are classed errors", {
  set.seed(81)
  x <- matrix(rnorm(4000 * 2), 4000, 2, dimnames = list(NULL, c("a", "b")))
  cb <- dp_column_bounds(x, 1, 1e-6, neighbor = "replace-one")
  set.seed(82)
  r1 <- dp_cov(x, 1, 1e-6, bounds = cb, neighbor = "replace-one")
  set.seed(82)
  r2 <- dp_cov(x, 1, 1e-6, bounds = cb$bounds, neighbor = "replace-one")
  expect_identical(r1$estimate, r2$estimate)
  # it was an unclassed "unused argument" error from dp_cov(), after nothing was charged
  b <- dp_budget(5, 1e-4)
  e <- tryCatch(dp_pca(x, epsilon = 1, delta = 1e-6, bounds = cb$bounds, scale. = TRUE, budget = b), error = identity)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "scale.")
  expect_identical(nrow(as.data.frame(b)), 0L)
})
