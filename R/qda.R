# Discriminant analysis with a plug-in common covariance: the classifier of the
# microbiome study (Section 4.2 of the modified-thresholding paper), where the
# covariance may come from any estimator, private or not.

#' Discriminant analysis with a plug-in covariance
#'
#' Fits the classifier of the paper's microbiome study: class means
#' \eqn{\hat\mu_k} and priors \eqn{\hat\pi_k = n_k / n} from the training
#' data, and a common covariance \eqn{\hat\Sigma} taken from any estimator.
#' A new observation \eqn{y} is scored by
#' \deqn{\delta_k(y) = -\frac12 \log\det\hat\Sigma - \frac12 (y - \hat\mu_k)^T
#'   \hat\Sigma^{-1} (y - \hat\mu_k) + \log\hat\pi_k}
#' and assigned to the class with the largest score. The paper calls this
#' QDA; with one covariance shared by the classes the rule is linear in y,
#' and with the pooled sample covariance it is Fisher's LDA (it classifies as
#' [MASS::lda()]).
#'
#' **Singular estimates.** Thresholded estimates projected to the PSD cone
#' can have zero eigenvalues, and a near-singular estimate puts enormous
#' weight on directions it barely measured. Eigenvalues at most
#' `tol` times the largest count as zero. With `singular = "pinv"` (default)
#' those directions are dropped: \eqn{\hat\Sigma^{-1}} is the Moore-Penrose
#' inverse and \eqn{\log\det} the log pseudo-determinant, so the rule
#' classifies within the range of the estimate, where it carries information.
#' With `singular = "floor"` they are raised to `tol` times the largest
#' eigenvalue (a ridge on the null space; use a larger `tol`, e.g. 0.01, for
#' this to be a useful regulariser). An estimate with no positive
#' eigenvalue (thresholding can remove every entry) carries no information on
#' any direction: under either rule the classifier then uses the priors alone
#' (everyone is put in the largest class). Either way the means and priors are
#' computed without noise: only the covariance is private, as in the paper,
#' so the fitted classifier as a whole is not a private release.
#'
#' **Releases.** A `dp_release` given as `cov` is used on the scale of a
#' covariance, read from its [`scale`][dp_scales]:
#' * `"covariance"` ([dp_cov()], or any release converted by [dp_as_cov()]):
#'   as is;
#' * `"average"` (\eqn{A^TA/n}, e.g. [dp_threshold()]), and `"sum"`,
#'   `"sum + ridge"` and `"posterior sample"` ([analyze_gauss()],
#'   [jl_ridge()], [wishart_noise()], [iwishart_posterior()], ...): converted
#'   to \eqn{A^TA/n} as [dp_as_cov()] does (the public ridge removed, a
#'   posterior draw rescaled, a sum divided by the public n). A sum released
#'   without n (add/remove neighbours) cannot be divided by n and is refused
#'   (release it with n public, e.g. `neighbor = "replace-one"`, or use
#'   [dp_cov()]). An uncentred second moment is the covariance only of rows that
#'   were centred before the release: give the mechanism the training rows
#'   centred at their class means, as [qda_estimators()] does (its second
#'   moment then estimates the common covariance);
#' * `"correlation"` (no variances) and `"compressed rows"` (not a second
#'   moment) are refused.
#'
#' @param x Training data: numeric matrix or data frame, rows are subjects.
#' @param group Class labels, one per row (factor, or coerced to one).
#' @param cov The common covariance: `"pooled"` (the pooled within-class
#'   sample covariance, divisor n - K, see [pooled_cov()]), a p x p numeric
#'   matrix (also one of class `dp_nonprivate`, as [qda_estimators()] returns
#'   with `standardize = TRUE`, a [pooled_cov()], or a [compressed_cov()]:
#'   an uncentred second moment, in normalised units unless the rows were
#'   compressed with `normalize = FALSE`, so the covariance only of rows
#'   centred before compression), a `dp_release` that
#'   estimates a covariance (see **Releases**), or a function
#'   `function(x, group)` returning either. When both the covariance (the
#'   matrix, or the release's estimate) and `x` have names, they are matched
#'   by name: the covariance is put in the order of `x`'s columns, and names
#'   that differ from `x`'s are an error. When either is unnamed, the
#'   covariance is taken by position.
#' @param singular `"pinv"` or `"floor"`: the rule for (near-)zero
#'   eigenvalues (see Details).
#' @param tol Relative eigenvalue tolerance for the singular rule.
#' @return An object of class `qda_plugin` with `means` (K x p), `priors`,
#'   `cov` (the plug-in estimate), `rank` (eigenvalues kept or floored),
#'   `levels`, `singular`, `tol`, and the internal `scaling` (p x r, with
#'   \eqn{\hat\Sigma^{+} = W W^T}) and `logdet`.
#' @seealso [predict.qda_plugin()], [qda_study()]
#' @examples
#' fit <- qda_plugin(iris[, 1:4], iris$Species)
#' table(predict(fit, iris[, 1:4]), iris$Species)
#' # with a fixed (here: diagonal) plug-in covariance
#' fit_diag <- qda_plugin(iris[, 1:4], iris$Species,
#'                        cov = function(x, g) diag(diag(pooled_cov(x, g))))
#' mean(predict(fit_diag, iris[, 1:4]) == iris$Species)
#' @template ref-combo
#' @template param-dots-none
#' @export
qda_plugin <- function(x, group, cov = "pooled", singular = "pinv",
                       tol = sqrt(.Machine$double.eps), ...) {
  refuse_unknown_args("qda_plugin", ...)
  if (missing(x)) abort_missing("x")
  call <- match.call()
  refuse_summary_source(x, "qda_plugin()", "the rows with their class labels", "pass the data matrix.")
  x <- check_data_matrix(x, min_rows = 2L, unique_names = FALSE)
  check_cells(as.double(ncol(x))^2, "the p x p plug-in covariance", "x")
  group <- check_group(group, nrow(x))
  singular <- check_choice(singular, c("pinv", "floor"), "singular")
  tol <- check_number(tol, "tol", lower = 0, upper = 1)
  check_no_overflow(x, "x")
  check_no_underflow(x, "x")
  sigma <- resolve_plugin_cov(cov, x, group)
  p <- ncol(x)
  if (!identical(dim(sigma), c(p, p))) {
    abort("the plug-in covariance `cov` must be %d x %d (the columns of `x`); it is %s.",
          p, p, paste(dim(sigma), collapse = " x "), .arg = "cov")
  }
  # a named covariance (a matrix or a release of other data frames) is put
  # in the order of x's columns; by position it would pair the wrong variables
  sigma <- align_square(sigma, colnames(x), "cov", "`x`")
  means <- do.call(rbind, lapply(split(seq_len(nrow(x)), group),
                                 function(i) colMeans(x[i, , drop = FALSE])))
  colnames(means) <- colnames(x)
  priors <- as.numeric(table(group)) / length(group)
  names(priors) <- levels(group)
  inv <- plugin_inverse(sigma, singular, tol)
  if (inv$rank == 0L) {
    # (a release thresholded or projected to 0 gives one: a noise outcome)
    warn("qda_plugin(): the plug-in covariance `cov` has no positive eigenvalue, so the classifier ignores the features and predicts every row's class from the priors alone.",
         .class = "dpcov_noise_warning")
  }
  # the rows of `scaling` named by the columns, so a hand-edited `means` in
  # another order is refused, not paired with the wrong variables
  rownames(inv$scaling) <- colnames(x)
  structure(list(means = means, priors = priors, cov = sigma, scaling = inv$scaling,
                 logdet = inv$logdet, rank = inv$rank, levels = levels(group),
                 singular = singular, tol = tol, call = release_call(call, c("x", "group", "cov"))),
            class = c("qda_plugin", "dp_nonprivate"))
}

