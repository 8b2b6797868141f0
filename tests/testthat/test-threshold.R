# Thresholding releases: calibration, noise audits with under-noised negative
# controls, the local model's two paths, references for thresholding / PSD
# projection / CV, and the contents of the released object.

alpha <- 1e-6

# Plain-R symmetric Gaussian matrix in the C++ draw order (by columns,
# upper triangle with the diagonal).
ref_symmetric_noise <- function(p, sd, z = stats::rnorm(p * (p + 1) / 2)) {
  E <- matrix(0, p, p)
  E[upper.tri(E, diag = TRUE)] <- sd * z
  E[lower.tri(E)] <- t(E)[lower.tri(E)]
  E
}
# Plain-R Marsaglia polar method on runif(), pairs in order (u first): the
# stream cross-validation simulates its noise from.
ref_polar_normals <- function(n) {
  out <- numeric(n + 1L)
  i <- 0L
  while (i < n) {
    repeat {
      u <- 2 * stats::runif(1) - 1
      v <- 2 * stats::runif(1) - 1
      s <- u^2 + v^2
      if (s < 1 && s > 0) break
    }
    f <- sqrt(-2 * log(s) / s)
    out[i + 1:2] <- c(u, v) * f
    i <- i + 2L
  }
  out[seq_len(n)]
}
ref_threshold <- function(A, t, keep_diag = FALSE) {
  T <- A * (abs(A) > t)
  if (keep_diag) diag(T) <- diag(A)
  T
}
ref_psd <- function(A) {
  e <- eigen((A + t(A)) / 2, symmetric = TRUE)
  e$vectors %*% diag(pmax(e$values, 0), nrow(A)) %*% t(e$vectors)
}
upper_entries <- function(M) M[upper.tri(M, diag = TRUE)]

# Variance audit: sum of squared standardised entries ~ chi^2(N), two-sided,
# plus a KS test against N(0, 1). TRUE when both accept at level alpha.
noise_audit <- function(z, sd) {
  z <- z / sd
  q <- sum(z^2)
  N <- length(z)
  p_chi <- 2 * min(stats::pchisq(q, N), stats::pchisq(q, N, lower.tail = FALSE))
  p_ks <- suppressWarnings(stats::ks.test(z, "pnorm")$p.value)
  p_chi > alpha && p_ks > alpha
}

# A well-conditioned 2-column data set: the average second moment is
# [[0.68, 0.24], [0.24, 0.32]] (eigenvalues 0.8, 0.2), every row has norm 1,
# so with small noise nothing is thresholded and the PSD step is the
# identity: the release minus the exact average is the noise itself.
audit_data <- function(n) {
  x <- matrix(c(1, 0, 0.6, 0.8), 2, 2, byrow = TRUE)
  x[rep(1:2, length.out = n), ]
}

test_that("noise scales equal the papers' formulas", {
  n <- 200; eps <- 0.5; delta <- 1 / 400
  nz <- function(...) dpcov:::threshold_noise(..., B = 1, n = n, epsilon = eps, delta = delta,
                                              calibration = "classic")
  expect_equal(nz("central", "replace-one")$s^2, 4 * log(1.25 / delta) / (n * eps)^2)   # modified DP
  expect_equal(nz("central", "zero-out")$s^2, 2 * log(1.25 / delta) / (n^2 * eps^2))    # Wang & Xu DP
  # add/remove moves the average by up to sqrt(2) B^2 / n, as replace-one does
  expect_equal(nz("central", "add-remove")$s, nz("central", "replace-one")$s)
  l <- nz("local", "zero-out")                                                        # both LDP as printed
  expect_equal(l$sigma_record^2, 2 * log(1.25 / delta) / eps^2)
  expect_equal(l$s, l$sigma_record / sqrt(n))
  expect_equal(nz("local", "replace-one")$sigma_record^2, 4 * log(1.25 / delta) / eps^2)
  # Wang & Xu's printed thresholds (their (10) and (34)) with gamma = 1.3
  p <- 100
  expect_equal(dpcov:::threshold_level(1.3, n, p, nz("central", "zero-out")$s),
               1.3 * sqrt(log(p) / n) + 4 * sqrt(2 * log(1.25 / delta)) * sqrt(log(p)) / (n * eps))
  expect_equal(dpcov:::threshold_level(1.3, n, p, l$s),
               1.3 * sqrt(log(p) / n) + 4 * sqrt(2 * log(1.25 / delta)) * sqrt(log(p)) / (sqrt(n) * eps))
})

test_that("central release: entry noise variance is s^2 (audit), and sd/2 fails it", {
  set.seed(11)
  n <- 2000; eps <- 0.45; delta <- 0.01
  reps <- if (extended_tests()) 1000 else 300  # the fast tier: still ~10 sd between null and control
  x <- audit_data(n)
  exact <- crossprod(x) / n
  s_ref <- sqrt(2) * sqrt(2 * log(1.25 / delta)) / (n * eps)   # replace-one, B = 1
  draw <- function(eps_used) {
    replicate(reps, upper_entries(as.matrix(
      dp_threshold(x, eps_used, delta, clip = 1, tune = 0, calibration = "classic")) - exact))
  }
  z <- draw(eps)
  expect_true(noise_audit(z, s_ref))
  # under-noised control: epsilon doubled halves the noise sd; must fail
  expect_false(noise_audit(draw(2 * eps) , s_ref))
  # Wang & Xu (zero-out by default): s is 1/sqrt(2) of the modified one
  zw <- replicate(reps, upper_entries(as.matrix(
    dp_threshold(x, eps, delta, clip = 1, variant = "wang_xu", tune = 0, calibration = "classic")) - exact))
  expect_true(noise_audit(zw, s_ref / sqrt(2)))
  expect_false(noise_audit(zw, s_ref))
})

test_that("local release: entry noise variance is sigma^2 / n (audit), and sd/2 fails it", {
  set.seed(12)
  n <- 2e5; eps <- 0.45; delta <- 0.01  # not smaller: larger averaged noise would meet the PSD step
  reps <- if (extended_tests()) 600 else 200
  x <- audit_data(n)
  exact <- crossprod(x) / n
  sigma_ref <- sqrt(2) * sqrt(2 * log(1.25 / delta)) / eps     # replace-one per record, B = 1
  draw <- function(eps_used) {
    replicate(reps, upper_entries(as.matrix(
      dp_threshold(x, eps_used, delta, clip = 1, model = "local", tune = 0, calibration = "classic")) - exact))
  }
  expect_true(noise_audit(draw(eps), sigma_ref / sqrt(n)))
  expect_false(noise_audit(draw(2 * eps), sigma_ref / sqrt(n)))
})

test_that("the aggregated-noise path and the per-record path agree in distribution", {
  set.seed(13)
  n <- 300; p <- 4
  x <- matrix(stats::rnorm(n * p), n, p) / 3
  noise <- dpcov:::threshold_noise_terms("modified", "local", "replace-one", 1, n, 0.5, 1e-3,
                                         "classic", "averaged")
  exact <- dpcov:::clipped_gram_cpp(x, 1)$gram / n
  avg <- function(method) replicate(300, upper_entries(
    dpcov:::threshold_noisy_average(x, NULL, 1, noise, "local", method) - exact))
  agg <- avg("aggregate")
  per <- avg("explicit")
  expect_true(noise_audit(agg, noise$s))
  expect_true(noise_audit(per, noise$s))
  expect_gt(suppressWarnings(stats::ks.test(agg, per)$p.value), alpha)
  # the explicit path is the literal sum of per-record reports, same draw order
  set.seed(14)
  lit <- Reduce(`+`, lapply(seq_len(n), function(i) {
    xi <- x[i, ] * min(1, 1 / sqrt(sum(x[i, ]^2)))
    tcrossprod(xi) + ref_symmetric_noise(p, noise$sigma_record)
  })) / n
  set.seed(14)
  expect_equal(dpcov:::threshold_noisy_average(x, NULL, 1, noise, "local", "explicit"), lit)
})

