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
  expect_identical(r$params$budget_charge, 1:2)
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
    expect_true(1L %in% r$params$budget_charge, info = nm)
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
  # the rho the ledger uses is the one this session's dp_column_bounds()
  # recorded for the object, as released
  expect_equal(dpcov:::column_bounds_release_rho(cb), cb$rho)
  pure <- dp_column_bounds(x, epsilon = 0.4, delta = 0)
  expect_equal(dpcov:::column_bounds_release_rho(pure), pure$rho)
  expect_equal(pure$rho, 0.4^2 / (8 * (3 * dpcov:::column_bounds_choices + 1)))
  # an object edited to state the rho of more columns (padded bounds, the
  # same id; under basic composition a rho falls with the number of choices)
  # is not trusted: basic composition (an audit's forgery)
  padded <- pure
  padded$bounds <- rbind(pure$bounds, data.frame(lower = rep(0, 7), upper = 1, row.names = paste0("z", 1:7)))
  padded$rho <- dpcov:::column_bounds_epsilon(pure$epsilon, 0, 10, noisy_count = TRUE)$rho
  expect_lt(padded$rho, pure$rho)
  expect_true(is.na(dpcov:::column_bounds_release_rho(padded)))
  # nor is one made in another session (its id is not this session's)
  other <- cb
  other$release_id <- "0123456789abcdef0123456789abcdef"
  expect_true(is.na(dpcov:::column_bounds_release_rho(other)))
})

test_that("a withdrawn charge's id is never reused, so a later charge is never taken for the bounds'", {
  x <- bounds_data(400)
  cb <- dp_column_bounds(x, epsilon = 0.5, delta = 0)
  b <- dp_budget(10, 1e-3)
  bad <- x
  bad$c <- as.character(bad$c)
  # charged with the bounds, then withdrawn (a refusal of the data's type)
  expect_error(dp_cov(bad, 1, 1e-6, bounds = cb, budget = b), class = "dpcov_error")
  expect_identical(nrow(ledger(b)), 0L)
  # an unrelated charge of the same epsilon and delta as the bounds'
  dp_clip_bound(as.matrix(x), epsilon = 0.5, budget = b)
  expect_identical(ledger(b)$id, 3)
  r <- dp_cov(x, 1, 1e-6, bounds = cb, budget = b)
  expect_identical(given_rows(b), 1L)
  expect_equal(budget_spent(b)$epsilon_basic, 0.5 + r$epsilon)
  # the same on the box path
  b <- dp_budget(10, 1e-3)
  expect_error(jl_ridge(as.matrix(x), 0.5, 1e-4, bounds = cb, r = 3, budget = b), class = "dpcov_error")
  expect_identical(nrow(ledger(b)), 0L)
  dp_clip_bound(as.matrix(x), epsilon = 0.5, budget = b)
  r <- jl_ridge(as.matrix(x), 0.5, 1e-4, bounds = cb, budget = b)
  expect_equal(budget_spent(b)$epsilon_basic, 0.5 + r$epsilon)
})

test_that("bounds made in forked workers have ids of their own", {
  skip_on_os("windows")
  x <- bounds_data(400)
  dp_column_bounds(x, 0.5)  # the session's first id, before the fork
  made <- parallel::mclapply(1:2, function(i) dp_column_bounds(x[seq(i, 400, 2), ], 0.5), mc.cores = 2)
  expect_false(identical(made[[1]]$release_id, made[[2]]$release_id))
  # an id is 128 random bits from the system's entropy source: it names
  # neither the process nor the time, and it leaves R's RNG stream alone
  expect_match(made[[1]]$release_id, "^[0-9a-f]{32}$")
  set.seed(3)
  u <- runif(1)
  set.seed(3)
  invisible(dpcov:::new_release_id())
  expect_identical(runif(1), u)
  b <- dp_budget(10, 1e-3)
  for (cb in made) dp_cov(x, 1, 1e-6, bounds = cb, budget = b)
  expect_identical(given_rows(b), 2L)
})

