# The privacy budget: composition arithmetic against hand computations and
# published conversions, refusal before the data is read, reference
# semantics, every mechanism charging, print, and hostile budgets.

# Independent of the package's closed form: the CKS delta(eps) curve as
# printed (an infimum over alpha, here over a fine grid), inverted for eps.
cks_delta_log <- function(eps, rho) {
  a <- 1 + exp(seq(-14, 14, length.out = 40001))
  min((a - 1) * (a * rho - eps) - log(a - 1) + a * log1p(-1 / a))
}
cks_epsilon_by_hand <- function(rho, delta) {
  stats::uniroot(function(e) cks_delta_log(e, rho) - log(delta), c(0, 100), tol = 1e-12)$root
}
bun_steinke <- function(rho, delta) rho + 2 * sqrt(rho * log(1 / delta))

# The exact epsilon of one Gaussian mechanism (Balle and Wang) at a delta.
exact_gauss_epsilon <- function(s, delta) {
  stats::uniroot(function(e) gaussian_mechanism_delta(s, 1, e) - delta, c(1e-8, 100), tol = 1e-12)$root
}

charge_reader <- function() {
  state <- new.env()
  state$called <- FALSE
  reader <- function() {
    state$called <- TRUE
    NULL
  }
  list(reader = reader, called = function() state$called)
}

test_that("k Gaussian releases: rho = k / (2 s^2) converted at the budget's delta by the CKS formula, or k by basic composition", {
  for (k in c(1, 3, 10)) for (s in c(2, 10)) for (delta in c(1e-5, 1e-8)) {
    z <- dp_budget(1000, delta, composition = "zCDP")
    b <- dp_budget(1000, 0.5)
    for (i in seq_len(k)) {
      budget_charge(z, "gauss", epsilon = 1, delta = delta / k, sigma_ratio = s, neighbor = "add-remove")
      budget_charge(b, "gauss", epsilon = 1, delta = delta / k, sigma_ratio = s, neighbor = "add-remove")
    }
    sp <- budget_spent(z)
    rho <- k / (2 * s^2)
    expect_identical(sp$composition, "zCDP")
    expect_equal(sp$rho, rho, tolerance = 1e-12)
    expect_equal(sp$epsilon_zcdp, cks_epsilon_by_hand(rho, delta), tolerance = 1e-6)
    expect_equal(sp$epsilon, sp$epsilon_zcdp)
    # each release alone: the smaller of its stated epsilon and its own zCDP conversion
    one <- min(1, cks_epsilon_by_hand(1 / (2 * s^2), delta / k))
    expect_equal(sp$epsilon_basic, k * one, tolerance = 1e-6)
    expect_equal(sp$delta, delta)
    expect_equal(sp$rho_left, zcdp_rho(1000, delta) - rho, tolerance = 1e-9)
    expect_true(is.na(sp$delta_left))
    expect_identical(sp$releases, as.integer(k))
    # the basic budget reports the basic total whatever the zCDP one would be
    sb <- budget_spent(b)
    expect_identical(sb$composition, "basic")
    expect_equal(sb$epsilon, k * one, tolerance = 1e-6)
    expect_equal(sb$delta, delta, tolerance = 1e-12)
    expect_equal(sb$delta_left, 0.5 - delta, tolerance = 1e-12)
    expect_true(is.na(sb$rho_left))
  }
})

test_that("the CKS conversion is never above Bun & Steinke's and is tighter", {
  for (rho in c(1e-4, 0.01, 0.1, 0.5, 2, 10)) for (delta in c(1e-3, 1e-6, 1e-10)) {
    e <- zcdp_epsilon(rho, delta)
    bs <- bun_steinke(rho, delta)
    expect_lt(e, bs)
    expect_gt(e, rho)  # alpha -> infinity alone gives rho; every finite delta costs more
  }
  # Bun & Steinke (2016), Proposition 1.3, by hand: rho = 0.5, delta = 1e-5
  expect_equal(bun_steinke(0.5, 1e-5), 0.5 + 2 * sqrt(0.5 * 5 * log(10)), tolerance = 1e-15)
  expect_lt(zcdp_epsilon(0.5, 1e-5), 5.2985)
  expect_equal(zcdp_epsilon(0.5, 1e-5), cks_epsilon_by_hand(0.5, 1e-5), tolerance = 1e-6)
})

test_that("one Gaussian mechanism: the converted epsilon is at least its exact epsilon, and close", {
  for (delta in c(1e-5, 1e-8)) for (eps in c(0.1, 0.5, 1, 3)) {
    for (cal in c("analytic", "classic")) {
      if (cal == "classic" && eps >= 1) next
      s <- gaussian_sigma(1, eps, delta, calibration = cal)
      rho <- 1 / (2 * s^2)
      exact <- exact_gauss_epsilon(s, delta)
      conv <- zcdp_epsilon(rho, delta)
      expect_gte(conv, exact * (1 - 1e-9))
      expect_lt(conv, 1.15 * exact)    # the conversion loses little for one mechanism
      expect_lt(conv, bun_steinke(rho, delta))
    }
  }
})

test_that("a basic budget adds the releases; a release's own steps compose as it states", {
  b <- dp_budget(10, 1e-3)
  budget_charge(b, "laplace", 0.5, 0, neighbor = "add-remove")
  budget_charge(b, "wishart", 0.25, 1e-6, neighbor = "add-remove")
  sp <- budget_spent(b)
  expect_equal(sp$epsilon_basic, 0.75)
  expect_equal(sp$epsilon, 0.75)
  expect_equal(sp$delta, 1e-6)
  # the Wishart step has no zCDP guarantee: no zCDP total
  expect_true(is.na(sp$rho))
  expect_identical(sp$epsilon_zcdp, Inf)
  s <- gaussian_sigma(1, 0.3, 1e-6)
  # four Gaussian releases add by basic composition on a basic budget ...
  for (i in 1:4) budget_charge(b, "gauss", 0.3, 1e-6, sigma_ratio = s, neighbor = "add-remove")
  sp <- budget_spent(b)
  expect_equal(sp$epsilon, 0.75 + 1.2)
  expect_equal(sp$delta, 5e-6, tolerance = 1e-12)
  expect_equal(sp$epsilon_left, 10 - sp$epsilon)
  expect_identical(sp$releases, 6L)
  # ... while the four as the steps of one release compose as that release
  # states: zCDP for its Gaussian steps (converted at their deltas' sum) when smaller
  b1 <- dp_budget(10, 1e-3)
  budget_charge(b1, rep("gauss", 4), rep(0.3, 4), rep(1e-6, 4), sigma_ratio = rep(s, 4), neighbor = "add-remove")
  sp1 <- budget_spent(b1)
  rho <- 4 / (2 * s^2)
  expect_equal(sp1$epsilon, cks_epsilon_by_hand(rho, 4e-6), tolerance = 1e-6)
  expect_lt(sp1$epsilon, 1.2)
  expect_identical(sp1$releases, 1L)
  # a step without a rho in the same release adds by basic composition
  b2 <- dp_budget(10, 1e-3)
  budget_charge(b2, c("laplace", rep("gauss", 4)), c(0.5, rep(0.3, 4)), c(0, rep(1e-6, 4)),
                sigma_ratio = c(NA, rep(s, 4)), neighbor = "add-remove")
  expect_equal(budget_spent(b2)$epsilon, sp1$epsilon + 0.5, tolerance = 1e-9)
})