test_that("client reports and the server aggregate have the calibrated noise; sd/2 fails", {
  set.seed(15)
  n <- 400; p <- 3; eps <- 0.5; delta <- 1e-3
  x <- matrix(stats::rnorm(n * p), n, p) / 4
  xc <- x * pmin(1, 1 / sqrt(rowSums(x^2)))
  exact <- crossprod(xc) / n
  sigma <- sqrt(2) * sqrt(2 * log(1.25 / delta)) / eps
  z <- replicate(400, upper_entries(as.matrix(ldp_aggregate(
    ldp_perturb(x, eps, delta, clip = 1, calibration = "classic"))) - exact))
  expect_true(noise_audit(z, sigma / sqrt(n)))
  expect_false(noise_audit(z / 2, sigma / sqrt(n)))    # a report with half the noise
  # one report per client, aggregated from separate objects
  reps <- lapply(1:3, function(i) ldp_perturb(x[i, ], eps, delta, clip = 1, calibration = "classic"))
  agg <- ldp_aggregate(reps)
  expect_s3_class(agg, "dp_ldp_aggregate")
  expect_equal(agg$n, 3)
  expect_equal(agg$params$noise_sd, sigma / sqrt(3))
  r <- dp_threshold(ldp_aggregate(ldp_perturb(x, eps, delta, clip = 1, calibration = "classic")), model = "local",
                    tune = "theory")
  expect_s3_class(r, "dp_threshold")
  expect_equal(r$params$noise_sd, sigma / sqrt(n))
})

test_that("thresholding and PSD projection equal plain-R references", {
  set.seed(16)
  A <- crossprod(matrix(stats::rnorm(60), 10, 6)) / 10 + ref_symmetric_noise(6, 0.4)
  for (t in c(0, 0.2, 0.7, 10)) {
    expect_equal(dpcov:::hard_threshold_cpp(A, t, FALSE), ref_threshold(A, t))
    expect_equal(dpcov:::hard_threshold_cpp(A, t, TRUE), ref_threshold(A, t, TRUE))
  }
  # ties stay zero (strict inequality, as printed)
  expect_equal(dpcov:::hard_threshold_cpp(matrix(c(1, 0.5, 0.5, 1), 2), 0.5, FALSE), diag(2))
  P <- dpcov:::psd_project_cpp(A)
  expect_equal(P$matrix, ref_psd(A), tolerance = 1e-10)
  expect_equal(P$n_negative, sum(eigen(A, symmetric = TRUE)$values < 0))
  expect_gte(min(eigen(P$matrix, symmetric = TRUE)$values), -1e-10)
})

test_that("dp_threshold equals a plain-R reference under the same seed", {
  set.seed(17)
  n <- 150; p <- 8
  x <- matrix(stats::rnorm(n * p), n, p) / 3
  for (v in c("modified", "wang_xu")) for (m in c("central", "local")) {
    set.seed(99)
    r <- dp_threshold(x, 0.5, 1e-3, clip = 1, variant = v, model = m, tune = 0.8, calibration = "classic")
    nb <- if (v == "wang_xu" && m == "central") "zero-out" else "replace-one"
    sens <- if (nb == "replace-one") sqrt(2) else 1
    s <- sens * sqrt(2 * log(1.25 / 1e-3)) / 0.5 / (if (m == "central") n else sqrt(n))
    xc <- x * pmin(1, 1 / sqrt(rowSums(x^2)))
    set.seed(99)
    A <- crossprod(xc) / n + ref_symmetric_noise(p, s)
    t <- 0.8 * sqrt(log(p) / n) + 4 * s * sqrt(log(p))
    expect_equal(r$params$threshold, t)
    expect_equal(unname(as.matrix(r)), ref_psd(ref_threshold(A, t)), tolerance = 1e-10)
  }
  # noise_multiplier = 0: the threshold is the constant's term alone
  r0 <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = 0.8, noise_multiplier = 0)
  expect_equal(r0$params$threshold, 0.8 * sqrt(log(p) / n))
  expect_equal(r0$params$noise_multiplier, 0)
  expect_error(dp_threshold(x, 0.5, 1e-3, clip = 1, noise_multiplier = -1), "`noise_multiplier` must be in")
  # same seed, same release
  set.seed(3); a <- dp_threshold(x, 0.5, 1e-3, clip = 1)
  set.seed(3); b <- dp_threshold(x, 0.5, 1e-3, clip = 1)
  expect_identical(a$estimate, b$estimate)
})

test_that("the modified LDP threshold as printed zeroes the whole matrix at n = 200", {
  set.seed(18)
  x <- rdata(200, cov_model(50, "model1"))
  args <- list(x, 0.5, 1 / 400, clip = Inf, variant = "modified", model = "local", tune = 1,
               neighbor = "zero-out", sigma_clip_inf = 1, calibration = "classic")
  printed <- do.call(dp_threshold, c(args, ldp_threshold = "printed"))
  expect_true(all(as.matrix(printed) == 0))
  averaged <- do.call(dp_threshold, c(args, ldp_threshold = "averaged"))
  expect_equal(printed$params$threshold / averaged$params$threshold,
               (sqrt(log(50) / 200) + 4 * printed$params$sigma_record * sqrt(log(50))) /
                 (sqrt(log(50) / 200) + 4 * printed$params$sigma_record / sqrt(200) * sqrt(log(50))))
  expect_equal(printed$params$ldp_threshold, "printed")
})

test_that("threshold losses for all candidates equal brute force", {
  set.seed(19)
  A <- ref_symmetric_noise(7, 1)
  H <- ref_symmetric_noise(7, 1)
  t <- sort(c(0, stats::runif(12, 0, 3), abs(A[2, 3])))   # includes a tie
  for (kd in c(FALSE, TRUE)) {
    brute <- vapply(t, function(tt) sum((ref_threshold(A, tt, kd) - H)^2), numeric(1))
    expect_equal(dpcov:::threshold_losses_cpp(A, H, t, kd), brute)
  }
  # an evenly spaced grid takes the arithmetic path: entries exactly on grid
  # points (kept strictly above t only), below and above the whole grid
  t <- seq(0.1, 2.5, length.out = 13)
  A <- ref_symmetric_noise(9, 1)
  A[cbind(1:6, 2:7)] <- A[cbind(2:7, 1:6)] <- c(t[1], t[2], t[7], t[13], 0.05, 7)
  H <- ref_symmetric_noise(9, 1)
  for (kd in c(FALSE, TRUE)) {
    brute <- vapply(t, function(tt) sum((ref_threshold(A, tt, kd) - H)^2), numeric(1))
    expect_equal(dpcov:::threshold_losses_cpp(A, H, t, kd), brute)
  }
})

test_that("CV with Gram downdating picks the same constant as naive CV", {
  set.seed(20)
  x <- rdata(120, cov_model(15, "model2")) / 3
  for (m in c("central", "local")) {
    set.seed(21)
    fast <- threshold_cv(x, 0.5, 1e-3, clip = 1, model = m, folds = 5)
    set.seed(21)
    naive <- threshold_cv(x, 0.5, 1e-3, clip = 1, model = m, folds = 5, method = "naive")
    expect_equal(fast$loss, naive$loss)
    expect_identical(fast$constant, naive$constant)
  }
  # and both equal a plain-R CV that recomputes every fold
  x <- rdata(2000, cov_model(6, "model2")) / 2.5   # noise small enough that candidates differ
  set.seed(22)
  cv <- threshold_cv(x, 0.5, 1e-3, clip = 1, folds = 4, grid = c(0, 0.25, 0.5, 1, 2),
                     calibration = "classic")
  set.seed(22)
  n <- nrow(x); p <- ncol(x)
  x <- x * pmin(1, 1 / sqrt(rowSums(x^2)))   # rows clipped to norm 1
  fold <- sample(rep_len(0:3, n))
  z <- matrix(ref_polar_normals(4 * p * (p + 1) / 2), ncol = 4)  # one column per fold
  loss <- numeric(5)
  for (k in 0:3) {
    tr <- x[fold != k, ]; ho <- x[fold == k, ]
    s <- sqrt(2) * sqrt(2 * log(1.25 / 1e-3)) / 0.5 / nrow(tr)
    A <- crossprod(tr) / nrow(tr) + ref_symmetric_noise(p, s, z[, k + 1])
    H <- crossprod(ho) / nrow(ho)
    t <- c(0, 0.25, 0.5, 1, 2) * sqrt(log(p) / nrow(tr)) + 4 * s * sqrt(log(p))
    loss <- loss + vapply(t, function(tt) sum((ref_threshold(A, tt) - H)^2), numeric(1))
  }
  expect_equal(cv$loss, loss / 4)
  expect_equal(as.vector(cv$constant), c(0, 0.25, 0.5, 1, 2)[which.min(loss)])
  expect_gt(length(unique(signif(loss, 8))), 1)   # the candidates differ
  expect_output(print(cv), "NOT private")
  # the mark is on the value itself: passed on, the release is non-private;
  # a copy loses it (documented in ?threshold_cv and said by its print)
  r <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = cv$constant)
  expect_false(has_guarantee(r))
  expect_s3_class(r, "dp_nonprivate")
  expect_true(has_guarantee(dp_threshold(x, 0.5, 1e-3, clip = 1, tune = as.numeric(cv$constant))))
  expect_output(print(cv), "loses that mark, not the leak", fixed = TRUE)
})

