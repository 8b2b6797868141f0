test_that("Analyze Gauss noise has the calibrated scale; an under-noised variant fails", {
  set.seed(41)
  x <- matrix(rnorm(200 * 3), 200, 3)
  G <- second_moment(x, clip = 1)
  sigma <- gaussian_sigma(1, 0.5, 1e-5)
  resid <- replicate(400, {
    r <- analyze_gauss(G, 0.5, 1e-5)
    (r$estimate - G$gram)[upper.tri(G$gram, diag = TRUE)]
  })
  # (release - A'A) / sigma should be standard normal: KS and variance (chi-square) tests
  z <- as.vector(resid) / sigma
  expect_gt(ks.test(z, "pnorm")$p.value, 1e-6)
  chi <- sum(z^2); df <- length(z)
  expect_gt(pchisq(chi, df), 1e-6 / 2)
  expect_lt(pchisq(chi, df), 1 - 1e-6 / 2)
  # negative control: the same noise at half the scale
  z_half <- z / 2
  expect_lt(ks.test(z_half, "pnorm")$p.value, 1e-6)
  expect_lt(pchisq(sum(z_half^2), df), 1e-6)
})

test_that("the release object holds no raw data and states its guarantee", {
  set.seed(42)
  x <- matrix(rnorm(50 * 3), 50, 3)
  r <- analyze_gauss(x, 0.5, 1e-5, clip = 2)
  expect_s3_class(r, c("dp_second_moment", "dp_release"))
  expect_setequal(names(r), c("estimate", "mechanism", "epsilon", "delta", "neighbor", "n_public",
                              "clip", "n", "p", "scale", "centred", "ridge", "params", "tuning",
                              "guarantee", "call", "diagnostics"))
  expect_identical(r$scale, "sum")
  expect_false(r$centred)
  expect_output(print(r), "Estimates: A'A, the sum of outer products")
  gram <- second_moment(x, clip = 2)$gram
  # no stored number equals an entry of the data or of its noiseless Gram matrix
  stored <- unlist(lapply(r[setdiff(names(r), "call")], unlist))
  stored <- suppressWarnings(as.numeric(stored[!is.na(suppressWarnings(as.numeric(stored)))]))
  near <- function(a, b) any(abs(outer(a, as.vector(b), "-")) < 1e-12)
  expect_false(near(stored, gram))
  expect_false(near(stored, x))
  expect_true(has_guarantee(r))
  expect_output(print(r), "\\(0.5, 1e-05\\)-differential privacy")
  expect_identical(as.matrix(r), r$estimate)
  s <- summary(r)
  expect_equal(s$eigenvalues, eigen(r$estimate, only.values = TRUE)$values)
  expect_output(print(s), "Private release")
})

test_that("clip = Inf is allowed only with an explicit calibration bound, and says no guarantee holds", {
  x <- matrix(rnorm(30), 10, 3)
  expect_error(analyze_gauss(x, 0.5, 1e-5, clip = Inf), "sigma_clip_inf")
  r <- analyze_gauss(x, 0.5, 1e-5, clip = Inf, sigma_clip_inf = 1)
  expect_false(has_guarantee(r))
  expect_output(print(r), "NONE: rows were not clipped")
  expect_error(analyze_gauss(x, 0.5, 1e-5), "`clip` \\(the row-norm bound B\\) is required")
  expect_error(analyze_gauss(second_moment(x, 1), 0.5, 1e-5, clip = 2), "differs from the clip bound")
  expect_error(analyze_gauss(x, 0, 1e-5, clip = 1), "`epsilon` must be > 0")
  expect_error(analyze_gauss(x, 0.5, 2, clip = 1), "`delta` must be in")
})

test_that("the same seed gives the same release", {
  x <- matrix(rnorm(30), 10, 3)
  set.seed(1); a <- analyze_gauss(x, 0.5, 1e-5, clip = 1)
  set.seed(1); b <- analyze_gauss(x, 0.5, 1e-5, clip = 1)
  expect_identical(a$estimate, b$estimate)
})

