# The leakage audit of every object the package returns (helper-audit.R's
# scanner): no private release holds the data or a noiseless statistic of
# it (raw, clipped, normalised) in any form, whether called directly, through
# do.call() with the evaluated data in the call, or with a data frame; every
# intentionally non-private object carries class dp_nonprivate, says so in
# print, and still holds neither the raw data nor a call with values in it.
#
# Classification of the exports (checked to be complete below):
leak_class <- list(
  private = c("analyze_gauss", "wishart_noise", "jl_ridge", "jl_adaptive", "iwishart_posterior",
              "iwishart_adaptive", "dp_threshold", "ldp_perturb", "ldp_aggregate", "dp_compress",
              "dp_cov"),
  # post-processing of a release (clean when its input is a release)
  post_processing = c("compressed_cov", "compressed_pca", "dp_pca", "compressed_lm", "dp_regression", "dp_lm",
                      "tidy", "glance",
                      "cov_error", "subspace_distance", "as.matrix.dp_release", "dp_as_cov",
                      "release_diagnostics"),
  # labelled dp_nonprivate
  nonprivate = c("second_moment", "second_moment_db", "threshold_cv", "qda_plugin", "pooled_cov", "qda_study", "compression_pca_study", "as_dp_study",
                 "compression_alpha", "sheffet_study", "run_study", "combo_read", "combo_preprocess",
                 "combo_select", "qda_study_table"),
  # exact statistics returned as plain values (documented "not private"): a
  # plain matrix / vector, consumed as such by other functions
  nonprivate_unlabelled = c("predict.qda_plugin", "study_summary"),
  # no data in, or only public quantities / simulated data
  not_data = c("gaussian_sigma", "laplace_scale", "second_moment_sensitivity", "analyze_gauss_shift",
               "compression_condition", "compression_m_min", "compression_threshold", "cov_model",
               "rdata", "rwishart", "riwishart", "sheffet_data", "threshold_methods", "threshold_tune",
               "has_guarantee", "combo_data_dir", "qda_estimators",
               # the privacy budget: a ledger of public parameters only
               "dp_budget", "budget_spent",
               # data sources: a chunk reader (a closure holding the connection or
               # the path and a cursor, never rows between calls)
               "db_reader", "csv_reader")
)
# the private clipping bound (R/bounds.R): a private release (class dp_bound)
leak_class$private <- c(leak_class$private, "dp_clip_bound")
# the private per-column bounds (R/column-bounds.R) and their methods
leak_class$private <- c(leak_class$private, "dp_column_bounds")

test_that("every export is classified", {
  ex <- getNamespaceExports("dpcov")
  expect_setequal(setdiff(ex, unlist(leak_class)), character(0))
})

# Another data set of the same shape and names: every statistic differs.
leak_other <- function(x) {
  m <- as.matrix(x)
  m2 <- m + 0.013 * cos(outer(seq_len(nrow(m)), seq_len(ncol(m)), function(i, j) 0.71 * i + 1.3 * j))
  if (is.data.frame(x)) as.data.frame(m2) else m2
}

# make(x) must hold no secret of x (clipped at `clip`), checked against a
# rerun on other data with another seed; and no stored call may hold a value.
expect_private <- function(make, x, clip = Inf, group = NULL, label = "object", nonprivate = FALSE) {
  x2 <- leak_other(x)
  set.seed(11)
  a <- make(x)
  set.seed(12)
  b <- make(x2)
  hits <- leak_scan(a, leak_secrets(x, clip, group), rerun = b, rerun_secrets = leak_secrets(x2, clip, group))
  expect(length(hits) == 0L, sprintf("%s holds non-private values at: %s", label,
                                     paste(utils::head(hits, 8), collapse = "; ")))
  bad_calls <- calls_with_values(a)
  expect(length(bad_calls) == 0L, sprintf("%s stores a call holding values at: %s", label,
                                          paste(bad_calls, collapse = "; ")))
  # a release without a formal guarantee (compression) holds no secret either,
  # but it and its analyses say they are not private, in class and print
  expect_identical(inherits(a, "dp_nonprivate"), nonprivate, label = paste(label, "labelled non-private"))
  if (nonprivate) {
    expect(any(grepl("NOT a private release", wide_output(print(a)))),
           sprintf("%s does not print that it is not private", label))
  }
  invisible(a)
}