test_that("CV's polar-method normals equal plain R and are standard normal", {
  set.seed(24)
  z <- dpcov:::polar_normals_cpp(1001)
  set.seed(24)
  expect_equal(z, ref_polar_normals(1001))
  # distribution: 2e5 draws, KS and variance tests at alpha = 1e-6, and the
  # same tests reject a stream 5% too wide (the power check)
  set.seed(25)
  z <- dpcov:::polar_normals_cpp(2e5)
  n <- length(z)
  ks_p <- function(v) suppressWarnings(stats::ks.test(v, "pnorm")$p.value)
  var_p <- function(v) {
    q <- sum(v^2)
    2 * min(stats::pchisq(q, n), stats::pchisq(q, n, lower.tail = FALSE))
  }
  expect_gt(ks_p(z), alpha)
  expect_gt(var_p(z), alpha)
  expect_lt(abs(mean(z)) * sqrt(n), stats::qnorm(1 - alpha / 2))
  expect_lt(ks_p(1.05 * z), alpha)
  expect_lt(var_p(1.05 * z), alpha)
  # pairs are independent: correlation of consecutive draws
  expect_lt(abs(stats::cor(z[-1], z[-n])) * sqrt(n), stats::qnorm(1 - alpha / 2))
})

test_that("tuning is recorded, and print says when it looked at the private data", {
  set.seed(23)
  x <- rdata(200, cov_model(10, "model1")) / 4
  pub <- rdata(100, cov_model(10, "model1")) / 4
  # the default spends nothing on tuning: the data-free theory constant
  def <- dp_threshold(x, 0.5, 1e-3, clip = 1)
  expect_identical(def$tuning$method, "theory default")
  expect_true(def$tuning$private)
  expect_true(has_guarantee(def))
  cv <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = "cv")
  expect_false(cv$tuning$private)
  expect_false(has_guarantee(cv))
  expect_output(print(cv), "tuning looked at the private data")
  expect_match(cv$guarantee, "^NONE: a tuning choice looked at the private data")
  expect_equal(cv$tuning$value, cv$params$constant)
  pb <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = pub)
  expect_true(pb$tuning$private)
  expect_true(has_guarantee(pb))
  expect_match(pb$tuning$method, "public")
  th <- dp_threshold(x, 0.5, 1e-3, clip = 2, tune = "theory")
  expect_equal(th$params$constant, sqrt(2) * 4)
  expect_true(has_guarantee(th))
  fx <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = threshold_tune("fixed", constant = 1.5))
  expect_equal(fx$params$constant, 1.5)
  expect_output(print(fx), "fixed constant")
  # sufficient statistics: no CV possible, fixed constant fine
  ss <- second_moment(x, clip = 1)
  expect_s3_class(dp_threshold(ss, 0.5, 1e-3, clip = 1, tune = 1), "dp_threshold")
  noclip <- dp_threshold(x, 0.5, 1e-3, clip = Inf, tune = 1, sigma_clip_inf = 1)
  expect_false(has_guarantee(noclip))
  expect_output(print(noclip), "no formal privacy guarantee")
})

test_that("the released object carries no non-private matrix", {
  set.seed(24)
  x <- rdata(200, cov_model(6, "model2")) / 4
  exact <- crossprod(x) / nrow(x)
  for (m in c("central", "local")) {
    r <- dp_threshold(x, 0.5, 1e-3, clip = 1, model = m)
    expect_named(r, c("estimate", "mechanism", "epsilon", "delta", "neighbor", "n_public", "clip",
                      "n", "p", "scale", "centred", "ridge", "params", "tuning", "guarantee", "call",
                      "diagnostics"))
    expect_identical(r$scale, "average")
    expect_false(r$centred)
    nums <- rapply(r[setdiff(names(r), c("call", "estimate"))], function(v) v,
                   classes = c("numeric", "integer"), how = "unlist")
    expect_gt(length(nums), 5)
    # no exact second-moment entry, no data value, anywhere in the object
    expect_false(any(nums %in% c(exact, exact * nrow(x), x)))
    expect_false(any(as.matrix(r) %in% c(exact, exact * nrow(x))))
    # scalars, and the indices of the variances the noisy matrix's threshold zeroed
    expect_true(all(vapply(r$params[names(r$params) != "thresholded_variances"], function(v) length(v) == 1L, logical(1))))
    expect_true(is.integer(r$params$thresholded_variances) && all(r$params$thresholded_variances %in% seq_len(ncol(x))))
    expect_false(any(vapply(r, function(v) is.matrix(v) && !identical(v, r$estimate), logical(1))))
    expect_gte(min(eigen(as.matrix(r), symmetric = TRUE)$values), -1e-10)
  }
})

test_that("bad inputs give clear errors", {
  x <- matrix(stats::rnorm(200), 50, 4)
  expect_error(dp_threshold(x[, 1, drop = FALSE], 0.5, 1e-3, clip = 1), "p >= 2")
  expect_error(dp_threshold(x[1:5, ], 0.5, 1e-3, clip = 1, tune = "cv"), "10-fold cross-validation needs at least 10 rows")
  expect_error(threshold_cv(x[1:3, ], 0.5, 1e-3, clip = 1, folds = 5), "needs at least 5 rows")
  # a constant column is valid data: refusing it would reveal the values
  xc <- x; xc[, 3] <- 2
  expect_s3_class(dp_threshold(xc, 0.5, 1e-3, clip = 1), "dp_threshold")
  xn <- x; xn[2, 2] <- NA
  expect_error(dp_threshold(xn, 0.5, 1e-3, clip = 1), "NA")
  expect_error(dp_threshold(x, 0, 1e-3, clip = 1), "`epsilon` must be > 0")
  expect_error(dp_threshold(x, 0.5, 1, clip = 1), "`delta` must be in \\(0, 1\\)")
  expect_error(dp_threshold(x, 0.5, 1e-3), "`clip`.*required")
  expect_error(dp_threshold(x, 0.5, 1e-3, clip = -1), "`clip` must be > 0")
  expect_error(dp_threshold(x, 0.5, 1e-3, clip = Inf), "sigma_clip_inf")
  expect_error(dp_threshold(x, 0.5, 1e-3, clip = 1, variant = "foo"), "`variant` must be one of")
  expect_error(dp_threshold(x, 0.5, 1e-3, clip = 1, tune = "magic"), "`tune` must be")
  expect_error(dp_threshold(x, 0.5, 1e-3, clip = 1, tune = -1), "`constant` must be in")
  expect_error(dp_threshold(x, 0.5, 1e-3, clip = 1, tune = x[, 1:3]), "public sample has 3 columns")
  expect_error(dp_threshold(second_moment(x, 1), 0.5, 1e-3, clip = 1, tune = "cv"), "needs the data matrix")
  expect_error(dp_threshold(second_moment(x, 1), 0.5, 1e-3, clip = 1, model = "local", tune = 1),
               "local model needs the records")
  agg <- ldp_aggregate(ldp_perturb(x / 4, 0.5, 1e-3, clip = 1))
  expect_error(dp_threshold(agg, model = "local", tune = "cv"), "cannot cross-validate")
  expect_error(dp_threshold(agg, model = "central", tune = 1), "local-model release")
  expect_error(dp_threshold(agg, 0.9, model = "local", tune = 1), "`epsilon` differs from the value the reports", class = "dpcov_error")
  expect_error(ldp_perturb(x, 0.5, 1e-3, clip = Inf), "finite")
  # a batch with other settings is dropped whole (counted), not averaged in
  # (the server's settings given: without them, batches that disagree are refused)
  expect_warning(mixed <- ldp_aggregate(ldp_perturb(x, 0.5, 1e-3, clip = 1), ldp_perturb(x, 0.4, 1e-3, clip = 1),
                                        epsilon = 0.5, delta = 1e-3, clip = 1, neighbor = "replace-one",
                                        calibration = "analytic"),
                 "dropped 1 batch")
  expect_equal(mixed$n, 50)
  expect_equal(mixed$params$dropped_batches, 1)
  expect_error(ldp_aggregate(list(1, 2)), "ldp_reports")
  expect_error(threshold_tune("cv", folds = 1), "`folds` must be >= 2")
  expect_error(threshold_tune("public"), "`public`")
  expect_error(threshold_tune("fixed"), "`constant` is required")
  expect_error(threshold_tune(grid = c(1, NA)), "`grid`")
})