test_that("a zCDP budget adds every release's rho: a pure step's epsilon^2 / 2, and refuses approximate steps without one", {
  z <- dp_budget(10, 1e-5, composition = "zCDP")
  budget_charge(z, "laplace", 0.5, 0, neighbor = "add-remove")
  budget_charge(z, "exponential", 0.4, 0, neighbor = "any", rho = 0.4^2 / 8)
  s <- gaussian_sigma(1, 0.3, 1e-6)
  budget_charge(z, "gauss", 0.3, 1e-6, sigma_ratio = s, neighbor = "add-remove")
  sp <- budget_spent(z)
  rho <- 0.5^2 / 2 + 0.4^2 / 8 + 1 / (2 * s^2)
  expect_equal(sp$rho, rho, tolerance = 1e-12)
  expect_equal(sp$epsilon, cks_epsilon_by_hand(rho, 1e-5), tolerance = 1e-6)
  expect_equal(sp$delta, 1e-5)
  expect_equal(as.data.frame(z)$rho, c(NA, 0.4^2 / 8, 1 / (2 * s^2)))
  # an approximate step without a rho (Sheffet's Wishart) is refused, and nothing recorded
  e <- expect_error(budget_charge(z, "wishart", 0.25, 1e-6, neighbor = "add-remove"), class = "dpcov_budget_error")
  expect_match(conditionMessage(e), "no zCDP guarantee", fixed = TRUE)
  expect_identical(budget_spent(z)$charges, 3L)
  x <- matrix(rnorm(400), 100, 4)
  expect_error(wishart_noise(x, 0.5, 1e-6, clip = 2, budget = z), class = "dpcov_budget_error")
  expect_identical(budget_spent(z)$charges, 3L)
  # the stop rule: the total rho within the rho whose conversion at the budget's delta is its epsilon
  z2 <- dp_budget(1, 1e-5, composition = "zCDP")
  rho_b <- zcdp_rho(1, 1e-5)
  budget_charge(z2, "gauss", 1, 1e-7, sigma_ratio = sqrt(1 / (2 * 0.99 * rho_b)), neighbor = "add-remove")
  expect_error(budget_charge(z2, "gauss", 0.01, 1e-7, sigma_ratio = sqrt(1 / (2 * 0.02 * rho_b)), neighbor = "add-remove"),
               class = "dpcov_budget_error")
  expect_no_error(budget_charge(z2, "gauss", 0.01, 1e-7, sigma_ratio = sqrt(1 / (2 * 0.009 * rho_b)), neighbor = "add-remove"))
  expect_lte(budget_spent(z2)$epsilon, 1 + 1e-9)
  # group privacy restates rho as 4 rho on a replace-one budget
  zr <- dp_budget(10, 1e-5, neighbor = "replace-one", composition = "zCDP")
  budget_charge(zr, "gauss", 0.3, 1e-6, sigma_ratio = s, neighbor = "add-remove")
  budget_charge(zr, "laplace", 0.5, 0, neighbor = "add-remove")
  expect_equal(budget_spent(zr)$rho, 4 / (2 * s^2) + (2 * 0.5)^2 / 2, tolerance = 1e-12)
})

test_that("the composition rule is fixed at creation and validated", {
  expect_error(dp_budget(1, 1e-5, composition = "rdp"), class = "dpcov_error")
  expect_error(dp_budget(1, 1e-5, composition = c("basic", "zCDP")), class = "dpcov_error")
  e <- expect_error(dp_budget(1, 0, composition = "zCDP"), class = "dpcov_error")
  expect_identical(e$arg, "delta")
  # a pure-DP budget: basic composition with delta 0 takes pure charges only
  p0 <- dp_budget(1, 0)
  x <- matrix(rnorm(400), 100, 4)
  expect_no_error(dp_clip_bound(x, 0.3, budget = p0))
  expect_error(analyze_gauss(x, 0.3, 1e-7, clip = 2, budget = p0), class = "dpcov_budget_error")
  expect_identical(budget_spent(p0)$charges, 1L)
  expect_equal(budget_spent(p0)$delta, 0)
  for (bad in list(-1e-9, 1, NA_real_, "0", c(0, 0))) {
    expect_error(dp_budget(1, bad), class = "dpcov_error")
  }
  # a hand-edited rule is a malformed budget
  z <- dp_budget(1, 1e-5, composition = "zCDP")
  expect_error(z$account$composition <- "basic")  # locked: a filter's rule cannot change after a release
  expect_identical(budget_spent(z)$composition, "zCDP")
  # the rule set on the budget itself, not its account: refused, never read as the rule
  z2 <- dp_budget(1, 1e-5)
  z2$composition <- "zCDP"
  e <- expect_error(budget_spent(z2), "`composition` beside its account", class = "dpcov_error")
  expect_identical(e$arg, "budget")
  expect_error(analyze_gauss(x, 0.3, 1e-7, clip = 2, budget = z2), "`composition` beside", class = "dpcov_error")
  z$account$delta <- 0
  expect_error(budget_spent(z), "malformed", class = "dpcov_error")
  h <- dp_budget(1, 1e-5)
  unlockBinding("composition", h$account)
  h$account$composition <- "min"
  e <- expect_error(budget_spent(h), "composition rule is malformed", class = "dpcov_error")
  expect_identical(e$arg, "budget")
  # edited totals and groups of any type: classed errors naming budget
  for (bad in list(sum, new.env(), "1", NULL)) {
    h <- dp_budget(1, 1e-5)
    h$account$delta <- bad
    e <- expect_error(budget_spent(h), "malformed", class = "dpcov_error")
    expect_identical(e$arg, "budget")
  }
  x <- matrix(rnorm(900), 300)
  h <- dp_budget(5, 1e-5)
  for (i in 1:2) analyze_gauss(x, 0.3, 1e-6, clip = 1, budget = h)
  h$account$ledger$group <- c(0.1 + 0.2, 0.3)
  e <- expect_error(budget_spent(h), "malformed", class = "dpcov_error")
  expect_identical(e$arg, "budget")
  # a refusal on a zCDP budget quotes the call's own guarantee and its rho
  z <- dp_budget(1, 1e-5, composition = "zCDP")
  analyze_gauss(x, 0.5, 1e-6, clip = 1, budget = z)
  e <- expect_error(analyze_gauss(x, 1.2, 1e-7, clip = 1, budget = z), class = "dpcov_budget_error")
  expect_match(conditionMessage(e), "refuses Analyze Gauss (rho = ", fixed = TRUE)
  expect_match(conditionMessage(e), "(epsilon = 1.2, delta = 1e-07)", fixed = TRUE)
})

test_that("an over-spend is refused before the data is read, and nothing is recorded", {
  X <- matrix(rnorm(200), 50, 4)
  b <- dp_budget(1, 1e-5)
  analyze_gauss(X, 0.6, 5e-6, clip = 1, budget = b)
  before <- as.data.frame(b)
  calls <- list(
    ag = function(x) analyze_gauss(x, 0.9, 1e-6, clip = 1, budget = b),
    jl = function(x) jl_ridge(x, 0.6, 1e-6, clip = 1, budget = b),
    jl_adaptive = function(x) jl_adaptive(x, 0.6, 1e-6, clip = 1, budget = b),
    wishart = function(x) wishart_noise(x, 0.6, 1e-6, clip = 1, budget = b),
    iw = function(x) iwishart_posterior(x, 0.6, 1e-6, clip = 1, budget = b),
    iw_adaptive = function(x) iwishart_adaptive(x, 0.6, 1e-6, clip = 1, budget = b),
    threshold = function(x) dp_threshold(x, 0.9, 1e-6, clip = 1, budget = b),
    delta_over = function(x) analyze_gauss(x, 0.01, 6e-6, clip = 1, budget = b)
  )
  for (nm in names(calls)) {
    rd <- charge_reader()
    err <- expect_error(calls[[nm]](rd$reader), class = "dpcov_budget_error")
    expect_s3_class(err, "dpcov_error")
    expect_identical(err$arg, "budget")
    expect_false(rd$called(), label = paste(nm, "read the data"))
    expect_identical(as.data.frame(b), before)
  }
  # the control: a charge that fits does read the data
  rd <- charge_reader()
  expect_error(analyze_gauss(rd$reader, 0.2, 1e-6, clip = 1, budget = b), "returned no block")
  expect_true(rd$called())
  # refused outright: no guarantee to account
  expect_error(analyze_gauss(X, 0.1, 1e-7, clip = Inf, sigma_clip_inf = 1, budget = b),
               class = "dpcov_budget_error")
  expect_error(dp_compress(matrix(rnorm(400), 100, 4), m = 50, budget = b), class = "dpcov_budget_error")
  expect_error(ldp_perturb(X, 5, 1e-7, clip = 1, budget = b), class = "dpcov_budget_error")
})

