# The microbiome QDA study of Section 4.2 / Table 7 of the modified-
# thresholding paper: repeated stratified train/test splits, t-test feature
# selection on the training part, one plug-in discriminant per covariance
# estimator, misclassifications on the held-out part.

#' Repeated train/test study of plug-in discriminants
#'
#' Runs the paper's protocol: in each of `reps` replications, hold out
#' `n_test[g]` subjects of each group `g` by stratified sampling; on the
#' training part, rank the features by two-sample t-tests ([combo_select()])
#' and keep the top `p` (for each value of `p`); give each covariance
#' estimator the training rows of those features; fit [qda_plugin()] with
#' its estimate; count misclassified test subjects. The trivial rule that
#' predicts the training majority class for everyone is always reported as
#' `"trivial"`.
#'
#' Replications run through [future.apply::future_lapply()] with
#' `future.seed = TRUE`, so the result is the same under [set.seed()] for
#' every `future` backend (`future::plan()`), and report progress through
#' `progressr` (wrap the call in [progressr::with_progress()] to see it).
#'
#' @param features A [combo_preprocess()] result, or a list with a numeric
#'   matrix `x` and a two-level factor `group`.
#' @param estimators Named list of covariance estimators, each
#'   `function(x, group)` returning a p x p matrix or a `dp_release`; `x`
#'   holds the training rows (uncentred) of the selected features. See
#'   [qda_estimators()].
#' @param p Numbers of features to select (each at most `ncol(x)`).
#' @param reps Number of replications.
#' @param n_test Named integer vector: test subjects per group.
#' @param var_equal Passed to [combo_select()].
#' @param leak `"none"` (the protocol: everything is fitted on the training
#'   part; the features themselves are those of `features`, whose genus
#'   filter [combo_preprocess()] chose on all subjects, as the paper's fixed
#'   set of 40 genera is). The other values exist only to measure what a leak of the test
#'   subjects would do to the error counts: `"selection"` runs the t-tests on
#'   all subjects, test subjects included; `"training"` fits the whole
#'   pipeline (selection, means, priors, covariance and its tuning) on all
#'   subjects, so that the held-out subjects are also training subjects.
#'   `print`, `summary` and [qda_study_table()] of a study with a leak say
#'   what leaked.
#' @param singular,tol Passed to [qda_plugin()].
#' @return An object of class `qda_study`: `errors` (data frame with one row
#'   per replication, p and estimator: `rep`, `p`, `estimator`, `errors`,
#'   `threshold` (the estimator's threshold when it reports one, else NA)),
#'   `summary` (mean misclassifications and their standard error over the
#'   replications, per p and estimator), `settings` and `call`; class
#'   `c("qda_study", "dp_study", "dp_nonprivate")` (see [dp_study]:
#'   `summary` gives the `summary` table, `as.data.frame` the `errors`).
#' @seealso [qda_estimators()], [combo_preprocess()], [dp_study]
#' @examples
#' set.seed(1)
#' x <- rbind(matrix(rnorm(60 * 4), 60), matrix(rnorm(30 * 4, 0.8), 30))
#' feats <- list(x = x, group = factor(rep(c("lean", "obese"), c(60, 30))))
#' qda_study(feats, p = c(2, 4), reps = 3, n_test = c(lean = 12, obese = 6))
#' @template ref-combo
#' @template param-dots-none
#' @export
qda_study <- function(features, estimators = qda_estimators(), p = c(25, 40),
                      reps = 20, n_test = c(lean = 13, obese = 7), var_equal = FALSE,
                      leak = "none", singular = "pinv",
                      tol = sqrt(.Machine$double.eps), ...) {
  refuse_unknown_args("qda_study", ...)
  if (missing(features)) abort_missing("features")
  call <- match.call()
  if (!is.list(features) || is.null(features$x) || is.null(features$group)) {
    abort("`features` must be a combo_preprocess() result or a list with `x` and `group`.")
  }
  x <- check_data_matrix(features$x, arg = "features$x", min_rows = 4L)  # (its private estimators name columns)
  group <- check_group(features$group, nrow(x), arg = "features$group", min_per_group = 2L)
  if (nlevels(group) != 2L) abort("`features$group` must have exactly two levels.")
  if (!is.list(estimators) || !length(estimators) || is.null(names(estimators)) ||
      any(!nzchar(names(estimators))) || !all(vapply(estimators, is.function, logical(1)))) {
    abort("`estimators` must be a named list of functions(x, group).")
  }
  if ("trivial" %in% names(estimators)) abort("`estimators`: the name \"trivial\" is reserved for the majority-class rule.", .arg = "estimators")
  if (!is.numeric(p) || !length(p) || anyNA(p) || any(p < 1) || any(p != round(p)) || any(p > ncol(x))) {
    abort("`p` must be whole numbers between 1 and ncol(features$x) = %d.", ncol(x))
  }
  # (a repeated p ran its cells twice on the same splits, counted as replications)
  if (anyDuplicated(p)) abort("`p` names a number of features twice: %s.", paste(p[duplicated(p)], collapse = ", "), .arg = "p")
  reps <- check_count(reps, "reps", max = 1e6)
  if (!is.numeric(n_test) || is.object(n_test) || is.null(names(n_test)) || length(n_test) != nlevels(group) ||
      !setequal(names(n_test), levels(group)) ||
      anyNA(n_test) || any(n_test < 1) || any(n_test != round(n_test))) {
    abort("`n_test` must be a named vector of positive whole numbers, one per group (%s).",
          paste(levels(group), collapse = ", "))
  }
  tol <- check_number(tol, "tol", lower = 0, upper = 1)
  sizes <- table(group)[names(n_test)]
  if (any(sizes - n_test < 2)) abort("`n_test` leaves fewer than two training subjects in some group.")
  check_flag(var_equal, "var_equal")
  leak <- check_choice(leak, c("none", "selection", "training"), "leak")
  singular <- check_choice(singular, c("pinv", "floor"), "singular")

  one_rep <- function(r, progress) {
    test <- unlist(lapply(names(n_test), function(g) {
      idx <- which(group == g)
      idx[sample.int(length(idx), n_test[[g]])]
    }))
    xtr <- if (leak == "training") x else x[-test, , drop = FALSE]
    gtr <- if (leak == "training") group else group[-test]
    xte <- x[test, , drop = FALSE]
    gte <- group[test]
    majority <- names(which.max(table(gtr)))
    rows <- list(data.frame(rep = r, p = p, estimator = "trivial", errors = sum(gte != majority),
                            threshold = NA_real_, stringsAsFactors = FALSE))
    for (pp in p) {
      sel <- if (leak == "none") {
        combo_select(xtr, gtr, pp, var_equal = var_equal)
      } else {
        combo_select(x, group, pp, var_equal = var_equal)
      }
      for (name in names(estimators)) {
        what <- sprintf("the estimator \"%s\"", name)
        est <- call_user(estimators[[name]], list(xtr[, sel, drop = FALSE], gtr), "estimators", what)
        # (text went on to qda_plugin() as its `cov` and was refused as a
        # misspelled "pooled")
        if (!(inherits(est, "dp_release") || is.matrix(est) && is.numeric(est))) {
          abort("`estimators`: %s returned %s, which is not a covariance (a p x p numeric matrix or a dp_release).",
                what, value_kind(est), .arg = "estimators")
        }
        fit <- with_arg(qda_plugin(xtr[, sel, drop = FALSE], gtr, cov = est, singular = singular, tol = tol),
                        "estimators", what)
        pred <- stats::predict(fit, xte[, sel, drop = FALSE])
        rows[[length(rows) + 1L]] <- data.frame(rep = r, p = pp, estimator = name,
                                                errors = sum(pred != gte),
                                                threshold = release_threshold(est),
                                                stringsAsFactors = FALSE)
      }
    }
    progress()
    do.call(rbind, rows)
  }
  progress <- progressr::progressor(steps = reps)
  # a study releases at small n on purpose: the noise is what it measures
  res <- future.apply::future_lapply(seq_len(reps), function(r, progress) muffle_noise_warnings(one_rep(r, progress)),
                                     progress = progress,
                                     future.seed = TRUE)
  errors <- do.call(rbind, res)
  levels_est <- c(names(estimators), "trivial")
  errors$estimator <- factor(errors$estimator, levels = levels_est)
  errors <- errors[order(errors$rep, errors$p, errors$estimator), ]
  rownames(errors) <- NULL
  # the call is the documented `call` component (update() re-runs it), with
  # values given by do.call() replaced by placeholders (release_call())
  structure(list(errors = errors, summary = summarise_errors(errors),
                 settings = list(p = p, reps = reps, n_test = n_test, var_equal = var_equal,
                                 leak = leak,
                                 singular = singular, tol = tol,
                                 features = features$settings, n = nrow(x),
                                 n_group = as.integer(table(group)), estimators = names(estimators)),
                 call = release_call(call, c("x", "features"))),
            class = c("qda_study", "dp_study", "dp_nonprivate"))
}