# A labelled non-private object: class, print banner, no raw data, no call with values.
expect_nonprivate <- function(obj, x = NULL, label = "object") {
  expect(inherits(obj, "dp_nonprivate"), sprintf("%s is not labelled dp_nonprivate", label))
  expect(any(grepl("NOT a private release", wide_output(print(obj)))),
         sprintf("%s does not print that it is not private", label))
  if (!is.null(x)) {
    raw <- holds_raw_data(obj, x)
    expect(length(raw) == 0L, sprintf("%s holds the raw data at: %s", label, paste(raw, collapse = "; ")))
  }
  bad_calls <- calls_with_values(obj)
  expect(length(bad_calls) == 0L, sprintf("%s stores a call holding values at: %s", label,
                                          paste(bad_calls, collapse = "; ")))
  invisible(obj)
}

# The three ways of passing the data: the caller's symbol, the evaluated
# value through do.call(), and a data frame through do.call().
data_forms <- function(fun, args) {
  force(fun)
  force(args)
  list(direct = function(x) eval(as.call(c(list(fun, quote(x)), args))),
       do_call = function(x) do.call(fun, c(list(x), args)),
       data_frame = function(x) {
         df <- as.data.frame(x)
         names(df) <- paste0("v", seq_len(ncol(df)))
         do.call(fun, c(list(df), args))
       })
}

X <- audit_matrix(40, 4)

test_that("the known defect stays fixed: do.call() does not put the data in the stored call", {
  r <- do.call(analyze_gauss, list(X, epsilon = .5, delta = 1e-5, clip = 2))
  expect_false(identical(r$call[[2]], X))
  expect_identical(r$call[[2]], as.symbol("<data>"))
  r2 <- do.call("analyze_gauss", list(X, epsilon = .5, delta = 1e-5, clip = 2))
  expect_identical(r2$call[[1]], as.symbol("analyze_gauss"))
  expect_length(calls_with_values(r2), 0L)
})

test_that("Sheffet's mechanisms and Analyze Gauss hold no secret (direct, do.call, data frame)", {
  cases <- list(
    ag = list(analyze_gauss, list(0.5, 1e-5, clip = 1)),
    ag_shift = list(analyze_gauss, list(0.5, 1e-5, clip = 1, post = "shift", neighbor = "replace-one")),
    ag_psd = list(analyze_gauss, list(0.5, 1e-5, clip = 1, post = "psd", neighbor = "zero-out")),
    wishart = list(wishart_noise, list(0.5, 1e-4, clip = 1)),
    wishart_shift = list(wishart_noise, list(0.5, 1e-4, clip = 1, shift = TRUE)),
    jl = list(jl_ridge, list(0.5, 1e-4, clip = 1)),
    jl_explicit = list(jl_ridge, list(0.5, 1e-4, clip = 1, method = "explicit")),
    jl_adaptive = list(jl_adaptive, list(0.5, 1e-4, clip = 1)),
    iw = list(iwishart_posterior, list(0.5, 1e-4, clip = 1)),
    iw_adaptive = list(iwishart_adaptive, list(0.5, 1e-4, clip = 1))
  )
  for (nm in names(cases)) {
    forms <- data_forms(cases[[nm]][[1]], cases[[nm]][[2]])
    for (f in names(forms)) expect_private(forms[[f]], X, clip = 1, label = paste(nm, f))
  }
  # sufficient statistics and a chunk reader as input (the reader is a
  # closure holding the data: the stored call must not keep it)
  expect_private(function(x) analyze_gauss(second_moment(x, 1), 0.5, 1e-5), X, 1, label = "ag suffstat")
  reader_of <- function(x) {
    done <- FALSE
    function() if (done) NULL else { done <<- TRUE; x }
  }
  expect_private(function(x) do.call(jl_ridge, list(reader_of(x), 0.5, 1e-4, clip = 1)), X, 1,
                 label = "jl reader via do.call")
  expect_private(function(x) { rd <- reader_of(x); wishart_noise(rd, 0.5, 1e-4, clip = 1) }, X, 1,
                 label = "wishart reader")
})