test_that("a budget spent exactly to its total is accepted (rounding tolerance)", {
  b <- dp_budget(0.3, 3e-6)
  for (i in 1:3) budget_charge(b, "laplace", 0.1, 1e-6, neighbor = "add-remove")
  expect_equal(budget_spent(b)$charges, 3L)
  expect_error(budget_charge(b, "laplace", 1e-6, 0, neighbor = "add-remove"), class = "dpcov_budget_error")
})

test_that("the budget has reference semantics", {
  b <- dp_budget(2, 1e-5)
  b2 <- b
  spend <- function(bud) budget_charge(bud, "laplace", 0.5, 0, neighbor = "add-remove")
  spend(b2)
  expect_equal(budget_spent(b)$epsilon, 0.5)
  analyze_gauss(matrix(rnorm(40), 10, 4), 0.5, 1e-6, clip = 1, budget = b)
  expect_equal(budget_spent(b2)$charges, 2L)
})

test_that("every mechanism charges, with its rho when it is Gaussian, and the release says which charge", {
  set.seed(3)
  X <- matrix(rnorm(400), 100, 4) / 2
  # one replace-one budget: the add/remove and "any" charges are restated under it
  b <- dp_budget(100, 0.9, neighbor = "replace-one")
  rel <- list(
    ag = analyze_gauss(X, 0.5, 1e-5, clip = 1, budget = b),
    ag_classic = analyze_gauss(X, 0.5, 1e-5, clip = 1, calibration = "classic", neighbor = "replace-one", budget = b),
    jl = jl_ridge(X, 0.5, 1e-4, clip = 1, budget = b),
    jl_adaptive = jl_adaptive(X, 0.5, 1e-4, clip = 1, budget = b),
    wishart = wishart_noise(X, 0.5, 1e-4, clip = 1, budget = b),
    iw = iwishart_posterior(X, 0.5, 1e-4, clip = 1, budget = b),
    iw_adaptive = iwishart_adaptive(X, 0.5, 1e-4, clip = 1, budget = b),
    thr = dp_threshold(X, 0.5, 1e-4, clip = 1, budget = b),
    thr_local = dp_threshold(X, 0.5, 1e-4, clip = 1, model = "local", budget = b)
  )
  # tuned on the private data: no guarantee, so a budget is refused before the data is read
  expect_error(dp_threshold(X, 0.5, 1e-4, clip = 1, tune = "cv", budget = b), class = "dpcov_budget_error")
  expect_equal(nrow(as.data.frame(b)), length(rel))
  reps <- ldp_perturb(X, 0.5, 1e-4, clip = 1, budget = b)
  agg <- ldp_aggregate(reps)
  # thresholding the reports' aggregate is post-processing of charged reports: no charge
  thr_agg <- dp_threshold(agg, model = "local", budget = b)
  expect_null(thr_agg$params$budget_charge)
  led <- as.data.frame(b)
  expect_equal(nrow(led), length(rel) + 1L)
  idx <- vapply(rel, function(r) r$params$budget_charge, integer(1))
  expect_setequal(c(idx, reps$budget_charge), seq_len(nrow(led)))
  expect_identical(unname(idx), seq_along(rel))
  gauss <- c("ag", "ag_classic", "thr", "thr_local")
  expect_true(all(!is.na(led$rho[idx[gauss]])))
  expect_true(all(is.na(led$rho[idx[setdiff(names(rel), gauss)]])))
  expect_false(is.na(led$rho[reps$budget_charge]))
  expect_equal(led$epsilon, rep(0.5, nrow(led)))
  # rho = Delta^2 / (2 sigma^2) whatever the calibration
  sens_sum <- second_moment_sensitivity(1, "add-remove")
  expect_equal(led$rho[idx[["ag"]]], sens_sum^2 / (2 * rel$ag$params$sigma^2), tolerance = 1e-10)
  sens_r1 <- second_moment_sensitivity(1, "replace-one")
  expect_equal(led$rho[idx[["ag_classic"]]], sens_r1^2 / (2 * rel$ag_classic$params$sigma^2), tolerance = 1e-10)
  sens_avg <- second_moment_sensitivity(1, "replace-one", n = 100)
  expect_equal(led$rho[idx[["thr"]]], sens_avg^2 / (2 * rel$thr$params$noise_sd^2), tolerance = 1e-10)
  expect_equal(led$rho[reps$budget_charge], sens_r1^2 / (2 * reps$sigma^2), tolerance = 1e-10)
  # no budget: nothing recorded, nothing in the release
  r0 <- analyze_gauss(X, 0.5, 1e-5, clip = 1)
  expect_null(r0$params$budget_charge)
  expect_equal(nrow(as.data.frame(b)), nrow(led))
})

test_that("the ledger holds public parameters only, and print lists the charges", {
  X <- matrix(rnorm(200), 50, 4)
  b <- dp_budget(1, 1e-5)
  analyze_gauss(X, 0.2, 1e-6, clip = 1, budget = b)
  wishart_noise(X, 0.2, 1e-6, clip = 1, budget = b)
  # (last_id: the last charge's id, so a withdrawn one is never reused)
  expect_setequal(ls(b$account, all.names = TRUE), c("epsilon", "delta", "neighbor", "composition", "ledger", "token", "last_id"))
  expect_identical(b$account$last_id, 2)
  # the releases a budget charged that later releases may be given: their
  # ids (no data) and ledger rows
  cb <- dp_column_bounds(X, 0.1, budget = b)
  expect_identical(unname(b$account$release_charges), 3)
  expect_identical(names(b$account$release_charges), cb$release_id)
  expect_match(b$account$token, "^[0-9]+:[0-9]+$")
  led <- as.data.frame(b)
  expect_named(led, c("release", "what", "when", "neighbor", "epsilon", "delta", "rho"))
  expect_identical(led$release, 1:3)
  expect_s3_class(led$when, "POSIXct")
  out <- wide_output(print(b))
  expect_true(any(grepl("Analyze Gauss", out)))
  expect_true(any(grepl("Algorithm 3", out)))
  expect_true(any(grepl("^Left: epsilon", out)))
  expect_true(any(grepl("by basic composition; 3 charge(s) in 3 release(s)", out, fixed = TRUE)))
  expect_true(any(grepl("Spent (basic composition of the releases)", out, fixed = TRUE)))
  expect_false(any(grepl(format(sum(X^2), digits = 6), out, fixed = TRUE)))
  sm <- summary(b)
  expect_equal(sm$epsilon[sm$total == "reported (basic composition)"], budget_spent(b)$epsilon)
  expect_equal(budget_spent(b)$epsilon, 0.5)
  expect_equal(sm$epsilon[sm$total == "left"], 1 - budget_spent(b)$epsilon)
  expect_output(print(dp_budget(1, 1e-5)), "0 charge")
})