# What a value is, in words, without its values (for messages).
value_kind <- function(v) {
  if (is.null(v)) return("NULL")
  if (is.object(v)) return(sprintf("an object of class %s", paste(class(v), collapse = "/")))
  if (is.character(v)) return("text")
  sprintf("a %s %s", typeof(v), if (is.matrix(v)) "matrix" else if (is.list(v)) "list" else "vector")
}

# The leak setting of a study (hand-made ones included): "none" when the
# settings do not record one.
qda_study_leak <- function(x, arg = "x") {
  s <- x$settings
  leak <- if (is.list(s)) s$leak
  if (is.null(leak)) return("none")
  if (!is_string(leak) || !leak %in% names(qda_leak_what)) {
    abort("`%s` is not a valid qda_study: its `settings$leak` must be one of %s.", arg,
          paste0('"', names(qda_leak_what), '"', collapse = ", "), .arg = arg)
  }
  leak
}

# What each leak setting let the test subjects into, in words.
qda_leak_what <- c(
  none = "",
  selection = paste0("LEAK (leak = \"selection\"): the t-test feature selection ran on all subjects, the held-out ",
                     "test subjects included, so the error counts are optimistic"),
  training = paste0("LEAK (leak = \"training\"): the feature selection, class means, priors, covariance and its ",
                    "tuning were fitted on all subjects, so the held-out test subjects were training subjects too ",
                    "and the counts are errors on training data, not test errors"))