resolve_plugin_cov <- function(cov, x, group) {
  if (is.function(cov)) {
    cov <- call_user(cov, list(x, group), "cov", "the covariance function")
    # (its value is checked below as a matrix or release: a string from it
    # was reported as if `cov` itself were a misspelled choice)
    if (is.character(cov)) {
      abort("`cov`: the covariance function returned text, not a p x p matrix or a release.", .arg = "cov")
    }
  }
  if (is.character(cov)) {
    cov <- check_choice(cov, "pooled", "cov")
    return(as.matrix(pooled_cov(x, group)))
  }
  if (inherits(cov, "dp_release")) cov <- release_plugin_cov(cov)
  # a matrix labelled non-private (qda_estimators(standardize = TRUE) returns
  # one: the release scaled back by the exact sds; pooled_cov() and
  # compressed_cov() others, as is `compressed_cov(r) + 0`) is a matrix; the
  # fit is labelled non-private in any case
  if (is_nonprivate_matrix(cov)) {
    cov <- matrix(unclass(cov), nrow(cov), ncol(cov), dimnames = dimnames(cov))
  }
  if (!is.matrix(cov) || !is.numeric(cov) || is.object(cov)) {
    abort("`cov` must be \"pooled\", a numeric matrix, a dp_release or a function returning one; it is %s.",
          if (is.object(cov)) sprintf("an object of class %s", paste(class(cov), collapse = "/")) else typeof(cov),
          .arg = "cov")
  }
  if (anyNA(cov) || any(!is.finite(cov))) abort("the plug-in covariance `cov` contains NA, NaN or infinite values.", .arg = "cov")
  check_no_overflow(cov, "cov")
  if (nrow(cov) == ncol(cov) && max(abs(cov - t(cov))) > 1e-8 * max(1, max(abs(cov)))) {
    abort("the plug-in covariance `cov` must be symmetric.", .arg = "cov")
  }
  storage.mode(cov) <- "double"
  cov
}