test_that("hostile budgets and hand-made dp_budget objects give classed errors naming the argument", {
  X <- matrix(rnorm(40), 10, 4)
  good <- dp_budget(1, 1e-5)
  broken_env <- dp_budget(1, 1e-5)
  assign("ledger", "junk", envir = broken_env$account)
  broken_eps <- dp_budget(1, 1e-5)
  assign("epsilon", -1, envir = broken_eps$account)
  nan_rho <- dp_budget(1, 1e-5)
  assign("ledger", data.frame(what = "a", when = Sys.time(), epsilon = 0.1, delta = 0, rho = NaN),
         envir = nan_rho$account)
  hostile <- list("a", 1, NA, list(), TRUE, structure(list(), class = "dp_budget"),
                  structure(list(account = 1), class = "dp_budget"), unclass(good),
                  broken_env, broken_eps, nan_rho, function() 1)
  for (h in hostile) {
    expect_error(analyze_gauss(X, 0.5, 1e-6, clip = 1, budget = h), class = "dpcov_error")
    err <- tryCatch(budget_spent(h), dpcov_error = function(e) e)
    expect_identical(err$arg, "budget")
    err <- tryCatch(jl_ridge(X, 0.5, 1e-6, clip = 1, budget = h), dpcov_error = function(e) e)
    expect_identical(err$arg, "budget")
  }
  expect_error(print(broken_env), class = "dpcov_error")
  expect_error(dp_budget(0, 1e-5), class = "dpcov_error")
  expect_error(dp_budget(1, 1), class = "dpcov_error")
  expect_error(dp_budget(1), class = "dpcov_error")
  expect_error(dp_budget(c(1, 2), 1e-5), class = "dpcov_error")
  expect_error(budget_spent(), class = "dpcov_error")
})

test_that("dp_cov and dp_clip_bound charge every step before reading the data, all or nothing", {
  set.seed(41)
  x <- matrix(rnorm(3000, 50), 1000, 3)
  b <- dp_budget(2.5, 1e-5)
  # the default: private column bounds (exponential mechanisms, with their
  # zCDP rho), then the Gaussian mean and Analyze Gauss on the box as one
  # Gaussian mechanism (one zCDP charge, rho = mu_tot^2 / 2) with the rest of
  # the call's zCDP budget
  r <- dp_cov(x, 1, 1e-6, budget = b)
  led <- as.data.frame(b)
  expect_identical(led$what[1], "private column bounds")
  expect_identical(nrow(led), 2L)
  expect_equal(led$epsilon[1], 0.5)
  expect_equal(sum(led$delta), 1e-6)
  expect_equal(led$rho[1], r$params$column_bounds$rho)
  # 8 choices per column and, under add/remove (the default), one noisy count
  expect_equal(led$rho[1], (dpcov:::column_bounds_choices * 3 + 1) * r$params$column_bounds$epsilon_quantile^2 / 8)
  expect_match(r$guarantee, "one of them a noisy count of the rows", fixed = TRUE)
  r_ro <- dp_cov(x, 1, 1e-6, neighbor = "replace-one")
  expect_equal(r_ro$params$column_bounds$rho, dpcov:::column_bounds_choices * 3 * r_ro$params$column_bounds$epsilon_quantile^2 / 8)
  expect_false(grepl("noisy count of the rows", r_ro$guarantee, fixed = TRUE))
  expect_equal(led$rho[2], r$params$mu_total^2 / 2)
  # each charge is a valid guarantee on its own: the Gaussian's is its exact
  # epsilon at its delta, more than the 0.5 left by basic composition ...
  expect_equal(led$epsilon[2], r$params$epsilon_steps)
  expect_gt(led$epsilon[2], 0.5)
  expect_equal(led$rho[2], 1 / (2 * dpcov:::analytic_gaussian_sigma(1, led$epsilon[2], led$delta[2])^2),
               tolerance = 1e-6)
  # ... and the two compose by zCDP to exactly the call's (1, 1e-6)
  spent <- budget_spent(b)
  expect_identical(spent$releases, 1L)
  expect_equal(spent$epsilon, 1, tolerance = 1e-8)
  expect_lte(spent$epsilon, 1 + 1e-9)
  expect_equal(spent$rho, dpcov:::zcdp_rho(1, 1e-6))
  # a budget of exactly (1, 1e-6) takes the call, and then nothing more
  b1 <- dp_budget(1, 1e-6)
  expect_no_error(dp_cov(x, 1, 1e-6, budget = b1))
  expect_error(dp_cov(x, 0.01, 1e-9, budget = b1), class = "dpcov_budget_error")
  expect_identical(r$params$budget_charge, 1:2)
  # the ledger rows index the ledger, and print() shows them
  expect_identical(as.data.frame(b)$what[r$params$budget_charge], as.data.frame(b)$what[1:2])
  expect_match(gsub("\\s+", " ", paste(capture.output(print(r)), collapse = " ")), "budget_charge = c(1, 2)", fixed = TRUE)
  # the row-norm path with one bound chosen privately: an exponential
  # mechanism (pure epsilon-DP, hence epsilon^2/8-zCDP) and two Gaussian
  # steps, composed by zCDP to exactly the call's (1, 1e-6)
  r <- dp_cov(x, 1, 1e-6, clip_mean = 100, budget = b)
  led <- as.data.frame(b)[3:5, ]
  expect_identical(r$params$composition, "zCDP")
  expect_equal(led$epsilon[1], 0.15)
  expect_equal(led$rho[1], 0.15^2 / 8)
  expect_equal(led$rho[2], 1 / (2 * gaussian_sigma(1, r$params$epsilon_mean, r$params$delta_mean)^2))
  expect_equal(led$rho[3], 1 / (2 * gaussian_sigma(1, r$params$epsilon_second, r$params$delta_second)^2))
  expect_lte(sum(led$rho), dpcov:::zcdp_rho(1, 1e-6))
  expect_equal(sum(led$rho), dpcov:::zcdp_rho(1, 1e-6), tolerance = 1e-5)
  expect_equal(sum(led$delta), 1e-6)
  b2 <- dp_budget(1, 1e-6)
  expect_no_error(dp_cov(x, 1, 1e-6, clip_mean = 100, budget = b2))
  expect_lte(budget_spent(b2)$epsilon, 1)
  expect_error(dp_cov(x, 0.01, 1e-9, clip = 1, clip_mean = 1, budget = b2), class = "dpcov_budget_error")
  expect_identical(r$params$budget_charge, 3:5)
  # an over-spend is refused before the reader is called, and nothing is recorded
  called <- FALSE
  reader <- function() { called <<- TRUE; NULL }
  expect_error(dp_cov(reader, 3, 1e-6, budget = b), class = "dpcov_budget_error")
  expect_false(called)
  expect_identical(nrow(as.data.frame(b)), 5L)
  expect_error(dp_clip_bound(reader, 3, budget = b), class = "dpcov_budget_error")
  expect_false(called)
  bb <- dp_clip_bound(x, 0.5, budget = b)
  expect_identical(bb$budget_charge, 6L)
  expect_equal(tail(as.data.frame(b)$epsilon, 1), 0.5)
  expect_equal(tail(as.data.frame(b)$delta, 1), 0)
})