test_that("thresholding releases hold no secret for every model and private tuning", {
  P <- audit_matrix(30, 4) * 0.9 - 0.02  # a public sample (not part of X)
  tunes <- list(theory = "theory", fixed = 1.3, fixed_spec = threshold_tune("fixed", constant = 0.7),
                public = P, public_spec = threshold_tune("public", public = P, folds = 5))
  for (model in c("central", "local")) {
    for (tn in names(tunes)) {
      for (variant in c("modified", "wang_xu")) {
        args <- list(0.5, 1e-3, clip = 1, variant = variant, model = model, tune = tunes[[tn]])
        forms <- data_forms(dp_threshold, args)
        for (f in names(forms)) {
          expect_private(forms[[f]], X, clip = 1, label = paste(model, tn, variant, f))
        }
      }
    }
  }
  expect_private(function(x) dp_threshold(x, 0.5, 1e-3, clip = 1, model = "local", method = "explicit"),
                 X, 1, label = "local explicit")
  expect_private(function(x) dp_threshold(second_moment(x, 1), 0.5, 1e-3, clip = 1, tune = 2), X, 1,
                 label = "central suffstat")
  expect_private(function(x) dp_threshold(x, 0.5, 1e-3, clip = Inf, sigma_clip_inf = 1), X,
                 label = "central clip = Inf")
})

test_that("local model: client reports, the server aggregate and its thresholding hold no secret", {
  expect_private(function(x) ldp_perturb(x, 0.5, 1e-3, clip = 1), X, 1, label = "ldp_perturb")
  expect_private(function(x) do.call(ldp_perturb, list(as.data.frame(x), 0.5, 1e-3, clip = 1)), X, 1,
                 label = "ldp_perturb data frame")
  expect_private(function(x) ldp_aggregate(ldp_perturb(x, 0.5, 1e-3, clip = 1)), X, 1, label = "ldp_aggregate")
  expect_private(function(x) {
    agg <- ldp_aggregate(ldp_perturb(x, 0.5, 1e-3, clip = 1))
    dp_threshold(agg, model = "local", tune = 1)
  }, X, 1, label = "threshold of the aggregate")
})

test_that("compression releases and their analyses hold no secret", {
  Xc <- audit_matrix(80, 4)
  colnames(Xc) <- c("a", "b", "c", "y")
  cases <- list(
    gram = list(m = 40), explicit = list(m = 40, method = "explicit"),
    raw = list(m = 40, normalize = FALSE), untruncated = list(m = 40, truncate = FALSE),
    affine = list(m = 40, affine_sd = 0.3), public_ref = list(m = 40, reference = diag(4))
  )
  for (nm in names(cases)) {
    forms <- data_forms(function(...) suppressWarnings(dp_compress(...)), cases[[nm]])
    for (f in names(forms)) expect_private(forms[[f]], Xc, label = paste("dp_compress", nm, f), nonprivate = TRUE)
  }
  compress <- function(x) suppressWarnings(dp_compress(x, m = 40))
  expect_private(function(x) compressed_cov(compress(x)), Xc, label = "compressed_cov", nonprivate = TRUE)
  expect_private(function(x) compressed_pca(compress(x)), Xc, label = "compressed_pca", nonprivate = TRUE)
  expect_private(function(x) dp_pca(compress(x)), Xc, label = "dp_pca (compressed)", nonprivate = TRUE)
  expect_private(function(x) do.call(dp_pca, list(compress(x))), Xc, label = "dp_pca (do.call)", nonprivate = TRUE)
  expect_private(function(x) compressed_lm(compress(x), response = "y"), Xc, label = "compressed_lm", nonprivate = TRUE)
  expect_private(function(x) suppressWarnings(dp_compress(second_moment(x), m = 40)), Xc,
                 label = "dp_compress suffstat", nonprivate = TRUE)
})