# A numeric matrix labelled only as non-private: class "dp_nonprivate"
# alone, or a pooled_cov() or compressed_cov() result (the labelled
# covariances the package makes; their arithmetic gives the first kind).
is_nonprivate_matrix <- function(m) {
  is.matrix(m) && is.numeric(m) && inherits(m, "dp_nonprivate") &&
    all(class(m) %in% c("pooled_cov", "compressed_cov", "dp_nonprivate", "matrix", "array"))
}

# A release given as the plug-in covariance, on the covariance scale (see
# ?qda_plugin, "Releases"): as.matrix() alone would plug in n x the
# covariance for a sum, or add a ridge.
release_plugin_cov <- function(release) {
  check_release(release, "cov")
  check_guarantee_numbers(release, "cov")
  sc <- release$scale
  if (sc == "covariance") return(release$estimate)
  if (sc %in% c("correlation", "compressed rows")) {
    abort("`cov` is a release of %s, not a covariance: %s",
          if (sc == "correlation") "a correlation matrix" else "compressed rows",
          if (sc == "correlation") "its variances are not in it." else "use a second-moment release, or compressed_cov() of it as a matrix.",
          .arg = "cov")
  }
  if (sc != "average" && is.na(release$n)) {
    abort("`cov` estimates a sum (scale \"%s\") and does not release n (add/remove neighbours), so it cannot be put on the covariance scale; release under neighbor = \"replace-one\" (n public) or use dp_cov().",
          sc, .arg = "cov")
  }
  if (sc == "posterior sample" && !(release$params$df > release$p + 1)) {
    abort("`cov` is an inverse-Wishart draw with df = %s <= p + 1: its mean is not finite, so it does not estimate a covariance.",
          format(release$params$df), .arg = "cov")
  }
  # the rows a qda estimator is given are centred (at their class means), so
  # an uncentred second moment is theirs: centre at 0
  center <- if (isTRUE(release$centred)) NULL else rep(0, release$p)
  with_arg(dp_as_cov(release, "covariance", center = center), "cov")$estimate
}

