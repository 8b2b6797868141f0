# Bounds given for some columns, NA for the others: the others' are chosen
# privately (dp_column_bounds()'s mechanism, on those columns alone), then
# the box release runs on all of them.

partial_data <- function(n = 3000) {
  set.seed(2)
  data.frame(a = rnorm(n, 50, 10), b = rexp(n, 0.1), c = as.double(runif(n) < 0.2))
}

test_that("dp_cov: the NA columns' bounds are dp_column_bounds()' choices on them alone, the others as given", {
  x <- partial_data()
  set.seed(7)
  r <- dp_cov(x, 2, 1e-6, lower = c(a = NA, b = NA, c = 0), upper = c(a = NA, b = NA, c = 1), neighbor = "replace-one")
  # the same choices, on the two columns alone, with the bounds' share of the budget
  set.seed(7)
  cb <- dp_column_bounds(x[c("a", "b")], epsilon = 2 * column_bounds_share * 2, delta = 2 * column_bounds_share * 1e-6,
                         neighbor = "replace-one")
  expect_equal(r$params$bounds[c("a", "b"), ], cb$bounds)
  expect_equal(unlist(r$params$bounds["c", ]), c(lower = 0, upper = 1))
  expect_equal(r$params$column_bounds$epsilon_quantile, cb$epsilon_quantile)
  expect_equal(r$params$column_bounds$rho, cb$rho)
  expect_equal(r$params$column_bounds$scale, cb$scale)
  # what the release says
  expect_identical(r$params$bounds_source, "private")
  expect_identical(r$params$public_bounds$lower, c(NA, NA, 0))
  expect_identical(unname(bounds_from_data(r)), c(TRUE, TRUE, FALSE))
  expect_equal(c(r$epsilon, r$delta), c(2, 1e-6))
  expect_match(r$guarantee, "for the 2 column(s) without public bounds, the other 1 with theirs", fixed = TRUE)
  expect_match(r$mechanism, "public for some columns and chosen privately for the others", fixed = TRUE)
  # control: with every column NA the budget of the choices is spread over three
  set.seed(7)
  r3 <- suppressWarnings(dp_cov(x, 2, 1e-6, lower = NA, upper = NA, neighbor = "replace-one"))
  expect_equal(r3$params$column_bounds$epsilon_quantile / r$params$column_bounds$epsilon_quantile, sqrt(2 / 3))
})

test_that("dp_cov: every column NA is the default; every column given is the public box", {
  x <- partial_data(1000)
  for (nb in c("add-remove", "replace-one")) {
    set.seed(3)
    a <- suppressWarnings(dp_cov(x, 1, 1e-6, lower = NA, upper = NA, neighbor = nb))
    set.seed(3)
    b <- suppressWarnings(dp_cov(x, 1, 1e-6, neighbor = nb))
    expect_identical(a$estimate, b$estimate)
    expect_identical(a$params$bounds, b$params$bounds)
    expect_identical(a$guarantee, b$guarantee)
  }
  # the logical columns among the NA are bounded by their coding, as the
  # default bounds them: with the others given, that is the public box
  y <- x
  y$c <- y$c == 1
  set.seed(4)
  a <- dp_cov(y, 1, 1e-6, lower = c(a = 0, b = 0, c = NA), upper = c(a = 100, b = 80, c = NA))
  set.seed(4)
  b <- dp_cov(y, 1, 1e-6, lower = c(a = 0, b = 0, c = 0), upper = c(a = 100, b = 80, c = 1))
  expect_identical(a$estimate, b$estimate)
  expect_identical(a$params$bounds_source, "public")
  expect_identical(a$params$coded_columns, "c")
})

# Standardised noise of partial-bounds releases: each release's box (its
# private columns' bounds differ from draw to draw) rebuilt from its
# params$bounds; the claims written out for the default split (mean 0.4,
# diagonal 0.2, off-diagonal 0.4 of the squared sensitivity-to-noise ratio)
# under replace-one on the unit box, with the Gaussian's rho what the
# bounds' 20 choices leave of the budget's.
partial_noise_draws <- function(draws) {
  set.seed(12)
  n <- 4000
  p <- 3
  x <- cbind(a = rnorm(n, 5, 2), b = rnorm(n, 0, 2), c = rnorm(n, 100, 20))
  C <- sqrt(p) / 2
  out_m <- out_d <- out_o <- numeric(0)
  for (k in seq_len(draws)) {
    r <- dp_cov(x, 3, 1e-6, lower = c(NA, NA, 0), upper = c(NA, NA, 200), neighbor = "replace-one")
    expect_identical(r$params$composition, "zCDP")
    rho_bounds <- 20 * r$params$column_bounds$epsilon_quantile^2 / 8
    mu <- sqrt(2 * (zcdp_rho(3, 1e-6) - rho_bounds))
    claims <- list(mean = 2 * C / (sqrt(0.4) * mu), diag = sqrt(p) / 4 / (sqrt(0.2) * mu), off = p / 4 / (sqrt(0.4) * mu))
    b <- r$params$bounds
    m <- (b$lower + b$upper) / 2
    w <- b$upper - b$lower
    xc <- pmin(pmax(x, rep(b$lower, each = n)), rep(b$upper, each = n))
    z <- sweep(sweep(xc, 2, m), 2, w, "/")
    mu_hat <- (r$center - m) / w
    out_m <- c(out_m, (mu_hat - colMeans(z)) * n / claims$mean)
    S <- r$estimate * n / tcrossprod(w) - diag(r$params$mean_correction, p)
    N <- S - crossprod(z) + n * tcrossprod(mu_hat)
    out_d <- c(out_d, diag(N) / claims$diag)
    out_o <- c(out_o, N[upper.tri(N)] / claims$off)
  }
  list(mean = out_m, diag = out_d, off = out_o)
}