test_that("a package reader's shape is checked before the charge; a failure after another reader's pass keeps it", {
  x <- matrix(rnorm(60 * 4), 60, 4, dimnames = list(NULL, c("a", "b", "c", "d")))
  f <- tempfile(fileext = ".csv")
  utils::write.csv(x, f, row.names = FALSE)
  rd <- csv_reader(f, chunk_rows = 30)
  b <- dp_budget(10, 1e-3)
  # r, r0 and k0 below the dimension: refused from the reader's columns, before the charge
  expect_error(jl_ridge(rd, 0.5, 1e-5, clip = 3, r = 3, budget = b), class = "dpcov_error")
  expect_error(jl_adaptive(rd, 0.5, 1e-5, clip = 3, r0 = 4, budget = b), class = "dpcov_error")
  expect_error(iwishart_adaptive(rd, 0.5, 1e-5, clip = 3, k0 = 3, budget = b), class = "dpcov_error")
  expect_error(dp_cov(csv_reader(f, columns = "a"), 1, 1e-6, clip = 2, clip_mean = 5, mechanism = "threshold",
                      neighbor = "replace-one", budget = dp_budget(10, 1e-3, neighbor = "replace-one")),
               class = "dpcov_error")
  expect_error(dp_cov(rd, 1, 1e-6, lower = c(a = -9, zz = -9), upper = c(a = 9, zz = 9), budget = b), class = "dpcov_error")
  expect_identical(budget_spent(b)$charges, 0L)
  expect_equal(budget_spent(b)$epsilon, 0)
  # control: the same calls with valid shapes are charged
  jl_ridge(rd, 0.5, 1e-5, clip = 3, r = 5, budget = b)
  iwishart_adaptive(rd, 0.5, 1e-5, clip = 3, k0 = 4, budget = b)
  expect_identical(budget_spent(b)$charges, 2L)
  expect_equal(budget_spent(b)$epsilon_basic, 1)
  # a plain function's shape is known only by reading it: after its pass began the
  # charge stands (a reader written to fail on chosen values would otherwise test them for free)
  i <- 0
  plain <- function() {
    if (i >= 60) { i <<- 0; return(NULL) }
    i <<- i + 30
    x[(i - 29):i, , drop = FALSE]
  }
  b2 <- dp_budget(10, 1e-3)
  expect_error(jl_ridge(plain, 0.5, 1e-5, clip = 3, r = 3, budget = b2), class = "dpcov_error")
  expect_identical(budget_spent(b2)$charges, 1L)
  unlink(f)
})

test_that("a refusal of the input's shape withdraws the charge; a refusal of its values keeps it", {
  b <- dp_budget(10, 1e-3)
  f <- tempfile(fileext = ".csv")
  utils::write.csv(data.frame(a = rnorm(20)), f, row.names = FALSE)
  na <- matrix(c(NA, rnorm(39)), 20, 2)
  expect_error(dp_cov(csv_reader(f), 1, 1e-6, clip = 2, clip_mean = 5, mechanism = "threshold", neighbor = "replace-one",
                      budget = b), class = "dpcov_error")
  expect_error(dp_threshold(csv_reader(f), 1, 1e-6, clip = 2, budget = b), class = "dpcov_error")
  expect_error(analyze_gauss(na[, 0], 1, 1e-6, clip = 2, budget = b), class = "dpcov_error")
  expect_identical(budget_spent(b)$charges, 0L)
  # NA, NaN or Inf in memory: the refusal depends on the values (a refund
  # would test them for free), so the charge stands
  e <- expect_error(analyze_gauss(na, 1, 1e-6, clip = 2, budget = b), class = "dpcov_data_error")
  expect_identical(e$arg, "x")
  expect_identical(budget_spent(b)$charges, 1L)
  expect_error(dp_clip_bound(na, 0.5, budget = b), class = "dpcov_data_error")
  expect_identical(budget_spent(b)$charges, 2L)
  # control: a valid call is charged
  analyze_gauss(na[-1, ], 1, 1e-6, clip = 2, budget = b)
  expect_identical(budget_spent(b)$charges, 3L)
  unlink(f)
})

test_that("only an error that ends the charged call withdraws its charge (a signalled condition does not)", {
  set.seed(31)
  x <- matrix(rnorm(2000), 500, 4)
  poke <- function() signalCondition(structure(class = c("dpcov_error", "condition"), list(message = "", call = NULL)))
  # the records' promise runs a refused call resumed by a restart (the audit's case)
  b <- dp_budget(1, 1e-5, neighbor = "replace-one")
  recs <- function() {
    withRestarts(ldp_perturb(x, 0.5, 1e-6, clip = -1, budget = b), skip = function() NULL)
    x
  }
  rep <- withCallingHandlers(ldp_perturb(recs(), epsilon = 0.5, delta = 1e-6, clip = 2, budget = b),
                             dpcov_error = function(e) invokeRestart("skip"))
  expect_identical(dim(rep$reports), c(500L, 10L))
  expect_identical(budget_spent(b)$charges, 1L)
  expect_identical(rep$budget_charge, 1L)
  # a dpcov_error signalled (not raised) while dp_lm()'s data is evaluated
  df <- data.frame(y = rnorm(500), x1 = rnorm(500), x2 = rnorm(500))
  b2 <- dp_budget(1, 1e-5)
  fit <- dp_lm(y ~ x1 + x2, data = {poke(); df}, epsilon = 0.5, delta = 1e-6, clip = 3, budget = b2, B = 0)
  expect_s3_class(fit, "dp_lm")
  expect_identical(budget_spent(b2)$charges, 1L)
  expect_equal(budget_spent(b2)$epsilon, 0.5)
  # the rule itself: a condition signalled inside the window and resumed keeps the charge
  b3 <- dp_budget(1, 1e-5)
  ch <- budget_charge(b3, "test", 0.1, 0, neighbor = "any")
  expect_identical(with_refund(b3, ch, { poke(); 7 }), 7)
  expect_identical(budget_spent(b3)$charges, 1L)
  # a refusal resumed by a restart set up inside the window never reaches the handler
  ch <- budget_charge(b3, "test", 0.1, 0, neighbor = "any")
  out <- with_refund(b3, ch, withCallingHandlers(withRestarts(abort("no", .arg = "x"), skip = function() 8),
                                                 dpcov_error = function(e) invokeRestart("skip")))
  expect_identical(out, 8)
  expect_identical(budget_spent(b3)$charges, 2L)
  # one set up outside: the refusal ends the call (withdrawn), and the restart is gone
  ch <- budget_charge(b3, "test", 0.1, 0, neighbor = "any")
  expect_error(withCallingHandlers(with_refund(b3, ch, withRestarts(abort("no", .arg = "x"), skip = function() 8)),
                                   dpcov_error = function(e) invokeRestart("skip")))
  expect_identical(budget_spent(b3)$charges, 2L)
  # the error is re-raised as it was: classes and `arg` kept
  ch <- budget_charge(b3, "test", 0.1, 0, neighbor = "any")
  e <- expect_error(with_refund(b3, ch, abort("bad `clip`", .arg = "clip", .class = "dpcov_test_error")),
                    class = "dpcov_test_error")
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "clip")
  expect_identical(budget_spent(b3)$charges, 2L)
})

test_that("a charge is withdrawn by its id, whatever rows moved meanwhile", {
  b <- dp_budget(1, 1e-5)
  budget_charge(b, "one", 0.1, 0, neighbor = "any")
  ch2 <- budget_charge(b, "two", 0.1, 0, neighbor = "any")
  budget_charge(b, "three", 0.1, 0, neighbor = "any")
  # an inner withdrawal of row 1 moves "two" to row 1 and "three" to row 2
  expect_error(with_refund(b, ch2, with_refund(b, 1L, abort("shape", .arg = "x"))), class = "dpcov_error")
  expect_identical(as.data.frame(b)$what, "three")
  # the ids are internal: the ledger as a data frame has its documented columns
  expect_identical(names(as.data.frame(b)), c("release", "what", "when", "neighbor", "epsilon", "delta", "rho"))
})