test_that("clip = Inf on data whose squares overflow: analyze_gauss()'s classed refusal, not the eigensolver's (audit)", {
  set.seed(4)
  x <- matrix(rnorm(600), 200, 3) * 1e300
  ref <- expect_error(analyze_gauss(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 1, neighbor = "replace-one"),
                      class = "dpcov_data_error")
  calls <- list(
    central = function() dp_threshold(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 1, neighbor = "replace-one"),
    local = function() dp_threshold(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 1, model = "local"),
    explicit = function() dp_threshold(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 1, model = "local", method = "explicit"),
    cv = function() dp_threshold(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 1, tune = "cv"),
    threshold_cv = function() threshold_cv(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 1))
  for (f in calls) {
    e <- expect_error(f(), class = "dpcov_data_error")
    expect_identical(e$arg, "x")
    expect_identical(conditionMessage(e), conditionMessage(ref))
  }
  # the control: the same data clipped are released
  expect_s3_class(dp_threshold(x, 1, 1e-6, clip = 1, neighbor = "replace-one"), "dp_threshold")
})

test_that("clip = Inf on data whose squares fit but whose CV losses overflow: refused, not thresholded to 0 (review)", {
  set.seed(1)
  x0 <- matrix(rnorm(300), 100, 3)
  for (scale in c(1e80, 1e100, 1e150)) {
    for (f in list(function() threshold_cv(x0 * scale, 1, 1e-6, clip = Inf, sigma_clip_inf = 1),
                   function() dp_threshold(x0 * scale, 1, 1e-6, clip = Inf, sigma_clip_inf = 1, tune = "cv"))) {
      e <- expect_error(f(), class = "dpcov_data_error")
      expect_identical(e$arg, "x")
      expect_match(conditionMessage(e), "cross-validation losses", fixed = TRUE)
    }
  }
  # the control: at 1e70 the losses are finite, the constant among them
  set.seed(3)
  cv <- threshold_cv(x0 * 1e70, 1, 1e-6, clip = Inf, sigma_clip_inf = 1)
  expect_true(all(is.finite(cv$loss)))
})

test_that("sufficient statistics carry their clip: dp_threshold() takes it, as the other mechanisms do (audit)", {
  set.seed(21)
  X <- matrix(rnorm(300 * 3), 300, 3)
  s <- second_moment(X, 2)
  set.seed(5)
  a <- dp_threshold(s, 1, 1e-6)
  set.seed(5)
  b <- dp_threshold(X, 1, 1e-6, clip = 2)
  expect_identical(a$estimate, b$estimate)
  expect_identical(a$clip, 2)
  set.seed(5)
  expect_identical(dp_threshold(s, 1, 1e-6, clip = 2)$estimate, b$estimate)
  # a different clip is refused, and nothing is charged
  bud <- dp_budget(5, 1e-3, neighbor = "replace-one")
  expect_error(dp_threshold(s, 1, 1e-6, clip = 3, budget = bud), "differs", class = "dpcov_error")
  expect_identical(nrow(as.data.frame(bud)), 0L)
  # data still needs it
  e <- expect_error(dp_threshold(X, 1, 1e-6), "is required", class = "dpcov_error")
  expect_identical(e$arg, "clip")
})

test_that("ldp_aggregate() matches batches' columns by name, not by position (audit)", {
  set.seed(21)
  n <- 50; eps <- 2; delta <- 1e-3
  x <- matrix(stats::rnorm(n * 3), n, 3, dimnames = list(NULL, c("a", "b", "c"))) / 3
  rA <- ldp_perturb(x, eps, delta, clip = 1)
  rB <- ldp_perturb(x[, c("b", "a", "c")], eps, delta, clip = 1)
  # rB's reports put in a, b, c order by hand: unpack, reorder, repack
  up <- upper.tri(diag(3), diag = TRUE)
  hand <- rB
  hand$reports <- t(apply(rB$reports, 1, function(v) {
    M <- matrix(0, 3, 3)
    M[up] <- v
    M[lower.tri(M)] <- t(M)[lower.tri(M)]
    dimnames(M) <- list(rB$colnames, rB$colnames)
    M[c("a", "b", "c"), c("a", "b", "c")][up]
  }))
  hand$colnames <- c("a", "b", "c")
  agg <- ldp_aggregate(rA, rB)
  expect_equal(as.matrix(agg), as.matrix(ldp_aggregate(rA, hand)))
  expect_identical(rownames(agg$estimate), c("a", "b", "c"))
  # the same with the reordered batch first: the result is in its order
  expect_equal(as.matrix(ldp_aggregate(rB, rA))[c("a", "b", "c"), c("a", "b", "c")], as.matrix(agg))
  # different variables, and named mixed with unnamed, are refused
  rC <- ldp_perturb(unname(x), eps, delta, clip = 1)
  e <- expect_error(ldp_aggregate(rA, rC), "mix reports with column names", class = "dpcov_error")
  expect_identical(e$arg, "...")
  rD <- ldp_perturb(`colnames<-`(x, c("a", "b", "d")), eps, delta, clip = 1)
  e <- expect_error(ldp_aggregate(rA, rD), "same variables", class = "dpcov_error")
  expect_identical(e$arg, "...")
  # unnamed batches are still added by position; a batch given twice counts once
  expect_warning(a2 <- ldp_aggregate(rC, rC), "1 given twice")
  expect_identical(a2$n, n)
  # a named one-record vector keeps its names
  r1 <- ldp_perturb(c(a = 0.3, b = -0.2, c = 0.5), eps, delta, clip = 1)
  expect_identical(r1$colnames, c("a", "b", "c"))
  expect_identical(rownames(ldp_aggregate(r1, rA)$estimate), c("a", "b", "c"))
})

test_that("print() of ldp_reports returns its input unchanged (audit)", {
  set.seed(22)
  r <- ldp_perturb(c(a = 0.3, b = -0.2), 1, 1e-3, clip = 1)
  out <- NULL
  utils::capture.output(out <- print(r))
  expect_identical(out, r)
  utils::capture.output(vis <- withVisible(print(r))$visible)
  expect_false(vis)
})