test_that("plot() and as.data.frame() of a release read only the released values", {
  set.seed(21)
  x <- matrix(rnorm(400), 100, 4)
  colnames(x) <- paste0("v", 1:4)
  r <- analyze_gauss(x, 1, 1e-5, clip = 3)
  df <- as.data.frame(r)
  expect_named(df, c("row", "col", "estimate"))
  expect_equal(nrow(df), 16L)
  # one row per entry, the entry the release holds
  expect_equal(df$estimate[df$row == "v2" & df$col == "v3"], r$estimate["v2", "v3"])
  expect_equal(sort(df$estimate), sort(as.vector(r$estimate)))
  rc <- suppressWarnings(dp_compress(x, m = 30))
  dfc <- as.data.frame(rc)
  expect_equal(nrow(dfc), 30L * 4L)
  expect_equal(dfc$estimate, as.vector(rc$estimate))
  pdf(NULL)
  on.exit(dev.off())
  op <- par("mar")
  expect_identical(plot(r), r)
  expect_equal(par("mar"), op)
  expect_no_error(plot(rc))
  expect_no_error(plot(suppressWarnings(dp_compress(x[, 1:2], m = 30))))
  e <- expect_error(plot(r, main = 1), class = "dpcov_error")
  expect_identical(e$arg, "main")
  bad <- r
  bad$estimate <- "a"
  expect_error(as.data.frame(bad), class = "dpcov_error")
  expect_error(plot(bad), class = "dpcov_error")
})

test_that("as.matrix() of a release refuses unknown arguments", {
  set.seed(31)
  r <- analyze_gauss(matrix(rnorm(300), 100, 3), 1, 1e-5, clip = 5)
  e <- tryCatch(as.matrix(r, foo = 1), error = identity)
  expect_s3_class(e, "dpcov_error")
  expect_identical(e$arg, "foo")
  expect_identical(as.matrix(r), r$estimate)
})

