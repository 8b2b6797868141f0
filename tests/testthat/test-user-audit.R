# A new user's walk through the less-visited families (an audit of the
# sparse-covariance, Sheffet, sampler, reader and utility functions, session
# of 2026-11-27, seventeenth): the ledger's notion for Analyze Gauss, labels
# of tables made from non-private releases, arguments a function does not
# take, the intercept column of exact statistics, the local model's
# hand-offs, the majority of reports, messages that name the cause.

# what print() shows, on one line (wrapped text matched as read)
printed <- function(x) gsub("\\s+", " ", paste(capture.output(print(x)), collapse = " "))

test_that("an add/remove Analyze Gauss costs a zero-out budget its own epsilon: a zeroed row is a removed one", {
  set.seed(1)
  x <- matrix(rnorm(400), 100, 4) / 2
  # the worst-case pair: zero-out neighbours (x_1 against the zero row) have
  # the Gram of add/remove neighbours (x_1 against no row), so the release is
  # the same draw under the same seed
  zeroed <- x
  zeroed[1, ] <- 0
  removed <- x[-1, ]
  # (equal up to the order of the floating-point sums)
  expect_equal(second_moment(zeroed, clip = 1)$gram, second_moment(removed, clip = 1)$gram, tolerance = 1e-14)
  set.seed(2)
  r0 <- analyze_gauss(zeroed, 0.5, 1e-6, clip = 1)
  set.seed(2)
  r1 <- analyze_gauss(removed, 0.5, 1e-6, clip = 1)
  expect_equal(r0$estimate, r1$estimate, tolerance = 1e-14)
  # and its noise is the zero-out release's
  expect_equal(analyze_gauss(x, 0.5, 1e-6, clip = 1)$params$sigma,
               analyze_gauss(x, 0.5, 1e-6, clip = 1, neighbor = "zero-out")$params$sigma)

  spent <- function(notion, ...) {
    b <- dp_budget(3, 1e-4, neighbor = notion)
    analyze_gauss(x, 0.5, 1e-6, budget = b, ...)
    list(eps = budget_spent(b)$epsilon_basic, notion = dpcov:::check_budget(b)$ledger$neighbor)
  }
  z <- spent("zero-out", clip = 1)
  expect_equal(z$eps, 0.5)
  expect_identical(z$notion, "add-remove, zero-out")
  expect_equal(spent("add-remove", clip = 1)$eps, 0.5)
  # replace-one neighbours are two add/remove steps apart: group privacy
  expect_equal(spent("replace-one", clip = 1)$eps, 1)
  # public bounds that hold 0 keep the zero record at the origin; bounds that
  # exclude 0 move it (its box row enters the zero-out noise): restated
  expect_equal(spent("zero-out", lower = -1, upper = 1)$eps, 0.5)
  expect_equal(spent("zero-out", lower = c(0.5, -1, -1, -1), upper = 1)$eps, 1)
  # the zero record's box row follows from the bounds, whatever a hand-made
  # statistic says (without it, the charge and the noise took it at 0)
  sb <- second_moment(x, lower = c(0.5, -1, -1, -1), upper = 2)
  hand <- sb
  hand$zero_row <- NULL
  for (s_in in list(sb, hand)) {
    b <- dp_budget(3, 1e-4, neighbor = "zero-out")
    r <- analyze_gauss(s_in, 0.5, 1e-6, neighbor = "zero-out", budget = b)
    expect_equal(r$params$zero_row, sb$zero_row)
    b2 <- dp_budget(3, 1e-4, neighbor = "zero-out")
    analyze_gauss(s_in, 0.5, 1e-6, budget = b2)
    expect_equal(budget_spent(b2)$epsilon_basic, 1)
  }
  # a zero-out release stays zero-out (n is public in it)
  b <- dp_budget(3, 1e-4, neighbor = "zero-out")
  analyze_gauss(x, 0.5, 1e-6, clip = 1, neighbor = "zero-out", budget = b)
  expect_identical(dpcov:::check_budget(b)$ledger$neighbor, "zero-out")
  expect_error(analyze_gauss(x, 0.5, 1e-6, clip = 1, neighbor = "zero-out", budget = dp_budget(3, 1e-4)),
               class = "dpcov_budget_error")
  # the conversion itself, in one place
  cg <- dpcov:::convert_guarantee
  expect_equal(cg(1, 1e-6, 0.1, "add-remove, zero-out", "zero-out")$epsilon, 1)
  expect_equal(cg(1, 1e-6, 0.1, "add-remove, zero-out", "add-remove")$rho, 0.1)
  expect_equal(cg(1, 1e-6, 0.1, "add-remove, zero-out", "replace-one")$rho, 0.4)
  expect_output(print(dp_budget(1, 1e-6)), "under add/remove")
})