test_that("the local model: relabelled releases are not aggregates; batches agree on p; repeats counted once; aggregate args checked", {
  set.seed(14)
  X <- matrix(rnorm(4000), 1000, 4) / 3
  # a release without a guarantee, relabelled, got a local-DP guarantee from dp_threshold()
  np <- suppressWarnings(dp_threshold(X, epsilon = 1, delta = 1e-3, clip = 1, tune = "cv"))
  h <- np
  class(h) <- c("dp_ldp_aggregate", "dp_release")
  h$params$calibration <- "analytic"
  expect_error(dp_threshold(h, model = "local"), class = "dpcov_error")
  a <- suppressWarnings(ldp_aggregate(ldp_perturb(X, 1, 1e-3, 1)))
  expect_s3_class(suppressWarnings(dp_threshold(a, model = "local")), "dp_threshold")  # the control
  for (edit in list(function(z) { z$scale <- "sum"; z }, function(z) { z$centred <- TRUE; z },
                    function(z) { z$params$noise_sd <- z$params$noise_sd / 2; z })) {
    expect_error(dp_threshold(edit(a), model = "local"), class = "dpcov_error")
  }
  # arguments without meaning for an aggregate are refused, not ignored
  expect_error(dp_threshold(a, model = "local", calibration = "classic"), class = "dpcov_error")
  expect_error(dp_threshold(a, model = "local", sigma_clip_inf = 1), class = "dpcov_error")
  expect_error(dp_threshold(a, model = "local", method = "explicit"), class = "dpcov_error")
  # one faulty batch with another p neither drops the honest ones nor is
  # outvoted by made-up rows: batches that disagree on p are refused
  set.seed(20)
  Y <- matrix(rnorm(3000), 1000, 3) / 3
  honest <- ldp_perturb(Y, 1, 1e-3, 1)
  faulty <- ldp_perturb(Y[1:2, 1:2], 1, 1e-3, 1)
  expect_error(ldp_aggregate(faulty, honest, epsilon = 1, delta = 1e-3, clip = 1, neighbor = "replace-one",
                             calibration = "analytic"), "p = 2 in 1 batch\\(es\\), p = 3 in 1 batch", class = "dpcov_error")
  ag <- ldp_aggregate(honest, epsilon = 1, delta = 1e-3, clip = 1, neighbor = "replace-one", calibration = "analytic")
  expect_identical(c(ag$n, ag$p), c(1000, 3))
  # a batch resubmitted, and repeated report rows, count once: the noise sd
  # stated is then right (sd sigma / sqrt(n), not sqrt(2n))
  n <- 100
  Z <- matrix(rnorm(n * 3), n, 3) / 3
  Zc <- Z * pmin(1, 1 / sqrt(rowSums(Z^2)))
  truth <- crossprod(Zc) / n
  E <- replicate(600, {
    r <- ldp_perturb(Z, 1, 1e-3, 1)
    a2 <- suppressWarnings(ldp_aggregate(r, r))
    c(a2$estimate[1, 2] - truth[1, 2], a2$params$noise_sd, a2$n)
  })
  expect_true(all(E[3, ] == n))
  # chi-square test of the stated sd at 1e-6; the old aggregate's sd (sigma / sqrt(2n)) fails it
  v <- sum(E[1, ]^2) / E[2, 1]^2
  expect_gt(pchisq(v, 600), 1e-6 / 2)
  expect_lt(pchisq(v, 600), 1 - 1e-6 / 2)
  expect_lt(pchisq(sum(E[1, ]^2) / (E[2, 1]^2 / 2), 600, lower.tail = FALSE), 1e-6)
  r <- ldp_perturb(Z, 1, 1e-3, 1)
  r2 <- r
  r2$reports <- rbind(r$reports, r$reports[1:5, ])
  expect_warning(a3 <- ldp_aggregate(r2), "5 report")
  expect_identical(a3$n, n)
})

test_that("refusals that follow from public shapes come before the charge or withdraw it; arguments that do not apply are refused (audit)", {
  set.seed(41)
  X <- matrix(rnorm(400), 100, 4) / 3
  b <- dp_budget(1, 1e-4, neighbor = "replace-one")
  # a public tuning sample of the wrong width: named, and nothing charged
  e <- expect_error(dp_threshold(X, 0.5, 1e-5, clip = 1, tune = matrix(rnorm(150), 50, 3), budget = b),
                    "3 columns", class = "dpcov_error")
  expect_identical(e$arg, "tune")
  # too few public rows for the folds: refused by threshold_tune() itself
  e <- expect_error(threshold_tune("public", public = X[1:5, ]), "at least 10 rows", class = "dpcov_error")
  expect_identical(e$arg, "public")
  e <- expect_error(dp_threshold(X, 0.5, 1e-5, clip = 1, tune = X[1:5, ], budget = b), "at least 10 rows",
                    class = "dpcov_error")
  expect_identical(e$arg, "tune")
  # p too large for the package's allocation limit: refused, charge withdrawn
  e <- expect_error(dp_threshold(matrix(0, 2, 50000), 0.5, 1e-5, clip = 1, budget = b), "second-moment matrix",
                    class = "dpcov_error")
  expect_identical(e$arg, "x")
  expect_equal(budget_spent(b)$epsilon, 0)
  expect_equal(nrow(as.data.frame(b)), 0L)
  # the explicit local reports' size: the quantity tested is the one printed
  expect_silent(dpcov:::check_explicit_reports(1e4, 999))
  e <- expect_error(dpcov:::check_explicit_reports(10001, 1000), "5,005,500,500 normals, more than 5e9",
                    class = "dpcov_error")
  expect_identical(e$arg, "method")
  # arguments that do not apply are refused, not ignored
  e <- expect_error(dp_threshold(X, 1, 1e-3, clip = 1, ldp_threshold = "printed"), class = "dpcov_error")
  expect_identical(e$arg, "ldp_threshold")
  e <- expect_error(dp_threshold(X, 1, 1e-3, clip = 1, model = "local", variant = "wang_xu", ldp_threshold = "printed"),
                    class = "dpcov_error")
  expect_identical(e$arg, "ldp_threshold")
  e <- expect_error(dp_threshold(X, 1, 1e-3, clip = 1, method = "explicit"), "local model only", class = "dpcov_error")
  expect_identical(e$arg, "method")
  e <- expect_error(dp_threshold(X, 1, 1e-3, lower = rep(-1, 4), upper = rep(1, 4), method = "aggregate"),
                    class = "dpcov_error")
  expect_identical(e$arg, "method")
  ag <- suppressWarnings(ldp_aggregate(ldp_perturb(X, 1, 1e-3, clip = 1)))
  e <- expect_error(dp_threshold(ag, variant = "wang_xu", ldp_threshold = "printed"), class = "dpcov_error")
  expect_identical(e$arg, "ldp_threshold")
  expect_identical(suppressWarnings(dp_threshold(ag, ldp_threshold = "printed"))$params$ldp_threshold, "printed")
  e <- expect_error(threshold_cv(X, 1, 1e-3, clip = 1, ldp_threshold = "printed"), class = "dpcov_error")
  expect_identical(e$arg, "ldp_threshold")
  # where they apply they are kept
  r <- suppressWarnings(dp_threshold(X, 1, 1e-3, clip = 1, model = "local", method = "explicit", ldp_threshold = "printed"))
  expect_identical(r$params[c("method", "ldp_threshold")], list(method = "explicit", ldp_threshold = "printed"))
  # bounds with an aggregate name the bound, not `model`
  for (a in list(list(lower = rep(-1, 4), upper = rep(1, 4)), list(upper = rep(1, 4)),
                 list(bounds = data.frame(lower = rep(-1, 4), upper = rep(1, 4))))) {
    e <- expect_error(do.call(dp_threshold, c(list(ag), a)), "aggregate of local reports", class = "dpcov_error")
    expect_identical(e$arg, names(a)[1])
  }
  # refusals name `x`
  e <- expect_error(threshold_cv(epsilon = 0.5, delta = 1e-3, clip = 1), class = "dpcov_error")
  expect_identical(e$arg, "x")
  e <- expect_error(dp_threshold(second_moment(X[1, , drop = FALSE], 1), 0.5, 1e-3), "at least 2 rows",
                    class = "dpcov_error")
  expect_identical(e$arg, "x")
  e <- expect_error(threshold_cv(matrix(0, 2, 50000), 0.5, 1e-5, clip = 1, folds = 2), "second-moment matrix",
                    class = "dpcov_error")
  expect_identical(e$arg, "x")
  # ldp_aggregate() tells a malformed batch from one with other settings
  r1 <- ldp_perturb(X, 1, 1e-3, clip = 1)
  r2 <- r1
  r2$reports <- r2$reports[, -1]
  r3 <- ldp_perturb(X, 2, 1e-3, clip = 1)
  expect_warning(ldp_aggregate(r1, r2, r3, epsilon = 1, delta = 1e-3, clip = 1, neighbor = "replace-one",
                               calibration = "analytic"),
                 "dropped 2 batch\\(es\\) \\(1 malformed, 1 not matching the settings, 0 given twice\\)")
})