test_that("every release evaluates its arguments before its charge", {
  set.seed(32)
  x <- matrix(rnorm(2000), 500, 4)
  df <- data.frame(y = x[, 1], a = x[, 2], c = x[, 3])
  late <- character()
  # each argument, when evaluated, notes whether the ledger already holds the charge
  lazy <- function(b, nm, v) { force(v); function() { if (nrow(as.data.frame(b))) late <<- c(late, nm); v } }
  run <- function(f, args, neighbor = "add-remove") {
    b <- dp_budget(100, 0.1, neighbor = neighbor)
    cl <- as.call(c(list(f), stats::setNames(lapply(names(args), function(n) as.call(list(lazy(b, n, args[[n]])))),
                                             names(args)), list(budget = b)))
    suppressWarnings(eval(cl))
    expect_identical(budget_spent(b)$charges > 0, TRUE)
  }
  run(analyze_gauss, list(x = x, epsilon = 0.5, delta = 1e-6, clip = 3))
  run(dp_cov, list(x = x, epsilon = 0.5, delta = 1e-6))
  run(dp_clip_bound, list(x = x, epsilon = 0.5))
  run(dp_column_bounds, list(x = x, epsilon = 0.5, delta = 1e-6))
  run(wishart_noise, list(x = x, epsilon = 0.5, delta = 1e-6, clip = 3))
  run(dp_threshold, list(x = x, epsilon = 0.5, delta = 1e-6, clip = 3), "replace-one")
  run(ldp_perturb, list(x = x, epsilon = 0.5, delta = 1e-6, clip = 3), "replace-one")
  run(dp_lm, list(x = y ~ a + c, data = df, epsilon = 0.5, delta = 1e-6, clip = 3, B = 0))
  run(dp_lm, list(x = y ~ a + c, data = df, epsilon = 0.5, delta = 1e-6, B = 0,
                  lower = c(y = -4, a = -4, c = -4), upper = c(y = 4, a = 4, c = 4)))
  expect_identical(late, character())
})

test_that("refusals of in-memory values keep the charge in every release (dpcov_data_error)", {
  set.seed(33)
  x <- matrix(rnorm(2000), 500, 4)
  xn <- x; xn[17, 3] <- NA
  xi <- x; xi[5, 2] <- Inf
  df <- data.frame(y = rnorm(500), a = rnorm(500)); df$a[9] <- Inf
  b <- dp_budget(50, 1e-2)
  calls <- list(
    quote(dp_column_bounds(xn, 0.5, 1e-6, budget = b)),
    quote(analyze_gauss(xn, 0.5, 1e-6, clip = 2, budget = b)),
    quote(analyze_gauss(xi, 0.5, 1e-6, clip = 2, budget = b)),
    quote(dp_cov(xn, 0.5, 1e-6, budget = b)),
    quote(dp_cov(xi, 0.5, 1e-6, clip = 3, clip_mean = 3, budget = b)),
    quote(wishart_noise(xn, 0.5, 1e-6, clip = 3, budget = b)),
    quote(dp_lm(y ~ a, data = df, epsilon = 0.5, delta = 1e-6, clip = 3, budget = b, B = 0))
  )
  for (cl in calls) {
    before <- budget_spent(b)$charges
    e <- expect_error(eval(cl), class = "dpcov_data_error")
    expect_s3_class(e, "dpcov_error")
    expect_true(e$arg %in% c("x", "data"))
    expect_gt(budget_spent(b)$charges, before)
  }
  # a shape refusal is still withdrawn
  expect_error(ldp_perturb(matrix(numeric(0), 0, 3), 0.5, 1e-6, clip = 2,
                           budget = dp_budget(1, 1e-5, neighbor = "replace-one")), class = "dpcov_error")
  b2 <- dp_budget(1, 1e-5)
  e <- expect_error(dp_lm(y ~ a, data = data.frame(y = rnorm(5), a = letters[1:5]), epsilon = 0.5, delta = 1e-6,
                          clip = 3, budget = b2, B = 0), class = "dpcov_error")
  expect_false(inherits(e, "dpcov_data_error"))
  expect_identical(budget_spent(b2)$charges, 0L)
})

test_that("a release without a guarantee refuses a budget before its charge", {
  set.seed(34)
  x <- matrix(rnorm(4000), 1000, 4)
  b <- dp_budget(2, 1e-5, neighbor = "replace-one")
  e <- expect_error(dp_threshold(x, 0.5, 1e-6, clip = 3, tune = "cv", budget = b), class = "dpcov_budget_error")
  expect_identical(e$arg, "budget")
  cv <- threshold_cv(x, 0.5, 1e-6, clip = 3, folds = 3)
  expect_error(dp_threshold(x, 0.5, 1e-6, clip = 3, tune = cv$constant, budget = b), class = "dpcov_budget_error")
  expect_error(dp_threshold(x, 0.5, 1e-6, clip = 3, tune = threshold_tune("fixed", constant = cv$constant), budget = b),
               class = "dpcov_budget_error")
  expect_error(dp_threshold(x, 0.5, 1e-6, tune = "cv", lower = -3, upper = 3, budget = b), class = "dpcov_budget_error")
  expect_error(analyze_gauss(x, 0.5, 1e-6, clip = Inf, sigma_clip_inf = 3, budget = b), class = "dpcov_budget_error")
  expect_identical(budget_spent(b)$charges, 0L)
  # the same releases without a budget state no guarantee
  expect_false(has_guarantee(dp_threshold(x, 0.5, 1e-6, clip = 3, tune = cv$constant)))
  # bounds of a dp_column_bounds() release whose delta and the release's add up to 1
  cb <- dp_column_bounds(x, 0.5, 0.5)
  expect_false(has_guarantee(analyze_gauss(x, 0.5, 0.6, bounds = cb)))
  b2 <- dp_budget(5, 0.9)
  expect_error(analyze_gauss(x, 0.5, 0.6, bounds = cb, budget = b2), class = "dpcov_budget_error")
  expect_error(dp_cov(x, 0.5, 0.6, bounds = cb, budget = b2), class = "dpcov_budget_error")
  expect_error(dp_lm(y ~ a, data = data.frame(y = x[, 1], a = x[, 2]), epsilon = 0.5, delta = 0.6, bounds = cb,
                     budget = b2, B = 0), class = "dpcov_budget_error")
  expect_identical(budget_spent(b2)$charges, 0L)
  # below 1 the release keeps its guarantee and is charged, with the bounds
  # (made without a budget) as a step of its own
  r <- analyze_gauss(x, 0.5, 0.3, bounds = cb, budget = b2)
  expect_true(has_guarantee(r))
  expect_identical(budget_spent(b2)$charges, 2L)
  expect_equal(budget_spent(b2)$delta, r$delta)
})

test_that("thresholding an ldp_aggregate() is post-processing: nothing charged, p checked first", {
  set.seed(35)
  b <- dp_budget(2, 1e-5, neighbor = "replace-one")
  rep <- ldp_perturb(matrix(rnorm(3000), 1000, 3), 0.5, 1e-6, clip = 3, budget = b)
  th <- suppressWarnings(dp_threshold(ldp_aggregate(rep), model = "local", budget = b))
  expect_identical(as.data.frame(b)$what, "LDP reports (per-record Gaussian)")
  expect_null(th$params$budget_charge)
  agg1 <- suppressWarnings(ldp_aggregate(ldp_perturb(matrix(rnorm(1000), 1000, 1), 0.5, 1e-6, clip = 3)))
  expect_error(dp_threshold(agg1, model = "local", budget = b), "p >= 2", class = "dpcov_error")
  expect_identical(budget_spent(b)$charges, 1L)
  expect_error(dp_threshold(ldp_aggregate(rep), model = "local", budget = "b"), class = "dpcov_error")
})

test_that("the total delta never reaches 1, and a zCDP conversion there never lowers epsilon", {
  set.seed(36)
  x <- matrix(rnorm(4000), 1000, 4)
  b <- dp_budget(1, 1 - 1e-10)
  analyze_gauss(x, 0.5, 0.5, clip = 3, budget = b)
  expect_error(analyze_gauss(x, 1000, 0.5, clip = 3, budget = b), class = "dpcov_budget_error")
  s <- budget_spent(b)
  expect_identical(s$charges, 1L)
  expect_equal(s$delta, 0.5)
  # a ledger whose deltas add up to 1 (edited by hand) reports the basic total
  l <- b$account$ledger
  l <- rbind(l, l)
  l$id <- c(1, 2)
  b$account$ledger <- l
  s <- budget_spent(b)
  expect_equal(s$delta, 1)
  expect_equal(s$epsilon, 1)
})