# W with Sigma^+ = W W^T under the singular rule; log (pseudo-)determinant.
plugin_inverse <- function(sigma, singular, tol) {
  e <- eigen(symmetric_part(sigma), symmetric = TRUE)
  top <- max(e$values)
  small <- if (top > 0) e$values <= tol * top else rep(TRUE, length(e$values))
  values <- e$values
  vectors <- e$vectors
  if (singular == "pinv" || !(top > 0)) {
    values <- values[!small]
    vectors <- vectors[, !small, drop = FALSE]
  } else {
    values[small] <- tol * top
  }
  list(scaling = sweep(vectors, 2, sqrt(values), "/"), logdet = sum(log(values)),
       rank = length(values), n_small = sum(small))
}

# A fit given as input (hand-made ones included): the fields predict() and
# print() read, with consistent shapes.
check_qda_plugin <- function(x, arg = "x") {
  check_object(x, "qda_plugin", list(
    means = is_finite_matrix, levels = function(v) is.character(v) && length(v) >= 1L && !anyNA(v) && !anyDuplicated(v),
    priors = function(v) is_finite_num(v) && all(v > 0 & v <= 1),
    scaling = function(v) is.matrix(v) && is.numeric(v) && all(is.finite(v)), logdet = is_num1,
    rank = function(v) is_whole1(v), singular = function(v) is_string(v) && v %in% c("pinv", "floor")), arg)
  K <- length(x$levels)
  if (nrow(x$means) != K || length(x$priors) != K || nrow(x$scaling) != ncol(x$means) ||
      ncol(x$scaling) != x$rank || !same_names(rownames(x$scaling), colnames(x$means))) {
    abort("`%s` is not a valid qda_plugin object: its means, priors, levels and scaling do not fit together.", arg, .arg = arg)
  }
  invisible(x)
}

#' Pooled within-class sample covariance
#'
#' \eqn{\sum_k \sum_{i \in k} (x_i - \bar x_k)(x_i - \bar x_k)^T / (n - K)},
#' the covariance of Fisher's LDA and of [MASS::lda()]. Not private: an
#' exact statistic of the data, so it is labelled non-private (class
#' `dp_nonprivate`) and `print` says so first. [as.matrix()] gives the plain
#' matrix; [qda_plugin()], [cov_error()] and [subspace_distance()] take it
#' as it is.
#'
#' @inheritParams qda_plugin
#' @return The p x p matrix, named by the columns of `x`, of class
#'   `c("pooled_cov", "dp_nonprivate", "matrix", "array")` (base matrix
#'   functions such as [det()] apply).
#' @examples
#' pooled_cov(iris[, 1:4], iris$Species)
#' @template ref-combo
#' @export
pooled_cov <- function(x, group, ...) {
  refuse_unknown_args("pooled_cov", ...)
  if (missing(x)) abort_missing("x")
  refuse_summary_source(x, "pooled_cov()", "the rows with their class labels", "pass the data matrix.")
  x <- check_data_matrix(x, min_rows = 2L, unique_names = FALSE)
  check_cells(as.double(ncol(x))^2, "the p x p pooled covariance", "x")
  check_no_overflow(x, "x")
  check_no_underflow(x, "x")
  group <- check_group(group, nrow(x))
  if (nrow(x) <= nlevels(group)) abort("the pooled covariance needs more rows than classes in `group`.", .arg = "group")
  structure(crossprod(center_by_group(x, group)) / (nrow(x) - nlevels(group)),
            class = c("pooled_cov", "dp_nonprivate", "matrix", "array"))
}

#' @rdname pooled_cov
#' @param digits Significant digits (print).
#' @param ... Passed to [print()] of the matrix (print); unused (as.matrix);
#'   `pooled_cov()`: nothing (an argument it does not take is an error).
#' @export
print.pooled_cov <- function(x, digits = 4, ...) {
  m <- as.matrix(x)
  digits <- check_digits(digits)
  nonprivate_banner(x, "the pooled within-class sample covariance, an exact statistic of the data")
  print(signif(m, digits), ...)
  invisible(x)
}