test_that("the bounds handed to a mechanism on box rows go to its own charge, not to one made by the caller's code", {
  x <- bounds_data(400)
  cb <- dp_column_bounds(x, epsilon = 0.4, delta = 1e-7)
  b <- dp_budget(10, 1e-3)
  # a data frame whose conversion makes (and has withdrawn) a release on the
  # same budget, while the mechanism's call is under way
  as.matrix.sneaky <- function(x, ...) {
    try(dp_cov(as.matrix(unclass_df(x))[0, , drop = FALSE], 0.5, 1e-6, clip = 1, neighbor = "replace-one",
               budget = dp_budget(1, 1e-3, neighbor = "replace-one")), silent = TRUE)
    try(analyze_gauss(matrix(0, 0, 3), 0.5, 1e-6, clip = 1, neighbor = "replace-one", budget = b), silent = TRUE)
    as.matrix(unclass_df(x))
  }
  unclass_df <- function(x) structure(x, class = "data.frame")
  registerS3method("as.matrix", "sneaky", as.matrix.sneaky)
  sneaky <- structure(x, class = c("sneaky", "data.frame"))
  r <- wishart_noise(sneaky, 0.5, 1e-6, bounds = cb, budget = b)
  expect_identical(given_rows(b), 1L)
  expect_equal(budget_spent(b)$epsilon_basic, r$epsilon)
  expect_null(dpcov:::dpcov_state$pending_bounds)
})

test_that("thresholding an aggregate charges a budget that charged none of its batches, once", {
  set.seed(31)
  X <- matrix(rnorm(3000), 1000, 3) / 4
  rp <- ldp_perturb(X, 1, 1e-6, clip = 1)
  agg <- ldp_aggregate(rp)
  b <- dp_budget(10, 1e-3, neighbor = "replace-one")
  r <- suppressWarnings(dp_threshold(agg, budget = b))
  led <- ledger(b)
  expect_identical(nrow(led), 1L)
  expect_match(led$what, "LDP reports given to dp_threshold", fixed = TRUE)
  expect_equal(c(led$epsilon, led$delta), c(r$epsilon, r$delta))
  expect_identical(led$neighbor, "replace-one")
  # again: charged once
  suppressWarnings(dp_threshold(agg, budget = b))
  expect_identical(nrow(ledger(b)), 1L)
  # reports charged in ldp_perturb() to the budget: nothing more (their rows
  # are disjoint); a batch it did not charge joining them is charged, once
  b2 <- dp_budget(10, 1e-3, neighbor = "replace-one")
  rp2 <- ldp_perturb(X, 1, 1e-6, clip = 1, budget = b2)
  suppressWarnings(dp_threshold(ldp_aggregate(rp2), budget = b2))
  expect_identical(nrow(ledger(b2)), 1L)
  expect_match(ledger(b2)$what, "^LDP reports \\(per-record")
  suppressWarnings(dp_threshold(ldp_aggregate(rp, rp2), budget = b2))
  expect_identical(nrow(ledger(b2)), 2L)
  # the reports hold under replace-one only: an add/remove budget refuses
  expect_error(suppressWarnings(dp_threshold(agg, budget = dp_budget(10, 1e-3))), class = "dpcov_budget_error")
  # a batch's id is no data: ids differ between batches, and the aggregate
  # keeps those of the batches it kept
  expect_false(identical(rp$release_id, rp2$release_id))
  expect_setequal(ldp_aggregate(rp, rp2)$params$report_ids, c(rp$release_id, rp2$release_id))
})