# The non-private banner's reason for a study's outputs, with its leak.
qda_study_why <- function(leak, what) {
  if (leak == "none") what else paste0(what, "; ", qda_leak_what[[leak]])
}

# A study given as input (hand-made ones included): its summary table, and
# for print() its settings.
check_qda_study <- function(x, arg = "x", settings = FALSE) {
  if (!inherits(x, "qda_study") || !is.list(x) ||
      !is_frame_with(x$summary, numeric = c("p", "mean", "se"), character = "estimator") ||
      !is.factor(x$summary$estimator) || !all(is.finite(x$summary$mean))) {
    abort("`%s` is not a valid qda_study: it needs a `summary` table with p, estimator (a factor), mean and se.",
          arg, .arg = arg)
  }
  if (settings) {
    s <- x$settings
    ok <- is.list(s) && is_whole1(s$reps, 1) && is_finite_num(s$n_test) && !is.null(names(s$n_test)) &&
      is_whole1(s$n, 1) && is_finite_num(s$p)
    if (!ok) abort("`%s` is not a valid qda_study: its `settings` are missing or malformed.", arg, .arg = arg)
  }
  invisible(x)
}

# The threshold a release reports (NA when it reports none).
release_threshold <- function(est) {
  th <- if (inherits(est, "dp_release")) est$params$threshold else attr(est, "threshold")
  if (is.numeric(th) && length(th) == 1L) th else NA_real_
}

summarise_errors <- function(errors) {
  keys <- unique(errors[c("p", "estimator")])
  out <- do.call(rbind, lapply(seq_len(nrow(keys)), function(i) {
    e <- errors$errors[errors$p == keys$p[i] & errors$estimator == keys$estimator[i]]
    data.frame(p = keys$p[i], estimator = keys$estimator[i], mean = mean(e),
               se = if (length(e) > 1L) stats::sd(e) / sqrt(length(e)) else NA_real_,
               reps = length(e))
  }))
  out <- out[order(out$p, out$estimator), ]
  rownames(out) <- NULL
  out
}