test_that("public-sample tuning: on the box scale with bounds, with the release's noise, and its fold memory checked before the charge", {
  set.seed(1)
  p <- 6
  x <- matrix(runif(20000 * p, -100, 100), 20000, p, dimnames = list(NULL, paste0("v", 1:p)))
  pub <- matrix(runif(300 * p, -100, 100), 300, p, dimnames = list(NULL, paste0("v", 1:p)))
  g <- seq(0, 2, length.out = 41)
  tt <- function(P) threshold_tune("public", public = P, grid = g, noise = FALSE)
  # with bounds the sample is mapped as x is: the same release as on x / 100 with clip sqrt(p)
  set.seed(2); a <- dp_threshold(x, 20, 1e-3, lower = -100, upper = 100, tune = tt(pub))
  set.seed(2); b <- dp_threshold(x / 100, 20, 1e-3, clip = sqrt(p), tune = tt(pub / 100))
  expect_identical(a$params$constant, b$params$constant)
  expect_equal(unname(a$estimate) / 1e4, unname(b$estimate), tolerance = 1e-12)
  # control: the raw sample on the scaled data picks another constant (the defect's units)
  set.seed(2); raw <- dp_threshold(x / 100, 20, 1e-3, clip = sqrt(p), tune = tt(pub))
  expect_false(identical(raw$params$constant, b$params$constant))
  # the folds get the release's noise term: at n = 20000 from a public sample of
  # 100 the losses vary with c; at the sample's own size every candidate zeroes
  # every entry, and the losses are all equal (the control)
  set.seed(1)
  Sigma <- cov_model(30, "model1")
  P <- rdata(100, Sigma) / 10
  cal <- function(m) dpcov:::threshold_noise_terms("modified", "central", "replace-one", 1, m, 0.5, 1 / 400,
                                                   "analytic", "averaged", 4, proven = TRUE, zero_row = NULL)
  set.seed(3); at_n <- dpcov:::run_threshold_cv(P, 10, NULL, 1, cal, TRUE, TRUE, TRUE, noise_at = 20000)
  set.seed(3); at_fold <- dpcov:::run_threshold_cv(P, 10, NULL, 1, cal, TRUE, TRUE, TRUE)
  expect_gt(diff(range(at_n$loss)), 1e-3 * max(at_n$loss))
  expect_identical(diff(range(at_fold$loss)), 0)
  # "cv" with bounds: refused in its own words (it spoke of statistics or a reader)
  e <- expect_error(dp_threshold(x, 1, 1e-3, lower = -100, upper = 100, tune = "cv"),
                    "with per-column bounds", class = "dpcov_error")
  expect_identical(e$arg, "tune")
  bud <- dp_budget(10, 1e-2, neighbor = "replace-one")
  # one p x p Gram per fold: beyond the allocation limit, refused before the charge
  wide <- matrix(0, 400, 2400)
  e <- expect_error(dp_threshold(matrix(0, 3, 2400), 1, 1e-3, clip = 1, budget = bud,
                                 tune = threshold_tune("public", public = wide, folds = 400)),
                    "fold Gram matrices", class = "dpcov_error")
  expect_identical(e$arg, "tune")
  expect_identical(budget_spent(bud)$charges, 0L)
})

test_that("threshold_tune(): folds and noise refused where unused; a marked constant is said to be not private", {
  for (a in list(list("fixed", constant = 1, folds = 3), list("theory", folds = 3), list("theory", noise = FALSE),
                 list("fixed", constant = 1, noise = TRUE))) {
    e <- expect_error(do.call(threshold_tune, a), "is not used by method", class = "dpcov_error")
    expect_identical(e$arg, names(a)[length(a)])
  }
  # a hand-made object is rebuilt without them
  expect_identical(dpcov:::as_threshold_tune(unclass(threshold_tune("fixed", constant = 2)) |>
                                               structure(class = "threshold_tune"))$constant, 2)
  set.seed(1)
  x <- matrix(rnorm(400 * 5), 400, 5) / 3
  cv <- threshold_cv(x, 1, 1e-3, clip = 1, folds = 4)
  r <- dp_threshold(x, 1, 1e-3, clip = 1, tune = cv$constant)
  expect_no_match(r$tuning$detail, "chosen without the data")
  expect_match(r$tuning$detail, "NOT private")
  expect_output(print(threshold_tune("fixed", constant = cv$constant)), "NOT private")
  expect_output(print(threshold_tune("fixed", constant = 1)), "^<threshold_tune> fixed constant c = 1\\s*$")
})

test_that("a hand-made threshold_tune carrying settings its method does not use is refused, not rebuilt without them", {
  h <- unclass(threshold_tune("fixed", constant = 1))
  h$folds <- 3
  e <- expect_error(dp_threshold(matrix(rnorm(200), 50, 4), 1, 1e-3, clip = 1, tune = structure(h, class = "threshold_tune")),
                    "not used by method", class = "dpcov_error")
  expect_identical(e$arg, "tune")
  h <- unclass(threshold_tune("theory"))
  h$noise <- FALSE
  expect_error(dp_threshold(matrix(rnorm(200), 50, 4), 1, 1e-3, clip = 1, tune = structure(h, class = "threshold_tune")),
               "not used by method", class = "dpcov_error")
  # control: the objects as made are accepted
  expect_s3_class(suppressWarnings(dp_threshold(matrix(rnorm(200), 50, 4), 1, 1e-3, clip = 1, tune = threshold_tune("theory"))),
                  "dp_release")
})