test_that("dp_cov with some bounds NA: the noise has the stated sd (alpha 1e-6), and a claim of half of it fails", {
  expect_stated_sd(partial_noise_draws(80))
})

test_that("dp_lm: the NA variables' bounds are chosen privately, the others as given; the grades follow each", {
  set.seed(5)
  n <- 5000
  d <- data.frame(x = rnorm(n), b = as.double(runif(n) < 0.19))
  d$y <- d$x + d$b + rnorm(n)
  set.seed(1)
  f <- suppressWarnings(dp_lm(y ~ x + b, d, 4, 1e-6, neighbor = "replace-one", B = 20,
                              bounds = list(x = c(NA, NA), b = c(0, 1), y = c(NA, NA))))
  rel <- f$release
  # the mechanism on the model frame's variables y, x (in that order) alone
  set.seed(1)
  cb <- dp_column_bounds(d[c("y", "x")], epsilon = 2 * column_bounds_share * 4,
                         delta = 2 * column_bounds_share * 1e-6, neighbor = "replace-one")
  expect_equal(rel$params$bounds[c("y", "x"), ], cb$bounds)
  expect_equal(unlist(rel$params$bounds["b", ]), c(lower = 0, upper = 1))
  expect_identical(rel$params$column_bounds$variables, 2L)
  expect_equal(rel$params$column_bounds$epsilon_quantile, cb$epsilon_quantile)
  expect_identical(unname(bounds_from_data(rel)[c("x", "b", "y")]), c(TRUE, FALSE, TRUE))
  expect_match(rel$guarantee, "numeric variables without public bounds (2; the others' public) chosen privately",
               fixed = TRUE)
  # the 0/1 column on its public bounds is said as such, never called clamped
  msgs <- paste(f$diagnostics$messages, collapse = " ")
  expect_false(grepl("most of `b` sits at its private bounds", msgs, fixed = TRUE))
  if (grepl("most of `b`", msgs, fixed = TRUE)) expect_match(msgs, "most of `b` sits at its public bounds", fixed = TRUE)
  # and its slope is that of the data, which the default's bounds clamp in some releases
  expect_lt(abs(coef(f)[["b"]] - coef(lm(y ~ x + b, d))[["b"]]), 0.15)
  # a variable with no entry is refused (typos must not turn bounds private); so is NA for no variable
  expect_error(dp_lm(y ~ x + b, d, 4, 1e-6, B = 20, bounds = list(b = c(0, 1), y = c(NA, NA))),
               class = "dpcov_error", regexp = "no bounds for the numeric variable\\(s\\) `x`")
  expect_error(dp_lm(y ~ x + b, d, 4, 1e-6, B = 20,
                     bounds = list(x = c(NA, NA), b = c(0, 1), y = c(NA, NA), zz = c(NA, NA))),
               class = "dpcov_error", regexp = "`zz` is neither")
})