test_that("dp_lm() fits hold no secret (formula interface direct and via do.call, release interface)", {
  frame_of <- function(x) {
    df <- as.data.frame(x)
    names(df) <- c("a", "b", "c", "y")
    df
  }
  expect_private(function(x) {
    d <- frame_of(x)
    suppressWarnings(dp_lm(y ~ a + b + c, d, epsilon = 0.5, delta = 1e-5, clip = 1, B = 20))
  }, X, 1, label = "dp_lm formula")
  expect_private(function(x) suppressWarnings(do.call(dp_lm, list(y ~ a + b + c, frame_of(x), epsilon = 0.5,
                                                                  delta = 1e-5, clip = 1, B = 20))),
                 X, 1, label = "dp_lm formula via do.call")
  expect_private(function(x) suppressWarnings(do.call("dp_lm", list(y ~ a + b, data = frame_of(x), epsilon = 0.5,
                                                                    delta = 1e-4, clip = 1, mechanism = "wishart",
                                                                    B = 20))),
                 X, 1, label = "dp_lm wishart via do.call")
  expect_private(function(x) {
    A <- cbind("(Intercept)" = 1, x)
    colnames(A) <- c("(Intercept)", "a", "b", "c", "y")
    suppressWarnings(dp_lm(analyze_gauss(A, 0.5, 1e-5, clip = 1), y ~ a + c, B = 20))
  }, X, 1, label = "dp_lm release")
  expect_private(function(x) suppressWarnings(dp_lm(dp_cov(frame_of(x), 1, 1e-5, clip = 1, clip_mean = 2),
                                                    y ~ a + b, B = 20)),
                 X, 1, label = "dp_lm dp_cov")
  Xc <- audit_matrix(80, 4)
  colnames(Xc) <- c("a", "b", "c", "y")
  expect_private(function(x) compressed_lm(suppressWarnings(dp_compress(x, m = 40)), "y", scales = c(1, 2, 1, 2)),
                 Xc, label = "compressed_lm with scales", nonprivate = TRUE)
})

test_that("regressions from a release hold no secret", {
  expect_private(function(x) dp_regression(analyze_gauss(x, 0.5, 1e-5, clip = 1), 4), X, 1,
                 label = "dp_regression")
  expect_private(function(x) cov_error(analyze_gauss(x, 0.5, 1e-5, clip = 1), diag(4)), X, 1,
                 label = "cov_error")
})

test_that("non-private objects are labelled, say so, and hold neither the data nor a call with values", {
  s <- second_moment(X, 1)
  expect_nonprivate(s, X, "second_moment")
  cv <- threshold_cv(X, 0.5, 1e-3, clip = 1, folds = 4)
  expect_nonprivate(cv, X, "threshold_cv")
  expect_output(print(cv), "NOT private")
  # why it is labelled: the grid's end is the largest clipped diagonal entry
  # of the average, up to public constants (the folds have 30 training rows)
  top <- max(diag(leak_secrets(X, 1)$clipped$average))
  expect_equal(max(cv$grid) * sqrt(log(4) / 30) / 1.1, top)
  # cross-validating on the private data makes the release non-private
  for (model in c("central", "local")) {
    forms <- data_forms(dp_threshold, list(0.5, 1e-3, clip = 1, model = model, tune = "cv"))
    for (f in names(forms)) {
      set.seed(3)
      r <- forms[[f]](X)
      expect_nonprivate(r, X, paste("tune = cv", model, f))
      expect_s3_class(r, "dp_release")
      expect_false(has_guarantee(r))
      expect_output(print(r), "WARNING: tuning looked at the private data")
    }
  }
  g <- factor(rep(c("a", "b"), c(25, 15)))
  fit <- qda_plugin(X, g)
  expect_nonprivate(fit, X, "qda_plugin")
  expect_nonprivate(pooled_cov(X, g), X, "pooled_cov")
  fit2 <- do.call(qda_plugin, list(as.data.frame(X), g, cov = function(x, g) diag(4)))
  expect_nonprivate(fit2, X, "qda_plugin via do.call")
  expect_identical(fit2$call[[2]], as.symbol("<data>"))
  expect_identical(fit2$call$cov, as.symbol("<data>"))  # a plug-in may be computed from the data
  # the study estimators: closures that capture no data
  est <- qda_estimators(tune = 1)
  expect_length(leak_scan(est, leak_secrets(X, 1, g)), 0L)
  expect_private(function(x) est$modified_dp(x, g), X, Inf, g, label = "estimator, fixed constant")
  set.seed(4)
  expect_nonprivate(qda_estimators()$wang_xu_dp(X, g), X, "estimator, cv")
  set.seed(4)
  expect_nonprivate(qda_estimators(tune = 1, standardize = TRUE)$wang_xu_dp(X, g), X,
                    "estimator, standardised")
  Xs <- audit_matrix(80, 5)
  st <- suppressWarnings(compression_pca_study(Xs, m = c(20, 40), dim = 1, reps = 2))
  expect_nonprivate(st, Xs, "compression_pca_study")
  expect_s3_class(st, "compression_study")
  # why it is labelled: delta_D is the data's exact eigengap
  expect_true(length(leak_scan(list(st$delta_D), leak_secrets(Xs))) > 0L)
  X2 <- Xs
  X2[1, ] <- X2[1, ] + 0.1
  expect_nonprivate(compression_alpha(Xs, X2, m = 40), Xs, "compression_alpha")
})