#' @export
print.qda_study <- function(x, digits = 2, ...) {
  check_qda_study(x, settings = TRUE)
  digits <- check_digits(digits, min = 0)
  leak <- qda_study_leak(x)
  nonprivate_banner(x, qda_study_why(leak, "a study of classifiers fitted and tested on the data"))
  s <- x$settings
  cat(sprintf("<qda_study> %d replications, %s test subjects (%s) of %d; p = %s\n",
              s$reps, sum(s$n_test), paste(names(s$n_test), s$n_test, sep = " ", collapse = " + "),
              s$n, paste(s$p, collapse = ", ")))
  cat(sprintf("A study of classifiers (not a private release). Average misclassifications (standard error)%s:\n",
              if (leak == "none") "" else sprintf(", with leak = \"%s\" (see above)", leak)))
  # the table's own banner is the one above
  print(plain_char_table(qda_study_table(x, digits = digits)), quote = FALSE)
  invisible(x)
}

# A labelled table as the plain character matrix (printed under a banner).
plain_char_table <- function(tab) matrix(unclass(tab), nrow(tab), ncol(tab), dimnames = dimnames(tab))

#' Plot a study's average misclassifications
#'
#' One panel per number of features: the mean misclassifications of each
#' estimator with bars of plus or minus two standard errors, the trivial
#' majority-class rule as a dashed line, and optionally reference values (for
#' example a paper's table) as crosses; the legend sits below the panels,
#' outside the data.
#'
#' @param x A [qda_study()] result.
#' @param reference Optional data frame with a column `p` and one column per
#'   estimator name holding reference means.
#' @param labels Optional named character vector of axis labels per estimator.
#' @param reference_label The legend's label of the reference values (one
#'   string, e.g. the paper they come from).
#' @param ylim Range of the vertical axis; `NULL` for one that holds every
#'   bar and reference.
#' @param ... Passed to [plot()], overriding the defaults (`pch`, `ylab`, ...).
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' x <- rbind(matrix(rnorm(60 * 3), 60), matrix(rnorm(30 * 3, 0.8), 30))
#' feats <- list(x = x, group = factor(rep(c("lean", "obese"), c(60, 30))))
#' st <- qda_study(feats, qda_estimators(private = FALSE), p = 3, reps = 3,
#'                 n_test = c(lean = 12, obese = 6))
#' plot(st, reference = data.frame(p = 3, sample = 2))
#' @export
plot.qda_study <- function(x, reference = NULL, labels = NULL, ylim = NULL, reference_label = "reference", ...) {
  check_qda_study(x)
  if (!is_string(reference_label)) abort("`reference_label` must be one string.", .arg = "reference_label")
  if (!is.null(reference) && !(is_frame_with(reference, numeric = names(reference)) && "p" %in% names(reference))) {
    abort("`reference` must be NULL or a data frame of numbers with a column `p`.", .arg = "reference")
  }
  if (!is.null(labels) && !(is.character(labels) && !anyNA(labels) && !is.null(names(labels)))) {
    abort("`labels` must be NULL or a named character vector.", .arg = "labels")
  }
  ylim <- check_ylim(ylim)
  s <- x$summary
  ps <- sort(unique(s$p))
  trivial <- s[s$estimator == "trivial", ]
  s <- s[s$estimator != "trivial", ]
  s$se[is.na(s$se)] <- 0
  if (is.null(ylim)) {
    ref_vals <- if (is.null(reference)) numeric(0) else unlist(reference[setdiff(names(reference), "p")])
    ylim <- c(0, max(c(s$mean + 2 * s$se, trivial$mean, ref_vals), na.rm = TRUE) * 1.1)
  }
  labels_leg <- c("mean \u00b1 2 se", if (nrow(trivial)) "majority-class rule",
                  if (!is.null(reference)) reference_label)
  op <- graphics::par(no.readonly = TRUE)[c("mfrow", "mar", "oma")]
  on.exit(graphics::par(op))
  # the legend gets its own row below the panels, outside the data, so the
  # panels keep the device's width
  graphics::par(mfrow = c(1, length(ps)), mar = c(6, 4, 2, 1), oma = c(2, 0, 0, 0))
  n_test <- x$settings$n_test
  ylab <- if (is.numeric(n_test) && length(n_test) && all(is.finite(n_test))) {
    sprintf("misclassifications (of %s test subjects)", format(sum(n_test)))
  } else "misclassifications"
  for (p in ps) {
    si <- s[s$p == p, ]
    at <- seq_len(nrow(si))
    est <- as.character(si$estimator)
    lab <- if (is.null(labels)) est else ifelse(est %in% names(labels), labels[est], est)
    graphics_call(graphics::plot, list(at, si$mean, ylim = ylim),
                  list(xlim = c(0.5, length(at) + 0.5), xaxt = "n", pch = 19, xlab = "", ylab = ylab,
                       main = paste("p =", p), las = 1), list(...))
    graphics::axis(1, at = at, labels = lab, las = 2, cex.axis = 0.8)
    ok <- si$se > 0
    if (any(ok)) {
      graphics::arrows(at[ok], si$mean[ok] - 2 * si$se[ok], at[ok], si$mean[ok] + 2 * si$se[ok],
                       angle = 90, code = 3, length = 0.03)
    }
    if (nrow(trivial)) graphics::abline(h = trivial$mean[trivial$p == p], lty = 2)
    if (!is.null(reference) && p %in% reference$p) {
      have <- est %in% names(reference)
      vals <- vapply(est[have], function(e) reference[[e]][reference$p == p][1], numeric(1))
      graphics::points(at[have], vals, pch = 4, cex = 1.4, col = "red")
    }
  }
  graphics::par(fig = c(0, 1, 0, 1), oma = c(0, 0, 0, 0), mar = c(0, 0, 0, 0), new = TRUE)
  graphics::plot.new()
  sel <- c(TRUE, nrow(trivial) > 0, !is.null(reference))
  graphics::legend("bottom", legend = labels_leg, pch = c(19, NA, 4)[sel], lty = c(1, 2, NA)[sel],
                   col = c("black", "black", "red")[sel], bty = "n", cex = 0.8, horiz = TRUE, inset = 0.005)
  invisible(x)
}