test_that("partial bounds are refused where no private choice can be made, and one NA of a pair anywhere", {
  x <- partial_data(300)
  lo <- c(a = NA, b = 0, c = 0)
  hi <- c(a = NA, b = 80, c = 1)
  expect_error(dp_cov(x, 1, 1e-6, lower = c(a = NA, b = 0, c = 0), upper = c(a = 100, b = 80, c = 1)),
               class = "dpcov_error", regexp = "`a` has lower = NA, upper = 100")
  expect_error(dp_cov(x, 1, 1e-6, lower = lo, upper = hi, tighten = TRUE), class = "dpcov_error", regexp = "tighten")
  expect_error(dp_cov(second_moment(as.matrix(x), clip = 100), 1, 1e-6, lower = lo, upper = hi),
               class = "dpcov_error", regexp = "a dp_suffstat")
  expect_error(dp_cov(function(...) NULL, 1, 1e-6, lower = lo, upper = hi), class = "dpcov_error",
               regexp = "is a reader")
  expect_error(dp_cov(x, 1, 1e-6, lower = lo, upper = hi, clip = 2), class = "dpcov_bounds_error")
  # the mechanisms that take public bounds only
  for (f in list(function(l, u) analyze_gauss(as.matrix(x), 1, 1e-6, lower = l, upper = u),
                 function(l, u) second_moment(as.matrix(x), lower = l, upper = u))) {
    expect_error(f(lo, hi), class = "dpcov_error", regexp = "is for dp_cov\\(\\), dp_lm\\(\\) and dp_pca\\(\\)")
  }
  # nothing is charged for a refusal
  bud <- dp_budget(10, 1e-3)
  expect_error(dp_cov(x, 1, 1e-6, lower = lo, upper = hi, tighten = TRUE, budget = bud), class = "dpcov_error")
  expect_equal(budget_spent(bud)$charges, 0)
})

test_that("dp_cov with some bounds NA charges the budget once for both steps", {
  x <- partial_data(500)
  bud <- dp_budget(10, 1e-3)
  set.seed(1)
  r <- suppressWarnings(dp_cov(x, 1, 1e-6, lower = c(a = NA, b = 0, c = 0), upper = c(a = NA, b = 80, c = 1),
                               budget = bud))
  led <- bud$account$ledger
  expect_identical(led$what, c("private column bounds", "dp_cov mean and second moment (one Gaussian mechanism): analyze_gauss"))
  # (zCDP: the two rho add up to the budget's; the Gaussian's own epsilon is its exact one)
  expect_equal(led$epsilon[1], 2 * column_bounds_share * 1)
  expect_equal(sum(led$rho), zcdp_rho(1, 1e-6))
  # the bounds' rho is that of their 10 choices for the one column without bounds and the noisy count
  expect_equal(led$rho[1], 11 * r$params$column_bounds$epsilon_quantile^2 / 8)
  expect_equal(budget_spent(bud)$charges, 2)
})

test_that("partial bounds leave no noiseless statistic in the release (leak scanner)", {
  X <- audit_matrix(80, 3) * 3 + 5
  X2 <- X + 0.013 * cos(outer(seq_len(80), 1:3, function(i, j) 0.71 * i + 1.3 * j))
  colnames(X) <- colnames(X2) <- c("a", "b", "c")
  lo <- c(a = NA, b = -20, c = -20)
  hi <- c(a = NA, b = 30, c = 30)
  for (nb in dp_neighbors) {
    set.seed(7); r <- suppressWarnings(dp_cov(X, 1, 1e-5, lower = lo, upper = hi, neighbor = nb))
    set.seed(8); r2 <- suppressWarnings(dp_cov(X2, 1, 1e-5, lower = lo, upper = hi, neighbor = nb))
    expect_no_leak(r, list(raw = leak_secrets(X)), rerun = r2, rerun_secrets = list(raw = leak_secrets(X2)),
                   label = paste("dp_cov partial bounds", nb))
    expect_length(calls_with_values(r), 0L)
  }
  r <- do.call(dp_cov, list(as.data.frame(X), 1, 1e-5, lower = lo, upper = hi))
  expect_identical(r$call[[2]], as.symbol("<data>"))
  expect_no_leak(r, list(raw = leak_secrets(X)), label = "dp_cov partial bounds via do.call")
  d <- as.data.frame(X)
  set.seed(9)
  f <- suppressWarnings(dp_lm(a ~ b + c, d, 1, 1e-5, B = 10, lower = c(a = NA, b = -20, c = -20),
                              upper = c(a = NA, b = 30, c = 30)))
  expect_no_leak(f, list(raw = leak_secrets(X)), label = "dp_lm partial bounds")
})