test_that("an aggregate is charged unless the budget charged every one of its batches, or the aggregate, before (audit)", {
  set.seed(32)
  X <- matrix(rnorm(3000), 1000, 3) / 4
  b <- dp_budget(10, 1e-3, neighbor = "replace-one")
  charged <- ldp_perturb(X[1:500, ], 1, 1e-6, clip = 1, budget = b)
  other <- ldp_perturb(X[501:1000, ], 1, 1e-6, clip = 1)
  expect_identical(nrow(ledger(b)), 1L)
  # control: every batch charged in ldp_perturb(), nothing more
  suppressWarnings(dp_threshold(ldp_aggregate(charged), budget = b))
  expect_identical(nrow(ledger(b)), 1L)
  # one batch the budget did not charge: the reports' guarantee, once (it was
  # skipped because one batch had been charged)
  both <- ldp_aggregate(charged, other)
  r <- suppressWarnings(dp_threshold(both, budget = b))
  expect_identical(nrow(ledger(b)), 2L)
  expect_equal(c(ledger(b)$epsilon[2], ledger(b)$delta[2]), c(r$epsilon, r$delta))
  expect_identical(r$params$budget_charge, 2L)
  suppressWarnings(dp_threshold(both, budget = b))
  expect_identical(nrow(ledger(b)), 2L)
  # every batch is recorded with the charge: an aggregate of the other batch
  # alone is covered now
  suppressWarnings(dp_threshold(ldp_aggregate(other), budget = b))
  expect_identical(nrow(ledger(b)), 2L)
  # an edited list of batch ids makes no aggregate free: one claiming the
  # charged batch is charged (control: as made, it would not be)
  b2 <- dp_budget(10, 1e-3, neighbor = "replace-one")
  mine <- ldp_perturb(X[1:500, ], 1, 1e-6, clip = 1, budget = b2)
  edited <- ldp_aggregate(other)
  edited$params$report_ids <- mine$release_id
  suppressWarnings(dp_threshold(edited, budget = b2))
  expect_identical(nrow(ledger(b2)), 2L)
  suppressWarnings(dp_threshold(ldp_aggregate(mine), budget = b2))
  expect_identical(nrow(ledger(b2)), 2L)
  # so is one given another aggregate's id (its estimate is not that one's)
  agg_mine <- ldp_aggregate(mine)
  edited <- ldp_aggregate(other)
  edited$params[c("report_ids", "release_id")] <- agg_mine$params[c("report_ids", "release_id")]
  suppressWarnings(dp_threshold(agg_mine, budget = b2))
  expect_identical(nrow(ledger(b2)), 2L)
  suppressWarnings(dp_threshold(edited, budget = b2))
  expect_identical(nrow(ledger(b2)), 3L)
  # ids not of the form ldp_aggregate() gives are refused before any charge
  a <- ldp_aggregate(other)
  bad <- list(function(z) { z$params$report_ids <- 1; z }, function(z) { z$params$report_ids <- "x"; z },
              function(z) { z$params$report_ids <- NULL; z }, function(z) { z$params$report_ids <- character(0); z },
              function(z) { z$params$report_ids <- rep(other$release_id, 2); z$params$batches <- 2; z },
              function(z) { z$params$report_ids <- c(other$release_id, NA); z },
              function(z) { z$params$release_id <- "x"; z })
  for (edit in bad) {
    e <- expect_error(dp_threshold(edit(a), budget = b2), "report_ids", class = "dpcov_error")
    expect_identical(e$arg, "x")
  }
  expect_identical(nrow(ledger(b2)), 3L)
  expect_equal(a$params$batches, 1)
})

test_that("an aggregate of batches without release ids is charged once per budget (audit)", {
  set.seed(33)
  X <- matrix(rnorm(3000), 1000, 3) / 4
  hand <- ldp_perturb(X, 1, 1e-6, clip = 1)
  hand$release_id <- NULL
  agg <- ldp_aggregate(hand)
  expect_true(is.na(agg$params$report_ids))
  expect_match(agg$params$release_id, "^[0-9a-f]{32}$")
  b <- dp_budget(10, 1e-3, neighbor = "replace-one")
  for (i in 1:3) suppressWarnings(dp_threshold(agg, budget = b))
  expect_identical(nrow(ledger(b)), 1L)
  # control: another budget is charged, once
  b2 <- dp_budget(10, 1e-3, neighbor = "replace-one")
  for (i in 1:2) suppressWarnings(dp_threshold(agg, budget = b2))
  expect_identical(nrow(ledger(b2)), 1L)
  # aggregates have ids of their own
  expect_false(identical(ldp_aggregate(hand)$params$release_id, agg$params$release_id))
  # one made in another session (its record gone here) is charged once too,
  # its batches' ids unverified: charged though its batch was charged here
  b3 <- dp_budget(10, 1e-3, neighbor = "replace-one")
  rp <- ldp_perturb(X, 1, 1e-6, clip = 1, budget = b3)
  away <- ldp_aggregate(rp)
  rm(list = away$params$release_id, envir = dpcov:::ldp_aggregates_made)
  for (i in 1:2) suppressWarnings(dp_threshold(away, budget = b3))
  expect_identical(nrow(ledger(b3)), 2L)
})