test_that("tables made from a non-private release say why it is not private, in its own words", {
  set.seed(3)
  x <- matrix(rnorm(20000), 4000, 5) / 4
  r <- dp_threshold(x, 1, 1e-6, clip = 1, tune = "cv")
  for (tab in list(glance(r), tidy(r), as.data.frame(r))) {
    expect_s3_class(tab, "dp_nonprivate")
    expect_match(printed(tab), "tuning choice in the release was computed from the data without privacy noise")
  }
  inf <- analyze_gauss(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 2)
  expect_false(has_guarantee(inf))
  for (tab in list(glance(inf), tidy(inf))) {
    expect_s3_class(tab, "dp_nonprivate")
    expect_match(printed(tab), "without a formal guarantee")
    expect_false(grepl("computed without privacy noise", printed(tab)))
  }
  expect_false(glance(inf)$private)
  comp <- dp_compress(matrix(rnorm(4000), 400, 10), m = 250)
  expect_match(printed(glance(comp)), "distributionally private")
  # a private release's tables are plain
  ok <- analyze_gauss(x, 1, 1e-6, clip = 1)
  expect_false(inherits(glance(ok), "dp_nonprivate"))
  expect_false(inherits(tidy(ok), "dp_nonprivate"))
  expect_identical(class(as.data.frame(ok)), "data.frame")
  # coefficients from a noisy release without a guarantee are not "exact"
  co <- dp_regression(analyze_gauss(cbind(1, x), 1, 1e-6, clip = Inf, sigma_clip_inf = 2), 6, intercept = 1)
  out <- printed(co)
  expect_match(out, "coefficients from a release without a formal guarantee")
  expect_false(grepl("exact", out))
})

test_that("every exported function refuses an argument it does not take, classed and named", {
  # (their `...` has a use: dp_lm()'s and dp_pca()'s go to the release,
  # whose unknown names are refused there; ldp_aggregate() takes the batches)
  takes_dots <- c("dp_lm", "dp_pca", "ldp_aggregate", "glance", "tidy")
  fns <- setdiff(getNamespaceExports("dpcov"), takes_dots)
  for (f in fns) {
    fn <- getExportedValue("dpcov", f)
    if (!is.function(fn)) next
    e <- tryCatch(fn(zz_not_an_argument = 1), error = function(e) e)
    expect_s3_class(e, "dpcov_error")
    expect_match(conditionMessage(e), "zz_not_an_argument", fixed = TRUE, info = f)
  }
  x <- matrix(rnorm(400), 100, 4)
  expect_error(rwishart(2, 5, diag(2), Sgima = diag(2)), "no argument.*`Sgima`", class = "dpcov_error")
  expect_error(cov_error(diag(2), diag(2), nrm = "frobenius"), "did you mean `norm`", class = "dpcov_error")
  expect_error(threshold_methods(1), "takes none", class = "dpcov_error")
  # Sheffet's mechanisms fix their notion: a `neighbor` is told why
  e <- tryCatch(wishart_noise(x, 0.5, 1e-6, clip = 1, neighbor = "replace-one"), error = function(e) e)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "neighbor")
  expect_match(conditionMessage(e), "every neighbour notion")
  expect_error(iwishart_posterior(x, 0.5, 1e-6, clip = 1, neighbour = "zero-out"), "replace-one-row neighbours \\(it uses n\\)",
               class = "dpcov_error")
  # nothing is charged for a refused argument
  b <- dp_budget(2, 1e-4)
  expect_error(jl_ridge(x, 0.5, 1e-6, clip = 1, budget = b, neighbor = "add-remove"), class = "dpcov_error")
  expect_equal(budget_spent(b)$epsilon, 0)
})