test_that("a ledger row under a notion the budget cannot account is a malformed ledger", {
  set.seed(37)
  x <- matrix(rnorm(2000), 500, 4)
  b <- dp_budget(1, 1e-5)
  analyze_gauss(x, 0.4, 1e-6, clip = 2, budget = b)
  l <- b$account$ledger
  l$neighbor <- "replace-one"
  b$account$ledger <- l
  for (f in list(budget_spent, print, summary, as.data.frame)) {
    e <- expect_error(suppressWarnings(capture.output(f(b))), "ledger is malformed", class = "dpcov_error")
    expect_false(startsWith(conditionMessage(e), "internal"))
  }
  e <- expect_error(analyze_gauss(x, 0.1, 1e-7, clip = 2, budget = b), "ledger is malformed", class = "dpcov_error")
  expect_identical(e$arg, "budget")
})

test_that("the budget's print states its figures the same whatever options(digits) and OutDec say", {
  set.seed(38)
  x <- matrix(rnorm(3000), 1000, 3)
  old <- options(digits = 1, OutDec = ",")
  on.exit(options(old))
  b <- dp_budget(1.49, 1e-5)
  analyze_gauss(x, 0.149, 1.9e-6, clip = 2, budget = b)
  out <- capture.output(print(b))
  expect_match(out[1], "(epsilon, delta) = (1.49, 1e-05)", fixed = TRUE)
  expect_true(any(grepl("Spent (basic composition of the releases): epsilon = 0.149, delta = 1.9e-06", out, fixed = TRUE)))
  expect_true(any(grepl("Left: epsilon = 1.341, delta = 8.1e-06", out, fixed = TRUE)))
  # spent rounded up, left rounded down at the 7th digit
  b2 <- dp_budget(1, 1e-5)
  budget_charge(b2, "t", 1 / 3, 0, neighbor = "any")
  out <- capture.output(print(b2))
  expect_true(any(grepl("Spent (basic composition of the releases): epsilon = 0.3333334,", out, fixed = TRUE)))
  expect_true(any(grepl("Left: epsilon = 0.6666666,", out, fixed = TRUE)))
  # the refusal quotes the same figures
  e <- expect_error(dp_clip_bound(x, 1.4, budget = b), class = "dpcov_budget_error")
  expect_match(conditionMessage(e), "above the budget (1.49, 1e-05); spent so far (0.149, 1.9e-06)", fixed = TRUE)
})

test_that("a refused call is quoted at its own composed total, not at the sum of its steps' epsilons", {
  # dp_cov() at epsilon 1 is a bounds step and a Gaussian step whose own
  # epsilons add up to more than 1 (they compose by zCDP)
  set.seed(8)
  x <- matrix(rnorm(3000), 1000, 3)
  b <- dp_budget(1.2, 1e-5)
  dp_cov(x, 1, 1e-6, budget = b)
  steps <- as.data.frame(b)
  expect_gt(sum(steps$epsilon), 1.05)
  e <- expect_error(dp_cov(x, 1, 1e-6, budget = b), class = "dpcov_budget_error")
  expect_match(conditionMessage(e), "(epsilon = 1, delta = 1e-06)", fixed = TRUE)
})

test_that("a bad sigma_clip_inf, or clip = Inf without it, is refused before the charge and the read", {
  fns <- c("analyze_gauss", "wishart_noise", "jl_ridge", "jl_adaptive", "iwishart_posterior", "iwishart_adaptive")
  bad <- list(clip = list(clip = Inf), sigma_clip_inf = list(clip = 1, sigma_clip_inf = 2),
              sigma_clip_inf = list(clip = Inf, sigma_clip_inf = -1),
              sigma_clip_inf = list(clip = Inf, sigma_clip_inf = Inf),
              sigma_clip_inf = list(clip = Inf, sigma_clip_inf = NA_real_))
  X <- matrix(rnorm(300), 100, 3)
  for (f in fns) for (k in seq_along(bad)) {
    b <- dp_budget(10, 1e-2)
    rd <- charge_reader()
    lab <- paste(f, names(bad)[k], k)
    err <- expect_error(do.call(f, c(list(rd$reader, 0.5, 1e-6), bad[[k]], list(budget = b))), class = "dpcov_error")
    expect_identical(err$arg, names(bad)[k], label = lab)
    expect_false(rd$called(), label = paste(lab, "read the data"))
    # a matrix too: refused with nothing charged (analyze_gauss() kept the charge)
    expect_error(do.call(f, c(list(X, 0.5, 1e-6), bad[[k]], list(budget = b))), class = "dpcov_error")
    expect_identical(budget_spent(b)$charges, 0L, label = lab)
  }
  # the control: valid arguments do charge and read
  b <- dp_budget(10, 1e-2)
  rd <- charge_reader()
  expect_error(analyze_gauss(rd$reader, 0.5, 1e-6, clip = 1, budget = b), "returned no block")
  expect_true(rd$called())
})

test_that("dp_lm(clip = Inf) is refused naming clip, before the data is read, without advice it cannot take", {
  d <- data.frame(a = rnorm(200), b = rnorm(200))
  d$y <- d$a + rnorm(200)
  with_binding("dpcov", "clipped_gram_cpp", function(...) stop("the data was read"), {
    for (mech in c("analyze_gauss", "wishart")) {
      err <- expect_error(dp_lm(y ~ a + b, d, epsilon = 1, delta = 1e-6, clip = Inf, mechanism = mech),
                          class = "dpcov_error")
      expect_identical(err$arg, "clip")
      expect_no_match(conditionMessage(err), "sigma_clip_inf")
    }
  })
})

test_that("a p beyond the allocation limit is refused before any charge, in every family; a reader's or statistics' shape too (audit)", {
  W <- matrix(0, 2, 50000, dimnames = list(NULL, paste0("v", 1:50000)))
  calls <- list(
    analyze_gauss = function(b) analyze_gauss(W, 1, 1e-6, clip = 3, budget = b),
    analyze_gauss_box = function(b) analyze_gauss(W, 1, 1e-6, lower = rep(0, 50000), upper = rep(1, 50000), budget = b),
    dp_cov = function(b) dp_cov(W, 1, 1e-6, budget = b, neighbor = "replace-one"),
    dp_cov_clips = function(b) dp_cov(W, 1, 1e-6, clip = 3, clip_mean = 3, budget = b, neighbor = "replace-one"),
    wishart_noise = function(b) wishart_noise(W, 0.5, 1e-6, clip = 3, budget = b),
    jl_ridge = function(b) jl_ridge(W, 0.5, 1e-6, clip = 3, budget = b),
    iwishart_posterior = function(b) iwishart_posterior(W, 0.5, 1e-6, clip = 3, budget = b),
    dp_pca = function(b) dp_pca(W, epsilon = 1, delta = 1e-6, budget = b, neighbor = "replace-one"),
    dp_threshold = function(b) dp_threshold(W, 1, 1e-6, clip = 3, budget = b),
    ldp_perturb = function(b) ldp_perturb(W[1, , drop = FALSE], 1, 1e-6, clip = 1, budget = b),
    jl_explicit = function(b) jl_ridge(matrix(rnorm(30), 10), 1, 1e-6, clip = 3, r = 1e9, method = "explicit", budget = b))
  for (nm in names(calls)) {
    b <- dp_budget(100, 0.5, neighbor = "replace-one")
    e <- expect_error(calls[[nm]](b), class = "dpcov_error", info = nm)
    # (the explicit projection's refusal names the sampler to use instead)
    expect_match(conditionMessage(e), if (nm == "jl_explicit") "would draw a 1e\\+09" else "would hold", info = nm)
    expect_equal(nrow(as.data.frame(b)), 0L, info = nm)
  }
  # dp_pca's rank against a package reader's schema, and against statistics' p
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f), add = TRUE)
  set.seed(3)
  utils::write.csv(data.frame(a = rnorm(50)), f, row.names = FALSE)
  b <- dp_budget(10, 0.5, neighbor = "replace-one")
  e <- expect_error(dp_pca(csv_reader(f), rank = 3, epsilon = 1, delta = 1e-6, clip = 3, clip_mean = 3,
                           neighbor = "replace-one", budget = b), class = "dpcov_error")
  expect_identical(e$arg, "rank")
  expect_equal(nrow(as.data.frame(b)), 0L)
  s <- second_moment(matrix(rnorm(300), 100, 3), clip = 3)
  expect_s3_class(suppressWarnings(dp_pca(s, rank = 2, epsilon = 1, delta = 1e-6, clip_mean = 3)), "dp_pca")
  e <- expect_error(dp_pca(s, rank = 4, epsilon = 1, delta = 1e-6, clip_mean = 3), class = "dpcov_error")
  expect_identical(e$arg, "rank")
  # a wide data frame whose model is narrow is not refused by dp_lm()
  d <- as.data.frame(matrix(rnorm(2000 * 3), 2000, 3))
  d$V4 <- d$V1 + d$V2
  expect_s3_class(dp_lm(V4 ~ V1 + V2, d, epsilon = 1, delta = 1e-6, lower = c(V4 = -10, V1 = -5, V2 = -5),
                        upper = c(V4 = 10, V1 = 5, V2 = 5), B = 5), "dp_lm")
})

