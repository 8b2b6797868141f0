# The bounds of a dp_column_bounds() release, given as `bounds` to a release
# charged to a budget, are a step of that release: the budget charges them
# unless it charged them already (an audit found a release whose guarantee
# counted the bounds on a budget that never did).

ledger <- function(b) dpcov:::check_budget(b)$ledger
bounds_rows <- function(b) sum(grepl("^dp_column_bounds", ledger(b)$what))
given_rows <- function(b) sum(grepl("given as `bounds`", ledger(b)$what, fixed = TRUE))

bounds_data <- function(n = 800) {
  set.seed(11)
  data.frame(a = rnorm(n, 5), b = rexp(n), c = runif(n, 0, 10))
}

test_that("bounds released without a budget are charged, once, to the budget of the releases that use them", {
  x <- bounds_data()
  cb <- dp_column_bounds(x, epsilon = 0.4, delta = 1e-7)
  b <- dp_budget(5, 1e-4)
  r <- dp_cov(x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = b)
  led <- ledger(b)
  expect_identical(given_rows(b), 1L)
  # the step as the bounds state it: their (epsilon, delta), their zCDP rho
  # (exponential mechanisms), their notion as the ledger records it
  expect_equal(led$epsilon[1], cb$epsilon)
  expect_equal(led$delta[1], cb$delta)
  expect_equal(led$rho[1], cb$rho)
  expect_identical(led$neighbor[1], "any")
  # the ledger's basic total is the release's own guarantee (which adds the
  # bounds' to its own by basic composition)
  expect_equal(budget_spent(b)$epsilon_basic, r$epsilon)
  expect_equal(budget_spent(b)$delta, r$delta)
  # the release records every row it was charged, the bounds' first
  expect_identical(r$params$budget_charge, "1, 2")
  # used again on the same budget: charged once
  dp_cov(x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = b)
  dp_pca(x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = b)
  dp_lm(c ~ a + b, data = x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = b)
  analyze_gauss(x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = b)
  expect_identical(given_rows(b), 1L)
  expect_identical(nrow(ledger(b)), 6L)
  # a saved and restored copy is the same release: not charged again
  expect_identical(given_rows({dp_cov(x, epsilon = 0.5, delta = 1e-7, bounds = unserialize(serialize(cb, NULL)),
                                      budget = b); b}), 1L)
})

test_that("bounds made on a budget are not charged to it again, and are charged to any other", {
  x <- bounds_data()
  b <- dp_budget(5, 1e-4)
  cb <- dp_column_bounds(x, epsilon = 0.4, delta = 1e-7, budget = b)
  expect_true(is.character(cb$release_id) && length(cb$release_id) == 1L)
  dp_cov(x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = b)
  wishart_noise(x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = b)
  expect_identical(bounds_rows(b), 1L)
  expect_identical(given_rows(b), 0L)
  other <- dp_budget(5, 1e-4)
  dp_cov(x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = other)
  expect_identical(given_rows(other), 1L)
  expect_equal(budget_spent(other)$epsilon_basic, 0.9)
  # two sets of bounds are two steps
  cb2 <- dp_column_bounds(x, epsilon = 0.3, delta = 1e-7)
  dp_cov(x, epsilon = 0.5, delta = 1e-7, bounds = cb2, budget = other)
  expect_identical(given_rows(other), 2L)
  expect_equal(ledger(other)$epsilon[given_rows(other) + 1L], 0.3)
})