test_that("dp_lm: an NA on no numeric variable of the model chooses nothing and spends nothing (audit)", {
  set.seed(6)
  d <- data.frame(x = rnorm(3000, 5, 2), z = runif(3000), l = runif(3000) < 0.3, u = rnorm(3000))
  d$y <- d$x + 2 * d$z + rnorm(3000)
  pub <- list(x = c(-5, 15), y = c(-10, 30))
  for (extra in list(list(l = c(NA, NA)), list(u = c(NA, NA)))) {
    bud <- dp_budget(10, 1e-3)
    set.seed(2)
    f <- suppressWarnings(dp_lm(y ~ x + l, d, 2, 1e-6, B = 5, bounds = c(pub, extra), budget = bud))
    set.seed(2)
    g <- suppressWarnings(dp_lm(y ~ x + l, d, 2, 1e-6, B = 5, bounds = c(pub, list(l = c(0, 1)))))
    expect_identical(f$release$params$bounds_source, "public")
    expect_identical(bud$account$ledger$what, "dp_lm: analyze_gauss")
    expect_identical(f$release$estimate, g$release$estimate)
  }
  # every bound that reaches the model NA (a public one for an unused column): the default, labelled so
  set.seed(3)
  a <- suppressWarnings(dp_lm(y ~ x + z, d, 2, 1e-6, B = 5,
                              bounds = list(x = c(NA, NA), z = c(NA, NA), y = c(NA, NA), u = c(-5, 5))))
  set.seed(3)
  b <- suppressWarnings(dp_lm(y ~ x + z, d, 2, 1e-6, B = 5))
  expect_identical(a$release$estimate, b$release$estimate)
  expect_identical(a$release$guarantee, b$release$guarantee)
  # unnamed NA for every bound: the default too
  set.seed(3)
  a2 <- suppressWarnings(dp_lm(y ~ x + z, d, 2, 1e-6, B = 5, lower = NA, upper = NA))
  expect_identical(a2$release$estimate, b$release$estimate)
  # a misspelt NA is an error, even when every bound is NA
  expect_error(dp_lm(y ~ x + z, d, 2, 1e-6, B = 5, lower = c(xx = NA, z = NA, y = NA), upper = c(xx = NA, z = NA, y = NA)),
               class = "dpcov_error", regexp = "`xx` is neither")
})

test_that("partial bounds: Gram releases graded by name, pca tightens as with the coding given, logical vectors (audit)", {
  set.seed(6)
  d <- data.frame(x = rnorm(3000, 5, 2), z = runif(3000))
  d$y <- d$x + 2 * d$z + rnorm(3000)
  f <- suppressWarnings(dp_lm(y ~ x + z, d, 1, 1e-6, B = 5, mechanism = "wishart",
                              bounds = list(x = c(NA, NA), z = c(0, 1), y = c(-10, 30))))
  expect_identical(bounds_from_data(f$release)[c("(Intercept)", "x", "z", "y")],
                   c("(Intercept)" = FALSE, x = TRUE, z = FALSE, y = FALSE))
  # dp_pca: an NA only on a logical column is its coding, so the release is the one with [0, 1] given
  set.seed(7)
  x <- data.frame(a = rnorm(20000), b = rnorm(20000, 3), l = runif(20000) < 0.4)
  set.seed(8)
  p1 <- suppressWarnings(dp_pca(x, rank = 2, epsilon = 2, delta = 1e-6, neighbor = "replace-one",
                                lower = c(a = -5, b = -2, l = NA), upper = c(a = 5, b = 8, l = NA)))
  set.seed(8)
  p2 <- suppressWarnings(dp_pca(x, rank = 2, epsilon = 2, delta = 1e-6, neighbor = "replace-one",
                                lower = c(a = -5, b = -2, l = 0), upper = c(a = 5, b = 8, l = 1)))
  expect_match(p1$guarantee, "public bounds tightened privately", fixed = TRUE)
  expect_identical(p1$rotation, p2$rotation)
  # a logical vector with NA bounds: its coding, as the default bounds it
  set.seed(9)
  v <- runif(500) < 0.3
  set.seed(1)
  r1 <- suppressWarnings(dp_cov(v, 1, 1e-6, lower = NA, upper = NA))
  set.seed(1)
  r2 <- suppressWarnings(dp_cov(v, 1, 1e-6))
  expect_identical(r1$estimate, r2$estimate)
  # a name missing: the message offers NA
  expect_error(dp_cov(d, 1, 1e-6, lower = c(x = NA, zz = 0, y = 0), upper = c(x = NA, zz = 1, y = 1)),
               class = "dpcov_error", regexp = "no bounds for column\\(s\\) `z`: give public bounds, or NA")
})

test_that("partial bounds: a chosen bound at the end of the search range is told a remedy that can be given (audit)", {
  set.seed(10)
  x <- data.frame(a = 5e6 + rnorm(2000), b = runif(2000))
  set.seed(1)
  r <- suppressWarnings(dp_cov(x, 1, 1e-6, lower = c(a = NA, b = 0), upper = c(a = NA, b = 1)))
  expect_true("a" %in% r$diagnostics$at_range)
  msgs <- paste(c(r$diagnostics$messages, r$tuning$detail), collapse = " ")
  expect_match(msgs, "give public bounds for them in lower/upper", fixed = TRUE)
  expect_false(grepl("dp_column_bounds(range = )", msgs, fixed = TRUE))
  expect_match(r$tuning$detail, "every column without public bounds|give its column public bounds")
  # control: the default says the other remedy
  set.seed(1)
  r0 <- suppressWarnings(dp_cov(x, 1, 1e-6))
  expect_match(paste(r0$diagnostics$messages, collapse = " "), "dp_column_bounds(range = )", fixed = TRUE)
})