test_that("thresholding's p >= 2 and a public tuning sample's width are refused before any charge (audit)", {
  set.seed(4)
  x1 <- matrix(rnorm(500), 500, 1, dimnames = list(NULL, "a"))
  X3 <- matrix(rnorm(1500), 500, 3, dimnames = list(NULL, c("a", "b", "c")))
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f), add = TRUE)
  utils::write.csv(as.data.frame(X3), f, row.names = FALSE)
  calls <- list(
    private_bounds = function(b) dp_cov(x1, 1, 1e-6, mechanism = "threshold", neighbor = "replace-one", budget = b),
    vector = function(b) dp_cov(rnorm(200), 1, 1e-6, mechanism = "threshold", neighbor = "replace-one", budget = b),
    vector_threshold = function(b) dp_threshold(rnorm(200), 1, 1e-6, clip = 3, budget = b),
    tightened = function(b) dp_cov(x1, 1, 1e-6, mechanism = "threshold", neighbor = "replace-one", lower = -5,
                                   upper = 5, tighten = TRUE, budget = b),
    pca = function(b) dp_pca(x1, epsilon = 1, delta = 1e-6, mechanism = "threshold", neighbor = "replace-one", budget = b),
    statistics = function(b) dp_threshold(second_moment(x1, 3), 1, 1e-6, budget = b),
    tune_reader = function(b) dp_threshold(csv_reader(f), 0.5, 1e-6, clip = 5, tune = matrix(rnorm(400), 200, 2),
                                           budget = b),
    tune_matrix = function(b) dp_threshold(X3, 0.5, 1e-6, clip = 5, tune = matrix(rnorm(400), 200, 2), budget = b))
  for (nm in names(calls)) {
    b <- dp_budget(10, 0.5, neighbor = "replace-one")
    e <- expect_error(calls[[nm]](b), class = "dpcov_error", info = nm)
    expect_match(conditionMessage(e), if (startsWith(nm, "tune")) "public sample has 2 columns" else "p >= 2", info = nm)
    expect_equal(nrow(as.data.frame(b)), 0L, info = nm)
  }
  # (control: the same calls with a fitting shape are released and charged)
  b <- dp_budget(10, 0.5, neighbor = "replace-one")
  expect_s3_class(suppressWarnings(dp_threshold(csv_reader(f), 0.5, 1e-6, clip = 5, tune = matrix(rnorm(600), 200, 3),
                                                budget = b)), "dp_release")
  expect_equal(nrow(as.data.frame(b)), 1L)
})

test_that("every refusal whose charge stands is a dpcov_data_error, whatever its words (audit)", {
  set.seed(9)
  X <- matrix(rnorm(300), 100, 3, dimnames = list(NULL, c("a", "b", "c")))
  # a reader function whose second pass gives fewer rows: refused after its
  # pass began, the charge kept
  passes <- 0L
  i <- 0L
  rd <- function() {
    if (i == 0L) passes <<- passes + 1L
    rows <- if (passes == 1L) 100L else 60L
    if (i >= rows) {
      i <<- 0L
      return(NULL)
    }
    k <- (i + 1L):min(i + 30L, rows)
    i <<- max(k)
    X[k, , drop = FALSE]
  }
  b <- dp_budget(10, 0.5, neighbor = "replace-one")
  e <- expect_error(dp_cov(rd, 1, 1e-6, clip = 5, clip_mean = 5, neighbor = "replace-one", budget = b),
                    class = "dpcov_data_error")
  expect_gt(nrow(as.data.frame(b)), 0L)
  # a refusal for too few rows from a package reader (n public: after its pass began)
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  utils::write.csv(as.data.frame(X[0, , drop = FALSE]), f, row.names = FALSE)  # the header, no rows
  for (call in list(function(b) analyze_gauss(csv_reader(f), 1, 1e-6, clip = 5, neighbor = "replace-one", budget = b),
                    function(b) dp_cov(csv_reader(f), 1, 1e-6, clip = 5, clip_mean = 5, neighbor = "replace-one",
                                       budget = b))) {
    b <- dp_budget(10, 0.5, neighbor = "replace-one")
    expect_error(call(b), "rows", class = "dpcov_data_error")
    expect_gt(nrow(as.data.frame(b)), 0L)
  }
  # (control: a refusal withdrawn before anything is read is no data error)
  b <- dp_budget(10, 0.5, neighbor = "replace-one")
  e <- expect_error(dp_cov(X[, 1, drop = FALSE], 1, 1e-6, mechanism = "threshold", neighbor = "replace-one",
                           budget = b), class = "dpcov_error")
  expect_false(inherits(e, "dpcov_data_error"))
  expect_equal(nrow(as.data.frame(b)), 0L)
})

test_that("dp_cov()'s private clips record their exponential-mechanism rho whatever the call's composition", {
  set.seed(93)
  x <- matrix(rnorm(9000), 3000)
  z <- dp_budget(10, 1e-5, composition = "zCDP")
  r <- dp_cov(x, 0.8, 1e-6, clip_mean = 5, calibration = "classic", budget = z)
  led <- as.data.frame(z)
  clip_rows <- grepl("clip", led$what) & is.na(match(led$what, "Analyze Gauss"))
  expect_true(any(clip_rows))
  expect_equal(led$rho[clip_rows], led$epsilon[clip_rows]^2 / 8)
})

test_that("a budget refusal after the box rows were formed does not say the data was not read", {
  set.seed(94)
  x <- matrix(rnorm(600), 200, 3, dimnames = list(NULL, c("a", "b", "c")))
  z <- dp_budget(1, 1e-5, composition = "zCDP")
  e <- expect_error(wishart_noise(x, 0.5, 1e-6, lower = -3, upper = 3, budget = z), class = "dpcov_budget_error")
  expect_false(grepl("the data was not read", conditionMessage(e), fixed = TRUE))
  expect_match(conditionMessage(e), "nothing was released", fixed = TRUE)
  expect_identical(budget_spent(z)$charges, 0L)
  # (a refusal before any read keeps its words)
  e <- expect_error(wishart_noise(x, 0.5, 1e-6, clip = 3, budget = z), class = "dpcov_budget_error")
  expect_match(conditionMessage(e), "the data was not read", fixed = TRUE)
})