#' Table of a study's average misclassifications
#'
#' The errors of a study are exact statistics of the data it ran on, so the
#' table is labelled non-private like the study: class `dp_nonprivate`, and
#' `print` says so first (and, when the study let the test subjects leak into
#' the fit, `leak` other than `"none"`, what leaked). It is still a character
#' matrix: [as.matrix()], `[`, [knitr::kable()] and `print(quote = FALSE)`
#' treat it as one.
#'
#' @param x A [qda_study()] result; for `print`, the table.
#' @param digits Decimals.
#' @return A character matrix, one row per p, one column per estimator, each
#'   cell "mean (se)", of class `c("qda_study_table", "dp_nonprivate",
#'   "matrix", "array")`, with the study's `leak` setting as attribute
#'   `"leak"`.
#' @examples
#' set.seed(1)
#' x <- rbind(matrix(rnorm(60 * 3), 60), matrix(rnorm(30 * 3, 0.8), 30))
#' feats <- list(x = x, group = factor(rep(c("lean", "obese"), c(60, 30))))
#' qda_study_table(qda_study(feats, p = 3, reps = 2, n_test = c(lean = 12, obese = 6)))
#' @template ref-combo
#' @export
qda_study_table <- function(x, digits = 2, ...) {
  refuse_unknown_args("qda_study_table", ...)
  if (missing(x)) abort_missing("x")
  check_qda_study(x)
  digits <- check_digits(digits, min = 0)
  leak <- qda_study_leak(x)
  s <- x$summary
  cell <- sprintf(paste0("%.", digits, "f (%.", digits, "f)"), s$mean, s$se)
  tab <- tapply(cell, list(paste("p =", s$p), s$estimator), identity)
  tab <- tab[, levels(s$estimator)[levels(s$estimator) %in% colnames(tab)], drop = FALSE]
  # exact errors of the data: labelled as the study is, leak included
  structure(tab, leak = leak,
            nonprivate_why = qda_study_why(leak, "misclassifications of classifiers fitted and tested on the data"),
            class = c("qda_study_table", "dp_nonprivate", "matrix", "array"))
}

