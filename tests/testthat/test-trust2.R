# Trust, second round: each block reproduces a defect found in review and
# checks its fix (neighbour notions in the ledger, n under add/remove, the
# order of charging, refusals that leave no charge, non-private labels).

test_that("a budget carries one neighbour notion; other notions are restated soundly or refused", {
  set.seed(201)
  x <- matrix(rnorm(400), 100, 4) / 2
  # add/remove budget: a replace-one charge (n used) has no add/remove guarantee
  b <- dp_budget(5, 1e-4)
  expect_identical(budget_spent(b)$neighbor, "add-remove")
  e <- expect_error(dp_threshold(x, 0.3, 1e-6, clip = 1, budget = b), class = "dpcov_budget_error")
  expect_identical(e$arg, "budget")
  expect_match(conditionMessage(e), "replace-one")
  expect_error(analyze_gauss(x, 0.3, 1e-6, clip = 1, neighbor = "zero-out", budget = b),
               class = "dpcov_budget_error")
  expect_error(iwishart_posterior(x, 0.3, 1e-6, clip = 1, budget = b), class = "dpcov_budget_error")
  expect_identical(budget_spent(b)$charges, 0L)
  # mechanisms private under every notion, and add/remove ones, are accepted
  analyze_gauss(x, 0.3, 1e-6, clip = 1, budget = b)
  wishart_noise(x, 0.3, 1e-6, clip = 1, budget = b)
  dp_clip_bound(x, 0.1, budget = b)
  expect_equal(budget_spent(b)$epsilon_basic, 0.7)

  # replace-one budget: the issue's case, analyze_gauss (add/remove) + dp_threshold (replace-one)
  b <- dp_budget(5, 1e-4, neighbor = "replace-one")
  ag <- analyze_gauss(x, 0.3, 1e-6, clip = 1, budget = b)
  th <- dp_threshold(x, 0.3, 1e-6, clip = 1, budget = b)
  tot <- budget_spent(b)
  led <- as.data.frame(b)
  # (an add/remove Analyze Gauss holds under zero-out too: its notion says both)
  expect_identical(led$neighbor, c("add-remove, zero-out", "replace-one"))
  # by hand: the add/remove charge is two steps apart under replace-one
  rho_ag <- 4 * second_moment_sensitivity(1, "add-remove")^2 / (2 * ag$params$sigma^2)
  rho_th <- second_moment_sensitivity(1, "replace-one", n = 100)^2 / (2 * th$params$noise_sd^2)
  expect_equal(tot$rho, rho_ag + rho_th, tolerance = 1e-10)
  expect_equal(tot$epsilon_basic, 2 * 0.3 + 0.3)
  expect_equal(tot$delta, 1e-6 * (1 + exp(0.3)) + 1e-6)
  # the old total (charges added as if under one notion) is below the sound one
  naive <- dpcov:::zcdp_epsilon(led$rho[1] + led$rho[2], 2e-6)
  expect_gt(tot$epsilon, naive)
  # zero-out budget: a replace-one charge is one zero-out step; an add/remove
  # Analyze Gauss is one too (a zeroed row adds nothing to sum x x'), unless
  # public bounds that exclude 0 move the zero record: then two
  b <- dp_budget(5, 1e-4, neighbor = "zero-out")
  dp_threshold(x, 0.3, 1e-6, clip = 1, budget = b)
  analyze_gauss(x, 0.3, 1e-6, clip = 1, budget = b)
  expect_equal(budget_spent(b)$epsilon_basic, 0.3 + 0.3)
  expect_false(any(grepl("restated", wide_output(print(b)))))
  analyze_gauss(x, 0.3, 1e-6, lower = 0.5, upper = 2, budget = b)
  expect_equal(budget_spent(b)$epsilon_basic, 0.3 + 0.3 + 0.6)
  # print names the notion and says charges were restated
  out <- wide_output(print(b))
  expect_match(out[1], "zero-out")
  expect_true(any(grepl("restated", out)))
  # a hand-made budget with a bad notion is refused
  bad <- dp_budget(1, 1e-5)
  assign("neighbor", "bounded", envir = bad$account)
  expect_error(budget_spent(bad), class = "dpcov_error")
})