test_that("dp_regression() refuses an intercept column that exact statistics show is not of ones", {
  A <- cbind(one = 1, as.matrix(MASS::Boston[, c("rm", "lstat", "ptratio", "medv")]))
  e <- tryCatch(dp_regression(second_moment(A), "medv", intercept = "lstat"), error = function(e) e)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "intercept")
  expect_match(conditionMessage(e), "column `lstat` is not a column of ones")
  expect_error(dp_regression(second_moment(A, clip = 30), "medv", intercept = 3), "shrunk by the clip", class = "dpcov_error")
  # the column of ones is accepted, unclipped (lm()'s coefficients) and clipped
  ref <- coef(lm(medv ~ rm + lstat + ptratio, data = as.data.frame(A)))
  expect_equal(unname(as.vector(dp_regression(second_moment(A), "medv", intercept = "one"))), unname(ref), tolerance = 1e-8)
  S <- second_moment(A, clip = 30)
  expect_gt(S$n_clipped, 0)
  G <- S$gram
  ref_clip <- solve(G[1:4, 1:4], G[1:4, 5])
  expect_equal(unname(as.vector(dp_regression(S, "medv", intercept = "one"))), unname(ref_clip), tolerance = 1e-8)
  # a release or a bare matrix is taken as given (noisy entries, no n)
  expect_length(dp_regression(crossprod(A), "medv", intercept = "lstat"), 4)
})

test_that("the local model's hand-offs: an aggregate sets the model, a batch or the wrong model is told what to do", {
  set.seed(4)
  x <- matrix(rnorm(6000), 2000, 3) / 3
  rep <- ldp_perturb(x, epsilon = 2, delta = 1e-3, clip = 1)
  agg <- ldp_aggregate(rep)
  set.seed(5)
  a <- dp_threshold(agg)
  set.seed(5)
  b <- dp_threshold(agg, model = "local")
  expect_identical(a$estimate, b$estimate)
  expect_error(dp_threshold(agg, model = "central"), "model = \"central\" does not apply", class = "dpcov_error")
  for (given in list(rep, list(rep, rep))) {
    e <- tryCatch(dp_threshold(given, model = "local"), error = function(e) e)
    expect_s3_class(e, "dpcov_error")
    expect_identical(e$arg, "x")
    expect_match(conditionMessage(e), "ldp_aggregate\\(\\)")
  }
  # a threshold_cv() result as `tune`: its constant, and the release is not private
  set.seed(6)
  xc <- matrix(rnorm(2000 * 6), 2000, 6) / 4
  cv <- threshold_cv(xc, 1, 1e-6, clip = 1, folds = 3)
  set.seed(7)
  r1 <- dp_threshold(xc, 1, 1e-6, clip = 1, tune = cv)
  set.seed(7)
  r2 <- dp_threshold(xc, 1, 1e-6, clip = 1, tune = cv$constant)
  expect_identical(r1$estimate, r2$estimate)
  expect_false(has_guarantee(r1))
  # a hand-made threshold_cv whose constant lost its mark is still non-private
  fake <- structure(list(constant = 0.5), class = c("threshold_cv", "dp_nonprivate"))
  expect_false(has_guarantee(dp_threshold(xc, 1, 1e-6, clip = 1, tune = fake)))
  expect_error(dp_threshold(xc, 1, 1e-6, clip = 1, tune = structure(list(), class = "threshold_cv")),
               "valid threshold_cv", class = "dpcov_error")
})