test_that("hand-made objects with 1 x 1 matrix scalars or unusable centres and spreads are refused, classed", {
  # they failed unclassed inside print(), summary(), dp_pca(), dp_lm(), plot()
  # ("non-conformable arrays", "infinite or missing values in 'x'")
  set.seed(71)
  X <- matrix(runif(300, -1, 1), 100, 3, dimnames = list(NULL, c("a", "b", "c")))
  rel <- suppressWarnings(dp_cov(X, 1, 1e-6, lower = -1, upper = 1, neighbor = "replace-one"))
  ag <- suppressWarnings(analyze_gauss(X, 1, 1e-6, clip = 2))
  refused <- function(expr, arg) {
    e <- tryCatch({ force(expr); NULL }, error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_identical(e$arg, arg)
  }
  r1 <- rel; r1$n <- matrix(rel$n)
  refused(print(r1), "x")
  refused(dp_pca(r1), "release")
  r2 <- rel; r2$ridge <- matrix(0)
  refused(summary(r2), "object")
  a2 <- ag; a2$ridge <- matrix(0)
  refused(release_diagnostics(a2), "x")
  a3 <- ag; a3$epsilon <- matrix(ag$epsilon)
  refused(print(a3), "x")
  # a centre whose square times n overflows (dp_lm() rebuilds n mu mu'), or not finite
  r3 <- rel; r3$center <- rel$center * 1e300
  refused(dp_lm(r3, formula = c ~ a + b, B = 5), "x")
  r4 <- rel; r4$center[2] <- NaN
  refused(dp_as_cov(r4), "release")
  r5 <- rel; r5$center <- matrix(rel$center, 1)
  refused(print(r5), "x")
  # private column bounds: `range` a 1 x 1 matrix
  cb <- suppressWarnings(dp_column_bounds(X, 1))
  cb2 <- cb; cb2$range <- matrix(cb$range)
  refused(print(cb2), "x")
  # a PCA whose spreads' squares overflow (its importance divides by their sum)
  pc <- suppressWarnings(dp_pca(rel))
  p2 <- pc; p2$sdev <- pc$sdev * 1e300
  refused(print(p2), "x")
  refused(summary(p2), "object")
  refused(plot(p2), "x")
  p3 <- pc; p3$sdev <- matrix(pc$sdev, 1)
  refused(print(p3), "x")
  # the originals are fine (the control)
  expect_output(print(rel))
  expect_s3_class(suppressWarnings(dp_lm(rel, formula = c ~ a + b, B = 5)), "dp_lm")
  expect_output(print(cb))
  expect_s3_class(summary(pc), "summary.dp_pca")
})

test_that("a hand-made params$column_bounds that is not a list is ignored by the diagnostics, not a crash", {
  set.seed(21)
  r <- suppressWarnings(dp_cov(data.frame(a = rexp(5000), b = rnorm(5000)), 1, 1e-5))
  r$params$column_bounds <- "x"
  d <- release_diagnostics(r)
  expect_length(d$one_value, 0L)
  expect_length(d$long_tail, 0L)
  expect_length(d$at_range, 0L)
  expect_output(print(r), "Guarantee")
})

test_that("printed budget figures follow neither options(digits) nor OutDec, and are never rounded down", {
  set.seed(22)
  x <- matrix(rnorm(30000), 10000, 3)
  old <- options(digits = 3, OutDec = ",")
  on.exit(options(old))
  out <- wide_output(print(dp_clip_bound(x, 0.123456789)))
  expect_true(any(grepl("epsilon = 0.1111112,", out, fixed = TRUE)))  # 0.1111111 rounded up
  r <- dp_cov(x, 1.23456789, 1e-6, clip = 3, clip_mean = 3)
  out <- wide_output(print(r))
  pl <- out[grepl("^Parameters:", out)]
  em <- r$params$epsilon_mean
  shown <- regmatches(pl, regexpr("epsilon_mean = [0-9.e+-]+", pl))
  v <- as.numeric(sub("epsilon_mean = ", "", shown))
  expect_gte(v, em)
  expect_lt(v - em, 1e-6 * em)
  # control: other parameters keep the print's digits and decimal mark
  expect_match(pl, sprintf("split = %s", format(r$params$split, digits = 3)), fixed = TRUE)
  expect_no_warning(utils::capture.output(print(r)))
})

test_that("hand-made releases: a missing params field is not read through a longer one; ridge only on its scales", {
  set.seed(1)
  X <- matrix(runif(3000), 1000, 3)
  r <- analyze_gauss(X, 1, 1e-5, lower = 0, upper = 1)
  r$params$bounds <- NULL  # params$bounds_source remains: `$` would match it partially
  expect_output(print(r), "Analyze Gauss")
  expect_type(release_diagnostics(r)$noise_to_signal, "double")
  r2 <- analyze_gauss(X, 1, 1e-5, clip = 2)
  r2$ridge <- 3000
  expect_error(release_diagnostics(r2), class = "dpcov_error")
  r3 <- r2
  r3$ridge <- c(1, 2, 3)
  expect_error(print(r3), class = "dpcov_error")
})

test_that("dp_as_cov(): the centring mean's noise is in the diagnostics; unknown noise is not 'ok'; edited guarantees and a centred correlation are refused", {
  set.seed(4)
  n <- 20000
  x <- matrix(rnorm(n * 3, 20), n, 3, dimnames = list(NULL, paste0("v", 1:3)))
  truth <- cov(x) * (n - 1) / n
  a <- suppressWarnings(analyze_gauss(x, 10, 1e-6, clip = 40, neighbor = "zero-out"))
  r <- suppressWarnings(dp_cov(x, 0.3, 1e-6, clip = 5, clip_mean = 40, neighbor = "zero-out"))
  o <- suppressWarnings(dp_as_cov(a, center = r))
  err <- sqrt(sum((o$estimate - truth)^2))
  # the mean's noise times the mean (about 20) dominates: counted, and graded
  expect_gt(o$diagnostics$noise_frobenius, err / 4)
  expect_identical(o$diagnostics$level, "mostly noise")
  # control: the same centring with the mean's noise left out reads "ok" (the defect)
  o0 <- o
  o0$params$center_noise_sd <- NULL
  expect_identical(release_diagnostics(o0)$level, "ok")
  # a well-measured mean: the added noise is small and the level stays ok
  r2 <- suppressWarnings(dp_cov(x, 5, 1e-6, clip = 5, clip_mean = 40, neighbor = "zero-out"))
  o2 <- suppressWarnings(dp_as_cov(a, center = r2))
  expect_identical(o2$diagnostics$level, "ok")
  # a posterior sample's conversion: graded by the source's noise sd (kept on the sum's scale)
  set.seed(2)
  y <- matrix(rnorm(3000), 1000, 3, dimnames = list(NULL, paste0("v", 1:3)))
  rc <- suppressWarnings(dp_cov(y, 1, 1e-6, clip = 4, clip_mean = 4, neighbor = "replace-one"))
  iw <- suppressWarnings(iwishart_posterior(y, 0.2, 1e-6, clip = 4))
  oi <- suppressWarnings(dp_as_cov(iw, center = rc))
  expect_false(is.na(oi$diagnostics$noise_to_signal))
  expect_identical(oi$diagnostics$level, iw$diagnostics$level)
  # without that sd (a hand-made conversion) its noise is not told: not "ok", and said
  oh <- oi
  oh$params$source_noise_sd <- NULL
  dh <- release_diagnostics(oh)
  expect_false(identical(dh$level, "ok"))
  expect_true(any(grepl("cannot be told from released quantities", dh$messages)))
  # a correlation with a center: refused (it was dropped)
  e <- expect_error(dp_as_cov(dp_as_cov(rc, "correlation"), "correlation", center = rc), "already centred",
                    class = "dpcov_error")
  expect_identical(e$arg, "center")
  # edited guarantee fields
  for (edit in list(list("delta", 1.5, "below 1"), list("epsilon", 0.001, "states another"), list("epsilon", 1e9, "states another"))) {
    r1 <- rc
    r1[[edit[[1]]]] <- edit[[2]]
    expect_error(has_guarantee(r1), edit[[3]], class = "dpcov_error")
  }
  a1 <- suppressWarnings(analyze_gauss(y, 1, 1e-6, clip = 4, neighbor = "replace-one"))
  r1 <- rc
  r1$epsilon <- 0.001
  e <- expect_error(dp_as_cov(a1, center = r1), "states another", class = "dpcov_error")
  expect_identical(e$arg, "center")
  expect_true(has_guarantee(rc))   # control
})

test_that("a release centred at a mean given as numbers has an unknown total: has_guarantee(), summary() and every consumer say NA, none a total (review)", {
  set.seed(1)
  x <- matrix(rnorm(3000, 1), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  r <- dp_cov(x, epsilon = 1, delta = 1e-6)
  th <- dp_threshold(x, epsilon = 0.5, delta = 1e-6, clip = 5, keep_diagonal = TRUE)
  ac <- dp_as_cov(th, center = colMeans(x))
  expect_identical(has_guarantee(ac), NA)
  s <- summary(ac)
  expect_identical(s$has_guarantee, NA)
  expect_true(is.na(s$epsilon) && is.na(s$delta))
  out <- paste(wide_output(print(s)), collapse = " ")
  expect_match(out, "^Release of unknown total privacy loss:")
  expect_match(out, "Total privacy loss NOT KNOWN")
  expect_match(out, "total epsilon and delta not known")
  expect_no_match(out, "epsilon = 0.5")
  expect_match(paste(wide_output(print(ac)), collapse = " "), "Total privacy loss NOT KNOWN")
  expect_match(ac$guarantee, "cannot know \\(has_guarantee\\(\\) is NA")
  g <- glance(ac)
  expect_true(is.na(g$private) && is.na(g$epsilon) && is.na(g$delta))
  # its PCA: the total not known (NA), neither stated nor labelled non-private
  pc <- suppressWarnings(dp_pca(ac))
  expect_identical(pc$source$has_guarantee, NA)
  expect_true(is.na(glance(pc)$private) && is.na(glance(pc)$epsilon))
  expect_false(inherits(pc, "dp_nonprivate"))
  sp <- paste(wide_output(print(summary(pc))), collapse = " ")
  expect_match(sp, "^Principal components \\(post-processing of a release; total privacy loss not known\\)")
  expect_no_match(sp, "Private principal components")
  # dp_lm() does not fit a conversion (it cannot redraw its noise); a
  # regression's coefficients, plain numbers that print nothing else, and
  # tidy()'s table carry the label with the reason (the total not known);
  # the classifier is labelled as always
  e <- expect_error(dp_lm(ac, c ~ a + b, B = 0), class = "dpcov_error")
  expect_identical(e$arg, "x")
  co <- dp_regression(ac, "c")
  expect_s3_class(co, "dp_nonprivate")
  expect_match(attr(co, "why"), "total privacy loss is not known")
  expect_s3_class(tidy(ac), "dp_nonprivate")
  expect_false(inherits(dp_regression(rc0 <- dp_as_cov(th, center = r), "c"), "dp_nonprivate"))
  expect_s3_class(qda_plugin(x, rep(1:2, 500), cov = ac), "dp_nonprivate")
  # the control: centred at the dp_cov() release itself, the total is stated
  rc <- dp_as_cov(th, center = r)
  expect_true(has_guarantee(rc))
  expect_identical(summary(rc)$has_guarantee, TRUE)
  expect_equal(summary(rc)$epsilon, rc$epsilon)
  expect_match(wide_output(print(summary(rc)))[1], "^Private release:")
  expect_true(glance(rc)$private)
  expect_equal(glance(rc)$epsilon, rc$epsilon)
})

test_that("update() refuses a conversion and a fit's release, whose stored call makes another object, before anything is charged (review)", {
  set.seed(1)
  x <- matrix(rnorm(3000, 1), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  b <- dp_budget(10, 1e-3, neighbor = "replace-one")
  r <- dp_cov(x, epsilon = 1, delta = 1e-6, neighbor = "replace-one", budget = b)
  th <- dp_threshold(x, epsilon = 0.5, delta = 1e-6, clip = 5, keep_diagonal = TRUE, budget = b)
  spent <- budget_spent(b)
  for (cv in list(dp_as_cov(r, "correlation"), dp_as_cov(th, center = r), dp_as_cov(th, center = colMeans(x)))) {
    e <- expect_error(update(cv, epsilon = 2), "convert it again with dp_as_cov", class = "dpcov_error")
    expect_identical(e$arg, "object")
    expect_error(update(cv, epsilon = 2, evaluate = FALSE), class = "dpcov_error")
  }
  # the release inside a dp_lm() fit holds the fit's call: it came back a fit
  d <- data.frame(a = x[, 1], b = x[, 2], y = x[, 3])
  fit <- dp_lm(y ~ a + b, data = d, epsilon = 1, delta = 1e-6, lower = c(a = -4, b = -4, y = -4),
               upper = c(a = 5, b = 5, y = 5), B = 0)
  e <- expect_error(update(fit$release, epsilon = 2), "inside a dp_lm\\(\\) fit", class = "dpcov_error")
  expect_identical(e$arg, "object")
  expect_identical(budget_spent(b), spent)   # nothing charged
  # the control: the source release updates (and charges), and its conversion is made again
  u <- update(r, epsilon = 2)
  expect_identical(u$scale, "covariance")
  expect_identical(dp_as_cov(u, "correlation")$scale, "correlation")
  expect_gt(budget_spent(b)$epsilon, spent$epsilon)
  expect_s3_class(update(fit, B = 0), "dp_lm")
})

test_that("every family's guarantee names its neighbour notion; an edited epsilon, delta or notion is refused by every method that shows it (review)", {
  set.seed(3)
  x <- matrix(rnorm(1500, 1), 500, 3, dimnames = list(NULL, c("a", "b", "c")))
  q <- function(e) suppressWarnings(e)
  d <- data.frame(a = x[, 1], b = x[, 2], y = x[, 3])
  rc <- q(dp_cov(x, 1, 1e-6))
  rels <- list(
    ag = q(analyze_gauss(x, 1, 1e-6, clip = 3)),
    ag_ro = q(analyze_gauss(x, 1, 1e-6, clip = 3, neighbor = "replace-one")),
    ag_zo_box = q(analyze_gauss(x, 1, 1e-6, neighbor = "zero-out", lower = -3, upper = 5)),
    cov = rc,
    cov_ro_cor = q(dp_cov(x, 1, 1e-6, neighbor = "replace-one", type = "correlation")),
    cov_zo_tight = q(dp_cov(x, 1, 1e-6, neighbor = "zero-out", lower = -9, upper = 9, tighten = TRUE)),
    cov_bounds = q(dp_cov(x, 1, 1e-6, bounds = dp_column_bounds(x, 1, 1e-6))),
    cov_clip_th = q(dp_cov(x, 1, 1e-6, mechanism = "threshold", clip = 4, clip_mean = 4, neighbor = "replace-one")),
    cov_wishart = q(dp_cov(x, 1, 1e-6, mechanism = "wishart", clip = 4, clip_mean = 4)),
    th_ro = q(dp_threshold(x, 1, 1e-6, clip = 5)),
    th_zo = q(dp_threshold(x, 1, 1e-6, clip = 5, neighbor = "zero-out", keep_diagonal = TRUE)),
    th_local = q(dp_threshold(x / 5, 1, 1e-6, clip = 1, model = "local")),
    ldp = q(ldp_aggregate(ldp_perturb(x / 5, 1, 1e-6, clip = 1, neighbor = "zero-out"))),
    jl = q(jl_ridge(x, 0.9, 1e-6, clip = 3)),
    jl_adaptive = q(jl_adaptive(x, 0.9, 1e-6, clip = 3)),
    wishart = q(wishart_noise(x, 0.9, 1e-6, clip = 3)),
    iw = q(iwishart_posterior(x, 0.9, 1e-6, clip = 3)),
    iw_adaptive = q(iwishart_adaptive(x, 0.9, 1e-6, clip = 3)),
    conv = q(dp_as_cov(analyze_gauss(x, 1, 1e-6, clip = 3, neighbor = "replace-one"), center = rc)),
    lm = q(dp_lm(y ~ a + b, data = d, epsilon = 1, delta = 1e-6, B = 0))$release)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  methods <- list(print = function(z) wide_output(print(z)), summary = summary, glance = glance, tidy = tidy,
                  as.data.frame = as.data.frame, plot = plot, release_diagnostics = release_diagnostics,
                  has_guarantee = has_guarantee)
  for (nm in names(rels)) {
    z <- rels[[nm]]
    expect_true(has_guarantee(z), info = nm)
    for (m in names(methods)) expect_no_error(methods[[m]](z), message = paste(nm, m))
    edits <- list(epsilon = function(w) { w$epsilon <- w$epsilon / 3; w },
                  delta = function(w) { w$delta <- w$delta / 3; w },
                  neighbor = function(w) {
                    w$neighbor <- if (w$neighbor == "add-remove") "zero-out" else "add-remove"
                    w$n_public <- w$neighbor != "add-remove"
                    w$n <- if (w$n_public) 500 else NA_real_
                    w
                  })
    for (ed in names(edits)) {
      w <- edits[[ed]](z)
      for (m in names(methods)) {
        e <- expect_error(methods[[m]](w), "its `guarantee` text states", class = "dpcov_error", info = paste(nm, ed, m))
        expect_identical(e$arg, if (m == "summary") "object" else "x", info = paste(nm, ed, m))
      }
      # the functions that take a release name their argument
      e <- expect_error(dp_as_cov(w, "correlation", center = if (!isTRUE(w$centred)) colMeans(x)), class = "dpcov_error")
      expect_identical(e$arg, "release", info = paste(nm, ed))
      e <- expect_error(dp_pca(w), class = "dpcov_error")
      expect_identical(e$arg, "release", info = paste(nm, ed))
    }
  }
  # the notion the text states, not one it composes in: an add/remove centre
  # restated under the release's replace-one
  e <- expect_error(has_guarantee(edits$neighbor(dp_as_cov(rels$th_ro, center = rc))), "replace-one-row neighbours",
                    class = "dpcov_error")
  w <- edits$epsilon(rels$ag_ro)
  e <- expect_error(dp_lm(w, c ~ a + b, B = 0), class = "dpcov_error")
  expect_identical(e$arg, "x")
  e <- expect_error(qda_plugin(x, rep(1:2, 250), cov = w), class = "dpcov_error")
  expect_identical(e$arg, "cov")
  # (the audit's edit: the guarantee kept add/remove; composed under zero-out it was read as the edit)
  wn <- rels$wishart
  wn$neighbor <- "zero-out"
  wn$n <- 500
  wn$n_public <- TRUE
  expect_error(has_guarantee(wn), "add/remove-one-row neighbours, not its `neighbor` \\(\"zero-out\"\\)", class = "dpcov_error")
  expect_error(dp_as_cov(wn, center = rc), class = "dpcov_error")
  # texts stating no guarantee name no notion to check
  expect_false(has_guarantee(q(analyze_gauss(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 3))))
  expect_false(has_guarantee(q(dp_compress(x, m = 50))))
})

test_that("a release with a guarantee carries its family's noise scales, finite and > 0; tuning$private is a flag (review)", {
  set.seed(1)
  x <- matrix(rnorm(1500), 500, 3)
  q <- function(e) suppressWarnings(e)
  s <- q(analyze_gauss(x, 0.1, 1e-6, clip = 3))
  na_sigma <- s
  na_sigma$params$sigma <- NA_real_
  for (z in list(na_sigma, `[[<-`(s, "params", list()))) {
    for (f in list(release_diagnostics, has_guarantee, print)) {
      e <- expect_error(f(z), "params\\$sigma`, which sets its noise", class = "dpcov_error")
      expect_identical(e$arg, "x")
    }
  }
  # each family's own scale (the field its noise formula reads)
  cases <- list(list(q(dp_threshold(x, 1, 1e-6, clip = 3)), "noise_sd"),
                list(q(wishart_noise(x, 0.9, 1e-6, clip = 3)), "k"),
                list(q(jl_ridge(x, 0.9, 1e-6, clip = 3)), "r"),
                list(q(iwishart_posterior(x, 0.9, 1e-6, clip = 3)), "df"),
                list(q(dp_cov(x, 1, 1e-6, clip = 3, clip_mean = 3)), "sigma_mean"),
                list(q(dp_cov(x, 1, 1e-6, clip = 3, clip_mean = 3)), c("second_moment", "sigma")))
  for (cs in cases) {
    z <- cs[[1]]
    expect_no_error(release_diagnostics(z))   # the control: as released
    z$params[[cs[[2]]]] <- NA_real_
    e <- expect_error(release_diagnostics(z), paste(cs[[2]], collapse = "\\$"), class = "dpcov_error", info = cs[[2]][1])
    expect_identical(e$arg, "x")
  }
  # a release without a guarantee (clip = Inf) may carry NA; a prior of 0 is a prior
  a <- q(analyze_gauss(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 3))
  a$params$sigma <- NA_real_
  expect_false(has_guarantee(a))
  iw <- q(iwishart_posterior(x, 0.9, 1e-6, clip = 3))
  iw$params$psi <- 0
  expect_true(has_guarantee(iw))
  # tuning$private: NULL, TRUE or FALSE (only FALSE voids; "no" read as TRUE)
  r <- q(analyze_gauss(x, 0.9, 1e-6, clip = 3, neighbor = "replace-one"))
  for (v in list("no", NA, 1, c(TRUE, TRUE))) {
    z <- r
    z$tuning$private <- v
    e <- expect_error(has_guarantee(z), "tuning\\$private", class = "dpcov_error")
    expect_identical(e$arg, "x")
  }
  z <- r
  z$tuning$private <- NULL
  expect_true(has_guarantee(z))
})

test_that("a posterior's degrees of freedom are whole and at most 2^53 + p; the noise never reads NaN or 0 there (review)", {
  set.seed(1)
  x <- matrix(rnorm(3000, 1), 1000, 3)
  iw <- suppressWarnings(iwishart_posterior(x, 0.9, 1e-6, clip = 3))
  for (df in list(1e307, 1e200, 2^60, 1003.5, 0.5, NA_real_)) {
    z <- iw
    z$params$df <- df
    for (f in list(print, release_diagnostics, has_guarantee)) {
      e <- expect_error(wide_output(f(z)), "params\\$df", class = "dpcov_error", info = format(df))
      expect_identical(e$arg, "x")
    }
  }
  # at the limit the noise is computed, finite and > 0 (it overflowed to NaN, or read 0)
  z <- iw
  z$params$df <- 2^53
  d <- release_diagnostics(z)
  expect_true(is.finite(d$noise_frobenius) && d$noise_frobenius > 0)
  expect_no_error(wide_output(print(z)))
  # Algorithm 5's k* is capped there (a smaller df keeps its condition): data
  # far beyond sigma_clip_inf gave a df of 1e301
  set.seed(4)
  y <- matrix(rnorm(600), 200, 3)
  set.seed(1)
  big <- suppressWarnings(iwishart_adaptive(y * 1e75, 0.9, 1e-6, clip = Inf, sigma_clip_inf = 1))
  expect_identical(big$params$df, 2^53)
  expect_true(all(is.finite(big$estimate)))
  expect_identical(iw$params$df, 1003)   # the control: n + p
})

test_that("summary() says private only for a release with a guarantee (review)", {
  set.seed(1)
  x <- matrix(rnorm(3000, 1), 1000, 3)
  a <- analyze_gauss(x, 1, 1e-6, clip = Inf, sigma_clip_inf = 3)
  expect_match(wide_output(print(summary(a)))[1], "^NOT a private release \\(no formal guarantee\\): Analyze Gauss")
  cm <- suppressWarnings(dp_compress(x, m = 50))
  class(cm) <- setdiff(class(cm), "dp_nonprivate")
  expect_match(wide_output(print(summary(cm)))[1], "^NOT a private release \\(no formal guarantee\\): Compression")
  expect_match(wide_output(print(summary(analyze_gauss(x, 1, 1e-6, clip = 3))))[1], "^Private release: Analyze Gauss")
})

test_that("dp_as_cov() returns a covariance release as it is, divisor included; others get divisor n (review)", {
  set.seed(1)
  x <- matrix(rnorm(3000, 1), 1000, 3)
  rd <- dp_cov(x, 1, 1e-6, divisor = "n - 1", lower = -3, upper = 5)
  expect_identical(dp_as_cov(rd), rd)
  expect_identical(dp_as_cov(rd)$params$divisor, "n - 1")
  ag <- analyze_gauss(x, 1, 1e-6, clip = 4, neighbor = "replace-one")
  expect_identical(dp_as_cov(ag, center = colMeans(x))$params$divisor, "n")
})

test_that("a second-moment release's noise is read by its mechanism, not by the fields it holds (review)", {
  set.seed(5)
  X <- matrix(rnorm(9000), 3000, 3)
  a <- analyze_gauss(X, 0.02, 1e-5, clip = 4, neighbor = "replace-one")
  expect_identical(release_diagnostics(a)$level, "mostly noise")
  h <- a
  h$params$psi <- 0
  h$params$df <- 1e15
  # read as Analyze Gauss still (it was read as an inverse-Wishart draw, "ok")
  expect_equal(release_noise_sd(h), release_noise_sd(a))
  expect_identical(release_diagnostics(h)$level, "mostly noise")
  expect_identical(glance(h)$level, "mostly noise")
})