# ldp_aggregate()'s result and the warnings it gave (their messages)
aggregate_warned <- function(...) {
  msgs <- character()
  a <- withCallingHandlers(ldp_aggregate(...), warning = function(w) {
    msgs <<- c(msgs, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  list(a = a, warnings = msgs)
}

test_that("a batch given again is counted once: by its release id, or by reports within 1e-9 sigma of the first's (audit)", {
  set.seed(51)
  X <- matrix(rnorm(2000 * 3), 2000, 3) / 3
  r <- ldp_perturb(X, 1, 1e-5, 1)
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  utils::write.csv(r$reports, f, row.names = FALSE)
  again <- r
  again$reports <- unname(as.matrix(utils::read.csv(f)))
  expect_false(identical(again$reports, r$reports))  # the file changed the last digits
  res <- aggregate_warned(r, again)
  expect_identical(res$a$n, 2000)
  expect_identical(res$a$estimate, ldp_aggregate(r)$estimate)
  expect_true(any(grepl("1 given twice", res$warnings)))
  # without its id (made by hand), the copy is still that batch given again
  nameless <- again
  nameless$release_id <- NULL
  res <- aggregate_warned(r, nameless)
  expect_identical(res$a$n, 2000)
  expect_true(any(grepl("1 given twice", res$warnings)))
  # and reports so repeated within a batch count once
  r5 <- r
  r5$reports <- rbind(r$reports, again$reports[1:5, ])
  r5$release_id <- NULL
  res <- aggregate_warned(r5)
  expect_identical(res$a$n, 2000)
  expect_true(any(grepl("and 5 report", res$warnings)))
  # controls: an independent batch, and a copy moved by 1e-6 sigma (beyond
  # the tolerance, far within the noise), count in full
  other <- ldp_perturb(X, 1, 1e-5, 1)
  expect_identical(aggregate_warned(r, other)$a$n, 4000)
  moved <- nameless
  moved$reports <- r$reports + 1e-6 * r$sigma * sign(stats::rnorm(length(r$reports)))
  res <- aggregate_warned(r, moved)
  expect_identical(res$a$n, 4000)
  expect_false(any(grepl("dropped", res$warnings)))
  # the stated noise sd of an aggregate with a batch read back (id kept or
  # not) is right: chi-square at 1e-6; counted twice (sd sigma / sqrt(2n)) it fails
  n <- 100
  Z <- matrix(rnorm(n * 3), n, 3) / 3
  truth <- crossprod(Z * pmin(1, 1 / sqrt(rowSums(Z^2)))) / n
  E <- vapply(seq_len(400), function(i) {
    b <- ldp_perturb(Z, 1, 1e-3, 1)
    copy <- b
    copy$reports <- signif(b$reports, 15)  # as write.csv() writes them
    if (i %% 2 == 0) copy$release_id <- NULL
    a <- suppressWarnings(ldp_aggregate(b, copy))
    c(a$estimate[1, 2] - truth[1, 2], a$params$noise_sd, a$n)
  }, numeric(3))
  expect_true(all(E[3, ] == n))
  v <- sum(E[1, ]^2) / E[2, 1]^2
  expect_gt(pchisq(v, 400), 1e-6 / 2)
  expect_lt(pchisq(v, 400), 1 - 1e-6 / 2)
  expect_lt(pchisq(sum(E[1, ]^2) / (E[2, 1]^2 / 2), 400, lower.tail = FALSE), 1e-6)
})

test_that("ldp_aggregate() is near-linear in the number of batches, and finds repeats across batches, subsets and column orders (audit)", {
  set.seed(52)
  proto <- ldp_perturb(c(a = 0.1, b = 0.2, c = 0.3), 1, 1e-5, 1)
  proto$release_id <- NULL
  K <- 4000
  noise <- matrix(rnorm(K * 6, sd = proto$sigma), K, 6)
  batches <- lapply(seq_len(K), function(i) {
    b <- proto
    b$reports <- noise[i, , drop = FALSE]
    b
  })
  # one-report batches, hand-made (no ids): the pairwise comparisons took
  # 4.6 s for 2000 and grew as the square
  elapsed <- system.time(a <- suppressWarnings(ldp_aggregate(batches)))[["elapsed"]]
  expect_identical(a$n, K)
  expect_lt(elapsed, 10)
  # a batch given again, and one of two earlier reports with the columns in
  # another order (c, a, b): one batch and two reports dropped
  up <- upper.tri(diag(3), diag = TRUE)
  reorder <- function(v, o) {
    M <- matrix(0, 3, 3)
    M[up] <- v
    M[lower.tri(M)] <- t(M)[lower.tri(M)]
    M[o, o][up]
  }
  permuted <- proto
  permuted$colnames <- c("c", "a", "b")
  permuted$reports <- rbind(reorder(noise[5, ], c(3, 1, 2)), reorder(noise[9, ], c(3, 1, 2)))
  res <- aggregate_warned(c(batches, batches[17], list(permuted)))
  expect_identical(res$a$n, K)
  expect_true(any(grepl("dropped 1 batch\\(es\\) \\(0 malformed, 0 not matching the settings, 1 given twice\\) and 2 report",
                        res$warnings)))
  expect_equal(res$a$estimate, a$estimate, tolerance = 1e-12)
  # control: the permuted batch of new reports counts in full
  fresh <- permuted
  fresh$reports <- matrix(rnorm(12, sd = proto$sigma), 2, 6)
  expect_identical(suppressWarnings(ldp_aggregate(c(batches, list(fresh))))$n, K + 2)
})

test_that("a batch whose column names do not name each column once is malformed: dropped, or refused naming `...` (audit)", {
  set.seed(53)
  X <- matrix(rnorm(300), 100, 3, dimnames = list(NULL, c("a", "b", "c"))) / 3
  good <- ldp_perturb(X, 2, 1e-3, 1)
  for (nm in list(c("a", NA, "c"), c("a", "", "c"), c("a", "a", "c"))) {
    bad <- ldp_perturb(X, 2, 1e-3, 1)
    bad$colnames <- nm
    bad2 <- bad
    bad2$release_id <- NULL
    for (call in list(function() ldp_aggregate(bad), function() ldp_aggregate(bad, bad2))) {
      e <- expect_error(call(), "name each column once", class = "dpcov_error")
      expect_identical(e$arg, "...")
    }
    res <- aggregate_warned(good, bad)
    expect_true(any(grepl("dropped 1 batch\\(es\\) \\(1 malformed", res$warnings)))
    expect_identical(res$a$estimate, suppressWarnings(ldp_aggregate(good))$estimate)
    expect_error(print(bad), "name each column once", class = "dpcov_error")
  }
  # the rule ldp_perturb() applies to the records (control: the names given here are accepted)
  expect_error(ldp_perturb(`colnames<-`(X, c("a", "a", "c")), 2, 1e-3, 1), "duplicate or missing column names",
               class = "dpcov_error")
  expect_identical(rownames(suppressWarnings(ldp_aggregate(good))$estimate), c("a", "b", "c"))
})

test_that("dp_threshold() on an aggregate checks the settings given as arguments before comparing them (audit)", {
  set.seed(55)
  X <- matrix(rnorm(3000), 1000, 3) / 3
  a <- suppressWarnings(ldp_aggregate(ldp_perturb(X, 1, 1e-3, 1)))
  for (args in list(list(epsilon = "1"), list(epsilon = c(1, 1)), list(epsilon = NA), list(delta = "0.001"),
                    list(clip = list(1)), list(clip = c(1, 1)), list(neighbor = 1), list(neighbor = c("replace-one", "zero-out")))) {
    e <- expect_error(do.call(dp_threshold, c(list(a), args)), class = "dpcov_error")
    expect_identical(e$arg, names(args))
    expect_no_match(conditionMessage(e), "differs")
  }
  # controls: a valid value that differs is said to; the reports' own is accepted
  e <- expect_error(dp_threshold(a, epsilon = 2), "`epsilon` differs", class = "dpcov_error")
  expect_identical(e$arg, "epsilon")
  expect_s3_class(suppressWarnings(dp_threshold(a, epsilon = 1, delta = 1e-3, clip = 1, neighbor = "replace-one")),
                  "dp_threshold")
})

test_that("a repeated report is found whatever earlier report shares its weighted sum (audit)", {
  set.seed(54)
  r <- ldp_perturb(matrix(rnorm(300), 100, 3) / 3, 1, 1e-3, 1)
  r$release_id <- NULL
  # two reports with the same sum under the fixed weights the server used,
  # which compared a report with the first earlier one of its sum only
  w <- sqrt(seq_len(6) + 1)
  t <- Find(function(t) (w[2] * t) * w[1] == (w[1] * t) * w[2], seq(0.101, 1, by = 0.001))
  u <- c(w[2] * t, 0, 0, 0, 0, 0)
  v <- c(0, w[1] * t, 0, 0, 0, 0)
  expect_identical(drop(u %*% w), drop(v %*% w))
  with_copy <- r
  with_copy$reports <- rbind(r$reports, u, v, v, deparse.level = 0)
  res <- aggregate_warned(with_copy)
  expect_identical(res$a$n, 102)
  expect_true(any(grepl("and 1 report", res$warnings)))
  # control: u and v themselves are different reports, both counted
  distinct <- r
  distinct$reports <- rbind(r$reports, u, v, deparse.level = 0)
  res <- aggregate_warned(distinct)
  expect_identical(res$a$n, 102)
  expect_false(any(grepl("dropped", res$warnings)))
})

test_that("batches sharing a release_id are one batch only if their reports say so; else refused naming `...` (review)", {
  set.seed(56)
  X <- matrix(rnorm(3000), 1000, 3) / 3
  honest <- ldp_perturb(X, 1, 1e-5, 1)
  # a one-report batch carrying the honest batch's id got it dropped (given
  # first), or was dropped itself (given after) whatever its report
  hostile <- ldp_perturb(X[1, , drop = FALSE], 1, 1e-5, 1)
  hostile$release_id <- honest$release_id
  for (args in list(list(hostile, honest), list(honest, hostile))) {
    e <- expect_error(do.call(ldp_aggregate, args), "same release_id but different reports", class = "dpcov_error")
    expect_identical(e$arg, "...")
  }
  # a part given first beat the whole batch
  part <- honest
  part$reports <- honest$reports[1:10, ]
  e <- expect_error(ldp_aggregate(part, honest), "batches 1 and 2 in `...` carry the same release_id", class = "dpcov_error")
  expect_identical(e$arg, "...")
  # controls: a part given after the whole, the batch twice and a copy read
  # back from a file are that batch given again
  read_back <- honest
  read_back$reports <- signif(honest$reports, 15)
  for (again in list(part, honest, read_back)) {
    res <- aggregate_warned(honest, again)
    expect_identical(res$a$n, 1000)
    expect_true(any(grepl("1 given twice", res$warnings)))
    expect_identical(res$a$estimate, suppressWarnings(ldp_aggregate(honest))$estimate)
  }
  # with one entry per report (p = 1, repeats found only exactly), a copy
  # read back from a file is still matched to its batch by its id
  one <- ldp_perturb(matrix(rnorm(20000) / 3, 20000, 1), 1, 1e-5, 1)
  copy <- one
  copy$reports <- signif(one$reports, 15)
  expect_false(identical(copy$reports, one$reports))
  res <- aggregate_warned(one, copy)
  expect_identical(res$a$n, 20000)
  expect_true(any(grepl("1 given twice", res$warnings)))
})

test_that("reports crafted to chain within the repeat tolerance in every entry are refused in bounded time (review)", {
  adv <- function(N, m, tol) {
    i <- seq_len(N)
    r <- ifelse(i %% 2, (i + 1) / 2, N - i / 2 + 1)
    sapply(seq_len(m), function(j) if (j %% 2) i * 0.55 * tol else r * 0.55 * tol)
  }
  set.seed(57)
  # 2000 reports of 55 entries took 12 s, 8000 of 3 entries 23 s (one report settled a pass)
  for (shape in list(c(2000, 10), c(8000, 2))) {
    b <- ldp_perturb(matrix(0, shape[1], shape[2]), 1, 1e-5, clip = 1)
    b$reports <- adv(shape[1], shape[2] * (shape[2] + 1) / 2, 1e-9 * b$sigma)
    elapsed <- system.time(e <- expect_error(ldp_aggregate(b), "chain within the repeat tolerance",
                                             class = "dpcov_error"))[["elapsed"]]
    expect_identical(e$arg, "...")
    expect_lt(elapsed, 3)
  }
  # control: honest reports with exact copies of one report (cut by no
  # column) and copies at 1e-14 relative are aggregated
  b <- ldp_perturb(matrix(rnorm(3000) / 3, 1000, 3), 1, 1e-5, clip = 1)
  b$release_id <- NULL
  b$reports <- rbind(b$reports, b$reports[rep(1, 50), ], b$reports[1:200, ] * (1 + 1e-14))
  res <- aggregate_warned(b)
  expect_identical(res$a$n, 1000)
  expect_true(any(grepl("and 250 report", res$warnings)))
})

test_that("repeated reports are those a pairwise search finds, chains and near misses included (review)", {
  brute <- function(R, tol) {
    N <- nrow(R)
    repeated <- logical(N)
    pivot <- seq_len(N)
    kept <- integer(0)
    for (i in seq_len(N)) {
      hit <- kept[vapply(kept, function(k) all(abs(R[i, ] - R[k, ]) <= tol), logical(1))]
      if (length(hit)) {
        repeated[i] <- TRUE
        pivot[i] <- min(hit)
      } else kept <- c(kept, i)
    }
    list(repeated = repeated, pivot = pivot)
  }
  set.seed(58)
  tol <- 1e-3
  for (rep in 1:20) {
    base <- matrix(rnorm(60 * 3), 60, 3)
    # copies, near misses (2 tol off in one entry) and short chains at 0.55 tol in every entry
    R <- rbind(base, base[sample(60, 20), ] + runif(60, -0.4, 0.4) * tol,
               base[sample(60, 10), ] + c(2 * tol, 0, 0), base[1, ] + outer(1:6, rep(0.55 * tol, 3)))
    R <- R[sample(nrow(R)), ]
    cuts <- sort(sample(2:(nrow(R) - 1), 3))
    mats <- lapply(split(seq_len(nrow(R)), findInterval(seq_len(nrow(R)), c(1, cuts))), function(i) R[i, , drop = FALSE])
    expect_identical(dpcov:::ldp_repeated_reports(list(R), tol), brute(R, tol))
    expect_identical(dpcov:::ldp_repeated_reports(unname(mats), tol), brute(R, tol))
  }
})

test_that("with one entry per report (p = 1), honest reports are not dropped as repeats by chance (review)", {
  set.seed(59)
  # 1e6 reports within 1e-9 sigma met by chance: 262 were dropped
  r <- ldp_perturb(matrix(rnorm(1e6) / 3, 1e6, 1), 1, 1e-5, 1)
  res <- aggregate_warned(r)
  expect_identical(res$a$n, 1e6)
  expect_length(res$warnings, 0)
  # at p = 1 reports are not matched one by one (rounded honest reports
  # met by the thousand): a row repeated by hand is counted again, as
  # documented; at p >= 2 it is found (the rounded-reports test below)
  r$reports <- rbind(r$reports, r$reports[7, , drop = FALSE])
  r$release_id <- NULL
  res <- aggregate_warned(r)
  expect_identical(res$a$n, 1e6 + 1)
})

test_that("p = 1 reports are not matched one by one: rounded honest reports are all kept (review)", {
  set.seed(95)
  x <- matrix(sqrt(runif(2e4)), ncol = 1)
  r <- ldp_perturb(x, epsilon = 1, delta = 1e-5, clip = 1)
  q <- r
  q$reports <- round(q$reports, 2)  # ordinary post-processing: about 1200 distinct values
  a <- ldp_aggregate(q)
  expect_identical(a$n, 2e4)
  expect_equal(unname(a$estimate[1, 1]), mean(q$reports), tolerance = 1e-12)
  # a batch given again is still found, by its id and by its reports in order
  expect_identical(suppressWarnings(ldp_aggregate(q, q))$n, 2e4)
  q2 <- q
  q2$release_id <- NULL
  expect_identical(suppressWarnings(ldp_aggregate(q, q2))$n, 2e4)
  # control: at p = 2 rows repeated by hand are found one by one
  y <- matrix(runif(2000, -0.5, 0.5), 1000, 2)
  s <- ldp_perturb(y, epsilon = 1, delta = 1e-5, clip = 1)
  s$reports <- rbind(s$reports, s$reports[1:10, ])
  expect_identical(suppressWarnings(ldp_aggregate(s))$n, 1000)
})

test_that("an aggregate whose estimate was edited to keep its public sums is charged (review)", {
  set.seed(3)
  x1 <- matrix(rnorm(3000) / 3, 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  b <- dp_budget(10, 1e-3, neighbor = "replace-one")
  r1 <- ldp_perturb(x1[1:500, ], epsilon = 1, delta = 1e-5, clip = 1, budget = b)
  r2 <- ldp_perturb(x1[501:1000, ], epsilon = 1, delta = 1e-5, clip = 1, budget = b)
  ag <- suppressWarnings(ldp_aggregate(r1, r2))
  n0 <- nrow(as.data.frame(b))
  # control: the aggregate as made charges nothing more
  suppressWarnings(dp_threshold(ag, budget = b))
  expect_identical(nrow(as.data.frame(b)), n0)
  # an estimate with the same length, sum and cosine-weighted sum (the old,
  # public fingerprint) but other entries
  E <- ag$estimate
  v <- as.double(E)
  cw <- cos(seq_along(v))
  d <- solve(rbind(c(1, 1), cw[c(1, 5)]), c(0.3, 0.3 * cw[9]) - c(0, 0))
  E[1] <- E[1] + d[1]
  E[5] <- E[5] + d[2]
  E[9] <- E[9] - 0.3
  ag2 <- ag
  ag2$estimate <- E
  suppressWarnings(dp_threshold(ag2, budget = b))
  expect_identical(nrow(as.data.frame(b)), n0 + 1L)
})

test_that("ldp_aggregate() returns its release visibly, as every release does", {
  set.seed(96)
  r <- ldp_perturb(matrix(rnorm(300) / 3, 100, 3), 1, 1e-5, 1)
  v <- suppressWarnings(withVisible(ldp_aggregate(r)))
  expect_true(v$visible)
  expect_s3_class(v$value, "dp_ldp_aggregate")
})

test_that("hand-made thresholded releases and tuning marks are checked (audit)", {
  set.seed(1)
  x <- matrix(rnorm(4000), 1000, 4)
  r <- suppressWarnings(dp_threshold(x, 1, 1e-6, clip = 5))
  for (bad in list(-1, "a", NULL)) {
    h <- r
    h["params"] <- list(utils::modifyList(h$params, list(threshold = bad), keep.null = TRUE))
    if (is.null(bad)) h$params$threshold <- NULL
    e <- expect_error(release_diagnostics(h), "threshold", class = "dpcov_error")
    expect_identical(e$arg, "x")
  }
  h <- r
  h$params$keep_diagonal <- "yes"
  expect_error(release_diagnostics(h), "keep_diagonal", class = "dpcov_error")
  # a tuning object whose non-private mark is not a string: refused (it was dropped, and the release read as private)
  tu <- threshold_tune("fixed", constant = 1)
  tu$nonprivate <- 5
  e <- expect_error(dp_threshold(x, 1, 1e-6, clip = 5, tune = tu), "nonprivate", class = "dpcov_error")
  expect_identical(e$arg, "tune")
  # control: the release as made is read as it is
  expect_identical(release_diagnostics(r)$level, r$diagnostics$level)
})

test_that("a noisy thresholded release's advice names the threshold's constant (audit)", {
  set.seed(4)
  S <- cov_model(20, "model2")
  r <- suppressWarnings(dp_cov(rdata(2000, S), 1, 1e-6, mechanism = "threshold", neighbor = "replace-one"))
  expect_identical(r$diagnostics$level, "mostly noise")
  expect_match(r$diagnostics$messages, "threshold_tune\\(\"public\"", all = FALSE)
  # control: an Analyze Gauss release's advice is the bounds' and the budget's
  a <- suppressWarnings(dp_cov(rdata(200, S), 0.1, 1e-6, neighbor = "replace-one"))
  expect_false(any(grepl("threshold_tune", a$diagnostics$messages)))
})