test_that("a batch's id counts for a budget only on the reports ldp_perturb() made under it (review)", {
  set.seed(34)
  X <- matrix(rnorm(3000), 1000, 3) / 4
  b <- dp_budget(10, 1e-3, neighbor = "replace-one")
  A <- ldp_perturb(X[1:500, ], 1, 1e-6, clip = 1, budget = b)
  B <- ldp_perturb(X[501:1000, ], 1, 1e-6, clip = 1)
  # control: the charged batch as made costs nothing more
  suppressWarnings(dp_threshold(ldp_aggregate(A), budget = b))
  expect_identical(nrow(ledger(b)), 1L)
  # the charged batch with the uncharged one's reports added, and the
  # uncharged one carrying the charged one's id, were thresholded free
  AB <- A
  AB$reports <- rbind(A$reports, B$reports)
  r <- suppressWarnings(dp_threshold(ldp_aggregate(AB), budget = b))
  expect_identical(nrow(ledger(b)), 2L)
  expect_identical(r$params$budget_charge, 2L)
  B2 <- B
  B2$release_id <- A$release_id
  suppressWarnings(dp_threshold(ldp_aggregate(B2), budget = b))
  expect_identical(nrow(ledger(b)), 3L)
  # so is a charged batch with one report edited
  A1 <- A
  A1$reports[3, 2] <- A1$reports[3, 2] + 1
  suppressWarnings(dp_threshold(ldp_aggregate(A1), budget = b))
  expect_identical(nrow(ledger(b)), 4L)
  # none of these marked A's id or B's charged beyond its own reports: B
  # alone is charged, once; then a new aggregate of it is covered
  suppressWarnings(dp_threshold(ldp_aggregate(B), budget = b))
  expect_identical(nrow(ledger(b)), 5L)
  suppressWarnings(dp_threshold(ldp_aggregate(B), budget = b))
  suppressWarnings(dp_threshold(ldp_aggregate(A, B), budget = b))
  expect_identical(nrow(ledger(b)), 5L)
  # a batch whose id this session did not make (another session's) is
  # charged once per aggregate, whatever the budget charged under its id
  b2 <- dp_budget(10, 1e-3, neighbor = "replace-one")
  C <- ldp_perturb(X, 1, 1e-6, clip = 1, budget = b2)
  rm(list = C$release_id, envir = dpcov:::ldp_batches_made)
  agg <- ldp_aggregate(C)
  for (i in 1:2) suppressWarnings(dp_threshold(agg, budget = b2))
  expect_identical(nrow(ledger(b2)), 2L)
  suppressWarnings(dp_threshold(ldp_aggregate(C), budget = b2))
  expect_identical(nrow(ledger(b2)), 3L)
})

test_that("an aggregate's counts are integers and the session keeps no list of its batch ids (review)", {
  set.seed(35)
  proto <- ldp_perturb(c(0.1, 0.2), 1, 1e-6, clip = 1)
  batches <- lapply(1:2000, function(i) ldp_perturb(c(0.1, 0.2), 1, 1e-6, clip = 1))
  a <- suppressWarnings(ldp_aggregate(c(batches, batches[1])))
  expect_type(a$params$dropped_batches, "integer")
  expect_type(a$params$dropped_reports, "integer")
  expect_identical(c(a$params$dropped_batches, a$params$dropped_reports), c(1L, 0L))
  rec <- get(a$params$release_id, envir = dpcov:::ldp_aggregates_made)
  expect_null(rec$report_ids)
  expect_lt(as.numeric(utils::object.size(rec)), 2000)
  # the ids are still checked: one changed makes the aggregate's record not its own
  b <- dp_budget(10, 1e-3, neighbor = "replace-one")
  suppressWarnings(dp_threshold(a, budget = b))
  suppressWarnings(dp_threshold(a, budget = b))
  expect_identical(nrow(ledger(b)), 1L)
  edited <- a
  edited$params$report_ids[5] <- proto$release_id
  suppressWarnings(dp_threshold(edited, budget = b))
  expect_identical(nrow(ledger(b)), 2L)
})