test_that("every mechanism on the box charges given bounds with its own charge, all or nothing", {
  x <- bounds_data(400)
  cb <- dp_column_bounds(x, epsilon = 0.4, delta = 1e-7)
  runs <- list(
    analyze_gauss = function(b) analyze_gauss(x, 0.5, 1e-7, bounds = cb, budget = b),
    wishart_noise = function(b) wishart_noise(x, 0.5, 1e-7, bounds = cb, budget = b),
    jl_ridge = function(b) jl_ridge(x, 0.5, 1e-7, bounds = cb, budget = b),
    iwishart_posterior = function(b) iwishart_posterior(x, 0.5, 1e-7, bounds = cb, budget = b),
    jl_adaptive = function(b) jl_adaptive(x, 0.5, 1e-7, bounds = cb, budget = b),
    iwishart_adaptive = function(b) iwishart_adaptive(x, 0.5, 1e-7, bounds = cb, budget = b),
    dp_threshold = function(b) dp_threshold(x, 0.5, 1e-7, bounds = cb, budget = b, keep_diagonal = TRUE),
    dp_cov = function(b) dp_cov(x, 0.5, 1e-7, bounds = cb, budget = b),
    dp_lm = function(b) dp_lm(c ~ a + b, data = x, epsilon = 0.5, delta = 1e-7, bounds = cb, budget = b)
  )
  # Sheffet's Algorithm 4 and thresholding hold under replace-one only
  notion <- function(nm) if (nm %in% c("iwishart_posterior", "dp_threshold")) "replace-one" else "add-remove"
  for (nm in names(runs)) {
    b <- dp_budget(5, 1e-4, neighbor = notion(nm))
    r <- suppressWarnings(runs[[nm]](b))
    if (inherits(r, "dp_lm")) r <- r$release
    led <- ledger(b)
    expect_identical(grepl("given as `bounds`", led$what, fixed = TRUE), c(TRUE, rep(FALSE, nrow(led) - 1L)),
                     info = nm)
    # the ledger's basic total is the guarantee the release states
    expect_equal(budget_spent(b)$epsilon_basic, r$epsilon, info = nm)
    expect_equal(budget_spent(b)$delta, r$delta, info = nm)
    expect_true(1L %in% as.integer(strsplit(paste(r$params$budget_charge, collapse = ", "), ", ")[[1]]), info = nm)
    # a budget with room for the release's own steps but not for the
    # bounds' refuses both, before the data is read: nothing is recorded
    # (the release's own steps cost 0.5; the ledger composes by the better
    # of basic and zCDP composition)
    small <- dp_budget((0.5 + budget_spent(b)$epsilon) / 2, 1e-4, neighbor = notion(nm))
    expect_error(suppressWarnings(runs[[nm]](small)), "given as `bounds`", class = "dpcov_budget_error", info = nm)
    expect_identical(nrow(ledger(small)), 0L, info = nm)
  }
})

test_that("a withdrawn charge leaves the bounds uncharged; a hand-made object is charged as it states", {
  x <- bounds_data(400)
  cb <- dp_column_bounds(x, epsilon = 0.4, delta = 1e-7, neighbor = "replace-one")
  b <- dp_budget(5, 1e-4, neighbor = "replace-one")
  # a refusal of the data's shape after the charge (no rows where n is
  # public) withdraws it, the bounds' step with it
  expect_error(analyze_gauss(x[0, ], 0.5, 1e-7, neighbor = "replace-one", bounds = cb, budget = b),
               class = "dpcov_error")
  expect_identical(nrow(ledger(b)), 0L)
  analyze_gauss(x, 0.5, 1e-7, neighbor = "replace-one", bounds = cb, budget = b)
  expect_identical(given_rows(b), 1L)
  expect_identical(ledger(b)$neighbor[1], "replace-one")
  # bounds under replace-one on an add/remove budget: refused, nothing charged
  ar <- dp_budget(5, 1e-4)
  expect_error(analyze_gauss(x, 0.5, 1e-7, neighbor = "replace-one", bounds = cb, budget = ar),
               class = "dpcov_budget_error")
  expect_identical(nrow(ledger(ar)), 0L)

  cb <- dp_column_bounds(x, epsilon = 0.4, delta = 1e-7)
  b <- dp_budget(5, 1e-4)
  dp_cov(x, 0.5, 1e-7, bounds = cb, budget = b)
  # an edited copy under the same id but stating more epsilon is not the
  # release the budget charged: charged as it states
  more <- cb
  more$epsilon <- 0.8
  dp_cov(x, 0.5, 1e-7, bounds = more, budget = b)
  expect_identical(given_rows(b), 2L)
  expect_equal(ledger(b)$epsilon[3], 0.8)
  # a rho that is not the one its epsilon, delta and columns give is not
  # trusted: the step composes by basic composition (rho NA)
  odd <- cb
  odd$release_id <- NULL
  odd$rho <- cb$rho / 100
  dp_cov(x, 0.5, 1e-7, bounds = odd, budget = b)
  expect_true(is.na(ledger(b)$rho[5]))
  expect_equal(ledger(b)$epsilon[5], cb$epsilon)
  # without an id: charged each time
  dp_cov(x, 0.5, 1e-7, bounds = odd, budget = b)
  expect_identical(given_rows(b), 4L)
  # the rho recomputed for the object as released is its own
  expect_equal(dpcov:::column_bounds_release_rho(cb), cb$rho)
  pure <- dp_column_bounds(x, epsilon = 0.4, delta = 0)
  expect_equal(dpcov:::column_bounds_release_rho(pure), pure$rho)
  expect_equal(pure$rho, 0.4^2 / (8 * (3 * dpcov:::column_bounds_choices + 1)))
})