test_that("studies are labelled and keep no data-generating input or call with values", {
  set.seed(5)
  feats <- list(x = audit_matrix(40, 4), group = factor(rep(c("lean", "obese"), c(26, 14))))
  qs <- do.call(qda_study, list(feats, qda_estimators(private = FALSE), p = 2, reps = 2,
                                n_test = c(lean = 6, obese = 3)))
  expect_nonprivate(qs, feats$x, "qda_study")
  # the call is the documented component (it was an attribute update() did not read)
  expect_identical(qs$call[[2]], as.symbol("<data>"))
  expect_null(attr(qs, "call"))
  expect_nonprivate(qda_study_table(qs), feats$x, "qda_study_table")
  sh <- sheffet_study("single", n = 2^8, epsilon = 0.5, reps = 1, p = 2)
  expect_nonprivate(sh, NULL, "sheffet_study")
  rs <- run_study(data.frame(cov = "model2", dist = "gaussian", p = 4, n = 50, epsilon = 0.5,
                             delta = 1e-3), reps = 1, tune = "theory")
  expect_nonprivate(rs, NULL, "run_study")
})

test_that("dp_pca() of a dp_cov() release holds no secret; converted studies stay labelled", {
  expect_private(function(x) dp_pca(dp_cov(x, 1, 1e-6, clip = 2, clip_mean = 2)), X, label = "dp_pca (dp_cov)")
  expect_private(function(x) dp_pca(analyze_gauss(x, 1, 1e-5, clip = 1, neighbor = "replace-one"), rank = 2),
                 X, clip = 1, label = "dp_pca (analyze_gauss)")
  Xs <- audit_matrix(80, 5)
  st <- suppressWarnings(compression_pca_study(Xs, m = 20, dim = 1, reps = 1))
  class(st) <- c("compression_study", "data.frame")  # as saved by an earlier version
  expect_nonprivate(as_dp_study(st), Xs, "as_dp_study")
})

test_that("the COMBO loaders are labelled (skipped where the data is absent)", {
  dir <- Sys.getenv("DPCOV_COMBO_DIR", "/work/shared/data")
  skip_if(!nzchar(dir) || !dir.exists(dir), "COMBO data not found")
  d <- combo_read(dir)
  expect_nonprivate(d, NULL, "combo_read")
  f <- combo_preprocess(d)
  expect_nonprivate(f, NULL, "combo_preprocess")
  sel <- combo_select(f$x, f$group, 5)
  expect_nonprivate(sel, NULL, "combo_select")
  expect_identical(dim(f$x[, sel, drop = FALSE]), c(nrow(f$x), 5L))
})

# ---- the scanner's power: planted leaks it must flag --------------------------