#' @rdname pooled_cov
#' @export
as.matrix.pooled_cov <- function(x, ...) {
  check_labelled_cov(x, "pooled_cov")
  matrix(unclass(x), nrow(x), ncol(x), dimnames = dimnames(x))
}

#' @rdname pooled_cov
#' @param e1,e2 Operands of arithmetic (`Ops`): the result is a plain matrix
#'   labelled non-private (`dp_nonprivate`), no longer the pooled covariance;
#'   so for `Math` functions (`log(x)`).
#' @export
Ops.pooled_cov <- Ops.compressed_cov

#' @rdname pooled_cov
#' @export
Math.pooled_cov <- Math.compressed_cov

#' @rdname pooled_cov
#' @param value Replacement values (`x[i, j] <- value`, `x[[i]] <- value`,
#'   `dim(x) <- value`): the result is a plain matrix labelled non-private,
#'   no longer the pooled covariance. So is [stats::cov2cor()]'s, which
#'   assigns into its argument. `dimnames(x) <- value` keeps the class when
#'   the rows and columns get the same names, and otherwise gives the plain
#'   labelled matrix too. (`storage.mode<-` and `mode<-` are not generic, so
#'   they cannot be caught: use [as.matrix()] first.)
#' @export
`[<-.pooled_cov` <- `[<-.compressed_cov`

#' @rdname pooled_cov
#' @export
`[[<-.pooled_cov` <- `[[<-.compressed_cov`

#' @rdname pooled_cov
#' @export
`dim<-.pooled_cov` <- `dim<-.compressed_cov`

#' @rdname pooled_cov
#' @export
`dimnames<-.pooled_cov` <- `dimnames<-.compressed_cov`

# Subtract each row's class mean (the residuals whose second moment is the
# pooled covariance; what a private covariance estimator is given).
center_by_group <- function(x, group) {
  for (i in split(seq_len(nrow(x)), group)) {
    x[i, ] <- sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))
  }
  x
}

#' Predict with a plug-in discriminant
#'
#' @param object A [qda_plugin()] fit.
#' @param newdata Numeric matrix or data frame with the training columns
#'   (required: the fit keeps no rows); a row with a missing value predicts
#'   `NA`, as [MASS::predict.lda()] does.
#'   When the training data had column names they are matched by name (in
#'   any order, extra columns ignored); a missing column, or `newdata`
#'   without names, is an error. Only a classifier trained on unnamed columns
#'   matches them by position, and then `newdata` must have exactly as many
#'   columns.
#' @param type `"class"` (factor of predicted classes), `"score"` (matrix of
#'   the scores \eqn{\delta_k}, one column per class) or `"posterior"`
#'   (class probabilities, the softmax of the scores).
#' @param ... Unused.
#' @return See `type`.
#' @examples
#' fit <- qda_plugin(iris[, 1:4], iris$Species)
#' head(predict(fit, iris[, 1:4], type = "posterior"))
#' @export
predict.qda_plugin <- function(object, newdata, type = "class", ...) {
  check_qda_plugin(object, "object")
  # (MASS's `prior =` or a misspelled `type` must not be ignored silently)
  check_method_dots(...)
  type <- check_choice(type, c("class", "score", "posterior"), "type")
  if (missing(newdata)) {
    abort("`newdata` is required: a qda_plugin keeps no rows of its own (predict.lda() falls back to the training data; here they may be private).",
          .arg = "newdata")
  }
  # a row with a missing value predicts NA (class, scores, posterior), as
  # predict.lda() does; an infinite value is refused
  newdata <- check_data_matrix(named_columns(newdata, colnames(object$means)), arg = "newdata", unique_names = FALSE,
                               na_ok = TRUE)
  check_no_overflow(newdata[stats::complete.cases(newdata), , drop = FALSE], "newdata")
  newdata <- qda_newdata_columns(newdata, colnames(object$means), ncol(object$means))
  storage.mode(newdata) <- "double"
  scores <- vapply(seq_along(object$levels), function(k) {
    z <- sweep(newdata, 2, object$means[k, ]) %*% object$scaling
    -0.5 * object$logdet - 0.5 * rowSums(z^2) + log(object$priors[[k]])
  }, numeric(nrow(newdata)))
  scores <- matrix(scores, nrow(newdata), dimnames = list(rownames(newdata), object$levels))
  # a score that overflowed (-Inf, or NaN from Inf - Inf) would make every
  # posterior NaN and every class the first: refused, not predicted
  # (a row with one finite score and -Inf for the others has a posterior: 1 there)
  sc_ok <- scores[stats::complete.cases(newdata), , drop = FALSE]
  if (any(is.nan(sc_ok) | sc_ok == Inf) || any(rowSums(is.finite(sc_ok)) == 0L)) {
    abort("`object`'s scores are not finite numbers on `newdata`: a row's distance to a class mean overflows on the scale of the plug-in covariance (its smallest variances are tiny next to the data's spread, or the fit's means or scaling are too large); rescale the data and the covariance together.",
          .arg = "object")
  }
  switch(type,
         score = scores,
         posterior = {
           e <- exp(scores - apply(scores, 1, max))
           e / rowSums(e)
         },
         class = factor(object$levels[max.col(scores, ties.method = "first")], levels = object$levels))
}