#' @rdname qda_study_table
#' @param ... `print`: passed to [print()] of the character matrix;
#'   `qda_study_table()`: nothing (an argument it does not take is an error).
#' @export
print.qda_study_table <- function(x, ...) {
  if (!is.matrix(x) || !is.character(x)) {
    abort("`x` is not a valid qda_study_table: it must be a character matrix.", .arg = "x")
  }
  why <- attr(x, "nonprivate_why", exact = TRUE)
  nonprivate_banner(x, if (is_string(why)) why)
  dots <- list(...)
  if (is.null(dots$quote)) dots$quote <- FALSE
  do.call(print, c(list(plain_char_table(x)), dots))
  invisible(x)
}

#' Covariance estimators for the microbiome study
#'
#' The estimators of Table 7 as `function(x, group)` closures for
#' [qda_study()]. `sample` is the pooled within-class sample covariance
#' ([pooled_cov()]), the non-private reference. With `private = TRUE` come
#' the four private thresholding estimators of the paper, each
#' [dp_threshold()] applied to the training rows centred at their class
#' means (so its second moment estimates the common covariance):
#' `modified_dp` (modified Algorithm 1), `wang_xu_dp` (Wang and Xu's
#' DP-thresholding), `modified_ldp` (modified Algorithm 2) and `wang_xu_ldp`
#' (Wang and Xu's LDP-thresholding). Each call tunes the threshold constant
#' as `tune` says, by default 10-fold cross-validation on the training part
#' (the paper's choice; not private, and the release says so).
#'
#' **The paper's reading.** The paper gives no row-norm bound for the
#' microbiome features, whose centred rows have norms near 10; its noise
#' formulas are those for rows of norm at most 1. `clip = Inf` with
#' `sigma_clip_inf = 1` (defaults) reproduces that: the noise is calibrated
#' as if rows had norm 1. In the local model the papers' per-record
#' \eqn{\sigma^2 = 2\log(1.25/\delta)/\epsilon^2} is the zero-out calibration
#' (a record against the all-zero record), hence `local_neighbor = "zero-out"`.
#' A finite `clip` shrinks rows to that norm and calibrates the noise to it,
#' but the exact centring below still voids the guarantee.
#'
#' **No guarantee.** The rows are centred at their exact class means before
#' the mechanism, so one subject moves every centred row of its class and the
#' mechanism's sensitivity no longer holds (with `standardize = TRUE` the
#' exact standard deviations rescale every row too). Every release these
#' functions return therefore states no guarantee ([has_guarantee()] is
#' `FALSE`), whatever `clip` is: they reproduce the paper's study, they are
#' not a private classifier. The means and priors of the discriminant are not
#' private either.
#'
#' @param private Include the four private estimators. With `FALSE` only
#'   the sample covariance is returned, and the private estimators' settings
#'   below, given with it, are refused (they would do nothing).
#' @param epsilon,delta Privacy parameters (the paper: 0.5 and 1/196).
#' @param clip,sigma_clip_inf Row-norm bound, and with `clip = Inf` the bound
#'   the noise is calibrated for (see [dp_threshold()]); `sigma_clip_inf`
#'   given with a finite `clip` is refused. With `clip = Inf` (the default,
#'   as the paper), data whose squares overflow, or whose cross-validation
#'   losses do (entries from about 1e77), are refused with a
#'   `dpcov_data_error`: rescale the data or give a finite `clip`.
#' @param tune Threshold tuning, passed to [dp_threshold()] (the paper:
#'   10-fold cross-validation, `"cv"`).
#' @param calibration Gaussian calibration, passed to [dp_threshold()] (the
#'   paper: `"classic"`).
#' @param local_neighbor Neighbour relation of the local model (the
#'   papers' noise: `"zero-out"`).
#' @param standardize Release the covariance of the standardised rows
#'   (each column divided by its training standard deviation, so the
#'   threshold acts on correlations) and scale the estimate back. The
#'   standard deviations are not private.
#' @return A named list of functions `function(x, group)` returning a
#'   `dp_release` (with `standardize = TRUE` a matrix of class `dp_nonprivate`,
#'   scaled by the exact sds, carrying the threshold as attribute
#'   `"threshold"`).
#' @examples
#' est <- qda_estimators(private = TRUE)
#' names(est)
#' set.seed(1)
#' x <- matrix(rnorm(6000 * 3), 6000, 3)
#' g <- factor(rep(c("lean", "obese"), c(4000, 2000)))
#' est$modified_dp(x, g)
#' @template ref-combo
#' @template param-dots-none
#' @export
qda_estimators <- function(private = TRUE, epsilon = 0.5, delta = 1 / 196, clip = Inf,
                           sigma_clip_inf = 1, tune = "cv", calibration = "classic",
                           local_neighbor = "zero-out", standardize = FALSE, ...) {
  refuse_unknown_args("qda_estimators", ...)
  # (before the checks below assign to them)
  given <- c(epsilon = !missing(epsilon), delta = !missing(delta), clip = !missing(clip),
             sigma_clip_inf = !missing(sigma_clip_inf), tune = !missing(tune), calibration = !missing(calibration),
             local_neighbor = !missing(local_neighbor), standardize = !missing(standardize))
  check_flag(private, "private")
  # every argument is checked, with private = FALSE too (a bad one is not
  # ignored), and what the estimators would refuse on data is refused here
  epsilon <- check_epsilon(epsilon)
  delta <- check_delta(delta)
  clip <- check_clip(clip)
  local_neighbor <- check_choice(local_neighbor, c("zero-out", "replace-one"), "local_neighbor")
  calibration <- check_choice(calibration, c("analytic", "classic"), "calibration")
  check_flag(standardize, "standardize")
  tune <- as_threshold_tune(tune)
  # arguments that do not apply are refused, not dropped: the private
  # estimators' settings when there are none (said before any check of how
  # they combine, which would blame a setting that does nothing), and
  # sigma_clip_inf (the noise's bound when clip = Inf) with a finite clip
  if (!private && any(given)) {
    a <- names(given)[given][1L]
    abort("`%s` applies to the private estimators, and `private` = FALSE gives only the sample covariance.", a, .arg = a)
  }
  if (calibration == "classic") check_epsilon(epsilon, 1, "the classic calibration")
  if (is.finite(clip) && given[["sigma_clip_inf"]]) {
    abort("`sigma_clip_inf` applies only with `clip` = Inf; with a finite clip the noise is calibrated to it.",
          .arg = "sigma_clip_inf")
  }
  if (is.finite(clip)) sigma_clip_inf <- NULL else sigma_clip_inf <- check_clip(sigma_clip_inf, "sigma_clip_inf")
  out <- list(sample = function(x, group) pooled_cov(x, group))
  if (!private) return(out)
  make <- function(variant, model) {
    force(variant)
    force(model)
    function(x, group) {
      r <- center_by_group(x, group)
      sds <- if (standardize) sqrt(colSums(r^2) / (nrow(r) - nlevels(group))) else rep(1, ncol(r))
      rel <- dp_threshold(sweep(r, 2, sds, "/"), epsilon = epsilon, delta = delta, clip = clip,
                          variant = variant, model = model, tune = tune,
                          neighbor = if (model == "local") local_neighbor else NULL,
                          calibration = calibration, sigma_clip_inf = sigma_clip_inf)
      rel <- void_guarantee(rel, "the rows were centred at their exact (non-private) class means")
      if (!standardize) return(rel)
      # back on the data scale: a matrix scaled by the exact sds, labelled as
      # such (not a release)
      structure(as.matrix(rel) * tcrossprod(sds), threshold = rel$params$threshold,
                nonprivate_why = paste0("thresholded with privacy noise, but on columns scaled by their exact ",
                                        "(non-private) standard deviations, and back"),
                class = "dp_nonprivate")
    }
  }
  c(out, list(modified_dp = make("modified", "central"), wang_xu_dp = make("wang_xu", "central"),
              modified_ldp = make("modified", "local"), wang_xu_ldp = make("wang_xu", "local")))
}