test_that("the scanner flags every kind of planted leak", {
  sec <- leak_secrets(X, clip = 1)
  set.seed(1)
  r <- analyze_gauss(X, 0.5, 1e-5, clip = 1)
  expect_length(leak_scan(r, sec), 0L)
  flags <- function(obj) length(leak_scan(obj, sec)) > 0L
  # an attribute holding column means; clipped data's means; a column sd
  a <- r
  attr(a, "x") <- colMeans(X)
  expect_true(flags(a))
  a <- r
  a$params$centre <- colMeans(sec$clipped$data)[3]
  expect_true(flags(a))
  # a closure capturing X, directly and in the frame enclosing its environment
  a <- r
  a$params$f <- local({ Y <- X; function() Y })
  expect_true(flags(a))
  a$params$f <- (function(Y) local(function() 1))(X)
  expect_true(flags(a))
  # a formula whose environment holds X
  a <- r
  a$params$model <- (function(Y) y ~ z)(X)
  expect_true(flags(a))
  # a call holding the evaluated data (also seen by calls_with_values)
  a <- r
  a$call <- as.call(list(as.symbol("analyze_gauss"), X, 0.5))
  expect_true(flags(a))
  expect_length(calls_with_values(a), 1L)
  # an environment-based object and an S4 slot holding the clipped Gram
  e <- new.env()
  e$inner <- list(sec$clipped$gram[1, 2])
  expect_true(flags(list(e)))
  setClass("leak_s4_probe", representation(g = "matrix"), where = environment())
  expect_true(flags(methods::new("leak_s4_probe", g = crossprod(X))))
  # the smallest eigenvalue and a column norm written in text at 4 digits
  expect_true(flags(list(note = sprintf("lambda_min = %.4g", min(sec$clipped$eigen_gram)))))
  expect_true(flags(list(note = paste("norm", format(sqrt(sum(X[, 2]^2)), digits = 4)))))
  # a print method that shows a column mean with 4 significant digits
  probe <- function(x) structure(list(m = format(colMeans(x)[2], digits = 4)), class = "leak_print_probe")
  registerS3method("print", "leak_print_probe", function(x, ...) cat("mean of column 2:", x$m, "\n"))
  expect_true(flags(probe(X)))
  X2 <- leak_other(X)
  sec2 <- leak_secrets(X2, clip = 1)
  expect_true(length(leak_scan(probe(X), sec, rerun = probe(X2), rerun_secrets = sec2)) > 0L)
  # raw data held by a non-private object is found
  expect_true(length(holds_raw_data(list(fit = 1, data = X), X)) > 0L)
  expect_true(length(holds_raw_data(local({ Y <- X; function() Y }), X)) > 0L)
})

test_that("the scanner does not flag public values or chance agreement", {
  sec <- leak_secrets(X, clip = 1)
  public <- list(n = 40, p = 4L, epsilon = 0.5, delta = 1e-5, clip = 1, k = 2.25,
                 text = "n = 40 rows, p = 4 columns, epsilon = 0.5, delta = 1e-05, clip = 1")
  expect_length(leak_scan(public, sec), 0L)
  # a number that equals a secret to 4 digits in one run only is chance
  chance <- function(v) structure(list(m = format(v, digits = 4)), class = "leak_print_probe")
  registerS3method("print", "leak_print_probe", function(x, ...) cat("value:", x$m, "\n"))
  X2 <- leak_other(X)
  hit_once <- chance(colMeans(X)[2])
  expect_true(length(leak_scan(hit_once, sec)) > 0L)
  expect_length(leak_scan(hit_once, sec, rerun = chance(0.123456), rerun_secrets = leak_secrets(X2, 1)), 0L)
})

test_that("dp_column_bounds() and dp_cov()'s private-bounds default hold no secret (direct, do.call, data frame)", {
  forms <- data_forms(dp_column_bounds, list(1, 1e-6))
  for (f in names(forms)) expect_private(forms[[f]], X, label = paste("dp_column_bounds", f))
  expect_private(function(x) dp_column_bounds(x, 0.5, n_hint = 50), X, label = "dp_column_bounds (n_hint)")
  forms <- data_forms(dp_cov, list(1, 1e-6))
  for (f in names(forms)) expect_private(forms[[f]], X, label = paste("dp_cov (private bounds)", f))
  frame <- function(x) {
    df <- as.data.frame(x)
    names(df) <- c(letters[seq_len(ncol(df) - 1L)], "y")
    df
  }
  expect_private(function(x) suppressWarnings(dp_lm(y ~ a + b, frame(x), epsilon = 1, delta = 1e-5, B = 20)),
                 X, label = "dp_lm formula (private bounds)")
})

test_that("releases on bounds released by dp_column_bounds(), and dp_as_cov() centred at a release, hold no secret", {
  on_cb <- function(x) {
    cb <- dp_column_bounds(x, 0.5, 1e-7)
    dp_cov(x, 1, 1e-6, bounds = cb)
  }
  expect_private(on_cb, X, label = "dp_cov (bounds from dp_column_bounds)")
  expect_private(function(x) analyze_gauss(x, 1, 1e-6, bounds = dp_column_bounds(x, 0.5, 1e-7)), X,
                 label = "analyze_gauss (bounds from dp_column_bounds)")
  centred <- function(x) {
    r <- dp_cov(x, 1, 1e-6, clip = 4, clip_mean = 12, neighbor = "replace-one")
    dp_as_cov(dp_threshold(x, 1, 1e-6, clip = 12), center = r)
  }
  expect_private(centred, X, label = "dp_as_cov (centred at a dp_cov release)")
})