# newdata's columns in the order of the training columns: by name when the
# fit has names (a renamed or missing column is an error, never a silent
# positional match), by position only when it has none.
qda_newdata_columns <- function(newdata, train_names, p) {
  have <- colnames(newdata)
  if (is.null(train_names)) {
    if (ncol(newdata) != p) {
      abort("`newdata` must have the %d columns the classifier was trained on (unnamed, so matched by position); it has %d.",
            p, ncol(newdata), .arg = "newdata")
    }
    return(newdata)
  }
  named <- names_identify(train_names)
  if (!named) {
    # names that cannot identify the columns: only the same names in the same order
    if (!identical(have, train_names)) {
      abort("`newdata` must have the training columns' names in the same order (%s): the classifier's column names are missing or duplicated, so they cannot be matched by name.",
            paste(ifelse(is.na(train_names), "NA", train_names), collapse = ", "), .arg = "newdata")
    }
    return(newdata)
  }
  if (is.null(have)) {
    abort("`newdata` has no column names; the classifier was trained on the named columns %s: name newdata's columns (they are matched by name, not by position).",
          paste(train_names, collapse = ", "), .arg = "newdata")
  }
  missing <- setdiff(train_names, have)
  if (length(missing)) {
    abort("`newdata` lacks the column(s) %s the classifier was trained on (columns are matched by name).",
          paste(missing, collapse = ", "), .arg = "newdata")
  }
  twice <- intersect(train_names, have[duplicated(have)])
  if (length(twice)) {
    abort("`newdata` has more than one column named %s: the columns cannot be matched by name.",
          paste(twice, collapse = ", "), .arg = "newdata")
  }
  newdata[, train_names, drop = FALSE]
}

#' @export
print.qda_plugin <- function(x, ...) {
  check_qda_plugin(x)
  nonprivate_banner(x, "class means and priors are exact statistics of the training data")
  cat(sprintf("<qda_plugin> %d classes, p = %d, common covariance of rank %d (%s rule)\n",
              length(x$levels), ncol(x$means), x$rank, x$singular))
  cat("Priors:", paste(sprintf("%s %.3f", x$levels, x$priors), collapse = ", "), "\n")
  if (x$rank == 0L) cat("The plug-in covariance has no positive eigenvalue: every row is classed by the priors alone.\n")
  cat("Class means and priors are computed without noise; only the plug-in covariance may be private.\n")
  invisible(x)
}