test_that("ldp_aggregate(): no batch decides the settings or the number of columns for the others", {
  set.seed(8)
  x <- matrix(rnorm(3000), 1000, 3) / 3
  bad <- ldp_perturb(x[1:50, ], epsilon = 100, delta = 1e-3, clip = 1)
  good1 <- ldp_perturb(x[51:500, ], epsilon = 2, delta = 1e-3, clip = 1)
  good2 <- ldp_perturb(x[501:1000, ], epsilon = 2, delta = 1e-3, clip = 1)
  # without the server's settings, batches that disagree are refused: first
  # or largest, a batch cannot impose its own (the first one used to)
  for (order in list(list(bad, good1, good2), list(good1, good2, bad))) {
    e <- tryCatch(ldp_aggregate(order), error = function(e) e)
    expect_s3_class(e, "dpcov_error")
    expect_match(conditionMessage(e), "different settings \\(2 kinds\\)")
  }
  # with them, the other batch is dropped and counted
  set_args <- list(epsilon = 2, delta = 1e-3, clip = 1, neighbor = "replace-one", calibration = "analytic")
  expect_warning(agg <- do.call(ldp_aggregate, c(list(bad, good1, good2), set_args)), "dropped 1 batch")
  expect_equal(agg$n, 950)
  expect_identical(agg$estimate, ldp_aggregate(good1, good2)$estimate)
  # the number of columns is not voted either: made-up rows of another p
  # (missing values, copies of one report, or distinct rows of noise, which
  # cost nothing) cannot take it, and the call is refused
  junk <- ldp_perturb(matrix(0.1, 2000, 2), epsilon = 2, delta = 1e-3, clip = 1)
  junk$reports[] <- NA
  copies <- ldp_perturb(matrix(0.1, 1, 2), epsilon = 2, delta = 1e-3, clip = 1)
  distinct <- copies
  distinct$reports <- copies$reports[rep(1, 2000), , drop = FALSE] + 1e-9 * seq_len(2000)
  copies$reports <- copies$reports[rep(1, 2000), , drop = FALSE]
  for (attack in list(junk, copies, distinct)) {
    expect_error(do.call(ldp_aggregate, c(list(attack, good1, good2), set_args)), "different numbers of columns",
                 class = "dpcov_error")
  }
  # a batch claiming a huge p with no rows is dropped as invalid, without
  # building anything of its size
  huge <- copies
  huge$p <- 65535
  huge$reports <- matrix(numeric(0), 0, 65535 * 65536 / 2)
  expect_warning(agg <- do.call(ldp_aggregate, c(list(good1, huge), set_args)), "dropped 1 batch")
  expect_identical(c(agg$n, agg$p), c(450, 3))
  # alone, or with its like: an empty batch is no batch (it made the server
  # allocate sums of its claimed size, 16 GB, before finding no rows)
  expect_error(ldp_aggregate(huge), "holds no reports", class = "dpcov_error")
  expect_error(do.call(ldp_aggregate, c(list(huge, huge), set_args)), class = "dpcov_error")
})

test_that("messages name the cause: a reader that ran out, an empty line in a CSV file", {
  x <- matrix(rnorm(40), 20, 2)
  done <- FALSE
  once <- function() {
    if (done) return(NULL)
    done <<- TRUE
    x
  }
  expect_s3_class(second_moment(once, clip = 1), "dp_suffstat")
  expect_error(second_moment(once, clip = 1), "has run out must start again", class = "dpcov_error")
  f <- tempfile(fileext = ".csv")
  on.exit(unlink(f))
  writeLines(c("a,b", "1,2", "3,4", ""), f)
  rd <- csv_reader(f)
  expect_error(second_moment(rd, clip = 1), "an empty line, one at the end included", class = "dpcov_error")
})

test_that("summary() calls a numerically singular release not positive definite; comparisons take releases", {
  set.seed(9)
  x <- matrix(rnorm(3000), 1000, 3)
  r <- analyze_gauss(x, 1, 1e-6, clip = 2, post = "psd")
  # a PSD projection with a zeroed eigenvalue, perturbed at rounding level
  v <- eigen(r$estimate, symmetric = TRUE)$vectors
  h <- r
  h$estimate <- v %*% diag(c(5, 2, 1e-16 * 5)) %*% t(v)
  h$estimate <- (h$estimate + t(h$estimate)) / 2
  expect_false(summary(h)$positive_definite)
  h$estimate <- v %*% diag(c(5, 2, 1e-6)) %*% t(v)
  h$estimate <- (h$estimate + t(h$estimate)) / 2
  expect_true(summary(h)$positive_definite)
  ag <- analyze_gauss(x, 1, 1e-6, clip = 2)
  S <- crossprod(x)
  expect_identical(subspace_distance(S, ag, 1), subspace_distance(S, ag$estimate, 1))
  expect_identical(subspace_distance(ag, S, 1), subspace_distance(ag$estimate, S, 1))
  expect_identical(cov_error(ag, S), cov_error(ag$estimate, S))
  expect_identical(cov_error(S, ag), cov_error(S, ag$estimate))
  expect_output(print(analyze_gauss(matrix(0.5, 1, 1), 1, 1e-6, clip = 1, neighbor = "zero-out")), "n = 1 row, p = 1 column\\b")
})