test_that("dp_cov and dp_lm compose their steps under the release's notion in the ledger", {
  set.seed(202)
  x <- cbind(rnorm(300, 5), rnorm(300, 5))
  b <- dp_budget(10, 1e-4)
  dp_cov(x, 1, 1e-6, budget = b)  # private column bounds (any) + mean and second moment, one mechanism (add/remove)
  led <- as.data.frame(b)
  expect_identical(led$neighbor, c("any", "add-remove"))
  dp_cov(x, 1, 1e-6, clip_mean = 10, budget = b)  # private clip (any) + mean + second moment
  expect_identical(tail(as.data.frame(b)$neighbor, 3), c("any", "add-remove", "add-remove"))
  # thresholding's noise uses n: add/remove is refused before any charge, and its
  # replace-one release is refused by an add/remove budget
  expect_error(dp_cov(x, 1, 1e-6, clip = 2, clip_mean = 10, mechanism = "threshold", budget = b),
               class = "dpcov_error", regexp = "`neighbor` = \"add-remove\" is not available for thresholding")
  expect_error(dp_cov(x, 1, 1e-6, clip = 2, clip_mean = 10, mechanism = "threshold", neighbor = "replace-one",
                      budget = b), class = "dpcov_budget_error")
  expect_identical(nrow(as.data.frame(b)), 5L)
  d <- data.frame(a = rnorm(300), y = rnorm(300))
  dp_lm(y ~ a, d, 1, 1e-6, budget = b)
  expect_identical(tail(as.data.frame(b)$neighbor, 2), c("any", "add-remove"))
})

test_that("under add/remove n is private: 0, 1 and 2 rows are all released", {
  set.seed(203)
  x <- cbind(rnorm(2, 5), rnorm(2, 5))
  for (k in 0:2) {
    xs <- x[seq_len(k), , drop = FALSE]
    r <- dp_cov(xs, 1, 1e-6, clip = 2, clip_mean = 10)
    expect_s3_class(r, "dp_release")
    expect_true(is.na(r$n))
    expect_s3_class(dp_cov(xs, 1, 1e-6), "dp_release")
    expect_s3_class(analyze_gauss(xs, 1, 1e-6, clip = 2), "dp_release")
    expect_s3_class(wishart_noise(xs, 0.5, 1e-6, clip = 2), "dp_release")
    d <- data.frame(a = xs[, 1], y = xs[, 2])
    fit <- suppressWarnings(dp_lm(y ~ a, d, 1, 1e-6, clip = 3, B = 0))
    expect_s3_class(fit, "dp_lm")
    expect_length(coef(fit), 2L)
  }
  # n is public under replace-one: too few rows is then a public fact, refused
  expect_error(dp_cov(x[1, , drop = FALSE], 1, 1e-6, clip = 2, clip_mean = 10, neighbor = "replace-one"),
               class = "dpcov_error")
  # and from sufficient statistics
  s <- second_moment(x[1, , drop = FALSE], 10)
  expect_s3_class(dp_cov(s, 1, 1e-6), "dp_release")
})

test_that("dp_lm charges before it reads the data, and refusals leave nothing on the ledger", {
  set.seed(204)
  d <- data.frame(a = rnorm(50), y = rnorm(50))
  d$a[3] <- NA
  b <- dp_budget(0.5, 1e-6)
  # NA data and an exhausted budget: the budget error comes first (nothing was read)
  expect_error(dp_lm(y ~ a, d, 1, 1e-6, clip = 1, budget = b), class = "dpcov_budget_error")
  expect_error(dp_lm(y ~ a, d, 1, 1e-6, budget = b), class = "dpcov_budget_error")
  # with budget left, the refusal of the values is raised and its charges kept
  # (a refund would test the values for free)
  b <- dp_budget(5, 1e-4)
  e <- expect_error(dp_lm(y ~ a, d, 1, 1e-6, budget = b), class = "dpcov_data_error")
  expect_identical(e$arg, "data")
  expect_identical(budget_spent(b)$charges, 2L)
  b <- dp_budget(5, 1e-4)
  # a Wishart share refused by its own argument check leaves no charge
  d$a[3] <- 0
  expect_error(dp_lm(y ~ a, d, 2, 1e-6, mechanism = "wishart", budget = b), class = "dpcov_error")
  expect_error(dp_lm(y ~ a, d, 0.5, 0.5, mechanism = "wishart", budget = b), class = "dpcov_error")
  expect_identical(budget_spent(b)$charges, 0L)
  fit <- dp_lm(y ~ a, d, 0.5, 1e-6, mechanism = "wishart", budget = b)
  expect_identical(budget_spent(b)$charges, 2L)
  expect_identical(fit$release$params$budget_charge, 1:2)
})

test_that("values computed from the private data without noise carry a non-private label into releases", {
  set.seed(205)
  x <- matrix(rnorm(300 * 6), 300, 6) / 3
  cv <- threshold_cv(x, 0.5, 1e-3, clip = 1, folds = 5)
  expect_false(is.null(attr(cv$constant, "dp_nonprivate")))
  expect_false(is.null(attr(cv$grid, "dp_nonprivate")))
  # the cross-validated constant passed on as a "fixed" number
  r <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = cv$constant)
  expect_s3_class(r, "dp_nonprivate")
  expect_false(r$tuning$private)
  expect_match(r$tuning$detail, "NOT private")
  expect_null(attributes(r$params$constant))
  # its data-scaled grid used with a public sample
  pub <- matrix(rnorm(200 * 6), 200, 6) / 3
  r <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = threshold_tune("public", public = pub, grid = cv$grid))
  expect_s3_class(r, "dp_nonprivate")
  # whether a "public" sample holds rows of x is not checked: the answer (a
  # label, a guarantee of NONE) was an un-noised membership test of any record
  # put in the sample. Replace-one neighbours, one with the sample's first row
  # and one without: the same release under the same seed, label and all
  pub1 <- pub
  x_in <- x
  x_in[17, ] <- pub1[1, ]
  set.seed(9)
  r_in <- dp_threshold(x_in, 0.5, 1e-3, clip = 1, tune = pub1, neighbor = "replace-one")
  set.seed(9)
  r_out <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = pub1, neighbor = "replace-one")
  expect_identical(class(r_in), class(r_out))
  expect_identical(r_in$guarantee, r_out$guarantee)
  expect_identical(r_in$tuning, r_out$tuning)
  expect_false(inherits(r_in, "dp_nonprivate"))
  # controls: a number typed in, a genuinely public sample
  expect_false(inherits(dp_threshold(x, 0.5, 1e-3, clip = 1, tune = 0.3), "dp_nonprivate"))
  expect_false(inherits(dp_threshold(x, 0.5, 1e-3, clip = 1, tune = pub), "dp_nonprivate"))
  # a hand-made tune object cannot drop the mark by being rebuilt
  tn <- threshold_tune("fixed", constant = cv$constant)
  expect_s3_class(dp_threshold(x, 0.5, 1e-3, clip = 1, tune = tn), "dp_nonprivate")
})

test_that("compression_pca_study's table (delta_D, bounds) is labelled non-private", {
  set.seed(206)
  f <- rnorm(600)
  x <- cbind(f, f, 0) + matrix(rnorm(1800), 600, 3)
  s <- compression_pca_study(x, m = 200, dim = 1, reps = 2)
  sm <- summary(s)
  expect_s3_class(sm, "dp_nonprivate")
  expect_match(wide_output(print(sm))[1], "NOT a private release")
  expect_s3_class(s, "dp_nonprivate")
})

test_that("a row whose norm itself overflows is clipped to the bound, never zeroed (both kernels, JL's explicit path)", {
  x <- rbind(rep(1.7e308, 4), c(1, 2, 3, 4), c(-1e308, 1e308, 0, 0))
  ref <- function(X, B) {
    f <- apply(X, 1, function(r) { t <- max(abs(r)); if (t == 0) 1 else min(1, (B / t) / sqrt(sum((r / t)^2))) })
    crossprod(X * f)
  }
  for (portable in c(FALSE, TRUE)) {
    g <- dpcov:::clipped_gram_cpp(x, 2, 1L, portable)
    expect_equal(g$gram, ref(x, 2), tolerance = 1e-12)
    expect_identical(g$n_clipped, 3)
  }
  expect_equal(second_moment(x, 2)$gram, ref(x, 2), tolerance = 1e-12)
  # control: the clipped rows carry weight (a zeroed row would leave only the middle row's)
  expect_gt(second_moment(x, 2)$gram[1, 1], 1.5)
})