test_that("Gaussian noise has the normal's full range: draws beyond 7 sd come from the exact tail", {
  # R's inversion never exceeds 8.21 sd: under a neighbour whose mean is
  # Delta higher, outputs beyond 8.21 sd would have probability
  # Pr(Z > 8.21 - Delta / sigma) against 0, more than delta itself here
  zmax <- qnorm(1 - 2^-53)
  expect_gt(pnorm(zmax - 1 / gaussian_sigma(1, 20, 1e-10), lower.tail = FALSE), 1e-10)
  from <- dpcov:::draw_from_uniforms_cpp
  # the branches, from given uniforms: the inversion as R computes it
  expect_equal(from(c(0.3, 0.6), "normal"), qnorm((floor(2^27 * 0.3) + 0.6) / 2^27), tolerance = 0)
  # beyond 7 (qnorm((2^27 - 1 + 0.99999) / 2^27) = 7.39), the tail beyond 7
  # from the next uniforms, sign kept: x = sqrt(49 + 2E), E = -log(0.5),
  # accepted as 0.1 x < 7
  expect_gt(qnorm((2^27 - 1 + 0.99999) / 2^27), 7)
  expect_equal(from(c(1 - 1e-14, 0.99999, 0.5, 0.1), "normal"), sqrt(49 + 2 * log(2)))
  expect_equal(from(c(1e-15, 1e-5, 0.5, 0.1), "normal"), -sqrt(49 + 2 * log(2)))
  # a rejection (0.99 x > 7) draws again
  expect_equal(from(c(1 - 1e-14, 0.99999, 0.5, 0.99, 0.25, 0.1), "normal"), sqrt(49 + 2 * log(4)))
  # the exponential refined below 2^-30, without limit: beyond rnorm()'s 8.21
  expect_equal(from(c(1e-12, 0.5), "exp"), 30 * log(2) + log(2))
  expect_equal(from(c(1e-12, 1e-12, 1e-12, 0.25), "exp"), 90 * log(2) + log(4))
  far <- from(c(1 - 1e-14, 0.99999, 1e-12, 0.5, 0.1), "normal")
  expect_equal(far, sqrt(49 + 2 * (30 * log(2) + log(2))))
  expect_gt(far, zmax)
  expect_error(from(0.5, "normal"), "out of uniforms")
  expect_error(from(c(NA, 0.5), "normal"), "in \\(0, 1\\)")
  expect_error(from(0.5, "nromal"), "must be")

  # the tail's distribution, 1e6 draws: exact conditional tail beyond 7
  # (KS at 1e-6); the under-noised control, the tail without Marsaglia's
  # rejection step (x = sqrt(49 + 2E) taken as it is), fails it
  tail_cdf <- function(t) function(q) ifelse(q <= t, 0, 1 - exp(pnorm(q, lower.tail = FALSE, log.p = TRUE) -
                                                                    pnorm(t, lower.tail = FALSE, log.p = TRUE)))
  set.seed(21)
  x7 <- dpcov:::normal_tail_cpp(1e6, 7)
  expect_true(all(x7 > 7))
  expect_gt(suppressWarnings(ks.test(x7, tail_cdf(7)))$p.value, 1e-6)
  expect_lt(suppressWarnings(ks.test(sqrt(49 + 2 * rexp(1e6)), tail_cdf(7)))$p.value, 1e-6)
  # draws within 7 sd are rnorm()'s own under the default normal kind (plain-R
  # references under the same seed keep matching), and do not depend on the
  # normal kind (Box-Muller's draws stop at 6.76 sd)
  set.seed(22)
  a <- dpcov:::gaussian_noise(5000, 3)
  set.seed(22)
  ref <- rnorm(5000, 0, 3)
  expect_identical(a, ref)
  old <- RNGkind()[2]
  on.exit(RNGkind(normal.kind = old), add = TRUE)
  set.seed(22, normal.kind = "Box-Muller")
  expect_identical(dpcov:::gaussian_noise(5000, 3), ref)
  RNGkind(normal.kind = old)
  set.seed(24)
  S <- dpcov:::symmetric_gaussian_cpp(30, 2)
  set.seed(24)
  expect_identical(S[upper.tri(S, diag = TRUE)], rnorm(30 * 31 / 2, 0, 2))
})

test_that("cross-validation on an even grid with a subnormal step takes the binary search (a sanitizer found NaN cast to an index)", {
  set.seed(1)
  x <- cbind(rnorm(20), 0, rnorm(20))
  loss <- function(grid, method) {
    set.seed(5)
    threshold_cv(x, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 2, grid = grid, noise = FALSE,
                 noise_multiplier = 0, method = method)$loss
  }
  for (g in list(c(0, 1e-310), c(0, 1e-310, 2e-310))) {
    expect_equal(loss(g, "downdate"), loss(g, "naive"), tolerance = 1e-12)
  }
})