test_that("analyses of a release without a formal guarantee say they are not private (class, print, summary)", {
  set.seed(206)
  x <- matrix(rnorm(400 * 3), 400, 3, dimnames = list(NULL, c("a", "b", "y"))) / 3
  r <- dp_threshold(x, 0.5, 1e-3, clip = 1, tune = threshold_cv(x, 0.5, 1e-3, clip = 1, folds = 5)$constant,
                    neighbor = "replace-one")
  expect_s3_class(r, "dp_nonprivate")
  # they used to be plain dp_pca / dp_lm, printed as "Private linear model"
  p <- dp_pca(r)
  expect_s3_class(p, c("dp_pca", "dp_nonprivate"))
  expect_output(print(p), "NOT a private release")
  expect_output(print(summary(p)), "NOT a private release")
  f <- suppressWarnings(dp_lm(r, y ~ a + b - 1, B = 0))
  expect_s3_class(f, c("dp_lm", "dp_nonprivate"))
  out <- wide_output(print(f))
  expect_match(out[1], "NOT a private release: fitted to a release without a formal guarantee")
  expect_false(any(grepl("Private linear model", out)))
  expect_output(print(summary(f)), "NOT a private release: fitted to a release without")
  # its tables keep the label, and glance() states no epsilon (it stated the release's)
  g <- glance(f)
  expect_s3_class(g, "dp_nonprivate")
  expect_false(g$private)
  expect_true(is.na(g$epsilon) && is.na(g$delta))
  expect_s3_class(tidy(f), "dp_nonprivate")
  # clip = Inf (the papers' no-guarantee mode)
  ag <- analyze_gauss(cbind("(Intercept)" = 1, x), 1, 1e-6, clip = Inf, sigma_clip_inf = 2, neighbor = "replace-one")
  expect_false(has_guarantee(ag))
  expect_s3_class(suppressWarnings(dp_lm(ag, y ~ a + b, B = 0)), "dp_nonprivate")
  # a private release's analyses are not labelled
  g <- analyze_gauss(cbind("(Intercept)" = 1, x), 1, 1e-6, clip = 2, neighbor = "replace-one")
  fg <- dp_lm(g, y ~ a + b, B = 0)
  expect_false(inherits(fg, "dp_nonprivate"))
  expect_true(glance(fg)$private)
  expect_identical(glance(fg)$epsilon, 1)
  expect_false(inherits(dp_pca(dp_cov(x, 1, 1e-6, bounds = list(a = c(-2, 2), b = c(-2, 2), y = c(-2, 2)),
                                      neighbor = "replace-one")), "dp_nonprivate"))
})

test_that("the explicit JL paths never refuse on the private n under add/remove", {
  # n = 0 was refused on the explicit path only (the Bartlett path releases noise)
  x0 <- matrix(numeric(0), 0, 3)
  set.seed(3)
  r <- jl_ridge(x0, 0.5, 1e-5, clip = 1, r = 5, method = "explicit")
  expect_identical(r$neighbor, "add-remove")
  expect_true(all(is.finite(r$estimate)))
  # the size check: r (n + d) d counted n, so an r between two sizes answered "is n above t?"
  inp <- function(n, n_public) list(method = "explicit", s = list(n = n, p = 1000), n_public = n_public)
  r_lim <- 9990  # r (1 + 1000) 1000 <= 1e10 < r (2 + 1000) 1000
  expect_silent(dpcov:::check_explicit_size(inp(1, FALSE), r_lim, "r"))
  expect_silent(dpcov:::check_explicit_size(inp(2, FALSE), r_lim, "r"))
  expect_silent(dpcov:::check_explicit_size(inp(1e9, FALSE), r_lim, "r"))
  # where n is public (replace-one) it is a shape, and still counted
  expect_silent(dpcov:::check_explicit_size(inp(1, TRUE), r_lim, "r"))
  expect_error(dpcov:::check_explicit_size(inp(2, TRUE), r_lim, "r"), class = "dpcov_error")
  # the public part alone still refuses
  expect_error(dpcov:::check_explicit_size(inp(0, FALSE), 1e5, "r"), class = "dpcov_error")
})
