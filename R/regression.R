# Linear regression from a released second-moment matrix (Sheffet, Sections
# 3-6): any column as the label, any subset of the others as features.

#' Least squares from a released second-moment matrix
#'
#' Given a (private) estimate M of \eqn{A^TA} for data A with columns
#' \eqn{[X, y, \ldots]}, returns
#' \eqn{\tilde\beta = \arg\min_{\beta: \beta_y = -1} \beta^T M \beta} over the
#' chosen columns, i.e. `solve(M[X, X], M[X, y])`: the ordinary least-squares
#' coefficients when M is the exact Gram matrix. A release whose estimate
#' carries a public ridge (\eqn{E M = A^TA + w I}: [jl_ridge()],
#' [jl_adaptive()], [wishart_noise()] without the full shift) or is an
#' inverse-Wishart posterior draw ([iwishart_posterior()],
#' [iwishart_adaptive()], whose prior adds \eqn{\psi I}) is first converted
#' to its estimate of \eqn{A^TA} (`ridge = "remove"`, the default): solved
#' as released, the ridge shrinks every coefficient towards zero, by a factor
#' of 2 to 15 at \eqn{n = 10^5} for the inverse-Wishart posterior.
#' `ridge = "keep"` solves the release as it is, which is Sheffet's
#' estimator (a ridge regression for Algorithm 1) and what the paper's
#' figures show. Where the noise swamps the features, [dp_lm()]'s
#' noise-calibrated ridge and intervals are the better tool. Any column can be the label
#' and any subset of the others the features, so one release answers any
#' number of regressions (Sheffet, Section 6.2); regressions are
#' post-processing and cost no further privacy.
#'
#' An intercept needs a column of ones in the released data (as in the
#' paper's experiments); name it in `intercept` and it is fitted and
#' reported first as `"(Intercept)"`. With exact statistics
#' ([second_moment()]) a column that is not one of ones is refused; a
#' release's entries are noisy and a bare matrix carries no n, so there the
#' name is taken as given.
#'
#' [analyze_gauss()] with `post = "shift"` records its shift as the
#' release's ridge: `ridge = "remove"` solves the unshifted release (which
#' need not be positive definite), `"keep"` the shifted one. Whenever the
#' solved features' block of a private release is not positive definite
#' (the noise swamps it), a `dpcov_noise_warning` says so.
#'
#' A features' block that is singular (collinear features, or noise) gives
#' the minimum-norm least-squares coefficients, with a warning, not an
#' error: the eigen-directions of the block below a relative tolerance are
#' dropped. A block of zeros gives zero coefficients.
#'
#' @param release A `dp_release` whose estimate is a square second-moment
#'   matrix (e.g. from [analyze_gauss()], [jl_ridge()], [wishart_noise()],
#'   [iwishart_posterior()]), a [second_moment()] object (exact, non-private:
#'   ordinary least squares), or a symmetric numeric matrix.
#' @param response The label column: a name or an index.
#' @param features Feature columns (names or indices), excluding the
#'   intercept column. Default: every column except `response` and `intercept`.
#' @param intercept `NULL` (no intercept) or the name or index of the column
#'   of ones.
#' @param ridge `"remove"` (default) or `"keep"`: whether a release's public
#'   ridge (its `ridge`, printed on its *Estimates* line) is subtracted, and
#'   an inverse-Wishart draw rescaled, before solving (see Description). Only
#'   for a `dp_release`: a [second_moment()] object or a bare matrix has no
#'   ridge, is solved as given, and `ridge` given with it is refused.
#' @return A named numeric vector of coefficients. From a release with a
#'   formal guarantee it is a plain numeric vector (post-processing of the
#'   release). From exact statistics (a [second_moment()] object) or a
#'   release without a formal guarantee ([has_guarantee()] `FALSE`, e.g.
#'   `clip = Inf`) the coefficients are not private (exact from exact
#'   statistics; noisy but without a guarantee otherwise) and carry class
#'   `c("dp_coefficients", "dp_nonprivate", "numeric")`: printing says so, arithmetic
#'   works as on the numbers (`as.vector()` drops the label). A bare matrix
#'   is the caller's own and is returned unlabelled.
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(60000), 20000, 3, dimnames = list(NULL, c("a", "b", "c")))
#' y <- drop(X %*% c(1, -1, 0.5)) + 2 + rnorm(20000, sd = 0.5)
#' A <- cbind(X, one = 1, y = y)
#' # exact statistics: the lm() coefficients
#' dp_regression(second_moment(A), "y", intercept = "one")
#' coef(lm(y ~ X))
#' # from a private release: its public ridge removed, or kept (Sheffet's estimator)
#' rel <- wishart_noise(A, epsilon = 0.5, delta = 1e-4, clip = 10)
#' dp_regression(rel, "y", features = c("a", "b"), intercept = "one")
#' dp_regression(rel, "y", features = c("a", "b"), intercept = "one", ridge = "keep")
#' @template ref-sheffet
#' @template param-dots-none
#' @export
dp_regression <- function(release, response, features = NULL, intercept = NULL, ridge = "remove", ...) {
  refuse_unknown_args("dp_regression", ...)
  if (missing(release)) abort_missing("release")
  if (missing(response)) abort_missing("response")
  ridge_given <- !missing(ridge)
  ridge <- check_choice(ridge, c("remove", "keep"), "ridge")
  if (ridge_given && !inherits(release, "dp_release")) {
    abort("`ridge` applies to a dp_release (its public ridge); %s has none.",
          if (inherits(release, "dp_suffstat")) "a second_moment() object" else "a bare matrix", .arg = "ridge")
  }
  M <- regression_matrix(release, remove_ridge = ridge == "remove")
  removed <- attr(M, "ridge_removed")
  d <- nrow(M)
  y <- release_column_index(response, M, "response")
  if (length(y) != 1L) abort("`response` must name exactly one column.", .arg = "response")
  icpt <- if (is.null(intercept) || isFALSE(intercept)) integer(0) else release_column_index(intercept, M, "intercept")
  if (length(icpt) > 1L) abort("`intercept` must name one column (the column of ones).", .arg = "intercept")
  if (length(icpt) && icpt == y) abort("the `intercept` column cannot also be the `response`.", .arg = "intercept")
  if (length(icpt)) check_intercept_column(release, M, icpt)
  # (a centred release's column named as the ones was fitted as one, its slope
  # relabelled "(Intercept)")
  if (length(icpt) && inherits(release, "dp_release") && isTRUE(release$centred)) {
    abort("`intercept`: the release is centred (%s), so none of its columns is a column of ones; give intercept = NULL (its slopes are those of the model with an intercept).",
          release$scale, .arg = "intercept")
  }
  if (is.null(features)) {
    feat <- setdiff(seq_len(d), c(y, icpt))
  } else {
    feat <- release_column_index(features, M, "features")
    if (anyDuplicated(feat)) abort("`features` contains duplicated columns.", .arg = "features")
    if (y %in% feat) abort("`features` must not contain the response column.", .arg = "features")
    feat <- setdiff(feat, icpt)
  }
  cols <- c(icpt, feat)
  if (!length(cols)) abort("no feature columns: give `features` or `intercept`.", .arg = "features")
  # noise can leave the features' block indefinite (with a public ridge
  # removed, or a release without one, e.g. Analyze Gauss's "sum"): then the
  # coefficients are noise, and the fit says so (post-processing). Exact
  # statistics and bare matrices have no noise to blame.
  if (is_noisy_release(release) && !isFALSE(getOption("dpcov.noise_warning"))) {
    ev <- eigen(symmetric_part(M[cols, cols, drop = FALSE]), symmetric = TRUE, only.values = TRUE)$values
    # singular up to rounding counts (a PSD-projected release's null
    # directions come out at +/- 1e-16 relative, and the sign decided)
    if (!(min(ev) > 1e-10 * max(abs(ev)))) {
      warn(paste0("dp_regression(): ", if (removed) "with the release's public ridge removed (ridge = \"remove\"), ",
                  "its estimate of the features' second moments is not positive definite: the noise swamps them, and the ",
                  "coefficients are mostly noise; dp_lm() gives intervals (and regularises by the noise on Analyze Gauss releases)",
                  if (removed) ", ridge = \"keep\" solves the release as it is", ", or give more budget."),
           .class = "dpcov_noise_warning")
    }
  }
  # solved on standardised features (lm_standardize()), mapped back
  idx <- c(cols, y)
  q <- length(idx)
  one <- length(icpt) > 0L
  fit_idx <- seq_along(cols)
  S <- M[idx, idx, drop = FALSE]
  st <- lm_standardize(S, setdiff(fit_idx, 1L[one]), one, one)
  beta <- st$coef(lm_solve(st$forward(S), fit_idx, q, tol_dim = d, n = if (one) S[1L, 1L] else NA_real_,
                           singular_where = ""), fit_idx)
  nm <- colnames(M)
  labels <- if (is.null(nm)) paste0("V", cols) else nm[cols]
  if (length(icpt)) labels[1L] <- "(Intercept)"
  beta <- stats::setNames(as.numeric(beta), labels)
  # exact statistics, or a release without a guarantee: coefficients
  # labelled as every non-private result is (a bare matrix is the caller's own)
  why <- regression_nonprivate_why(release)
  if (is.null(why)) return(beta)
  structure(beta, why = why, class = c("dp_coefficients", "dp_nonprivate", "numeric"))  # "numeric": data.frame() etc.
}

# A private release, whose entries carry noise (not exact statistics, a
# release without a guarantee, or a bare matrix).
is_noisy_release <- function(release) {
  inherits(release, "dp_release") && !inherits(release, "dp_nonprivate") && release_has_guarantee(release)
}

# Why coefficients from `release` are not private (NULL when they are, or
# when the input is a bare matrix whose origin is the caller's to know).
regression_nonprivate_why <- function(release) {
  if (inherits(release, "dp_suffstat")) return("exact least squares from second_moment()'s statistics, without privacy noise")
  if (inherits(release, "dp_release") && (inherits(release, "dp_nonprivate") || !release_has_guarantee(release))) {
    return("coefficients from a release without a formal guarantee (see its Guarantee)")
  }
  if (inherits(release, "dp_release") && is.na(release_guarantee_state(release))) {
    return(paste0("coefficients from ", centred_numbers_words))
  }
  NULL
}

#' @export
print.dp_coefficients <- function(x, ...) {
  v <- unclass(x)
  if (!is.double(v) || !is.null(dim(v))) abort("`x` is not a valid dp_coefficients object: it must be a numeric vector.", .arg = "x")
  why <- attr(x, "why", exact = TRUE)
  nonprivate_banner(x, if (is_string(why)) why)
  print(stats::setNames(as.vector(v), names(v)), ...)
  invisible(x)
}

# Compressed rows (m x p, square when m = p) are data, not a second moment.
refuse_compressed_rows <- function(x, arg, instead = "fit with compressed_lm()") {
  if (inherits(x, "dp_compress")) {
    abort("`%s` holds compressed rows (dp_compress()), not a second-moment matrix; %s.", arg, instead, .arg = arg)
  }
}

# The matrix dp_regression() solves, its attribute `ridge_removed` TRUE where
# a release's public ridge was taken out (always set here, whatever the input
# carried).
regression_matrix <- function(release, remove_ridge = FALSE) {
  removed <- FALSE
  M <- if (inherits(release, "dp_release")) {
    refuse_compressed_rows(release, "release")
    rel <- check_release(release, "release", square = TRUE)
    check_guarantee_numbers(rel, "release")
    # a correlation has lost the variances: its "coefficients" are standardised
    # ones, which under the variables' names read as slopes in their units
    if (identical(rel$scale, "correlation")) {
      abort("`release` is a correlation matrix: the variances are gone, so slopes in the data's units are not identified; release a covariance or a second moment.",
            .arg = "release")
    }
    # the estimate of A'A: the public ridge subtracted, an inverse-Wishart
    # draw rescaled (a sum or an average solves the same as released)
    if (remove_ridge && rel$scale %in% c("sum + ridge", "posterior sample")) {
      removed <- TRUE
      release_sum(rel)
    } else {
      rel$estimate
    }
  } else if (inherits(release, "dp_suffstat")) {
    suffstat_gram(check_suffstat(release, "release"))
  } else {
    release
  }
  if (!is.matrix(M) || !is.numeric(M) || is.object(M) || nrow(M) != ncol(M)) {
    abort("`release` must be a dp_release of a second-moment matrix, a second_moment() object, or a square numeric matrix.",
          .arg = "release")
  }
  if (anyNA(M) || any(!is.finite(M))) abort("`release`: the released matrix contains NA or infinite values.", .arg = "release")
  if (max(abs(M - t(M))) > 1e-8 * max(1, max(abs(M)))) abort("`release` must be a symmetric matrix.", .arg = "release")
  storage.mode(M) <- "double"
  if (nrow(M) < 2L) abort("the released matrix must have at least 2 columns (a feature and a label).", .arg = "release")
  attr(M, "ridge_removed") <- removed
  M
}

#' Exact statistics show whether `intercept` names a column of ones: its
#' values and squares sum to n, or with rows shrunk by the clip (each by a
#' factor c_i in (0, 1]) satisfy 0 < sum c_i^2 <= sum c_i <= n. A release's
#' entries are noisy and a bare matrix has no n: not checked there.
#' @noRd
check_intercept_column <- function(release, M, j, arg = "intercept") {
  if (!inherits(release, "dp_suffstat") || !is.null(release$bounds)) return(invisible())
  n <- release$n
  g <- M[j, j]
  s <- if (length(release$sum) == nrow(M)) release$sum[j] else NA_real_
  tol <- 1e-9 * max(1, n)
  ok <- if (isTRUE(release$n_clipped == 0)) {
    abs(g - n) <= tol && (is.na(s) || abs(s - n) <= tol)
  } else {
    g > 0 && g <= n + tol && (is.na(s) || (g <= s + tol && s <= n + tol))
  }
  if (!isTRUE(ok)) {
    nm <- colnames(M)
    abort(paste0("`", arg, "`: %s is not a column of ones (its values sum to %s and their squares to %s, over n = %s rows%s); ",
                 "name the column of ones, or give NULL for no intercept."),
          if (is.null(nm)) sprintf("column %d", j) else sprintf("column `%s`", nm[j]), if (is.na(s)) "?" else format(s, digits = 7),
          format(g, digits = 7), format(n), if (isTRUE(release$n_clipped > 0)) ", some shrunk by the clip" else "",
          .arg = arg)
  }
  invisible()
}

release_column_index <- function(cols, M, arg) {
  d <- ncol(M)
  if (is.character(cols)) {
    nm <- colnames(M)
    if (is.null(nm)) abort("`%s` names columns but the released matrix has no column names; use indices.", arg, .arg = arg)
    idx <- match(cols, nm)
    if (anyNA(idx)) abort("`%s`: unknown column(s) %s.", arg, paste0('"', cols[is.na(idx)], '"', collapse = ", "), .arg = arg)
    return(idx)
  }
  if (!is.numeric(cols) || !length(cols) || anyNA(cols) || any(cols != round(cols)) ||
      any(cols < 1) || any(cols > d)) {
    abort("`%s` must be column names or whole-number indices in 1..%d.", arg, d, .arg = arg)
  }
  as.integer(cols)
}

# ---- dp_lm(): regression as a model object ------------------------------------

#' Private linear regression with honest confidence intervals
#'
#' Fits a linear model from a private release of the second moments of
#' \eqn{[X, y]} and returns a model object with the methods of [stats::lm()]:
#' [coef()], [vcov()], [confint()], [predict()], [summary()], [nobs()],
#' [formula()], and `tidy()` / `glance()` (generics). It has two ways in,
#' described under Details.
#'
#' * **Formula** (`dp_lm(y ~ x1 + x2, data, epsilon, delta, clip)`): the design is
#'   built with [stats::model.frame()] and [stats::model.matrix()] (factors
#'   expanded, the intercept a column of ones), the response is bound to it,
#'   and the second moment of \eqn{[X, y]} is released **once** with
#'   `mechanism`; the fit is post-processing of that release, which the
#'   result keeps in `release`. As in [lm()], `.` stands for every column of
#'   `data` but the response's (column names are public schema), and the
#'   fit stores the expanded formula. A logical response is coded 0/1, with
#'   bounds \[0, 1\]. `update(fit, ...)` runs the call again: a new release of
#'   the data, which spends `epsilon` and `delta` again (and charges
#'   `budget` again); to try another model at no further cost, fit it from
#'   the same release, `dp_lm(fit$release, ...)`.
#' * **An existing release** (`dp_lm(release, y ~ x1 + x2)`): label and
#'   features are picked by name from the release's columns, so one release
#'   answers any number of regressions at no further privacy cost (Sheffet,
#'   Section 6.2). Every square release works: [analyze_gauss()],
#'   [wishart_noise()], [jl_ridge()], [jl_adaptive()], [iwishart_posterior()],
#'   [iwishart_adaptive()], [dp_threshold()] and [ldp_aggregate()] averages
#'   (n public), [dp_cov()] covariances (the intercept comes from the private
#'   `center`), and [second_moment()] statistics (exact, **not private**: the
#'   result is labelled `dp_nonprivate`; it equals [stats::lm()]). Formula
#'   terms must be columns of the release (a release has no data to transform);
#'   `.` means every column but the response and the column of ones.
#'
#' **The estimate.** The release is converted to an estimate S of
#' \eqn{A^TA} for \eqn{A = [X, y]} (the public ridge removed, a posterior draw
#' rescaled, an average multiplied by the public n; see [dp_scales]) and
#' \eqn{\hat\beta = S_{XX}^{-1}S_{Xy}}. With the exact Gram matrix this is
#' least squares. ([dp_regression()] gives the same coefficients by default;
#' with `ridge = "keep"` it solves with the released matrix as is: for JL
#' releases a ridge regression, Sheffet's estimator.)
#'
#' **Uncertainty** (`B` draws of a parametric bootstrap, Ferrando, Wang and
#' Sheldon 2022). From S the model is fitted: \eqn{\hat\beta}, the residual
#' variance \eqn{\hat\sigma^2 = (S_{yy} - 2\hat\beta^TS_{Xy} +
#' \hat\beta^TS_{XX}\hat\beta)/(\hat n - k)} and the design block
#' \eqn{G = S_{XX}} (made positive definite). Each draw simulates the
#' sufficient statistics of a data set with that design under the fitted
#' Gaussian model, exactly: \eqn{z \sim N(0, \hat\sigma^2 G)},
#' \eqn{S^*_{Xy} = G\hat\beta + z},
#' \eqn{S^*_{yy} = \hat\beta^TG\hat\beta + 2\hat\beta^Tz + z^TG^{-1}z +
#' \hat\sigma^2\chi^2_{\hat n - k}}; adds a fresh draw of the release's own
#' noise (same sigma, Wishart degrees of freedom, projection rows, prior,
#' threshold, mean-step noise, as its `params` record), converts and refits
#' exactly as for the estimate. The spread of \eqn{\beta^*_b - \hat\beta}
#' stands for the spread of \eqn{\hat\beta - \beta}: sampling error and
#' privacy noise together. [vcov()] is the covariance of the draws;
#' [confint()] gives percentile intervals
#' \eqn{[q_{\alpha/2}, q_{1-\alpha/2}]} of the draws \eqn{\beta^*_b} by default
#' (in the coverage study they were within 93-96% everywhere, while the basic
#' (pivot) intervals over-covered, up to 98%, where the noise dominates).
#' All of it is post-processing of the release (no data, no privacy cost),
#' with R's RNG. Inference is conditional on the design (as for [stats::lm()]).
#' Coverage was measured, not assumed: see the regression vignette.
#'
#' **Shrinkage** (`regularize = "adaptive"`, the default). Where the
#' released second moments of the features are within their noise in some
#' direction (few rows, little budget, correlated features), the inverse in
#' \eqn{S_{XX}^{-1}S_{Xy}} swings the coefficients far off. The default
#' adds a ridge calibrated to the release's noise, AdaSSP's rule (Wang 2018)
#' with the features' smallest eigenvalue read from the release itself (no
#' budget): in coordinates where each feature's diagonal entry has noise sd
#' 1 (the noise of the second-moment mechanism, Analyze Gauss or
#' [dp_cov()]'s Gaussian Gram; the mean step's rank-2 share of the centred
#' block is not counted), the features' centred block is raised to an eigenvalue of at least
#' \eqn{2\sqrt{k}s} (s the largest entry noise sd there; about the
#' operator norm of the noise), i.e. \eqn{\lambda = \max(0, 2\sqrt{k}s -
#' \lambda_{\min})} is added as \eqn{\lambda d_j^2} to feature j's diagonal
#' (\eqn{d_j^2} that entry's noise sd; the intercept is not penalised).
#' Where the release is clear of its noise, \eqn{\lambda = 0} and the fit
#' is least squares; so too where the block is more indefinite than that
#' level (with a `clip`, its centring by a noisy count and large means) and
#' the penalty, raising it to the level, would lengthen the coefficients (in
#' its own, noise-whitened metric) rather than shrink them. It applies to Gaussian releases (Analyze Gauss and
#' [dp_cov()]'s Gaussian second step). The Wishart, JL and posterior
#' releases are converted to S like the others (their public ridge removed)
#' and fitted by least squares, unregularised (`regularization$rule`
#' `"none"`), as [dp_regression()] fits them by default; its `ridge = "keep"`
#' solves the released matrix as it is, Sheffet's ridge estimator. The bootstrap, [vcov()], [confint()] and the intervals of
#' [predict()] are those of the unshrunk least-squares fit (kept in
#' `regularization$least_squares`): a shrunk estimate's own bootstrap
#' centres on a shrunk model and under-covers (half the nominal level on
#' the peers benchmark's penguins), while least squares' intervals cover
#' (`bench/RESULTS.md`). `regularize = "none"` reports least squares.
#'
#' Limits: the bootstrap does not model clipping (choose `clip` above nearly
#' all rows of \eqn{[1, x, y]} for honest intervals; clipped rows bias
#' estimate and intervals alike); post-processing that acts on the whole
#' released matrix (the PSD projection of `post = "psd"`, [dp_threshold()]
#' and [dp_cov()]) is redrawn on the regression's columns only.
#'
#' **n.** Under add/remove neighbours n is not released: [nobs()] is `NA`,
#' and the bootstrap uses the release's own private estimate of n, the
#' diagonal entry of the column of ones (the formula interface releases
#' that column with `clip` or a mechanism other than Analyze Gauss, with or
#' without an intercept in the model), or [dp_cov()]'s noisy count (the
#' formula interface with bounds, public or private, and Analyze Gauss);
#' `n_used` and `n_source` in the result say which.
#' A release with neither needs `n` (a public count).
#'
#' **Non-finite values.** The data's variables must be finite (a column
#' with NA, NaN or infinite values is refused, as everywhere in dpcov: the
#' domain is finite numbers), and plain numbers, logicals or factors (a
#' classed number, such as bit64's `integer64` or a unit class, is refused
#' as in [dp_cov()]: its arithmetic is not its storage's). What the formula's transformations make of
#' finite values goes through a public per-record rule instead: NaN becomes 0
#' and \eqn{\pm}Inf becomes \eqn{\pm}`.Machine$double.xmax`, which the
#' bounds or the clip then bound like any other large value, and the
#' transformations' warnings are muffled. Refusing such rows would make the
#' release fail or succeed on the private values (`y ~ log(x - t)` would
#' fail exactly when some x is below t, and a bisection over t would find
#' the minimum). Use transformations defined on the data's whole range.
#'
#' **Factors.** A factor's levels are treated as public schema: all its
#' declared levels get a column, whether they occur in the data or not, so
#' the released columns never depend on which values occur. Character
#' columns, `factor()` in the formula and data-dependent transformations
#' (`scale()`, `poly()`, `ns()`, ...: they compute statistics of the data
#' without noise) are refused; declare factors with their levels, and
#' transform with public constants.
#'
#' **Transformations.** The sensitivity analysis needs each record's design
#' row to depend on that record alone, so the formula's variables may be
#' built only from the data's variables (each variable uses at least one
#' column), literal scalar constants (`2.5`, `TRUE`; not `1L` or `NA`; text
#' such as `"a"` only compared with `==` or `!=`, a factor's level, since
#' elsewhere its type would depend on which rows pass a test), the constant
#' `pi` (`sin(2 * pi * month / 12)`; a column of `data` named `pi` is
#' refused, since the formula would read it instead)
#' and elementwise functions: arithmetic (`+ - * / ^ %% %/%`), comparisons
#' and logical operators (`! & |`), membership in a set written in the
#' formula (`I(month %in% c(12, 1, 2))`, `I(g %in% c("a", "b"))`: a logical
#' term, coded in \[0, 1\]; inside `I()`, since a bare `%in%` between terms
#' is the formula's nesting operator, as in [lm()]), `I()`, `log()` (and `log2`, `log10`,
#' `log1p`), `exp()`, `expm1()`, `sqrt()`, `abs()`, `sign()`, rounding
#' (`floor`, `ceiling`, `trunc`, `round`, `signif`), the trigonometric and
#' hyperbolic functions, `pmin()`, `pmax()`, `ifelse()`, `as.numeric()`,
#' `as.double()` and `as.logical()`. Anything else (`sum()`, `length()`,
#' `[`, `cumsum()`, `%in%` with a set that is not written as constants, `cut()`
#' (its factor is built from the formula, as `factor()` is), `do.call()`, a function of your
#' own) is refused before the data is read: it could read other rows, or
#' send values out in an error or a message. (A variable may have a
#' function's name: a column called `cut` is read as the column.) Every
#' other transformed variable is numeric (`as.double()`), whatever its values,
#' so that the design's columns do not depend on the data.
#'
#' **What is kept.** No data, no model frame, no residuals or fitted values:
#' the release, the coefficients, the bootstrap draws, the terms and factor
#' levels (public, see above), and the formula with its environment replaced
#' by [baseenv()] (so it holds no reference to `data`).
#'
#' @param x A two-sided formula, a square `dp_release`, or a [second_moment()]
#'   object.
#' @param data A data frame (formula interface).
#' @param epsilon,delta The privacy budget of the release (formula interface).
#' @param clip Row-norm bound for the rows \eqn{[x, y]} of the design and
#'   the response (the intercept's 1 included), or `NULL` (default). With
#'   neither `clip` nor bounds, per-column bounds of the model frame's numeric
#'   variables (the response included) are chosen privately by the mechanism
#'   of [dp_column_bounds()] with `2 * bound_share` of `epsilon` and of
#'   `delta` (factors, logicals and interactions then get their bounds as with
#'   public bounds below), and the box path runs with them
#'   (`params$bounds_source = "private"`), its Gaussian mechanism composed
#'   with the bounds by zCDP as in [dp_cov()]'s default
#'   (`params$composition`); the release's `tuning` warns when
#'   n epsilon is too small for them. A model whose terms and response use
#'   only logical or factor columns of `data` and comparisons (`I(x > 0)`)
#'   has no numeric variable to bound: it takes their coding as public
#'   bounds and spends the whole budget on the release. Give a bound
#'   from public knowledge above nearly all rows for unbiased intervals.
#' @param mechanism `"analyze_gauss"` (default), `"wishart"` ([wishart_noise()]
#'   with `shift = TRUE`; epsilon < 1), `"jl_ridge"` or `"iwishart_posterior"`.
#' @param neighbor `"add-remove"` (default; n not released), `"replace-one"` or
#'   `"zero-out"` for Analyze Gauss; the Wishart and JL mechanisms are
#'   stated under add/remove (`neighbor = "add-remove"`; their guarantee holds
#'   under every notion, as a [dp_budget()] records it); the inverse-Wishart
#'   posterior holds for replace-one only, so
#'   `mechanism = "iwishart_posterior"` needs `neighbor = "replace-one"`
#'   given (the default is refused with a classed error).
#' @param budget A [dp_budget()] charged before the data is read, or `NULL`.
#' @param B Bootstrap draws (default 500; 0 for none: then `vcov` and
#'   intervals are `NA`).
#' @param bound_share Half the share of `epsilon` and `delta` spent on the
#'   private per-column bounds (when neither `clip` nor bounds are given;
#'   `NULL`, the default: 0.25, as [dp_cov()]'s: half of each, about a quarter of the
#'   zCDP budget), or on the tightening of public bounds (`tighten`; `NULL`:
#'   0.15). On `bench/peers.R`'s models (`bench/default-share.R`:
#'   replace-one, 100 releases per cell) 0.25 against 0.15 cut the median
#'   slope error from 0.45 to 0.26 (quakes, n = 1000, epsilon 1), from 0.22
#'   to 0.092 (quakes, 2) and from 0.43 to 0.36 (penguins, n = 342, 4); on
#'   diamonds (n = 53940) it raised it from 0.0093 to 0.018 at epsilon 2 and
#'   from 0.0090 to 0.0095 at 4, still below every peer's with public bounds.
#' @param tighten Whether to tighten the public bounds of the model's
#'   variables privately inside themselves, as [dp_cov()]'s `tighten`:
#'   `NULL` (default) when n is public (`"replace-one"` or `"zero-out"`, the
#'   data a data frame or matrix) and the \eqn{2/\epsilon_q} rows targeted
#'   beyond each bound are at most a twentieth of n; `TRUE` always; `FALSE`
#'   never. Slopes are ratios of the covariance's entries, in which a
#'   clamped tail's shrinkage largely cancels while every narrowed column's
#'   noise falls: on `bench/peers.R`'s models (`bench/tighten-fit.R`)
#'   tightening cut the median slope error in most cells (quakes, n = 1000:
#'   0.082 against 0.161 at epsilon 2). But the rows it clamps can be many
#'   more than its target, and the intervals leave that bias out: on a
#'   bimodal column whose public bounds are already its range (faithful,
#'   n = 272) a target of a fifth of n (epsilon 0.5) clamped 22-100% of a
#'   column and the 95% intervals covered 50%, a tenth (epsilon 1) 65%, a
#'   twentieth (epsilon 2) 92%. Under `"add-remove"` n is private and
#'   `NULL` does not tighten.
#'   Bounds
#'   named by a variable of the formula (the response included) are
#'   tightened; design columns named directly and factors keep theirs. The
#'   release records both (`params$public_bounds`,
#'   `params$tightened_bounds`). `TRUE` or `FALSE` without any public bounds
#'   (a `clip`, or the default's private bounds) is refused: there is
#'   nothing to tighten or keep.
#' @param lower,upper,bounds Public per-column bounds instead of `clip` (see
#'   [dpcov_arguments]), named by variable (the response included), e.g.
#'   `bounds = list(x1 = c(0, 100), y = c(0, 5000))` (a non-syntactic name by
#'   the column's name, `list("my x" = c(0, 1))`, or by its label in the
#'   formula, with backticks: `` list("`my x`" = c(0, 1)) ``); a design column may be
#'   named directly (e.g. `"I(x^2)"`). A numeric variable whose bounds are not
#'   known takes NA for both (`list(x1 = c(0, 100), y = c(NA, NA))`): those
#'   variables' bounds are chosen privately as the default chooses them (with
#'   its share of the budget, spread over those variables alone), the others
#'   kept as given, and no bounds are tightened; every numeric variable still
#'   needs an entry. An NA on a factor, a logical or a column the model does
#'   not use chooses nothing (as unused bounds are ignored). Factor and logical columns, and
#'   comparisons such as `I(x > 3)` (logical whatever the data; a column
#'   named `I(x > 3)TRUE`, as in [lm()]), get the
#'   range of their coding (\[0, 1\] for dummies) and an interaction the
#'   product of its variables' intervals, with no bounds needed. Every design
#'   column is clamped to its public range and mapped to the centred unit box
#'   \eqn{[-1/2, 1/2]} (nothing is clipped). With Analyze Gauss (the
#'   default) the release is [dp_cov()]'s box path on the design's columns
#'   \eqn{[X, y]}: the column sums, the diagonal and the off-diagonal of the
#'   box rows' Gram as one Gaussian mechanism with three blocks, each
#'   calibrated to its own sensitivity (shares as `dp_cov()`'s default), a
#'   covariance (divisor n) and its private mean mapped back to the data's
#'   units; the fit is made from them (the intercept from the mean; see Shrinkage),
#'   and the bootstrap redraws both steps' noise on the box scale. Under
#'   `"zero-out"` the zeroed record enters as its design row on the box (the
#'   worst case when that row is not defined, e.g. with a factor). The other
#'   mechanisms run on the rows \eqn{[1, z]} (row norm at most
#'   \eqn{\sqrt{1 + k/4}}, k columns besides the ones), their estimate of the
#'   sum mapped back exactly (\eqn{T^TST}, T the affine map with the ones;
#'   released on the `"sum"` scale with the map in `params`). The bootstrap
#'   does not model the clamping (choose ranges that hold nearly all values
#'   for honest intervals).
#' @param regularize `"adaptive"` (default): the noise-calibrated ridge of
#'   the details, which shrinks the coefficients only where the release's
#'   noise swamps the features' second moments in some direction; `"none"`:
#'   least squares from the release. Either way the intervals are least
#'   squares'. Post-processing: no privacy cost.
#' @param formula For a release: a two-sided formula over its columns.
#' @param ones For a release: the name of its column of ones (default
#'   `"(Intercept)"` when there is one, as the formula interface releases), used
#'   for the intercept and for the private estimate of n. `NULL` for none.
#' @param n For a release that releases neither n nor a column of ones: a
#'   public number of rows for the bootstrap.
#' @param ... Unused.
#' @return An object of class `dp_lm` (with `dp_nonprivate` for exact
#'   statistics): `coefficients`, `vcov`, `boot` (the B x k bootstrap
#'   draws), `sigma` (the estimated residual sd), `n` (as public as the
#'   release says: `NA` when not released), `n_used`, `n_source`,
#'   `n_estimate` and `n_noise_sd` (the private estimate of n, as released,
#'   and its noise sd), `df` (k), `terms`, `xlevels`, `contrasts` (with a
#'   factor in the model), `formula`, `response`, `release`, `mechanism`,
#'   `guarantee`, `units`, `call`, `B` (the bootstrap draws asked for),
#'   `failed_draws` (those whose refit failed), `ci_type`, `regularization`
#'   (`rule`, `lambda` and `noise_level` on the noise-whitened scale,
#'   `penalty` added to each coefficient's diagonal entry, and
#'   `least_squares`, the unshrunk coefficients the intervals centre on),
#'   `feature_scale` (the features' released sds, by which the diagnostics
#'   standardise the slopes), `vcov_sampling` (the coefficients' covariance
#'   from sampling error alone, \eqn{\hat\sigma^2 (X'X)^{-1}} of the
#'   release, without the privacy noise) and `diagnostics`
#'   (as [release_diagnostics()], for the fit: the coefficients' bootstrap
#'   spread against their size, the private n, the release's checks on the
#'   regression's columns; `privacy_share`, the share of the slopes'
#'   bootstrap variance the privacy noise adds beyond `vcov_sampling`: where
#'   it is below a half and nothing else is noisy, slopes within their
#'   standard errors of zero are graded "ok" with a note, as `lm()` would not
#'   tell them from zero either; `clamp_target`, the share of rows that bounds
#'   chosen privately, or public bounds tightened privately, target beyond
#'   their ends, and `intervals_biased`, also set when a numeric variable's
#'   released spread fills its bounds (most of it clamped at them; factors
#'   and logicals, two-valued by design, are left out) or nearly every row
#'   was clipped; `outside_interval`, the coefficients whose least-squares
#'   estimate lies outside its own 95% bootstrap interval, "mostly noise";
#'   `shrunk_outside_interval`, those whose shrunk estimate does while least
#'   squares' does not, "noisy"). A
#'   fit that is mostly noise raises one warning of class
#'   `dpcov_noise_warning`, and its print says why in terms of what was given
#'   (the clip, uncentred columns, the budget). Bounds chosen privately (no
#'   `lower`/`upper`) clamp rows beyond them: the coefficients are those of
#'   the clamped data, a bias the bootstrap leaves out. Where the rows they
#'   target beyond their 2k ends exceed a tenth of n, print says so and
#'   [confint()] and [predict()] with intervals warn (on `bench/peers.R`'s
#'   models, 200 releases per cell, 47-61% of the 95% slope intervals
#'   covered `lm()`'s slopes on penguins at epsilon <= 1 and 56-79% on
#'   quakes at epsilon <= 2). Below a tenth, print
#'   and summary add a note (`diagnostics$notes`): the bias is then small,
#'   but so are the intervals where n epsilon is large (on the diamonds
#'   model, with 0.2-3% of the rows targeted, 84-92% of 95% intervals covered
#'   `lm()`'s slopes; they cover the slopes of the data clamped to the
#'   released bounds). With a long-tailed variable the bias can be larger
#'   than the intervals with no warning: an audit's simulation (a lognormal
#'   feature, n = 3,000-30,000) found 40-75% coverage of the true slope. Public
#'   bounds that cut off part of a variable's values do the same (0-45% there
#'   for bounds that cut 2.5% of the lognormal feature); print and summary
#'   note it for every fit with public bounds.
#' @references Wang, Y.-X. (2018). Revisiting differentially private linear
#'   regression: optimal and adaptive prediction & estimation in unbounded
#'   domain. *Proceedings of the 34th Conference on Uncertainty in Artificial
#'   Intelligence (UAI)*, 93-103.
#'
#'   Ferrando, C., Wang, S. and Sheldon, D. (2022). Parametric
#'   bootstrap for differentially private confidence intervals. *Proceedings
#'   of the 25th International Conference on Artificial Intelligence and
#'   Statistics (AISTATS)*, PMLR 151, 1598-1618.
#'
#'   Sheffet, O. (2019). Old techniques in differentially private linear
#'   regression. *Proceedings of the 30th International Conference on
#'   Algorithmic Learning Theory (ALT)*, PMLR 98, 789-827.
#' @seealso [dp_regression()] (coefficients only, Sheffet's estimator),
#'   [compressed_lm()] (the same class from compressed data).
#' @examples
#' set.seed(1)
#' d <- data.frame(x1 = rnorm(5000), x2 = rnorm(5000))
#' d$y <- 1 + 2 * d$x1 - d$x2 + rnorm(5000)
#' fit <- dp_lm(y ~ x1 + x2, d, epsilon = 1, delta = 1e-6, clip = 8, B = 200)
#' fit
#' confint(fit)
#' predict(fit, data.frame(x1 = 0:1, x2 = 0))
#' # public ranges of the variables instead of a row-norm bound
#' fit_b <- dp_lm(y ~ x1 + x2, d, epsilon = 1, delta = 1e-6, B = 200,
#'                bounds = list(x1 = c(-4, 4), x2 = c(-4, 4), y = c(-15, 15)))
#' coef(fit_b)
#' # another regression from the same release, at no privacy cost
#' coef(dp_lm(fit$release, x1 ~ x2 + y, B = 0))
#' @export
dp_lm <- function(x, ...) {
  if (missing(x)) {
    # lm()'s spelling, dp_lm(formula = y ~ x, data = d): the formula is `x`
    if ("formula" %in% ...names()) {
      mc <- match.call()
      names(mc)[names(mc) == "formula"] <- "x"
      return(eval(mc, parent.frame()))
    }
    abort_missing("x")
  }
  UseMethod("dp_lm")
}

#' @rdname dp_lm
#' @export
dp_lm.default <- function(x, ...) {
  abort("`x` must be a two-sided formula, a square dp_release or a second_moment() object; got %s.",
        class(x)[1], .arg = "x")
}

#' @rdname dp_lm
#' @export
dp_lm.formula <- function(x, data, epsilon, delta, clip = NULL, mechanism = "analyze_gauss",
                          neighbor = "add-remove", budget = NULL, B = 500, bound_share = NULL,
                          lower = NULL, upper = NULL, bounds = NULL, regularize = "adaptive", tighten = NULL, ...) {
  call <- match.call()
  check_dots_empty(...)
  regularize <- check_choice(regularize, c("adaptive", "none"), "regularize")
  # `.` stands for the data's other columns, as in lm() (names are public schema)
  if (!missing(data)) {
    lm_check_data_names(x, data)
    x <- lm_expand_dot(x, data)
  }
  box <- lm_bound_names(check_bounds(lower, upper, bounds, partial = TRUE), x)
  check_bounds_exclusive(box, clip)
  # bounds given for some variables, NA for the others: theirs are chosen
  # privately, as the default chooses all (lm_private_bounds())
  given <- NULL
  if (isTRUE(box$partial)) {
    res <- lm_partial_bounds(box, x, if (missing(data)) NULL else data)
    given <- res$given
    box <- res$box
  }
  # a model of logical and factor columns alone is bounded by its coding:
  # public bounds, and private ones would spend their share on nothing
  if (is.null(box) && is.null(given) && is.null(clip) && !missing(data) && lm_coded_only(x, data)) {
    box <- list(lower = stats::setNames(numeric(0), character(0)), upper = stats::setNames(numeric(0), character(0)),
                arg = "bounds")
  }
  if (!is.null(tighten)) tighten <- check_flag(tighten, "tighten")
  if (isTRUE(tighten) && !is.null(given)) {
    abort(paste0("`tighten` = TRUE tightens public bounds, and some of `%s` are NA (chosen privately); give every ",
                 "variable's bounds to tighten them, or leave `tighten` at its default."), given$arg, .arg = "tighten")
  }
  # FALSE too: without public bounds there is nothing it could keep
  if (!is.null(tighten) && is.null(box) && is.null(given)) refuse_tighten_without_bounds(tighten)
  mechanism <- check_choice(mechanism, c("analyze_gauss", "wishart", "jl_ridge", "iwishart_posterior"),
                            "mechanism")
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  bounds_g <- bounds_release_guarantee(bounds, neighbor)
  # Sheffet's mechanisms state their own notion (sheffet_notions)
  sheffet_fun <- c(wishart = "wishart_noise", jl_ridge = "jl_ridge", iwishart_posterior = "iwishart_posterior")
  if (mechanism != "analyze_gauss" && neighbor != sheffet_release_notion(sheffet_fun[[mechanism]])) {
    abort("`neighbor` = \"%s\" is not available with `mechanism` = \"%s\", whose guarantee is for \"%s\" neighbours.",
          neighbor, mechanism, sheffet_release_notion(sheffet_fun[[mechanism]]), .arg = "neighbor")
  }
  epsilon <- check_epsilon(epsilon)
  delta <- check_delta(delta)
  refuse_void_bounds_budget(budget, bounds_g, delta, neighbor)
  B <- check_count(B, "B", min = 0, max = 1e6)
  if (missing(data)) abort_missing("data")
  # no bounds of any kind: per-column bounds of the model frame's numeric
  # variables are chosen privately (dp_column_bounds()'s mechanism), then the box path
  private_box <- is.null(clip) && is.null(box)
  # no clip = Inf mode: dp_lm() has no sigma_clip_inf to calibrate as if a bound held
  if (!is.null(clip)) clip <- check_finite_clip(clip, "clip", "dp_lm() calibrates its noise to it")
  # the released rows are the design's [1, x, y]: the ones alone have norm 1
  if (!is.null(clip) && clip < 1) {
    abort("`clip` = %s is below 1, the norm of the design's column of ones alone: every row [1, x, y] would be clipped, and the fit would be of rows shrunk toward 0; give a clip above the rows' norms, or public bounds (lower/upper).",
          format(clip), .arg = "clip")
  }
  share_given <- !is.null(bound_share)
  if (!share_given) bound_share <- if (private_box) column_bounds_share else tighten_share
  bound_share <- check_number(bound_share, "bound_share", lower = 0, upper = 0.5)
  # public bounds tightened privately: those named by a variable of the model
  # (a public fact of the formula), TRUE or by the automatic rule
  tight <- FALSE
  if (!is.null(box) && !isFALSE(tighten)) {
    tight_vars <- intersect(names(box$lower), lm_formula_variables(x))
    # a variable that is not numeric by the schema (a logical or factor column,
    # an expression such as I(z > 0)) keeps its bounds in
    # lm_tightened_bounds(): no choice is charged for it
    tight_vars <- tight_vars[!vapply(tight_vars, lm_schema_not_numeric, logical(1), data = data,
                                     env = environment(x))]
    # integer variables in public bounds [0, 1] keep theirs too (tightened_columns())
    tight_vars <- tight_vars[!vapply(tight_vars, function(v) {
      col <- if (is.data.frame(data)) data[[v]] else if (is.matrix(data) && v %in% colnames(data)) data[, v]
      is.integer(col) && !is.object(col) && isTRUE(box$lower[[v]] == 0 && box$upper[[v]] == 1)
    }, logical(1))]
    if (length(tight_vars)) {
      cols_t <- tighten_epsilon(epsilon, delta, bound_share, length(tight_vars))
      n_pub <- if (neighbor != "add-remove" && (is.data.frame(data) || is.matrix(data))) nrow(data) else NA_real_
      tight <- tighten_decision(tighten, n_pub, cols_t$epsilon_q, tighten_auto_level_fit)
    } else if (isTRUE(tighten)) {
      # (it was accepted and did nothing)
      abort(paste0("`tighten` = TRUE tightens the public bounds of the model's numeric variables, and no bound here ",
                   "names one (factors, logicals, 0/1 integers and design columns keep theirs); leave `tighten` at ",
                   "its default."), .arg = "tighten")
    }
  }
  chosen <- private_box || tight
  # a share of a step this call does not run is refused, not ignored (as in
  # dp_cov(); decided from public arguments and shapes only)
  if (share_given && !chosen) {
    abort(paste0("`bound_share` tunes a step this call does not run: nothing is chosen privately here (%s); drop it."),
          if (is.null(box)) "`clip` is given" else paste0("the bounds are kept as given: tighten = FALSE, or the automatic ",
                                                          "rule does not tighten at this n and epsilon (never under ",
                                                          "add/remove), or no variable has bounds to tighten"),
          .arg = "bound_share")
  }
  eps_bound <- if (chosen) 2 * bound_share * epsilon else 0
  delta_bound <- if (private_box) 2 * bound_share * delta else if (tight) cols_t$delta else 0
  eps_rel <- epsilon - eps_bound
  delta_rel <- delta - delta_bound
  check_step_deltas(delta, delta_rel)
  if (chosen && eps_bound < dp_limits$epsilon[1]) {
    if (share_given) {
      abort("`bound_share` = %s leaves the private choice of the bounds epsilon below %s.", format(bound_share),
            format(dp_limits$epsilon[1]), .arg = "bound_share")
    }
    abort("`epsilon` = %s is too small for this fit: the private choice of the bounds (the default bound_share %s) gets epsilon below %s; give more epsilon.",
          format(epsilon), format(bound_share), format(dp_limits$epsilon[1]), .arg = "epsilon")
  }
  # the mechanism's own argument-only refusals come before any charge
  if (mechanism == "wishart") check_epsilon(eps_rel, 1, "Algorithm 3 (additive Wishart noise)")
  if (mechanism != "analyze_gauss") {
    check_delta(delta, sheffet_delta_limit(sheffet_fun[[mechanism]]), mechanism)
    # the mechanism's own check_epsilon() would refuse its share after the
    # bounds step was charged, naming a value the user never gave
    if (eps_rel < dp_limits$epsilon[1]) {
      abort("`%s` = %s leaves the %s mechanism epsilon %s, below %s.",
            if (share_given) "bound_share" else "epsilon", format(if (share_given) bound_share else epsilon),
            mechanism, format(eps_rel, digits = 3), format(dp_limits$epsilon[1]),
            .arg = if (share_given) "bound_share" else "epsilon")
    }
    # the range Sheffet's proofs cover, for the share the mechanism gets (JL:
    # at r = 2 x the Gram's columns, counted on the data's zero-row slice,
    # i.e. from its schema)
    fun <- sheffet_fun[[mechanism]]
    d_gram <- lm_gram_ncol(x, data)
    # Algorithm 3's degrees of freedom must be a whole number a double counts
    # exactly, as wishart_noise() requires after the charge
    if (fun == "wishart_noise" && !is.na(d_gram) && !(sheffet_wishart_k(d_gram, eps_rel, delta_rel) <= 2^53)) {
      abort("`epsilon` = %s with `delta` = %s gives Algorithm 3 k = %s degrees of freedom for the mechanism's share, beyond 2^53, where doubles no longer count whole numbers exactly; use a larger `epsilon` or `delta`.",
            format(epsilon), format(delta), format(sheffet_wishart_k(d_gram, eps_rel, delta_rel), digits = 3), .arg = "epsilon")
    }
    r_jl <- if (fun == "jl_ridge") 2 * d_gram else NULL
    if (!identical(r_jl, NA_real_)) {
      sheffet_check_proven(fun, eps_rel, delta_rel, r_jl,
                           note = if (chosen) sprintf("dp_lm()'s %s for the mechanism, after the bounds step's %s",
                                                      "share of `epsilon` and `delta`", "2 `bound_share`"))
    }
  }
  # every step is charged before the data is read (building the design reads
  # it), all or none; a failure on the data's shape withdraws the charges
  # after private bounds, Analyze Gauss takes what they leave of the budget by
  # the better of basic and zCDP composition (composed_gaussian())
  rho_bound <- if (private_box) lm_bounds_rho(eps_bound, delta_bound) else if (tight) cols_t$rho
  gauss <- if (chosen && mechanism == "analyze_gauss") {
    composed_gaussian(epsilon, delta, eps_bound, delta_bound, rho_bound, "analytic")
  }
  ratio <- if (!is.null(gauss)) gauss$ratio else if (mechanism == "analyze_gauss") {
    noise_sigma(1, eps_rel, delta_rel, "analytic")
  } else NA_real_
  # the data is evaluated before the charge: no code of the caller's runs
  # between the charge and the mechanism
  if (!missing(data)) force(data)
  lm_schema_checks(x, data, box, given)
  # the bounds' number of columns is known only from the model frame: their
  # charge records the largest rho any number of columns can have (see
  # lm_private_bounds())
  charge <- budget_charge(budget, c("dp_lm private column bounds"[private_box],
                                    "dp_lm public bounds tightened privately"[tight], paste("dp_lm:", mechanism)),
                          c(eps_bound[chosen], if (is.null(gauss)) eps_rel else gauss$epsilon),
                          c(delta_bound[chosen], delta_rel),
                          sigma_ratio = c(NA_real_[chosen], ratio),
                          neighbor = c((if (private_box) column_bounds_notion(neighbor) else "any")[chosen],
                                       if (mechanism == "analyze_gauss") neighbor else sheffet_notions[[sheffet_fun[[mechanism]]]]),
                          rho = c(rho_bound, NA_real_), bounds = bounds_g)
  # bounds (public or private) with Analyze Gauss: dp_cov()'s box mechanism on
  # the design's columns [X, y] (the sums, the Gram's diagonal and its
  # off-diagonal as three blocks, each calibrated to its own sensitivity),
  # then the fit from the covariance and the mean; the other mechanisms
  # release the uncentred Gram of the box rows [1, z]
  joint <- mechanism == "analyze_gauss" && (private_box || !is.null(box))
  public_box <- box
  min_rows <- if (neighbor == "add-remove") 0L else 2L
  rel <- with_refund(budget, charge, {
    # under add/remove n is private: any n >= 0 is released
    pb <- new.env(parent = emptyenv())
    pb$n_public <- neighbor != "add-remove"
    data_names <- if (missing(data)) NULL else names(data)
    if (private_box) box <- function(mf) lm_private_bounds(mf, eps_bound, delta_bound, pb, given, data_names)
    if (tight) box <- function(mf) lm_tightened_bounds(mf, public_box, tight_vars, cols_t, pb)
    design <- lm_design(x, data, min_rows = min_rows, box = box, check_box = if (tight) public_box)
    # under zero-out the zeroed record enters as its design row (the intercept's 1
    # and any transformed zeros), not as the zero row: calibrate for that row
    z0 <- lm_zero_record_row(design, data)
    r <- if (joint) {
      lm_box_joint_release(design, z0, eps_rel, delta_rel, neighbor, min_rows, gauss)
    } else {
      lm_gram_release(design, z0, clip, mechanism, eps_rel, delta_rel, neighbor)
    }
    # the design's columns of numeric variables (public schema), for the diagnostics
    r$params$numeric_columns <- design$numeric_columns
    # and those two-valued by design, where their bounds are their coding [0, 1]
    r <- mark_coded_columns(r, design$two_valued_columns)
    # bounds given for some variables: the released columns on them (NA for
    # those on a variable whose bounds were chosen privately)
    if (!is.null(design$box_from_data)) r$params$public_bounds <- lm_public_bounds(r, design$box_from_data)
    r
  })
  if (!is.null(charge)) rel$params$budget_charge <- charge
  rel$call <- lm_call(call, x_kind = "formula")
  if (private_box) {
    # the number of rows for the warnings: public, or the released noisy
    # Gram entry of the ones column
    pb$n_hat <- released_rows(rel)
    rel$epsilon <- epsilon
    rel$delta <- delta
    rel$params$bounds_source <- "private"
    rel <- box_relabel_source(rel, if (is.null(given)) "private" else "partial")
    rel$params$column_bounds <- list(epsilon = eps_bound, delta = delta_bound, rho = pb$rho,
                                     epsilon_quantile = pb$epsilon_q, composition = pb$composition,
                                     tail_rows = pb$tail_rows, first_rows = pb$first_rows, variables = pb$k,
                                     clamped_share = min(column_bounds_defaults$max_level,
                                                         pb$tail_rows / max(1, pb$n_hat)),
                                     scale = design_named(pb$scale, colnames(rel$estimate)),
                                     center = design_named(pb$center, colnames(rel$estimate)),
                                     range = column_bounds_defaults$range)
    rel$tuning <- tuning_record(
      "private column bounds", private = TRUE,
      detail = sprintf(paste0("bounds of the model frame's %d numeric variable(s)%s by dp_column_bounds()'s ",
                              "mechanism ((%s, %s)-DP in all, inside the stated budget), targeting about %s rows ",
                              "beyond each bound%s"),
                       pb$k, if (is.null(given)) "" else " without public bounds", format_privacy(eps_bound), format_privacy(delta_bound), format(pb$tail_rows, digits = 4),
                       if (column_bounds_capped(pb$first_rows, pb$n_hat)) {
                         "\n  WARNING: n * epsilon is too small for private bounds: they may miss the data; the fit can be far off. Give public bounds (lower, upper) or more epsilon."
                       } else if (pb$tail_rows >= 0.01 * max(1, pb$n_hat)) {
                         "\n  WARNING: the private bounds clamp 1% or more of the rows at each end; the fit is biased. Give public bounds or more epsilon."
                       } else ""))
    if (!startsWith(rel$guarantee, "NONE")) {
      rel$params$composition <- if (is.null(gauss)) "basic" else gauss$composition
      rel$guarantee <- sprintf(paste0("(%s, %s)-differential privacy in total by %s: bounds of the ",
                                      "numeric variables%s chosen privately ((%s, %s)-DP, dp_column_bounds()'s ",
                                      "mechanism), then %s"),
                               format_privacy(epsilon), format_privacy(delta),
                               composition_words(gauss),
                               if (is.null(given)) "" else sprintf(" without public bounds (%d; the others' public)", pb$k),
                               format_privacy(eps_bound), format_privacy(delta_bound), rel$guarantee)
    }
    # the release's own diagnostics for its final labels (the fit warns, below)
    if (!is.null(rel$diagnostics)) rel <- muffle_noise_warnings(finish_diagnostics(rel))
  }
  if (tight) rel <- lm_tightened_labels(rel, pb, cols_t, eps_bound, epsilon, delta, gauss)
  # judged again once it says where its bounds came from, as dp_cov() does
  # (the fit warns for both, below)
  rel <- muffle_noise_warnings(finish_bounds_release(rel, bounds_g))
  fit <- if (joint) {
    # the covariance release is over [X, y]: no column of ones, the intercept from its mean
    lm_fit_release(rel, feat = design$feat - 1L, ones = NULL, y = rel$p, intercept = design$intercept, B = B,
                   regularize = regularize)
  } else {
    lm_fit_release(rel, feat = design$feat, ones = 1L, y = rel$p, intercept = design$intercept, B = B,
                   regularize = regularize)
  }
  finish_dp_lm(fit, design$terms, design$xlevels, design$contrasts, design$formula, call, x_kind = "formula")
}

#' @rdname dp_lm
#' @export
dp_lm.dp_release <- function(x, formula, ones = "(Intercept)", n = NULL, B = 500, regularize = "adaptive", ...) {
  call <- match.call()
  check_dots_empty(...)
  regularize <- check_choice(regularize, c("adaptive", "none"), "regularize")
  refuse_compressed_rows(x, "x")
  rel <- check_release(x, "x", square = TRUE)
  check_guarantee_numbers(rel, "x")
  if (rel$scale == "correlation") {
    abort("`x` is a correlation matrix: the variances are gone, so the coefficients are not identified; release a covariance.",
          .arg = "x")
  }
  B <- check_count(B, "B", min = 0, max = 1e6)
  if (!is.null(n)) n <- check_count(n, "n", min = 2, max = 1e15)
  spec <- lm_release_formula(formula, colnames(rel$estimate), ones, centred = isTRUE(rel$centred))
  # `n` serves only a release with no count of its own: refused, not ignored
  if (!is.null(n)) {
    own <- if (isTRUE(rel$n_public)) "releases n" else if (identical(rel$scale, "covariance")) {
      "is a covariance, with its own private count"
    } else if (!is.null(spec$ones)) "has a column of ones, whose released diagonal entry estimates n"
    if (!is.null(own)) abort("`n` applies only to a release that releases neither n nor a column of ones; this one %s.", own,
                             .arg = "n")
  }
  fit <- lm_fit_release(rel, feat = spec$feat, ones = spec$ones, y = spec$y, intercept = spec$intercept,
                        B = B, n = n, regularize = regularize)
  finish_dp_lm(fit, spec$terms, list(), NULL, spec$formula, call, x_kind = "release")
}

#' @rdname dp_lm
#' @export
dp_lm.dp_suffstat <- function(x, formula, ones = "(Intercept)", B = 500, ...) {
  call <- match.call()
  check_dots_empty(...)
  s <- check_suffstat(x, "x")
  s$gram <- suffstat_gram(s)  # in the data's units (statistics of box rows mapped back)
  B <- check_count(B, "B", min = 0, max = 1e6)
  spec <- lm_release_formula(formula, colnames(s$gram), ones, centred = FALSE)
  # exact statistics show whether `ones` is a column of ones (dp_regression()'s check)
  if (!is.null(spec$ones)) check_intercept_column(x, s$gram, spec$ones, "ones")
  rel <- list(estimate = s$gram, scale = "sum", ridge = 0, n = s$n, n_public = TRUE, p = s$p,
              centred = FALSE, params = list(), exact = TRUE,
              guarantee = "NONE: exact statistics of the data (second_moment()), no privacy noise.",
              mechanism = "exact sufficient statistics (not private)", epsilon = NA_real_, delta = NA_real_)
  fit <- lm_fit_release(rel, feat = spec$feat, ones = spec$ones, y = spec$y, intercept = spec$intercept, B = B,
                        regularize = "none")
  fit$release <- NULL
  fit <- finish_dp_lm(fit, spec$terms, list(), NULL, spec$formula, call)
  as_nonprivate(fit, "dp_lm")
}

# dp_lm()'s release with bounds and Analyze Gauss: dp_cov()'s box mechanism
# (dp_cov_box_joint()) on the design's columns [X, y], divisor n; the zero-out
# record enters as its design row on the box (the worst case, the box's
# half-diagonal, when that row is not defined).
lm_box_joint_release <- function(design, z0, epsilon, delta, neighbor, min_rows, gauss = NULL) {
  Z <- design$A[, -1L, drop = FALSE]
  map <- box_map(design$box, centred = TRUE)
  z0_box <- if (is.null(z0)) NULL else box_apply(matrix(z0[-1L], 1L), map)
  z0_norm <- zero_row_norm(z0_box, sqrt(ncol(Z)) / 2)
  muffle_noise_warnings(
    dp_cov_box_joint(Z, design$box, epsilon, delta, epsilon, delta, box_joint_split, "covariance", "n", neighbor,
                     "analytic", charge = NULL, call = NULL, min_rows = min_rows, zero_row = z0_norm,
                     gauss = gauss))
}

# dp_lm()'s release of the uncentred Gram of its rows [1, x, y]: clipped to
# `clip`, or with bounds on the box rows [1, z] (z in the centred unit box,
# row norm <= sqrt(1 + k/4), nothing clipped) mapped back to the data's units.
lm_gram_release <- function(design, z0, clip, mechanism, epsilon, delta, neighbor) {
  A <- design$A
  A_names <- colnames(A)
  box <- !is.null(design$box)
  if (box) {
    # the zero record's design row goes through the same map
    map <- box_map(design$box, centred = TRUE)
    A <- cbind(rep(1, nrow(A)), box_apply(A[, -1L, drop = FALSE], map))
    colnames(A) <- A_names
    clip <- bound_round_up(sqrt(1 + (ncol(A) - 1) / 4), ncol(A))
    if (!is.null(z0)) z0 <- c(1, box_apply(matrix(z0[-1L], 1L), map))
  }
  s <- second_moment(A, clip)
  s$zero_row <- zero_row_norm(z0, clip)
  # the fit judges the noise (and warns once) for the release it is made from
  rel <- muffle_noise_warnings(switch(mechanism,
    analyze_gauss = analyze_gauss(s, epsilon, delta, neighbor = neighbor),
    wishart = wishart_noise(s, epsilon, delta, shift = TRUE),
    jl_ridge = jl_ridge(s, epsilon, delta),
    iwishart_posterior = iwishart_posterior(s, epsilon, delta)))
  if (box) rel <- lm_box_release(rel, map, A_names)
  # (the design's first column is its ones: the diagnostics count the rows
  # the clip was filled over by it when n is not released, fill_rows())
  rel$params$ones_column <- 1L
  rel$diagnostics <- diagnose_release(rel)
  rel
}

# The names given in `...`, read without evaluating the arguments (`weights =
# w` with w a column of data is not an object: evaluating it failed with
# "object 'w' not found").
dots_named <- function(...) {
  nm <- ...names()
  if (is.null(nm)) character(0) else nm[nzchar(nm)]
}

check_dots_empty <- function(...) {
  if (...length()) {
    named <- dots_named(...)
    lm_args <- intersect(named, c("weights", "subset", "na.action", "offset", "method", "model", "contrasts",
                                  "singular.ok", "qr"))
    if (length(lm_args)) {
      # each argument's own reason (contrasts= was told about weights and subsets)
      why <- c(weights = "weights change the sensitivity", offset = "an offset is subtracted from the response in `data`",
               subset = "a subset is taken of `data` before the release", na.action = "missing values are handled in `data` before the release",
               contrasts = "set the factor's contrasts in `data` instead (contrasts(d$g) <- contr.sum(3))",
               method = "dp_lm() has one fitting method", model = "a dp_lm keeps no model frame (it would be the data)",
               singular.ok = "designs aliased whatever the data are refused", qr = "a dp_lm keeps no QR decomposition (it would be the data's)")
      abort("argument(s) %s of lm() are not supported by dp_lm(): %s.",
            paste0("`", lm_args, "`", collapse = ", "), paste(why[lm_args], collapse = "; "), .arg = lm_args[1L])
    }
    abort("unknown argument(s) in `...`: %s.", if (!length(named)) "unnamed" else
      paste(named, collapse = ", "), .arg = "...")
  }
}

# The stored call: data only as its symbol, values as <value>; a formula put
# there by do.call() is a formula object whose environment could hold the
# data: it becomes plain code.
lm_call <- function(call, x_kind = "data") {
  if (!is.null(call$x) && inherits(call$x, "formula")) call$x <- strip_formula(call$x)
  if (!is.null(call$formula) && inherits(call$formula, "formula")) call$formula <- strip_formula(call$formula)
  # called as dp_lm(): the method's name (not exported) would not re-run under update()
  if (is.name(call[[1L]]) && startsWith(as.character(call[[1L]]), "dp_lm.")) call[[1L]] <- as.name("dp_lm")
  # a formula in `x` (written out, or a variable holding one) is code, not
  # data: kept, and stored as `formula =` (as lm() stores it), so that
  # update(fit, . ~ . - z) replaces it
  if (x_kind == "formula" && !is.null(call$x)) {
    names(call)[names(call) == "x"] <- "formula"
    return(release_call(call, data_args = "data"))
  }
  # a release is private output: code that only names it (r, fit$release,
  # fits[["a"]]$release) is kept, so that update() refits it at no cost;
  # any other code (analyze_gauss(cbind(...)) inline, which may hold data
  # literals and would run the mechanism again) is a placeholder
  if (x_kind == "release") {
    if (!is.null(call$x) && !lm_names_only(call$x)) call$x <- as.symbol("<data>")
    return(release_call(call, data_args = character(0)))
  }
  release_call(call, data_args = c("x", "data"))
}

# `e` with each symbol that names no column of `cols` but names one once that
# column's backticks are dropped rewritten to the column's name.
lm_release_symbols <- function(e, cols) {
  if (is.symbol(e)) {
    nm <- as.character(e)
    if (!nzchar(nm) || nm %in% c(cols, ".")) return(e)
    hit <- cols[unbacktick(cols) == nm]
    return(if (length(hit) == 1L) as.name(hit) else e)
  }
  if (is.call(e)) {
    for (i in seq_along(e)[-1L]) {
      if (!identical(e[[i]], quote(expr = ))) e[[i]] <- lm_release_symbols(e[[i]], cols)
    }
  }
  e
}

# The names a formula's right-hand side removes (`- z`, `- \`my x\``), as
# plain strings; removed expressions other than names are left to terms().
lm_removed_terms <- function(e) {
  if (!is.call(e)) return(character(0))
  unparen <- function(x) {
    while (is.call(x) && identical(x[[1L]], quote(`(`)) && length(x) == 2L) x <- x[[2L]]
    x
  }
  op <- e[[1L]]
  if (identical(op, quote(`(`))) return(lm_removed_terms(e[[2L]]))
  if (identical(op, quote(`+`)) && length(e) == 3L) return(c(lm_removed_terms(e[[2L]]), lm_removed_terms(e[[3L]])))
  if (identical(op, quote(`-`))) {
    r <- unparen(e[[length(e)]])
    return(c(if (length(e) == 3L) lm_removed_terms(e[[2L]]), if (is.symbol(r)) as.character(r)))
  }
  character(0)
}

# Whether `e` only names an object: a symbol, or `$`, `[[` or `@` chains of
# symbols and single strings or whole numbers.
lm_names_only <- function(e) {
  if (is.symbol(e)) return(TRUE)
  if (!is.call(e) || length(e) != 3L) return(FALSE)
  op <- e[[1L]]
  if (!(identical(op, quote(`$`)) || identical(op, quote(`[[`)) || identical(op, quote(`@`)))) return(FALSE)
  idx <- e[[3L]]
  ok_idx <- is.symbol(idx) || (is.character(idx) || is.numeric(idx)) && length(idx) == 1L && is.null(attributes(idx))
  ok_idx && lm_names_only(e[[2L]])
}

# A formula as bare code (no class, no environment).
strip_formula <- function(f) {
  # the call alone: a terms object's predvars and dataClasses, or any
  # attribute a user attached, would travel in the stored call
  f <- as.call(as.list(f))
  f
}

with_base_env <- function(f) {
  attr(f, ".Environment") <- baseenv()
  f
}

# Functions whose value depends on statistics of the data (they would put
# those statistics in the terms without noise, or their levels in xlevels).
lm_data_dependent <- c("scale", "poly", "ns", "bs", "factor", "as.factor", "ordered", "cut", "mean",
                       "median", "sd", "var", "min", "max", "range", "quantile", "rank")

# The names of the functions an expression calls (not its variables: a
# column may be called `cut` or `max`).
call_heads <- function(e) {
  # iterative (an explicit stack): y ~ . over a hundred columns nests `+` a
  # hundred deep, which recursion took beyond the C stack
  heads <- character(0)
  todo <- list(e)
  while (length(todo)) {
    x <- todo[[length(todo)]]
    todo[[length(todo)]] <- NULL
    if (!is.call(x)) next
    if (is.name(x[[1L]])) heads <- c(heads, as.character(x[[1L]])) else todo <- c(todo, list(x[[1L]]))
    todo <- c(todo, as.list(x)[-1L])
  }
  unique(heads)
}

# What the formula's variables may be built from: each record's own values
# through elementwise functions and scalar constants, so that a record's
# design row depends on that record alone (the sensitivity analysis assumes
# it). A list of what is allowed, not of what is refused: sum(), length(),
# `[`, cumsum(), do.call(), stop() or message() would read other rows, or
# send values out in an error or a message.
lm_elementwise <- c("+", "-", "*", "/", "^", "%%", "%/%", "(", "I", "<", ">", "<=", ">=", "==", "!=", "!", "&",
                    "|", "log", "log2", "log10", "log1p", "exp", "expm1", "sqrt", "abs", "sign", "floor",
                    "ceiling", "trunc", "round", "signif", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                    "cosh", "tanh", "asinh", "acosh", "atanh", "pmin", "pmax", "ifelse", "as.numeric",
                    "as.double", "as.logical")

# Names a formula may use besides the data's columns: base R's public
# constants (lm_design() refuses a column of `data` by such a name, which
# model.frame() would read instead).
lm_constant_names <- "pi"

# The variables of a formula or expression that are columns of the data.
lm_data_vars <- function(x) setdiff(all.vars(x), lm_constant_names)

# The constants a formula uses that are also columns of a frame (named
# `names`): model.frame() would read the column, not the constant.
lm_constants_shadowed <- function(x, names) intersect(intersect(all.vars(x), lm_constant_names), names)

# Refuses a variable expression of the formula (from its terms) that is not
# built from the data's variables, scalar constants and lm_elementwise.
lm_check_elementwise <- function(e, vars, text_ok = FALSE) {
  if (is.name(e)) {
    if (as.character(e) %in% lm_constant_names) return(invisible(TRUE))
    if (!as.character(e) %in% vars) abort("`x` uses `%s`, which is not a variable of `data`.", as.character(e), .arg = "x")
    return(invisible(TRUE))
  }
  # (integer and NA constants are refused: terms() labels them otherwise than
  # deparse() does, 1L as 1 and NA_real_ as NA, so their variables went unmatched)
  if (length(e) == 1L && (is.integer(e) || (is.numeric(e) || is.logical(e) || is.character(e)) && is.na(e))) {
    abort("`x`: the constant `%s` is refused; write numbers as doubles (1, not 1L), and no NA.", deparse1(e),
          .arg = "x")
  }
  if ((is.numeric(e) || is.logical(e)) && length(e) == 1L) return(invisible(TRUE))
  # text only as an operand of == or != (a factor's level): elsewhere its
  # type would depend on which rows pass a test (ifelse(x > t, "a", 1) + 1
  # fails only when some x exceeds t, a test of the values)
  if (is.character(e) && length(e) == 1L) {
    if (text_ok) return(invisible(TRUE))
    abort("`x`: the text constant \"%s\" is allowed only in a comparison with == or != (a factor level); use numbers in transformations.",
          e, .arg = "x")
  }
  # membership in a set of constants (numbers, or a factor's levels) is a
  # comparison of each record with public values: elementwise
  if (is.call(e) && identical(e[[1L]], as.name("%in%")) && length(e) == 3L) {
    lm_check_elementwise(e[[2L]], vars)
    set <- e[[3L]]
    items <- if (is.call(set) && identical(set[[1L]], as.name("c"))) as.list(set)[-1L] else list(set)
    constant <- function(a) (is.numeric(a) || is.character(a)) && length(a) == 1L && !is.integer(a) && !is.na(a)
    if (!length(items) || !all(vapply(items, constant, logical(1))) || !is.null(names(items))) {
      abort(paste0("`x`: the set on the right of %%in%% must be numbers or text written in the formula ",
                   "(`x %%in%% c(1, 2)`, `g %%in%% c(\"a\", \"b\")`), not %s."), deparse1(set), .arg = "x")
    }
    return(invisible(TRUE))
  }
  if (is.call(e) && is.name(e[[1L]]) && as.character(e[[1L]]) %in% lm_elementwise) {
    cmp <- as.character(e[[1L]]) %in% c("==", "!=")
    for (a in as.list(e)[-1L]) lm_check_elementwise(a, vars, text_ok = cmp)
    return(invisible(TRUE))
  }
  what <- if (is.call(e)) paste0("`", deparse1(e[[1L]]), "()`") else paste0("`", deparse1(e), "`")
  # a set written as a term (`y ~ g %in% c(1, 2)`): the formula read the
  # bare %in% as nesting, as lm() does, and reached the set as a variable
  hint <- if (is.call(e) && identical(e[[1L]], as.name("c"))) {
    " (for membership in a set, write I(x %in% c(...)): a bare %in% between terms is the formula's nesting operator)"
  } else ""
  abort(paste0("`x`: %s in the formula is not an elementwise transformation of each record%s; use arithmetic, ",
               "comparisons and elementwise functions (log, exp, sqrt, pmin, ifelse, ...) of the variables and ",
               "numeric constants, so that each record's design row depends on that record alone."),
        what, hint, .arg = "x")
}

# A formula's `.` term expanded to the columns of `data` other than the
# response's variables, as lm() reads it: terms() looks at names(data) only
# (public schema), and the expanded formula is what the fit stores. A formula
# without a `.`, or data that lm_design() will refuse, is returned as given.
lm_expand_dot <- function(formula, data) {
  if (!inherits(formula, "formula") || length(formula) != 3L || !"." %in% all.vars(formula[[3L]])) return(formula)
  if (is.matrix(data) && !is.object(data)) data <- as.data.frame(data)
  if (!is.data.frame(data)) return(formula)
  # the model's width is at least the columns `.` stands for (public schema):
  # refused here, before terms() builds its variables-by-terms table (50,000
  # columns: 10 GB, and a refusal only after it)
  at_least <- length(setdiff(names(data), c(all.vars(formula[[2L]]), lm_removed_terms(formula[[3L]])))) + 1
  check_cells(at_least^2, sprintf("the model's second-moment matrix (`.` stands for %s columns of `data`)",
                                  format(at_least - 1, big.mark = ",")), "x")
  tt <- tryCatch(stats::terms(formula, data = data), error = function(e) NULL)
  if (is.null(tt)) return(formula)
  out <- stats::formula(tt)
  # no other column: terms() leaves `.` in place; lm() fits the intercept alone
  if ("." %in% all.vars(out[[3L]]) && identical(setdiff(names(data), all.vars(out[[2L]])), character(0))) {
    out[[3L]] <- if (attr(tt, "intercept") == 1L) 1 else 0
    return(out)
  }
  # `. - id` expands to `a + b + id - id`: rebuilt from the terms that remain,
  # so that a removed column (text, a date) is not read at all (an offset
  # stays, for lm_design() to refuse)
  if (is.null(attr(tt, "offset")) && length(attr(tt, "term.labels")) && attr(tt, "response") == 1L) {
    out <- stats::reformulate(attr(tt, "term.labels"), response = out[[2L]], intercept = attr(tt, "intercept") == 1L)
  }
  out
}

# The environment a formula's variables are evaluated in (the model frame, and
# the alias check's grid): base, with ifelse() replaced. base::ifelse()
# evaluates a branch only when some row takes it: a branch that cannot be
# evaluated (exp(), log of a factor) would fail only when some row passes the
# test. Here both branches are evaluated always.
lm_eval_env <- function() list2env(list(ifelse = strict_ifelse), parent = baseenv())

# base::ifelse() with both branches forced first, so that whether they can be
# evaluated does not depend on which rows pass the test.
strict_ifelse <- function(test, yes, no) {
  force(yes)
  force(no)
  # recycled to the longest, so ifelse(TRUE, x, 0) is x, not x's first value
  n <- max(length(test), length(yes), length(no))
  base::ifelse(rep_len(test, n), rep_len(yes, n), rep_len(no, n))
}

# TRUE when every variable the model's terms and response use is a logical or
# factor column of the data frame `data` (its schema: public) or a logical
# expression whatever the data (a comparison: lm_logical_term()): the model
# frame then has no numeric variable and every design column is coded in
# [0, 1]. Variables the formula removes (y ~ . - z) do not count.
lm_coded_only <- function(formula, data) {
  if (!is.data.frame(data) || !inherits(formula, "formula") || length(formula) != 3L) return(FALSE)
  tt <- tryCatch(stats::terms(formula), error = function(e) NULL)
  if (is.null(tt) || !is.null(attr(tt, "offset"))) return(FALSE)
  vars <- vapply(as.list(attr(tt, "variables"))[-1L], deparse1, "")
  fac <- attr(tt, "factors")
  used <- if (length(fac)) rownames(fac)[rowSums(fac != 0) > 0] else character(0)
  if (attr(tt, "response") > 0L) used <- union(vars[attr(tt, "response")], used)
  if (!length(used)) return(FALSE)
  coded <- vapply(used, function(v) {
    if (v %in% names(data)) {
      col <- data[[v]]
      return(is.null(dim(col)) && (is.logical(col) || is.factor(col)))
    }
    lm_logical_term(v) && all(all.vars(str2lang(v)) %in% names(data))
  }, logical(1))
  all(coded)
}

#' The design columns (and the response) of dp_lm()'s numeric variables, a
#' public schema: a main effect of one numeric variable (not a factor, a
#' logical or a comparison, whose columns are two-valued by design), for the
#' diagnostics' check of columns that fill their bounds.
#' @noRd
lm_numeric_columns <- function(tt, mf, X, resp, two_valued = FALSE) {
  fac <- attr(tt, "factors")
  frame_name <- stats::setNames(names(mf), lm_variable_labels(tt))
  numeric_var <- function(v) {
    col <- mf[[frame_name[[v]]]]
    is.numeric(col) && !is.factor(col) && !lm_logical_term(v)
  }
  # a factor's columns are two-valued only under 0/1 contrasts (treatment's)
  zero_one <- function(v) {
    col <- mf[[frame_name[[v]]]]
    if (!is.factor(col)) return(TRUE)
    cm <- attr(X, "contrasts")[[frame_name[[v]]]]
    if (is.character(cm) || is.function(cm)) cm <- tryCatch(stats::contrasts(col, contrasts = TRUE), error = function(e) NULL)
    if (is.null(cm)) cm <- stats::contrasts(col)
    is.numeric(cm) && all(cm %in% c(0, 1))
  }
  asg <- attr(X, "assign")
  # `two_valued`: instead, the columns of a main effect of one factor,
  # logical or comparison (and such a response), two-valued by design
  keep <- vapply(seq_along(asg), function(j) {
    if (asg[j] == 0L || !length(fac)) return(FALSE)
    vars <- rownames(fac)[fac[, asg[j]] > 0]
    length(vars) == 1L && if (two_valued) !numeric_var(vars) && zero_one(vars) else numeric_var(vars)
  }, logical(1))
  y <- stats::model.response(mf)
  y_num <- is.numeric(y) && !is.logical(y) && !lm_logical_term(resp)
  c(colnames(X)[keep], if (y_num != two_valued) resp)
}

# The formula interface's design: [ones, model matrix columns, y] and what
# predict() needs. The column of ones is always released (n's private
# estimate), fitted only with an intercept.
lm_design <- function(formula, data, min_rows = 2L, box = NULL, check_box = NULL) {
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    abort("`x` must be a two-sided formula, e.g. y ~ x1 + x2.", .arg = "x")
  }
  # only the formula's expression is used, rebuilt without attributes: a terms
  # object's `predvars` (which model.frame() evaluates, unchecked) or a
  # formula's environment never reach the data
  formula <- eval(as.call(as.list(formula)), baseenv())
  if (missing(data)) abort_missing("data")
  if (is.matrix(data) && !is.object(data)) data <- as.data.frame(data)
  if (!is.data.frame(data)) abort("`data` must be a data frame, not %s.", class(data)[1], .arg = "data")
  heads <- call_heads(formula)
  if ("offset" %in% heads) {
    abort("`x`: offset() is not supported by dp_lm(); subtract the offset from the response in `data` instead.",
          .arg = "x")
  }
  bad_fun <- intersect(heads, lm_data_dependent)
  if (length(bad_fun)) {
    abort("`x`: %s in the formula would compute statistics of the data without noise; declare factors in `data` with their levels and transform with public constants.",
          paste0(bad_fun, "()", collapse = ", "), .arg = "x")
  }
  vars <- lm_data_vars(formula)
  used_constants <- lm_constants_shadowed(formula, names(data))
  if (length(used_constants)) {
    abort("`data` has a column named `%s`, which the formula's `%s` (the constant) would read instead; rename the column.",
          used_constants[1], used_constants[1], .arg = "data")
  }
  # (lm_expand_dot() replaced a `.` term; one left is inside a call, as in log(.))
  if ("." %in% vars) {
    abort("`x`: `.` stands for the other columns of `data` only as a term (y ~ . or y ~ . - z), not inside a call; name the variables.",
          .arg = "x")
  }
  miss <- setdiff(vars, names(data))
  if (length(miss)) abort("`x` names variable(s) %s that `data` does not have.", paste(miss, collapse = ", "),
                          .arg = "x")
  tt0 <- tryCatch(stats::terms(formula), error = function(e) abort("`x` is not a valid model formula: %s", conditionMessage(e), .arg = "x"))
  for (e in as.list(attr(tt0, "variables"))[-1L]) {
    lm_check_elementwise(e, names(data))
    # a variable of constants alone has one value, not one per row: the model
    # frame would be built only when n = 1
    if (!length(lm_data_vars(e))) {
      abort("`x`: the variable `%s` uses no column of `data`; every variable of the model must be built from the data's columns.",
            deparse1(e), .arg = "x")
    }
  }
  if (nrow(data) < min_rows) abort("`data` needs at least 2 rows when n is public, has %d.", nrow(data), .arg = "data")
  # a model with no terms and no intercept is the formula's fact: refused before the values are read
  if (attr(tt0, "intercept") == 0L && !length(attr(tt0, "term.labels"))) {
    abort("`x`: the model has no terms and no intercept.", .arg = "x")
  }
  for (v in vars) {
    col <- data[[v]]
    if (is.character(col)) {
      abort("`data`: column `%s` is character; its levels would come from the data. Make it a factor with declared levels.",
            v, .arg = "data")
    }
    lm_check_column(col, v, "data")
    if (is.factor(col) && nlevels(col) < 2L) {
      abort("`data`: factor `%s` has %d declared level(s); a factor in a model needs at least 2 (its levels are public schema, not the values that occur).",
            v, nlevels(col), .arg = "data")
    }
    if (anyNA(col) || is.numeric(col) && any(is.infinite(col))) {
      abort("`data`: column `%s` contains NA or infinite values; remove or impute them first.", v, .arg = "data",
            .class = "dpcov_data_error")
    }
  }
  f <- formula
  attr(f, ".Environment") <- lm_eval_env()
  data <- lm_integers_as_double(data, vars)
  # the transformations' warnings ("NaNs produced") depend on the values: muffled
  # an error's message is withheld: evaluated on the data, it may quote values;
  # and the charge stands (as_data_error()), should a failure still depend on them
  mf <- as_data_error(tryCatch(suppressWarnings(stats::model.frame(f, data = data, na.action = stats::na.pass,
                                                                   drop.unused.levels = FALSE)),
                               error = function(e) abort("`x`: the model frame could not be built from the formula's variables.",
                                                         .arg = "x")))
  # a transformation's result is numeric whatever the values: ifelse(x > t,
  # "a", x) is character (a factor of the values that occur, named in the
  # design) or numeric depending on which rows pass the test, and
  # ifelse(x > t, TRUE, 0) logical or numeric; as.double() fixes the type
  # (text becomes NA, then 0 by lm_finite())
  mf <- lm_frame_values(mf, tt0)
  tt <- attr(mf, "terms")
  if (!identical(attr(tt, "predvars"), attr(tt, "variables"))) {
    abort("`x` uses a data-dependent transformation; transform with public constants.", .arg = "x")
  }
  y <- stats::model.response(mf)
  # a logical response is 0/1, as in lm() (its bounds [0, 1], lm_box_bounds())
  if (is.logical(y) && is.null(dim(y))) y <- as.double(y)
  if (!is.numeric(y) || !is.null(dim(y))) abort("`x`: the response must be one numeric or logical column.", .arg = "x")
  X <- as_data_error(tryCatch(stats::model.matrix(tt, mf),
                              error = function(e) abort("`x`: the design could not be built from the formula's variables.",
                                                        .arg = "x")))
  X <- lm_finite(X)  # a product of two large values overflows again
  # columns that are combinations of the others for any data would get
  # coefficients the data cannot identify, and intervals as wide as the noise
  # lets them be (lm() gives them NA): refused, from the schema alone
  # (identities of the terms where the codings show none: one naming, lm()'s)
  aliased <- lm_structural_aliases(tt, mf, X, data)
  if (!length(aliased)) aliased <- lm_numeric_aliases(tt, mf, X, data)
  aliased <- colnames(X)[colnames(X) %in% aliased]
  if (length(aliased)) {
    abort(paste0("`x`: the design's column(s) %s are linear combinations of the others for any data (lm() would ",
                 "report NA for them), so their coefficients cannot be estimated. Drop the redundant terms; where ",
                 "a factor coding makes them redundant, add the main effects (e.g. a * b instead of a:b) or drop ",
                 "the intercept (- 1)."),
          paste0("`", aliased, "`", collapse = ", "), .arg = "x")
  }
  resp <- deparse1(formula[[2L]])
  # public bounds of every released column but the ones (R/box.R); `box` a
  # function: bounds it chooses (privately) for the model frame's numeric variables
  # public bounds about to be tightened are checked against the model first
  # (a missing variable is the formula's and the bounds' fact, refused before the draw)
  if (!is.null(check_box)) lm_box_bounds(check_box, tt, mf, X, resp, names(data))
  if (is.function(box)) box <- box(mf)
  box_b <- if (!is.null(box)) lm_box_bounds(box, tt, mf, X, resp, names(data))
  # bounds given for some variables (lm_private_bounds() names the others)
  from_data <- if (!is.null(attr(box, "private"))) lm_box_from_data(box, attr(box, "private"), tt, mf, X, resp)
  icpt <- attr(tt, "intercept") == 1L
  # (cbind() drops the design's "assign", which says which term made each
  # column, and its "contrasts", which predict() codes new data with)
  if (!icpt) {
    X <- structure(cbind("(Intercept)" = 1, X), assign = c(0L, attr(X, "assign")), contrasts = attr(X, "contrasts"))
  }
  A <- cbind(X, y)
  colnames(A)[ncol(A)] <- resp
  storage.mode(A) <- "double"
  feat <- seq_len(ncol(X))[-1L]
  if (!icpt && !length(feat)) abort("`x`: the model has no terms and no intercept.", .arg = "x")
  tt <- with_base_env(tt)
  attr(tt, "dataClasses") <- NULL
  list(A = A, feat = feat, intercept = icpt, terms = tt, xlevels = stats::.getXlevels(tt, mf),
       contrasts = attr(X, "contrasts"), formula = with_base_env(stats::formula(tt)), box = box_b,
       box_from_data = from_data,
       numeric_columns = lm_numeric_columns(tt, mf, X, resp),
       two_valued_columns = lm_numeric_columns(tt, mf, X, resp, two_valued = TRUE))
}

#' The design columns of smooth numeric terms that are linear combinations
#' of the others whatever the data (`y ~ x + z + I(x + z)`, `y ~ x + I(2 *
#' x)`, `y ~ log(a) + log(2 * a)`, `x:z` beside `I(x * z)`), which
#' lm_structural_aliases() (factor codings over numeric parts) does not look
#' for. Only columns of terms built from numeric data columns by smooth
#' (real-analytic) functions are judged, beside the intercept: for them an
#' identity on an open set of values holds everywhere, so synthetic rows
#' decide it. Terms with comparisons, logicals, factors or piecewise
#' functions (pmax(), abs(), ifelse(), round(), ...) are left out: a relation
#' among them can hold on a range only (x > 5 and x > 7 agree outside (5,
#' 7]), which a finite sample of rows cannot rule out, and a false refusal of
#' a valid model is worse than a noisy coefficient. The rows (no value of
#' the data is read) come from a fixed Park-Miller stream, in five probes of
#' different ranges and signs (0.5 to 2.5; -1000 to 1000; 100 to 1e8 on the
#' log scale; -1e7 to 1e7; -1e12 to 1e12); a variable whose columns a
#' negative value makes non-finite (log(), sqrt()) is kept positive. A
#' column is refused when it lies in the span of the others in every probe
#' where it takes many values (at least two such probes: a column saturated
#' in a probe, a steep tanh() step far from its centre, tells nothing
#' there), on the rows where every judged column is finite; the columns
#' named are those a QR with pivoting moves to the end (on the last
#' mixed-sign probe), as lm() names them NA. Skipped beyond 300 design
#' columns.
#' @noRd
lm_numeric_aliases <- function(tt, mf, X, data) {
  fac <- attr(tt, "factors")
  k <- ncol(X)
  if (!length(fac) || k < 2L || k > 300L) return(character(0))
  if (any(vapply(mf, function(col) !is.null(dim(col)) && NCOL(col) > 1L, logical(1)))) return(character(0))
  vars <- intersect(all.vars(tt), names(data))
  if (!length(vars)) return(character(0))
  # the judged columns: the intercept, and those of terms whose variables are
  # smooth functions of numeric data columns
  exprs <- stats::setNames(as.list(attr(tt, "variables"))[-1L], lm_variable_labels(tt))
  asg <- attr(X, "assign")
  numeric_data <- vapply(vars, function(v) is.numeric(data[[v]]), logical(1))
  smooth_var <- vapply(rownames(fac), function(lab) {
    e <- exprs[[lab]]
    !is.null(e) && lm_smooth_expr(e) && all(all.vars(e) %in% vars[numeric_data])
  }, logical(1))
  judged <- vapply(asg, function(a) a == 0L || all(smooth_var[rownames(fac)[fac[, a] > 0]]), logical(1))
  if (sum(judged) < 2L) return(character(0))
  m <- 2L * k + 24L
  # (uniforms from a fixed generator: R's RNG is not drawn from)
  u_all <- park_miller_uniforms(m * length(vars))
  u <- function(j) u_all[(j - 1L) * m + seq_len(m)]
  f <- tt
  attr(f, ".Environment") <- lm_eval_env()
  design_of <- function(values) {
    syn <- as.data.frame(lapply(stats::setNames(seq_along(vars), vars), function(j) {
      col <- data[[vars[j]]]
      if (is.factor(col)) {
        synthetic_factor(col, 1L + floor(u(j) * nlevels(col)))
      } else if (is.logical(col)) {
        u(j) < 0.5
      } else {
        values(j)
      }
    }), optional = TRUE)
    Xs <- tryCatch(suppressWarnings({
      mfs <- stats::model.frame(f, syn, na.action = stats::na.pass)
      mfs <- lm_frame_values(mfs, tt, rule = FALSE)
      stats::model.matrix(tt, mfs, contrasts.arg = attr(X, "contrasts"))
    }), error = function(e) NULL)
    if (is.null(Xs) || !identical(colnames(Xs), colnames(X))) NULL else Xs
  }
  # the variables kept positive in the mixed-sign probes: those of the terms
  # whose columns a negative value makes non-finite
  neg <- design_of(function(j) -(0.5 + 2 * u(j)))
  if (is.null(neg)) return(character(0))
  pos_only <- character(0)
  for (ci in which(colSums(!is.finite(neg)) > 0L)) {
    if (asg[ci] == 0L) next
    for (lab in rownames(fac)[fac[, asg[ci]] > 0]) pos_only <- union(pos_only, all.vars(exprs[[lab]]))
  }
  probes <- list(list(map = function(v) 0.5 + 2 * v, mixed = FALSE),
                 list(map = function(v) 2000 * v - 1000, mixed = TRUE),
                 list(map = function(v) 10^(2 + 6 * v), mixed = FALSE),
                 list(map = function(v) (2 * v - 1) * 1e7, mixed = TRUE),
                 list(map = function(v) (2 * v - 1) * 1e12, mixed = TRUE))
  J <- which(judged)
  k <- length(J)
  in_span <- rep(TRUE, k)
  # the probes where a column takes many values (a column saturated there, a
  # step of tanh() far from its centre or a constant, tells nothing): a
  # column is judged on two such probes at least
  seen <- integer(k)
  counted <- 0L
  last <- NULL
  for (pr in probes) {
    Xs <- design_of(function(j) {
      v <- pr$map(u(j))
      if (vars[j] %in% pos_only) abs(v) else v
    })
    if (is.null(Xs)) return(character(0))
    Z <- Xs[, J, drop = FALSE]
    Z <- Z[rowSums(!is.finite(Z)) == 0L, , drop = FALSE]
    if (nrow(Z) < k + 4L) next
    counted <- counted + 1L
    # each column scaled by its largest |value| (its squares may overflow); a
    # column in the span of the others has a weight in a null vector; a
    # column of zeros here says nothing (in the span trivially)
    top <- apply(abs(Z), 2L, max)
    nz <- top > 0
    if (!any(nz)) next
    Zs <- sweep(Z[, nz, drop = FALSE], 2L, top[nz], "/")
    sv <- svd(Zs, nu = 0L)
    null <- sv$v[, sv$d <= 1e-11 * sv$d[1L], drop = FALSE]
    here <- rep(FALSE, k)
    here[nz] <- if (ncol(null)) rowSums(abs(null) > 1e-6) > 0L else FALSE
    # (distinct on the column's own scale: values 1e-20 of its largest are 0 there)
    informative <- apply(Z, 2L, function(v) {
      t <- max(abs(v))
      t > 0 && length(unique(round(v / t, 6))) >= 8L
    })
    in_span <- in_span & (here | !informative)
    seen <- seen + informative
    if (pr$mixed) last <- list(Zs = Zs, nz = nz)
  }
  in_span <- in_span & seen >= 2L
  if (counted < 2L || is.null(last) || !any(in_span)) return(character(0))
  # the columns lm() would name NA: those a pivoting QR moves past the rank
  q <- qr(last$Zs, tol = 1e-11)
  cols_nz <- which(last$nz)
  dropped <- cols_nz[q$pivot[-seq_len(q$rank)]]
  named <- intersect(dropped, which(in_span))
  colnames(X)[J[if (length(named)) named else which(in_span)]]
}

# Values of factor `col` at its levels number `idx`, with its levels and
# contrasts (`[` keeps them): synthetic rows of its schema.
synthetic_factor <- function(col, idx) {
  z <- col[rep(NA_integer_, length(idx))]
  z[] <- levels(col)[idx]
  z
}

# Whether an expression is built by smooth (real-analytic where defined)
# functions only: arithmetic, powers, log, exp, sqrt, trigonometric and
# hyperbolic functions, I(); no comparison, logical or piecewise function.
lm_smooth_expr <- function(e) {
  if (is.name(e) || is.numeric(e)) return(TRUE)
  if (!is.call(e) || !is.name(e[[1L]])) return(FALSE)
  ok <- c("+", "-", "*", "/", "^", "(", "I", "log", "log1p", "log2", "log10", "exp", "expm1", "sqrt",
          "sin", "cos", "tan", "sinh", "cosh", "tanh", "asinh", "atan")
  as.character(e[[1L]]) %in% ok && all(vapply(as.list(e)[-1L], lm_smooth_expr, logical(1)))
}

# `count` uniforms in (0, 1) from the Park-Miller minimal standard generator
# (x <- 16807 x mod 2^31 - 1, exact in doubles) from a fixed seed: synthetic
# values for schema checks, reproducible and apart from R's RNG stream.
park_miller_uniforms <- function(count, seed = 20261128) {
  out <- numeric(count)
  x <- seed
  for (i in seq_len(count)) {
    x <- (16807 * x) %% 2147483647
    out[i] <- x / 2147483647
  }
  out
}

#' The design columns that are linear combinations of the others whatever
#' the data (`y ~ g:h` with an intercept: the cells' indicators add up to the
#' ones; `y ~ x + g:h:x`; `y ~ I(x > 5) + I(x <= 5)`), found from the schema
#' and the formula alone: each column is its term's factor part (indicators
#' or contrasts of the factors, logicals and comparisons) times its numeric
#' part (the product of the term's numeric variables). Columns with
#' different numeric parts are independent for generic data, so the check is
#' per numeric part, on the factor parts over every combination the coded
#' variables can take (lm_coded_table()), numeric variables set to 1. Coded
#' variables that share no data column and no term vary independently, and
#' every column is a function of one such group, so each group's
#' combinations with the others at their first (a "star", 1 + sum of (rows -
#' 1) rows instead of their product) show every relation that holds for all
#' combinations. Dependent columns are named as lm() names them NA (qr()'s
#' pivoting moves the later one to the end). A dependence only the data make
#' (a level with no rows, two equal columns) is not looked for: that would
#' read the data. Skipped (nothing found) where a group's combinations
#' exceed `max_rows`.
#' @noRd
lm_structural_aliases <- function(tt, mf, X, data, max_rows = 2e4) {
  fac <- attr(tt, "factors")
  asg <- attr(X, "assign")
  if (!length(fac) || ncol(X) < 2L) return(character(0))
  labels <- rownames(fac)
  var_labels <- lm_variable_labels(tt)
  frame_name <- stats::setNames(names(mf), var_labels)
  if (any(vapply(mf, function(col) !is.null(dim(col)) && NCOL(col) > 1L, logical(1)))) return(character(0))
  coded <- vapply(labels, function(v) {
    col <- mf[[frame_name[[v]]]]
    is.factor(col) || is.logical(col)
  }, logical(1))
  cl <- labels[coded]
  exprs <- stats::setNames(as.list(attr(tt, "variables"))[-1L], var_labels)
  tables <- list()
  if (length(cl)) {
    # groups: coded variables that read a common data column or share a term
    uses <- lapply(cl, function(v) intersect(all.vars(exprs[[v]]), names(data)))
    grp <- seq_along(cl)
    root <- function(i) {
      while (grp[i] != i) i <- grp[i]
      i
    }
    join <- function(i, j) {
      a <- root(i)
      b <- root(j)
      if (a != b) grp[b] <<- a
    }
    for (i in seq_along(cl)) for (j in seq_len(i - 1L)) if (length(intersect(uses[[i]], uses[[j]]))) join(i, j)
    for (t in seq_len(ncol(fac))) {
      in_t <- which(cl %in% labels[fac[, t] > 0])
      for (k in in_t[-1L]) join(in_t[1L], k)
    }
    roots <- vapply(seq_along(cl), root, 0L)
    for (r in unique(roots)) {
      tab <- lm_coded_table(cl[roots == r], exprs, unique(unlist(uses[roots == r])), mf, frame_name, data, max_rows)
      if (is.null(tab)) return(character(0))
      tables[[length(tables) + 1L]] <- tab
    }
  }
  m <- 1L + sum(vapply(tables, nrow, 0L) - 1L)
  syn <- mf[rep(1L, m), , drop = FALSE]
  for (j in seq_along(syn)) if (!names(syn)[j] %in% frame_name[cl]) syn[[j]][] <- 1
  # `[<-` on a factor keeps its levels and any contrasts set on it
  fill <- function(tab, rows, idx) {
    for (v in names(tab)) {
      j <- frame_name[[v]]
      if (is.factor(syn[[j]])) syn[[j]][rows] <<- tab[[v]][idx] else syn[[j]][rows] <<- as.logical(tab[[v]][idx])
    }
  }
  for (tab in tables) fill(tab, seq_len(m), rep(1L, m))
  at <- 1L
  for (tab in tables) {
    k <- nrow(tab) - 1L
    if (k > 0L) {
      fill(tab, at + seq_len(k), 1L + seq_len(k))
      at <- at + k
    }
  }
  Xs <- tryCatch(stats::model.matrix(tt, syn, contrasts.arg = attr(X, "contrasts")), error = function(e) NULL)
  if (is.null(Xs) || !identical(dim(Xs)[2L], dim(X)[2L])) return(character(0))
  numeric_part <- vapply(asg, function(a) {
    if (a == 0L) return("")
    vars <- labels[fac[, a] > 0]
    paste(sort(vars[!coded[vars]]), collapse = ":")
  }, "")
  aliased <- character(0)
  for (part in unique(numeric_part)) {
    cols <- which(numeric_part == part)
    if (length(cols) < 2L) next
    q <- qr(Xs[, cols, drop = FALSE])
    if (q$rank < length(cols)) aliased <- c(aliased, colnames(X)[cols[q$pivot[-seq_len(q$rank)]]])
  }
  colnames(X)[colnames(X) %in% aliased]
}

#' The combinations a group of coded variables `vars` (labels of the model
#' frame) can take, one row each (factor levels as text, logicals): exactly,
#' by evaluating their expressions on every combination of the data columns
#' `cols` they read, where those columns' reachable values are known (a
#' factor's declared levels, a logical's two values, a numeric column read
#' only in comparisons with constants: a point in each region the constants
#' cut; lm_column_values()); otherwise every combination of the variables'
#' own values (a superset, which can miss a relation but never invents one).
#' NULL beyond `max_rows`.
#' @noRd
lm_coded_table <- function(vars, exprs, cols, mf, frame_name, data, max_rows) {
  own <- function(v) {
    col <- mf[[frame_name[[v]]]]
    if (is.factor(col)) levels(col) else c(FALSE, TRUE)
  }
  independent <- function() {
    lv <- stats::setNames(lapply(vars, own), vars)
    if (prod(lengths(lv)) > max_rows) return(NULL)
    expand.grid(lv, KEEP.OUT.ATTRS = FALSE, stringsAsFactors = FALSE)
  }
  vals <- lapply(cols, function(u) lm_column_values(u, data[[u]], exprs[vars]))
  if (!length(cols) || any(vapply(vals, is.null, logical(1))) || prod(lengths(vals)) > max_rows) return(independent())
  grid <- expand.grid(stats::setNames(vals, cols), KEEP.OUT.ATTRS = FALSE, stringsAsFactors = FALSE)
  for (u in cols) if (is.factor(data[[u]])) grid[[u]] <- factor(grid[[u]], levels = levels(data[[u]]))
  env <- lm_eval_env()
  out <- lapply(vars, function(v) {
    val <- tryCatch(suppressWarnings(eval(exprs[[v]], grid, env)), error = function(e) NULL)
    if (is.null(val) || length(val) != nrow(grid) || !is.null(dim(val))) return(NULL)
    if (is.factor(mf[[frame_name[[v]]]])) {
      if (!is.factor(val)) return(NULL)
      return(as.character(val))
    }
    val <- if (is.name(exprs[[v]])) as.logical(val) else lm_transformed_value(val, v)
    if (!is.logical(val)) return(NULL)
    val[is.na(val)] <- FALSE
    val
  })
  if (any(vapply(out, is.null, logical(1)))) return(independent())
  tab <- as.data.frame(stats::setNames(out, vars), stringsAsFactors = FALSE, optional = TRUE)
  tab[!duplicated(tab), , drop = FALSE]
}

#' The values of data column `u` (`col`, for its class and levels) that
#' reach every value the coded expressions `exprs` can take: a factor's
#' declared levels, a logical's two values; for a numeric column read only
#' as `u op c` or `c op u` (op a comparison, c a number), each constant and a
#' point inside every region the constants cut. NULL otherwise (a numeric
#' column read any other way: its reachable combinations are not known).
#' @noRd
lm_column_values <- function(u, col, exprs) {
  if (is.factor(col)) return(levels(col))
  if (is.logical(col)) return(c(FALSE, TRUE))
  if (!is.numeric(col)) return(NULL)
  ops <- c("<", ">", "<=", ">=", "==", "!=")
  const <- function(e) {
    if (is.numeric(e) && length(e) == 1L && is.null(attributes(e)) && is.finite(e)) return(as.double(e))
    if (is.call(e) && identical(e[[1L]], quote(`-`)) && length(e) == 2L) {
      v <- const(e[[2L]])
      return(if (is.null(v)) NULL else -v)
    }
    NULL
  }
  found <- numeric(0)
  other_use <- FALSE
  walk <- function(e) {
    if (is.symbol(e)) {
      if (identical(as.character(e), u)) other_use <<- TRUE
      return(invisible())
    }
    if (!is.call(e)) return(invisible())
    if (is.name(e[[1L]]) && as.character(e[[1L]]) %in% ops && length(e) == 3L) {
      a <- e[[2L]]
      b <- e[[3L]]
      if (is.symbol(a) && identical(as.character(a), u) && !is.null(const(b))) {
        found <<- c(found, const(b))
        return(invisible())
      }
      if (is.symbol(b) && identical(as.character(b), u) && !is.null(const(a))) {
        found <<- c(found, const(a))
        return(invisible())
      }
    }
    args <- as.list(e)[-1L]
    for (i in seq_along(args)) if (!identical(args[[i]], quote(expr = ))) walk(args[[i]])
    invisible()
  }
  for (e in exprs) walk(e)
  if (other_use || !length(found)) return(NULL)
  k <- sort(unique(found))
  # beyond the ends by at least 1 and by the constant's own size (k + 1 is k
  # past 2^53); midpoints halved first (no overflow near the largest double)
  c(k[1L] - max(1, abs(k[1L])), k, k[-1L] / 2 + k[-length(k)] / 2, k[length(k)] + max(1, abs(k[length(k)])))
}

#' dp_lm()'s bounds `b` (check_bounds(partial = TRUE), NA for some) for the
#' model `formula` on `data` (NULL when not given), from the schema alone:
#' `given` for the private path when an NA names a numeric variable of the
#' model and some bound that reaches the model is given; `box`, the public
#' bounds alone, when no NA names a numeric variable (an NA on a factor, a
#' logical or a column the model does not use is ignored, as unused bounds
#' are: nothing is chosen, nothing spent); neither (the default) when every
#' bound that reaches the model is NA. An NA that names neither a variable of
#' the model nor a column of `data` is refused (a typo must not pass), and so
#' are unnamed bounds unless every one is NA (the default).
#' @noRd
lm_partial_bounds <- function(b, formula, data) {
  nm <- names(b$lower)
  unknown <- is.na(b$lower)
  if (is.null(nm)) {
    # every bound NA, unnamed (lower = NA, upper = NA): the default
    if (all(unknown)) return(list(given = NULL, box = NULL))
    abort("`%s`: for dp_lm() name every bound by its variable, NA for those whose bounds are not known, e.g. %s.",
          b$arg, if (b$arg == "lower") "lower = c(x = 0, y = NA), upper = c(x = 10, y = NA)" else
            "bounds = list(x = c(0, 10), y = c(NA, NA))", .arg = b$arg)
  }
  vars <- lm_formula_variables(formula)
  dn <- if (is.data.frame(data)) names(data) else if (is.matrix(data)) colnames(data)
  if (!is.null(data)) lm_check_na_names(setdiff(nm[unknown], c(vars, dn)), b$arg)
  chosen <- nm[unknown & nm %in% vars]
  if (!is.null(data)) {
    chosen <- chosen[!vapply(chosen, lm_schema_not_numeric, logical(1), data = data, env = environment(formula))]
  }
  if (!length(chosen)) {
    return(list(given = NULL, box = list(lower = b$lower[!unknown], upper = b$upper[!unknown], arg = b$arg)))
  }
  # a given bound reaches the model when it names a variable or a design
  # column (not a column of `data`); without data every name may
  reaches <- !unknown & (nm %in% vars | is.null(dn) | !nm %in% dn)
  if (!any(reaches)) return(list(given = NULL, box = NULL))
  list(given = b, box = NULL)
}

#' Refuse the names `odd` given NA bounds in `arg` that name no variable of
#' dp_lm()'s model (nor a column of its data).
#' @noRd
lm_check_na_names <- function(odd, arg) {
  if (!length(odd)) return(invisible())
  abort(paste0("`%s`: NA bounds (chosen privately) are for the model's numeric variables (columns of `data`, or ",
               "expressions such as I(x^2) in the formula); %s %s neither."),
        arg, paste0("`", odd, "`", collapse = ", "), if (length(odd) > 1L) "are" else "is", .arg = arg)
}

#' The public bounds of dp_lm()'s release `r` where some variables' bounds
#' were given and the others' chosen privately: its bounds (params$bounds),
#' NA on the released columns `from_data` marks (lm_box_from_data()); the
#' column of ones, where released, is public.
#' @noRd
lm_public_bounds <- function(r, from_data) {
  b <- r$params[["bounds"]]
  if (!is.data.frame(b)) return(NULL)
  private <- rownames(b) %in% names(from_data)[from_data]
  b$lower[private] <- NA_real_
  b$upper[private] <- NA_real_
  b
}

#' The per-variable class checks of dp_lm()'s `data` and of predict()'s and
#' model.matrix()'s new data (schema, read without the values): a vector,
#' numeric, logical or a factor (`text_ok`: or text, which new data may give
#' for a factor). A classed number (bit64's integer64, a Date, a unit class,
#' under I() too) is not its storage's double: refused, as dp_cov()'s
#' check_data_matrix() refuses it, never read as days or raw bits.
#' @noRd
lm_check_column <- function(col, v, arg, text_ok = FALSE) {
  kinds <- if (text_ok) "numeric, logical, a factor or text" else "numeric, logical or a factor"
  if (!(is.numeric(col) || is.logical(col) || is.factor(col) || text_ok && is.character(col)) || !is.null(dim(col))) {
    abort("`%s`: column `%s` must be %s, not %s.", arg, v, kinds, paste0("\"", lm_column_class(col), "\""),
          .arg = arg)
  }
  if (is.object(col) && !is.factor(col) && !is_plain_asis(col)) {
    abort("`%s`: column `%s` is of class %s, not a plain number; convert it (e.g. with as.numeric(), checking the values) first.",
          arg, v, paste0("\"", lm_column_class(col), "\""), .arg = arg)
  }
  invisible(col)
}

# A column's class as messages name it: its own, not I()'s.
lm_column_class <- function(col) {
  cl <- setdiff(class(col), "AsIs")
  if (length(cl)) cl[1L] else "AsIs"
}

#' The model frame's values by the public per-record rule: every transformed
#' variable of a type fixed by its expression (lm_transformed_value(): its
#' type would otherwise depend on the values), then, with `rule`, NA to 0 or
#' FALSE and +-Inf bounded (lm_finite()). One helper for the data, the zeroed
#' record (so its row is exactly the rule's) and predict()'s new data
#' (`rule = FALSE`: missing values there are refused, not set to 0).
#' @noRd
lm_frame_values <- function(mf, tt, rule = TRUE) {
  transformed <- !vapply(as.list(attr(tt, "variables"))[-1L], is.name, logical(1))
  for (j in seq_along(mf)) {
    if (transformed[j]) mf[[j]] <- lm_transformed_value(mf[[j]], names(mf)[j])
    if (!rule) next
    if (is.numeric(mf[[j]])) mf[[j]] <- lm_finite(mf[[j]])
    if (is.logical(mf[[j]])) mf[[j]][is.na(mf[[j]])] <- FALSE
  }
  mf
}

#' A transformed variable's value: logical where the expression is logical
#' whatever the data (a comparison: its design column is named as lm() names
#' it, `I(x > 3)TRUE`), numeric otherwise (as.double(): text becomes NA).
#' @noRd
lm_transformed_value <- function(v, name) {
  if (lm_logical_term(name)) as.logical(unclass(v)) else suppressWarnings(as.double(unclass(v)))
}

#' A variable of the formula (every column, with `.`) must name one column
#' of `data`: model.frame() takes the first of repeated names, silently
#' (schema: before the charge).
#' @noRd
lm_check_data_names <- function(formula, data) {
  nm <- if (is.data.frame(data)) names(data) else if (is.matrix(data)) colnames(data)
  vars <- all.vars(formula)
  if ("." %in% vars) vars <- nm  # `.`: every other column
  twice <- intersect(vars, nm[duplicated(nm)])
  if (length(twice)) {
    abort("`data` has more than one column named %s, which the formula uses; name every column once.",
          col_list(twice), .arg = "data")
  }
  invisible(NULL)
}

#' The plain integer columns `vars` of the data frame `d` as doubles: integer
#' arithmetic in a transformation overflows to NA (I(i * i) once i passes
#' 46340), which lm_finite() would make 0, silently; as doubles the products
#' are exact, as in lm()'s model matrix (the schema decides, not the values).
#' @noRd
lm_integers_as_double <- function(d, vars) {
  for (v in intersect(vars, names(d))) {
    if (is.integer(d[[v]]) && !is.object(d[[v]]) && is.null(dim(d[[v]]))) d[[v]] <- as.double(d[[v]])
  }
  d
}

#' The public per-record rule for what the formula's transformations (public
#' constants) make of finite data: NaN (and NA) become 0, +-Inf become
#' +-.Machine$double.xmax, which the bounds or the clip then bound like any
#' other large value. Refusing them instead would make the release fail or
#' succeed on the private values (`y ~ log(x - t)` fails iff some x < t: a
#' bisection finds the minimum). Keeps dim and attributes.
#' @noRd
lm_finite <- function(v) {
  v[is.na(v)] <- 0
  big <- .Machine$double.xmax
  v[v == Inf] <- big
  v[v == -Inf] <- -big
  v
}

#' The design row [x, y] of the all-zero record (numeric and logical variables
#' 0), through the model's own terms: what a zero-out neighbour puts into the
#' mechanism. NULL (the worst case) when it is not defined (a factor, a
#' transformation undefined at 0).
#' @noRd
lm_zero_record_row <- function(design, data) {
  # (a matrix indexed by names gave NA elements: the worst case, always)
  if (is.matrix(data) && !is.object(data)) data <- as.data.frame(data)
  vars <- lm_data_vars(design$formula)
  zero <- lapply(data[vars], function(col) if (is.factor(col)) NULL else if (is.logical(col)) FALSE else 0)
  if (any(vapply(zero, is.null, logical(1)))) return(NULL)
  tryCatch({
    mf <- suppressWarnings(stats::model.frame(design$terms, data = as.data.frame(zero), na.action = stats::na.pass))
    mf <- lm_frame_values(mf, design$terms)
    X <- lm_finite(stats::model.matrix(design$terms, mf))
    if (!design$intercept) X <- cbind(1, X)
    c(X, lm_finite(stats::model.response(mf)))
  }, error = function(e) NULL)
}

# A formula over a release's columns: response, features and the column of ones.
lm_release_formula <- function(formula, cols, ones, centred) {
  if (missing(formula)) abort_missing("formula")
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    abort("`formula` must be a two-sided formula over the release's columns, e.g. y ~ x1 + x2.", .arg = "formula")
  }
  if (is.null(cols)) abort("`x` has no column names; name the columns of the released data.", .arg = "x")
  if (!is.null(ones) && !is_string(ones)) abort("`ones` must be NULL or one column name.", .arg = "ones")
  if (!is.null(ones) && !ones %in% cols) {
    if (!identical(ones, "(Intercept)")) abort("`ones`: the release has no column \"%s\".", ones, .arg = "ones")
    ones <- NULL
  }
  resp <- deparse1(formula[[2L]])
  y <- match(resp, cols)
  if (is.na(y)) abort("`formula`: the response %s is not a column of the release.", resp, .arg = "formula")
  df0 <- as.data.frame(matrix(numeric(0), 0, length(cols), dimnames = list(NULL, cols)), optional = TRUE)
  # a name that is a column once the column's own backticks are dropped (a
  # formula fit's release names `my x` with them) is rewritten to the
  # column's spelling, so terms() expands, removes and orders it as written
  formula[[3L]] <- lm_release_symbols(formula[[3L]], cols)
  gone <- setdiff(lm_removed_terms(formula[[3L]]), cols)
  if (length(gone)) {
    abort("`formula` removes %s, not column(s) of the release.", paste0("`", gone, "`", collapse = ", "), .arg = "formula")
  }
  # (terms() warns "'varlist' has changed ... should no longer happen!" when
  # `.` expands to a name a `-` term then removes: R's own note, muffled)
  tt <- tryCatch(withCallingHandlers(stats::terms(formula, data = df0), warning = function(w) {
    if (grepl("varlist", conditionMessage(w), fixed = TRUE)) invokeRestart("muffleWarning")
  }),
                 error = function(e) abort("`formula`: %s", conditionMessage(e), .arg = "formula"))
  if (any(grepl("~", deparse1(formula[[3L]]), fixed = TRUE)) || !is.null(attr(tt, "offset"))) {
    abort("`formula` must name columns of the release only.", .arg = "formula")
  }
  # a term names a column as R deparses its name (`my x` in backticks; `.`
  # expands a column named with backticks, as a formula fit's design names
  # a non-syntactic variable, to that name quoted again), or as written
  keys <- vapply(cols, function(v) deparse1(as.name(v), backtick = TRUE), "")
  raw <- attr(tt, "term.labels")
  feat <- match(raw, keys)
  feat[is.na(feat)] <- match(raw[is.na(feat)], cols)
  feat[is.na(feat)] <- match(unbacktick(raw[is.na(feat)]), cols)
  labels <- ifelse(is.na(feat), unbacktick(raw), cols[feat])
  if ("." %in% all.vars(formula[[3L]])) {
    drop <- labels %in% c(ones, resp)
    labels <- labels[!drop]
    feat <- feat[!drop]
  }
  if (anyNA(feat)) {
    abort("`formula`: %s not column(s) of the release; a release holds only its columns (transformations and interactions must be released columns).",
          paste0("`", labels[is.na(feat)], "`", collapse = ", "), .arg = "formula")
  }
  if (y %in% feat) abort("`formula`: the response cannot also be a feature.", .arg = "formula")
  one <- if (is.null(ones)) NA_integer_ else match(ones, cols)
  if (!is.na(one) && one == y) abort("`ones` cannot be the response.", .arg = "ones")
  # (dropped silently, `y ~ one + x - 1` was fitted through the origin)
  if (!is.na(one) && one %in% feat) {
    abort("`formula` names `%s`, the column of ones (`ones`), as a term: it is the intercept; write the model with its intercept (y ~ x, not y ~ %s + x - 1), or give ones = NULL to fit it as a feature.",
          cols[one], cols[one], .arg = "formula")
  }
  icpt <- attr(tt, "intercept") == 1L
  if (icpt && is.na(one) && !centred) {
    abort("`formula` has an intercept but the release has no column of ones (name it in `ones`) and is not centred; add - 1 for a model without intercept.",
          .arg = "formula")
  }
  if (!icpt && !length(feat)) abort("`formula`: the model has no terms and no intercept.", .arg = "formula")
  tt2 <- stats::terms(stats::reformulate(if (length(labels)) keys[feat] else "1",
                                         response = as.name(resp), intercept = icpt))
  tt2 <- with_base_env(tt2)
  list(y = y, feat = feat, ones = if (is.na(one)) NULL else one,
       intercept = icpt, terms = tt2, formula = with_base_env(stats::formula(tt2)))
}

# ---- the fit and the bootstrap -------------------------------------------------

#' Fit from a release: features `feat` and response `y` (indices into the
#' release's columns), its column of ones `ones` (or NULL), with or without
#' an intercept. Builds the moment representation S over (ones, features,
#' y), the fit, and the bootstrap.
#' @noRd
lm_fit_release <- function(rel, feat, ones, y, intercept, B, n = NULL, regularize = "adaptive") {
  mom <- lm_moments(rel, feat, ones, y, intercept, n)
  S <- mom$S
  q <- ncol(S)
  fit_idx <- mom$fit_idx
  # the features' positions in S (after the ones, if any) and the ridge rule
  one <- !is.null(ones) || identical(rel$scale, "covariance")
  fx <- as.integer(one) + seq_along(feat)
  # the block the fit inverts: centred by the ones when the intercept is fitted
  centre <- one && 1L %in% fit_idx
  # the fit runs on standardised features (lm_standardize()) and maps back
  st <- lm_standardize(S, fx, one, centre)
  S <- st$forward(S)
  redraw <- if (!is.null(mom$redraw)) function(St) st$forward(mom$redraw(st$back(St)))
  sdx <- if (!is.null(mom$noise_sd_x)) mom$noise_sd_x / tcrossprod(st$scale)
  penalty <- if (regularize == "adaptive") lm_ridge_penalty(S, sdx, fx, centre, fit_idx)
  # the bootstrap and the intervals are those of least squares from the
  # release (their coverage of lm()'s coefficients is what was measured);
  # the ridge only shrinks the point estimate
  beta <- lm_solve(S, fit_idx, q, n = mom$n)
  beta_std <- beta  # (standardised coordinates: the ridge must shrink there)
  k <- length(fit_idx)
  b_full <- numeric(q - 1L)
  b_full[fit_idx] <- beta
  G <- S[-q, -q, drop = FALSE]
  rss <- S[q, q] - 2 * sum(b_full * S[-q, q]) + drop(crossprod(b_full, G %*% b_full))
  n_used <- mom$n
  # sigma is estimable only where the release leaves residual variance above
  # the rounding of the quadratic form (lm_rss_estimable()); where not, the
  # bootstrap draws the privacy noise alone (sigma2 = 0), as the diagnostic says
  estimable <- isTRUE(rel$exact) || lm_rss_estimable(rss, S, mom$S, b_full, st, fit_idx)
  sigma2 <- if (estimable) max(0, rss) / max(1, n_used - k) else 0
  # the bootstrap's own noise warning (singular draws) is held back and
  # raised only where the fit's diagnostics do not warn: one noise warning
  # per fit, as ?release_diagnostics says (357 of 900 fits raised two)
  held <- NULL
  boot <- if (B > 0) {
    withCallingHandlers(lm_bootstrap(G, b_full, sigma2, n_used, redraw, B, fit_idx, advice = noise_advice(rel)),
                        dpcov_noise_warning = function(w) {
                          held <<- w
                          invokeRestart("muffleWarning")
                        })
  } else {
    matrix(NA_real_, 0, k)
  }
  nm <- mom$names[fit_idx]
  to_data <- function(b) st$coef(b, fit_idx)
  if (nrow(boot)) boot[] <- t(apply(boot, 1L, to_data))
  beta <- stats::setNames(to_data(beta), nm)
  colnames(boot) <- nm
  reg <- lm_regularization(regularize, st$penalty(penalty, fit_idx), beta)
  if (any(reg$penalty > 0)) {
    # (a block too ill-conditioned to solve, which the least-squares step warned of, keeps that fit)
    shrunk_std <- lm_solve(S, fit_idx, q, singular_ok = FALSE, penalty = penalty, n = n_used)
    # The ridge is a shrinkage: on a positive semi-definite block its
    # coefficients are shorter than least squares' in the penalty's metric
    # (noise-whitened), and within the rule's level the penalised block is
    # well conditioned. A block more indefinite
    # than the rule's level (the clip path's centring by a noisy count, with
    # large means) raised to that level is nearly singular, and the "shrunk"
    # slopes came out up to 10^5 times lm()'s where least squares was within
    # a few percent; a penalty that lengthens the slopes is not the rule's,
    # and least squares is kept. (Two other rules were tried and reviewed:
    # bench/RESULTS.md, "dp_lm()'s ridge on the clip path".)
    if (all(is.finite(shrunk_std)) &&
        (!isTRUE(attr(penalty, "beyond_level")) || lm_ridge_shrinks(shrunk_std, beta_std, as.numeric(penalty)))) {
      beta <- stats::setNames(to_data(shrunk_std), nm)
    } else {
      reg[c("lambda", "penalty")] <- list(0, 0 * reg$penalty)
    }
  }
  V <- if (nrow(boot) > 1L) stats::cov(boot) else matrix(NA_real_, k, k, dimnames = list(nm, nm))
  dimnames(V) <- list(nm, nm)
  # the sampling error alone (sigma^2 times the inverse of the released design
  # block, as the bootstrap draws it, without the privacy noise), so that the
  # diagnostics can tell a slope the noise swamps from one the data cannot
  # tell from zero (lm() would not either)
  V_sampling <- lm_sampling_vcov(G, sigma2, fit_idx, to_data)
  dimnames(V_sampling) <- list(nm, nm)
  # a residual sum of squares at or below 0 (within rounding) is the noise's: sigma is not estimable (NA, diagnosed)
  fit <- list(coefficients = beta, vcov = V, boot = boot, sigma = if (estimable) sqrt(sigma2) else NA_real_, n = if (isTRUE(rel$n_public)) rel$n else NA_real_,
              n_used = n_used, n_source = mom$n_source, n_estimate = mom$n_estimate, n_noise_sd = mom$n_noise_sd,
              df = k, response = mom$names[q],
              release = rel, B = B, ci_type = "percentile", units = "data",
              mechanism = rel$mechanism, guarantee = rel$guarantee, failed_draws = attr(boot, "failed"),
              regularization = reg, vcov_sampling = V_sampling)
  # the features' released sds (post-processing), so the diagnostics judge
  # standardised coefficients: summed in the features' units, one slope in
  # large units hid the others' noise (carats against milli-carats)
  fit$feature_scale <- stats::setNames(st$scale, mom$names[fx])
  fit$diagnostics <- lm_diagnostics(fit, rel, mom$columns)
  # (a fit with no intervals at all: the bootstrap's warning, which says why
  # and what helps, is the one raised)
  if (!is.null(held) && (!identical(fit$diagnostics$level, "mostly noise") || nrow(boot) < 2L)) {
    warning(held)
    if (nrow(boot) < 2L) return(fit)
  }
  noise_warning(fit$diagnostics, "dp_lm")
  fit
}

#' The coefficients' covariance from sampling error alone, sigma2 times the
#' inverse of the (standardised) design block `G` on `fit_idx` (eigenvalues
#' floored as lm_bootstrap() floors them), mapped to the data's units by the
#' affine `to_data` (its Jacobian). NA where sigma is not estimable.
#' @noRd
lm_sampling_vcov <- function(G, sigma2, fit_idx, to_data) {
  k <- length(fit_idx)
  if (!(is.finite(sigma2) && sigma2 > 0) || !all(is.finite(G))) return(matrix(NA_real_, k, k))
  Gf <- symmetric_part(G)[fit_idx, fit_idx, drop = FALSE]
  e <- eigen(Gf, symmetric = TRUE)
  ev <- pmax(e$values, max(e$values[1], 1) * 1e-10)
  Vs <- sigma2 * (e$vectors %*% (t(e$vectors) / ev))
  b0 <- to_data(numeric(k))
  J <- vapply(seq_len(k), function(j) to_data(replace(numeric(k), j, 1)) - b0, numeric(k))
  J <- matrix(J, k, k)
  out <- J %*% Vs %*% t(J)
  if (!all(is.finite(out))) return(matrix(NA_real_, k, k))
  symmetric_part(out)
}

# Whether a released residual sum of squares `rss` = v'Sv (v = [-b, 1], S
# the standardised moments, b_full the least-squares coefficients there) is an
# estimate rather than rounding. Where the PSD projection leaves the release
# singular in the response's direction, rss is exactly 0 up to rounding, of
# either sign (sigma was 1e-7 where the data's is 1, or NA, at random). A
# rounding of each entry of S by a relative u moves v'Sv by up to u |v|'|S||v|
# (the bound of a quadratic form); the entries went through the release's own
# affine maps, release_sum() and the standardisation, each a q-term sum, so u
# = 8 q eps (8 covers those few steps with a margin: singular releases gave
# |rss| up to 2.4 eps |v|'|S||v| at q = 5, releases with residual variance
# 10^3 to 10^15). The bound is taken both in the standardised coordinates and
# in the data's (S0, where the features' offsets cancel in rss but not in its
# rounding). From the release only.
lm_rss_estimable <- function(rss, S, S0, b_full, st, fit_idx) {
  if (!is.finite(rss)) return(FALSE)
  q <- ncol(S)
  v <- c(-b_full, 1)
  v0 <- numeric(q - 1L)
  v0[fit_idx] <- st$coef(b_full[fit_idx], fit_idx)
  v0 <- c(-v0, 1)
  mag <- max(drop(crossprod(abs(v), abs(S) %*% abs(v))), drop(crossprod(abs(v0), abs(S0) %*% abs(v0))))
  is.finite(mag) && rss > 8 * q * .Machine$double.eps * mag
}

# The numerics of the fit: least squares, the ridge (whose penalty scales
# along) and the bootstrap are equivariant under the change of design columns
# x_j -> (x_j - c_j) / d_j, so they run where the features' block is well
# conditioned whatever the data's units and offsets (a year of 2000 +- 5, a
# ratio of 1e-8 beside a price of 1e8: in raw units the solve dropped one
# feature and the bootstrap's eigenvalue floor collapsed the intervals), and
# the coefficients map back. c_j is the released mean (the ones column's
# entry over S[1, 1]) when the intercept is fitted (`centre`; without it
# centring would change the model), d_j the released spread about it (or
# the root mean square; 1 when the release gives no positive scale). The map
# is a function of the release only (post-processing). S is over [ones?,
# features, y] (`one`: the ones column is first), `fx` the features'
# positions; the response is not touched.
lm_standardize <- function(S, fx, one, centre) {
  q <- ncol(S)
  nn <- if (one) S[1L, 1L] else NA_real_
  ok_n <- is.finite(nn) && nn > 0
  ctr <- centre && ok_n
  shift <- if (ctr) S[1L, fx] / nn else numeric(length(fx))
  if (!all(is.finite(shift))) shift[] <- 0
  spread <- diag(S)[fx] - if (ctr) shift^2 * nn else 0
  rms <- abs(diag(S)[fx])
  m <- if (ok_n) nn else 1  # per row, as the ones column's entry
  # (a noisy spread may be negative: only its positive values are rooted; a
  # centred spread within rounding (a column constant in the release) is
  # none, or its rounding became a unit-variance column and the solve gave
  # it a coefficient with no warning)
  real <- is.finite(spread) & spread > lm_singular_tol(m) * rms
  scale <- ifelse(real, sqrt(pmax(spread, 0) / m), sqrt(rms / m))
  scale[!is.finite(scale) | scale <= 0] <- 1
  Tm <- diag(q)
  Tm[cbind(fx, fx)] <- 1 / scale
  if (ctr) Tm[1L, fx] <- -shift / scale
  Ti <- diag(q)
  Ti[cbind(fx, fx)] <- scale
  if (ctr) Ti[1L, fx] <- shift
  sym <- symmetric_part
  list(scale = scale,
       forward = function(M) sym(crossprod(Tm, M %*% Tm)),
       back = function(M) sym(crossprod(Ti, M %*% Ti)),
       # coefficients over fit_idx on the standardised columns -> the data's
       coef = function(b, fit_idx) {
         full <- numeric(q - 1L)
         full[fit_idx] <- b
         drop(Tm[-q, -q, drop = FALSE] %*% full)[fit_idx]
       },
       # a ridge penalty on the standardised coefficients -> on the data's
       penalty = function(pen, fit_idx) {
         if (is.null(pen)) return(NULL)
         d <- rep(1, q - 1L)
         d[fx] <- scale
         out <- as.numeric(pen) * d[fit_idx]^2
         attributes(out) <- attributes(pen)
         out
       })
}

# Least squares from S over the columns fit_idx on the column q (the
# response); a block singular to lm_singular_tol(n) (n the rows, NA if not
# known) gives the minimum-norm solution with a warning, dropping eigenvalues
# below that, or tol_dim * eps, of the largest (singular_ok = FALSE: NAs,
# silently, for the bootstrap's draws and the ridge's second fit).
lm_solve <- function(S, fit_idx, q, singular_ok = TRUE, tol_dim = length(fit_idx), penalty = NULL, n = NA_real_,
                     tol = lm_singular_tol(n),
                     singular_where = " (`regularization$least_squares` of a dp_lm fit, where the intervals centre)") {
  Sxx <- S[fit_idx, fit_idx, drop = FALSE]
  Sxy <- S[fit_idx, q]
  if (!is.null(penalty)) Sxx <- Sxx + diag(as.numeric(penalty), length(fit_idx))
  beta <- tryCatch(solve(Sxx, Sxy, tol = tol), error = function(e) NULL)
  if (is.null(beta) || !all(is.finite(beta))) {
    if (!singular_ok) return(rep(NA_real_, length(fit_idx)))
    warn(paste0("the released second moments of the features are singular (collinear features, a factor ",
                "level with few or no rows, or noise swamping them); least squares takes the minimum-norm coefficients",
                singular_where, "."))
    e <- eigen(Sxx, symmetric = TRUE)
    keep <- abs(e$values) > max(abs(e$values)) * max(tol_dim * .Machine$double.eps, tol)
    beta <- drop(e$vectors[, keep, drop = FALSE] %*% (crossprod(e$vectors[, keep, drop = FALSE], Sxy) / e$values[keep]))
  }
  as.numeric(beta)
}

# The reciprocal condition of the (standardised) features' block below which
# it is singular, and the centred spread (relative to the uncentred) below
# which a column is constant: lm()'s QR tolerance 1e-7 on the design's
# columns, squared for their second moments, or the rounding of second
# moments summed over n rows where that is larger (it grows like sqrt(n) eps:
# 66 eps for a constant column over 5e6 rows; 4 sqrt(n) eps is the margin).
# solve()'s default (eps) let a block singular up to rounding through (a
# column constant in the release, collinear with the intercept, got a
# coefficient of its rounding with no warning).
lm_singular_tol <- function(n = NA_real_) {
  # capped at 1e-8 (n of 1.3e12 rows): n read off a bare matrix's intercept
  # entry (1e300 when the matrix is scaled) declared a regular block singular
  max(1e-14, if (is_num1(n) && is.finite(n) && n > 0) min(4 * sqrt(n) * .Machine$double.eps, 1e-8) else 0)
}

# The noise-calibrated ridge of dp_lm() (`regularize = "adaptive"`): AdaSSP's
# rule (Wang 2018), with the features' smallest eigenvalue read off the
# release itself (post-processing, no budget). In coordinates where each
# feature's released diagonal entry has noise sd 1 (d_j^2 the sd of entry
# (j, j) of S), the noise matrix has operator norm about 2 sqrt(k) s, s the
# largest entry sd there (a symmetric Gaussian k x k matrix); a features'
# block (centred by the column of ones when the intercept is fitted) whose smallest
# eigenvalue is below that is dominated by noise in some direction, and its
# inverse swings the coefficients. The rule raises that eigenvalue to the
# noise level: lambda = max(0, 2 sqrt(k) s - lambda_min), added as lambda d_j^2
# to feature j's diagonal (the intercept is not penalised). No penalty where
# the release is clear of its noise; no rule (NULL) where the noise sd is not
# known (the Wishart, JL and posterior mechanisms regularise by their own
# construction). `centre`: the block is centred by the column of ones (the
# intercept is fitted). Returns the penalties over fit_idx (lambda and the
# noise level as attributes), or NULL.
lm_ridge_penalty <- function(S, sdx, fx, centre, fit_idx) {
  if (is.null(sdx) || !length(fx) || !all(fx %in% fit_idx)) return(NULL)
  d2 <- diag(sdx)
  if (!all(is.finite(sdx)) || !all(d2 > 0)) return(NULL)
  d <- sqrt(d2)
  tau <- 2 * sqrt(length(fx)) * max(sdx / tcrossprod(d))
  A <- S[fx, fx, drop = FALSE]
  if (centre && is.finite(S[1L, 1L]) && S[1L, 1L] > 0) A <- A - tcrossprod(S[fx, 1L]) / S[1L, 1L]
  A <- symmetric_part(A) / tcrossprod(d)
  lam_min <- if (all(is.finite(A))) min(eigen(A, symmetric = TRUE, only.values = TRUE)$values) else NA_real_
  lam <- if (is.na(lam_min)) 0 else max(0, tau - lam_min)
  out <- numeric(length(fit_idx))
  out[match(fx, fit_idx)] <- lam * d2
  # (beyond_level: the block more indefinite than tau, outside the rule's model)
  structure(out, lambda = lam, noise_level = tau, beyond_level = isTRUE(lam_min < -tau))
}

# Whether the ridge's coefficients are finite and no longer than least
# squares' in the penalty's own metric, b' P b (P = diag(`penalty`)): on a
# positive semi-definite block the ridge never lengthens them there.
lm_ridge_shrinks <- function(shrunk, least_squares, penalty) {
  all(is.finite(shrunk)) &&
    (!all(is.finite(least_squares)) || sum(penalty * shrunk^2) <= sum(penalty * least_squares^2))
}

# What the fit records of its regularisation (public: functions of the
# release): the rule, lambda on the noise-whitened scale and the noise level
# it is held to, the penalty added to each coefficient's diagonal entry, and
# the least-squares coefficients that the bootstrap and the intervals centre on.
lm_regularization <- function(regularize, penalty, least_squares) {
  out <- list(rule = if (is.null(penalty)) "none" else regularize, lambda = 0, noise_level = NA_real_,
              penalty = stats::setNames(numeric(length(least_squares)), names(least_squares)),
              least_squares = least_squares)
  if (!is.null(penalty)) {
    out$lambda <- attr(penalty, "lambda")
    out$noise_level <- attr(penalty, "noise_level")
    out$penalty[] <- as.numeric(penalty)
  }
  out
}

# The coefficients the intervals centre on: those of least squares from the
# release (the bootstrap's), which the ridge's shrunk estimate may differ from.
lm_interval_center <- function(object) {
  ls <- object$regularization$least_squares
  cf <- object$coefficients
  if (is.numeric(ls) && length(ls) == length(cf) && all(is.finite(ls))) stats::setNames(ls, names(cf)) else cf
}

#' Parametric bootstrap: B draws of the refitted coefficients. Sufficient
#' statistics of data with design block G under y = X b + N(0, sigma2),
#' exactly (X'e ~ N(0, sigma2 G), e'e = z'G^-1 z + sigma2 chi2(n - k)), then
#' `redraw` adds the mechanism's noise and converts; `redraw = NULL` is the
#' sampling distribution alone (no privacy noise: the control of the tests).
#' @noRd
lm_bootstrap <- function(G, b, sigma2, n, redraw, B, fit_idx, advice = "more budget gives less noise") {
  q <- ncol(G) + 1L
  G <- symmetric_part(G)
  e <- eigen(G, symmetric = TRUE)
  floor_ev <- max(e$values[1], 1) * 1e-10
  G <- e$vectors %*% (pmax(e$values, floor_ev) * t(e$vectors))  # positive definite
  R <- chol(G)
  Gb <- drop(G %*% b)
  bGb <- sum(b * Gb)
  sigma <- sqrt(sigma2)
  df_res <- max(1, n - length(fit_idx))
  out <- matrix(NA_real_, B, length(fit_idx))
  if (B > 0) note_draw()
  for (i in seq_len(B)) {
    u <- stats::rnorm(q - 1L)
    z <- sigma * drop(crossprod(R, u))
    sxy <- Gb + z
    syy <- bGb + 2 * sum(b * z) + sigma2 * sum(u^2) + sigma2 * stats::rchisq(1L, df_res)
    S <- rbind(cbind(G, sxy), c(sxy, syy))
    if (!is.null(redraw)) S <- redraw(S)
    # solve()'s own tolerance (eps) here: lm_singular_tol() would also drop
    # the draws whose projected-singular features pass solve() by rounding
    # (2-9 of 100 on mtcars at epsilon 4), moving the intervals in regimes
    # whose coverage was measured with them; left to a measured change
    out[i, ] <- lm_solve(S, fit_idx, q, singular_ok = FALSE, tol = .Machine$double.eps)
  }
  failed <- !stats::complete.cases(out)
  out <- out[!failed, , drop = FALSE]
  attr(out, "failed") <- sum(failed)
  if (sum(failed) > 0.05 * B && !isFALSE(getOption("dpcov.noise_warning"))) {
    # a noise warning (option dpcov.noise_warning = FALSE silences it, as the
    # others); with fewer than 2 usable draws there are no intervals to call short
    msg <- if (nrow(out) < 2L) {
      sprintf(paste0("%s: the fit has no standard errors or intervals (vcov(), confint() and summary() give NA); ",
                     "%s."), lm_failed_draws_words(sum(failed), B), lm_failed_draws_advice(advice))
    } else {
      sprintf("in %d of %d bootstrap draws the release's noise made the features' second moments singular (those draws are dropped): the intervals may be too short; %s.",
              sum(failed), B, advice)
    }
    warn(msg, .class = "dpcov_noise_warning")
  }
  out
}

# What happened when (nearly) every bootstrap draw failed, and what helps: the
# features' block must stand clear of the noise, whose size grows with the
# number of features (their count in the sensitivity, the square root of it
# in the noise matrix's norm) and the bounds' widths, and shrinks with epsilon.
lm_failed_draws_words <- function(failed, B) {
  sprintf("in %s of the B = %s bootstrap draws the release's noise made the features' second moments singular (those draws are dropped)",
          if (failed == B) paste("all", format(B)) else format(failed), format(B))
}
lm_failed_draws_advice <- function(advice) {
  paste0(advice, "; fewer features also help (the noise grows with their number)")
}

#' The moment representation of a release for one regression: S, an
#' estimate of [1, X, y]'[1, X, y] over (ones if any, features, y), the
#' n the bootstrap uses (and where it comes from), and `redraw(S*)`: the
#' estimate the release would give for sufficient statistics S*, with a
#' fresh draw of its noise.
#' @noRd
lm_moments <- function(rel, feat, ones, y, intercept, n = NULL) {
  nm <- release_colnames(rel)
  if (identical(rel$scale, "covariance")) {
    if (!is.null(rel$params$converted_from)) {
      # dp_as_cov()'s conversion holds neither dp_cov()'s mean step nor its
      # noise parameters, so its noise cannot be redrawn
      abort(paste0("`x` is a covariance converted by dp_as_cov() from a release of scale \"%s\", whose noise the ",
                   "bootstrap cannot redraw from it; fit dp_lm() on the original release (with a column of ones ",
                   "for the intercept, or a formula with - 1), or on a dp_cov() release."),
            rel$params$converted_from, .arg = "x")
    }
    return(lm_moments_cov(rel, feat, ones, y, intercept, nm))
  }
  idx <- c(ones, feat, y)
  q <- length(idx)
  nf <- length(feat)
  fit_idx <- if (is.null(ones)) seq_len(nf) else c(1L[intercept], 1L + seq_len(nf))
  n_rel <- if (isTRUE(rel$n_public)) rel$n else NA_real_
  S_full <- if (isTRUE(rel$exact)) rel$estimate else release_sum(rel, n_rel)
  S <- symmetric_part(S_full)[idx, idx, drop = FALSE]
  n_sd <- NA_real_  # the noise sd of a private estimate of n
  if (!is.na(n_rel)) {
    n_used <- n_rel
    n_source <- "public (released)"
  } else if (!is.null(ones)) {
    n_used <- S[1L, 1L]
    n_source <- "private estimate: the released diagonal entry of the column of ones"
    if (!isTRUE(rel$exact)) {
      sd <- release_noise_sd(rel)
      n_sd <- if (is.null(sd)) NA_real_ else sd[idx[1L], idx[1L]]
      # on the sum's scale, as release_sum() rescales: a posterior draw by
      # df - p - 1 (its sd was read as the draw's, 1/1000 of it at df 1000);
      # Inf where the draw has no finite variance (df - p <= 3)
      if (identical(rel$scale, "average")) n_sd <- n_sd * n_rel
      if (identical(rel$scale, "posterior sample")) n_sd <- n_sd * (rel$params$df - rel$p - 1)
    }
  } else if (!is.null(n)) {
    n_used <- n
    n_source <- "given (`n`)"
  } else {
    abort("`x` does not release n and has no column of ones; give `n`, a public number of rows, for the bootstrap.",
          .arg = "n")
  }
  n_estimate <- n_used
  if (!(n_used > q)) {
    # a private estimate this small is noise, which the fit's diagnostics
    # report (and warn about); a public or given n this small is the data's
    if (is.na(n_sd)) {
      warn("n = %s rows is not more than the %d columns of the regression: the residual variance has no degrees of freedom left, so the intervals are not reliable.",
           format(n_used), as.integer(q))
    }
    n_used <- q + 1
  }
  redraw <- if (isTRUE(rel$exact)) NULL else release_redraw(rel, q, n_rel)
  if (!is.null(rel$params$box_scale)) {
    # released on the box and mapped back: the noise is redrawn on the box scale
    if (isTRUE(any(rel$params$box_shift != 0)) && !identical(as.integer(ones), 1L)) {
      abort("`ones`: this release was made on a box of public bounds with its column of ones first; the regression needs that column (`ones` = \"(Intercept)\").",
            .arg = "ones")
    }
    redraw <- lm_box_redraw(rel, idx, redraw)
  }
  list(S = S, n = n_used, noise_sd_x = lm_gram_noise_sd(rel, feat, n_rel), n_source = n_source, n_estimate = n_estimate, n_noise_sd = n_sd, fit_idx = fit_idx,
       names = c(if (!is.null(ones)) "(Intercept)", nm[c(feat, y)]), columns = nm[idx],
       redraw = redraw)
}

# The noise sd of the features' block of a Gram release's estimate of the sum
# (release_sum()), for the ridge rule: Analyze Gauss only (its noise is
# Gaussian with a known sd, on the box scale when made on a box: mapped back,
# a centred entry's noise scales with the two widths); NULL otherwise.
lm_gram_noise_sd <- function(rel, feat, n) {
  pr <- rel$params
  gauss <- if (identical(rel$scale, "average")) is.null(pr$threshold) && is_num1(pr$noise_sd) else
    is_num1(pr[["sigma"]]) && !is.null(pr$post)
  if (!gauss || isTRUE(rel$exact)) return(NULL)
  s <- if (identical(rel$scale, "average")) pr$noise_sd * n else pr[["sigma"]]
  if (!is_num1(s)) return(NULL)
  sd <- matrix(s, length(feat), length(feat))
  w <- pr$box_scale
  if (is_finite_num(w) && length(w) == rel$p) sd <- sd * tcrossprod(w[feat])
  sd
}

# A number the bootstrap reads from a release's `params` (`field` names it in
# the error): a hand-made release may lack it.
redraw_param <- function(v, field) {
  # a noise scale, a count or a threshold: finite and not negative (a
  # hand-made -sigma would be redrawn as |sigma| without a word)
  if (!is_num1(v) || !is.finite(v) || v < 0) {
    abort("`x`: its `params$%s` is missing or malformed (a finite number >= 0); the bootstrap cannot redraw its noise.",
          field, .arg = "x")
  }
  v
}

# The noise of a release, redrawn on a q x q block, and the conversion to
# an estimate of the sum (as release_sum()).
release_redraw <- function(rel, q, n) {
  pr <- rel$params
  p <- rel$p
  num <- function(f) redraw_param(pr[[f]], f)
  if (rel$scale == "average") {
    n <- if (is.na(n)) abort("`x` is an average but does not release n.", .arg = "x") else n
    s <- num("noise_sd")
    thr <- if (is.null(pr$threshold)) NULL else num("threshold")
    keep_diag <- isTRUE(pr$keep_diagonal)
    return(function(S) {
      M <- S / n + symmetric_gaussian_cpp(q, s)
      if (!is.null(thr)) M <- threshold_project(M, thr, keep_diag)$matrix
      M * n
    })
  }
  if (!is.null(pr[["k"]]) && grepl("Wishart noise", rel$mechanism, fixed = TRUE)) {
    k <- num("k"); B <- num("noise_clip")
    return(function(S) S + wishart_factor_draw_cpp(diag(B, q), k, FALSE) - diag(k * B^2, q))
  }
  if (!is.null(pr$w2) && !is.null(pr[["r"]])) {
    w2 <- num("w2"); r <- num("r")
    return(function(S) wishart_from_gram(S + diag(w2, q), r) / r - diag(w2, q))
  }
  if (!is.null(pr$psi) && !is.null(pr$df)) {
    psi <- num("psi"); df <- num("df")
    if (!(df > p + 1)) abort("`x` is an inverse-Wishart draw with df <= p + 1: its mean is not finite.", .arg = "x")
    return(function(S) iwishart_from_gram(S + diag(psi, q), df - (p - q)) * (df - p - 1) - diag(psi, q))
  }
  if (!is.null(pr[["sigma"]]) && !is.null(pr$post)) {
    s <- num("sigma")
    psd <- identical(pr$post, "psd")
    return(function(S) {
      M <- S + symmetric_gaussian_cpp(q, s)
      if (psd) M <- psd_project(M)$matrix
      M
    })
  }
  abort("`x`: dp_lm() cannot redraw the noise of this release (%s).", rel$mechanism, .arg = "x")
}

# A dp_cov() release: S over (ones, features, y) rebuilt from the covariance
# and the private center; the redraw repeats both steps (mean noise, the
# centring at it, the second moment's noise, the correction, the projection).
lm_moments_cov <- function(rel, feat, ones, y, intercept, nm) {
  pr <- rel$params
  center <- rel$center
  if (!is.numeric(center) || length(center) != rel$p || !all(is.finite(center))) {
    abort("`x` is a covariance release without a valid private `center`.", .arg = "x")
  }
  if (!is.null(ones)) abort("`ones` must be NULL for a centred release: the intercept comes from its `center`.", .arg = "ones")
  vars <- c(feat, y)
  q <- length(vars) + 1L
  n_public <- isTRUE(rel$n_public)
  n_hat <- if (n_public) rel$n else if (is_num1(pr$n_noisy)) max(2, pr$n_noisy) else
    abort("`x`: its `params$n_noisy` is missing or malformed.", .arg = "x")
  div <- function(nn) if (identical(pr$divisor, "n - 1")) max(1, nn - 1) else nn
  aug <- function(cov, mu, nn) {
    C <- cov * div(nn) + nn * tcrossprod(mu)
    rbind(c(nn, nn * mu), cbind(nn * mu, C))
  }
  S <- aug(rel$estimate[vars, vars, drop = FALSE], center[vars], n_hat)
  sm <- pr$second_moment
  num <- redraw_param
  sigma_m <- num(pr$sigma_mean, "sigma_mean")
  clip_mean <- num(pr$clip_mean, "clip_mean")
  second <- pr$second_mechanism
  add <- switch(if (is.character(second)) second else "",
    analyze_gauss = {
      s2 <- num(sm[["sigma"]], "second_moment$sigma")
      # the box path's joint calibration gives the Gram's diagonal its own sd
      s2_diag <- if (is.null(sm$sigma_diag)) s2 else num(sm$sigma_diag, "second_moment$sigma_diag")
      function(C, nn) C + symmetric_gaussian_blocks(q - 1L, s2, s2_diag)
    },
    wishart = {
      k <- num(sm[["k"]], "second_moment$k"); Bw <- num(sm$noise_clip, "second_moment$noise_clip")
      function(C, nn) C + wishart_factor_draw_cpp(diag(Bw, q - 1L), k, FALSE) - diag(k * Bw^2, q - 1L)
    },
    threshold = {
      s2 <- num(sm$noise_sd, "second_moment$noise_sd"); thr <- num(sm$threshold, "second_moment$threshold")
      function(C, nn) threshold_project(C / nn + symmetric_gaussian_cpp(q - 1L, s2), thr,
                                        isTRUE(sm$keep_diagonal))$matrix * nn
    },
    abort("`x`: its `params$second_mechanism` is missing or unknown.", .arg = "x"))
  # dp_cov()'s mean step draws the noisy count under add/remove even when the
  # second mechanism releases n (thresholding): the redraw does the same
  count_drawn <- identical(rel$neighbor, "add-remove")
  one_pass <- identical(pr$passes, 1)
  # public bounds: the release was made on the centred box (R/box.R), so the
  # redraw runs there, between the affine map and its inverse
  box <- cov_box_affine(rel, vars)
  redraw <- function(Ss) {
    nn <- Ss[1L, 1L]
    sums <- Ss[1L, -1L]
    xbar <- sums / nn
    m <- noisy_mean(sums, nn, clip_mean, sigma_m, count_drawn)  # dp_cov()'s mean step
    mu <- m$center
    if (!is.null(box)) mu <- pmin(pmax(mu, -box$half), box$half)  # as dp_cov() clamps it into the box
    n_star <- if (n_public) nn else max(2, m$n_noisy)
    if (one_pass) {
      # one pass (dp_cov_one_pass(), dp_cov_box_joint()): the noisy uncentred Gram, centred at mu
      C <- uncentred_to_centred(add(Ss[-1L, -1L], nn), mu, n_star, sigma_m)
    } else {
      C <- Ss[-1L, -1L] - nn * tcrossprod(xbar) + nn * tcrossprod(xbar - mu)
      C <- add(C, nn)
      C <- C - diag(sigma_m^2 / n_star, q - 1L)
    }
    cov <- psd_project(symmetric_part(C) / div(n_star))$matrix
    aug(cov, mu, n_star)
  }
  if (!is.null(box)) redraw <- box_affine_redraw(redraw, box$shift, box$scale)
  # the ridge rule's noise: the Gram's own Gaussian noise on the features' sums
  # (box-scaled). Not the mean step's: its share of the centred block's noise
  # is the rank-2 n (m d' + d m'), which the rule's random-matrix level does
  # not describe; counted in, it over-shrank quakes' slopes (bench/lm-ridge.R)
  noise_sd_x <- if (identical(second, "analyze_gauss")) cov_gram_noise_sd(rel)[feat, feat, drop = FALSE]
  list(S = S, n = n_hat, noise_sd_x = noise_sd_x, n_source = if (n_public) "public (released)" else "private estimate: dp_cov()'s noisy count",
       n_estimate = if (n_public) n_hat else pr$n_noisy, n_noise_sd = if (n_public) NA_real_ else count_noise_sd(rel),
       columns = nm[vars],
       fit_idx = c(1L[intercept], 1L + seq_along(feat)), names = c("(Intercept)", nm[vars]),
       redraw = redraw)
}

# One line when the ridge shrank the coefficients (a hand-made field that is
# not a number prints nothing).
lm_print_regularization <- function(reg) {
  if (!is.list(reg) || !is_num1(reg$lambda) || !(reg$lambda > 0) || !is_num1(reg$noise_level)) return(invisible())
  cat(strwrap(sprintf(paste0("Shrunk by the noise-calibrated ridge (regularize = \"adaptive\"): the features' released ",
                             "second moments are within the noise in some direction, so that direction is raised to ",
                             "the noise level (lambda = %s on the noise-whitened scale). The intervals and standard ",
                             "errors are those of the unshrunk least-squares fit; regularize = \"none\" reports it."),
                      format(signif(reg$lambda, 3))), prefix = "  ", initial = ""), sep = "\n")
  invisible()
}

finish_dp_lm <- function(fit, terms, xlevels, contrasts, formula, call, x_kind = "data") {
  fit$terms <- terms
  fit$xlevels <- xlevels
  fit$contrasts <- contrasts
  fit$formula <- formula
  fit$call <- lm_call(call, x_kind)
  fit <- structure(fit, class = "dp_lm")
  # a fit to a release without a formal guarantee (clip = Inf, a tuning that
  # looked at the data) is not private either, and says so
  # (a total not known, NA, is not stated as private either: dp_lm() refuses
  # the conversions that carry one, so none reaches here)
  if (!is.null(fit$release) && (inherits(fit$release, "dp_nonprivate") || !isTRUE(release_guarantee_state(fit$release)))) {
    fit <- as_nonprivate(fit, "dp_lm")
  }
  fit
}

# Why a non-private dp_lm is not private, for its banner.
lm_nonprivate_why <- function(x) {
  if (inherits(x, "dp_lm_compressed")) "fitted to compressed data, which has no (epsilon, delta) guarantee" else
  if (is.null(x$release)) "fitted to exact statistics of the data" else
    "fitted to a release without a formal guarantee (see Guarantee)"
}

# A dp_lm given as input (hand-made objects included): the fields the
# methods read.
check_dp_lm <- function(x, arg = "x") {
  check_object(x, "dp_lm", list(
    # (the methods pick coefficients by name)
    coefficients = function(v) is_finite_num(v) && !is.null(names(v)) && names_identify(names(v)),
    # a covariance: symmetric, no negative variance; all NA where no bootstrap draw was kept
    vcov = function(v) is.matrix(v) && is.numeric(v) && !is.object(v) && identical(dim(v), rep(length(x$coefficients), 2L)) &&
      (all(is.na(v)) && !any(is.nan(v)) || all(is.finite(v)) && all(diag(v) >= 0) &&
         all(abs(v - t(v)) <= 1e-8 * max(abs(v)))),
    boot = function(v) is.null(v) || is.matrix(v) && is.numeric(v) && ncol(v) == length(x$coefficients) && all(is.finite(v)),
    # the sampling error alone (the diagnostics' privacy share); optional
    vcov_sampling = function(v) is.null(v) || is.matrix(v) && is.numeric(v) && !is.object(v) &&
      identical(dim(v), rep(length(x$coefficients), 2L)) &&
      (all(is.na(v)) && !any(is.nan(v)) || all(is.finite(v)) && all(diag(v) >= 0)),
    sigma = function(v) is_num1(v, na_ok = TRUE) && (is.na(v) || v >= 0),
    n = function(v) is_num1(v, na_ok = TRUE) && (is.na(v) || is_whole1(v, 1)),
    response = is_string, guarantee = is_string, mechanism = is_string,
    units = function(v) is_string(v) && v %in% c("data", "normalised"),
    ci_type = function(v) is_string(v) && v %in% c("basic", "percentile", "normal"),
    # optional fields, NULL or of their type
    release = function(v) is.null(v) || is.list(v) && (is.null(v$epsilon) || is_num1(v$epsilon, na_ok = TRUE)) &&
      (is.null(v$delta) || is_num1(v$delta, na_ok = TRUE)) && (is.null(v$neighbor) || is_string(v$neighbor)),
    xlevels = function(v) is.null(v) || is.list(v) && !is.object(v) &&
      all(vapply(v, function(l) is.character(l) && !anyNA(l), logical(1))),
    contrasts = function(v) is.null(v) || is.list(v) && !is.object(v),
    formula = function(v) is.null(v) || inherits(v, "formula"),
    n_source = function(v) is.null(v) || is_string(v),
    n_used = function(v) is.null(v) || is_num1(v, na_ok = TRUE),
    n_estimate = function(v) is.null(v) || is_num1(v, na_ok = TRUE),
    n_noise_sd = function(v) is.null(v) || is_num1(v, na_ok = TRUE) || identical(v, Inf),
    nonprivate = function(v) is.null(v) || is_flag(v),
    B = function(v) is.null(v) || is_whole1(v, 0)), arg = arg)
  # the coefficients' names label vcov's rows and columns, the draws' columns
  # and the terms' design: an object whose fields disagree is refused, not
  # printed with one set of names and predicted with another
  cn <- names(x$coefficients)
  for (f in c("vcov", "vcov_sampling")) {
    dn <- dimnames(x[[f]])
    if (!is.null(dn) && !(identical(dn[[1L]], cn) && identical(dn[[2L]], cn))) {
      abort("`%s` is not a valid dp_lm object: the names of its `%s` are not those of its coefficients.", arg, f, .arg = arg)
    }
  }
  if (!is.null(colnames(x$boot)) && !identical(colnames(x$boot), cn)) {
    abort("`%s` is not a valid dp_lm object: the column names of its `boot` are not those of its coefficients.", arg, .arg = arg)
  }
  if (!is.null(x$terms) && !inherits(x$terms, "terms")) {
    abort("`%s` is not a valid dp_lm object: its `terms` is malformed.", arg, .arg = arg)
  }
  # a fit's terms evaluate their variables as written: `predvars` (what
  # model.frame() evaluates instead) other than the variables would predict
  # from other columns than the coefficients name
  pv <- attr(x$terms, "predvars")
  if (inherits(x$terms, "terms") && !is.null(pv) && !identical(pv, attr(x$terms, "variables"))) {
    abort("`%s` is not a valid dp_lm object: its `terms` evaluate other variables (`predvars`) than they name.", arg, .arg = arg)
  }
  if (inherits(x$terms, "terms") && inherits(x$formula, "formula") &&
      !identical(deparse1(stats::formula(x$terms)), deparse1(x$formula))) {
    abort("`%s` is not a valid dp_lm object: its `formula` is not the model its `terms` describe.", arg, .arg = arg)
  }
  reg <- x$regularization
  if (!is.null(reg) && !(is.list(reg) && !is.object(reg) && is_num1(reg$lambda) && reg$lambda >= 0 &&
                         (is.null(reg$least_squares) || is_finite_num(reg$least_squares) &&
                            length(reg$least_squares) == length(x$coefficients)))) {
    abort("`%s` is not a valid dp_lm object: its `regularization` is malformed.", arg, .arg = arg)
  }
  invisible(x)
}

#' Methods for private linear models
#'
#' `coef()`, `vcov()` (the covariance of the bootstrap draws), `confint()`
#' (percentile bootstrap intervals by default; `type = "basic"` or
#' `"normal"` too), `predict()` (from `newdata` only: the fit keeps no data),
#' `nobs()` (`NA` when the release does not release n), `formula()` (with
#' [baseenv()] as its environment), `sigma()` (the residual sd; `NA` where
#' the noise made the released residual sum of squares non-positive),
#' `model.matrix()` (of a data frame you give), `summary()`, `tidy()` and
#' `glance()`, `labels()` (the term labels), `variable.names()` (the
#' coefficients' names) and `family()` (`gaussian()`). All are
#' post-processing of the release. A fit keeps no data, so `residuals()`,
#' `fitted()`, `plot()` (lm()'s residual plots), `deviance()`, `logLik()` (so
#' `AIC()`, `BIC()`), `anova()`, `df.residual()`, `model.frame()`,
#' `hatvalues()`, `cooks.distance()`, `influence()`, `rstandard()`,
#' `rstudent()`, `dfbeta()`, `dfbetas()`, `proj()`, `case.names()`, `extractAIC()` (and so `drop1()` and
#' `step()`), `dummy.coef()`, `alias()`, `effects()` and `simulate()` are
#' classed errors. A fit from compressed data
#' ([compressed_lm()]) has normal-theory intervals from `vcov`. Arguments
#' the methods do not know are refused, not ignored; the standard arguments
#' of the generics are accepted: `complete` of `coef()` and `vcov()` (every
#' coefficient is estimated here, so `TRUE` and `FALSE` give the same) and
#' `use.fallback` of `nobs()` (no fallback: a fit keeps no rows to count, so
#' `nobs()` is `NA` whenever n is not released).
#'
#' **Shrunk fits.** Where the adaptive ridge shrank the coefficients (see
#' [dp_lm()], Shrinkage), `vcov()`, `confint()` and the intervals of
#' `predict()` and `tidy()` are those of the unshrunk least-squares fit and
#' may not contain the shrunk estimate: `tidy()` gives each term's
#' `interval_centre` (the least-squares coefficient) and `shrunk` (whether
#' the estimate differs from it), and `predict(interval = "confidence")` of
#' a shrunk fit carries the attributes `interval_centre` and `note`.
#'
#' **Missing values in `newdata`.** `predict()` gives `NA` (fit, interval,
#' standard error) for a row with a missing value, as [stats::predict.lm()]
#' does with `na.pass`; `model.matrix()` refuses them.
#'
#' @param object,x A `dp_lm` fit.
#' @param evaluate `update()`: run the stored call again with the changes (a new
#'   release, spending its budget again; a call stored with placeholders for
#'   values is refused), or return it (`FALSE`).
#' @param parm Coefficients (names, or indices: negative ones drop, as in
#'   [stats::confint()]); default all.
#' @param level Confidence level.
#' @param type `confint()`: `"basic"` (pivot: \eqn{2\hat\beta - q_{1-\alpha/2}},
#'   \eqn{2\hat\beta - q_{\alpha/2}}), `"percentile"` or `"normal"`
#'   (\eqn{\hat\beta \pm z\,se}). Default: the fit's own (`"percentile"`
#'   with bootstrap draws, `"normal"` for compressed data); `"basic"` or
#'   `"percentile"` asked for on a fit without draws is an error. `predict()`:
#'   `"response"` (as in [stats::predict.lm()]), the only type: a fit keeps
#'   no data, so `"terms"` (centred at the data's means) is a classed error.
#' @param newdata A data frame with the variables of the formula (factors
#'   with the levels of the fit), or a named list of equal-length vectors,
#'   as [stats::predict.lm()] takes. Its transformations are evaluated as the
#'   fit evaluated them; a row with a missing value, or whose transformed
#'   value is not finite (log(0), log(-1)), predicts `NA` (`NaN` for log(-1),
#'   as R computes it).
#' @param interval `"none"` (the default, also when the three choices are
#'   given as a vector, as in [stats::predict.lm()]), `"confidence"` (for the mean response, from the
#'   bootstrap draws or `vcov`) or `"prediction"` (for a new observation: each
#'   half of the mean's interval widened in quadrature by \eqn{z\,\hat\sigma},
#'   the released residual sd; `NA` with a warning where `sigma()` is `NA`).
#'   Abbreviations are accepted, as in [stats::predict.lm()].
#' @param se.fit `predict()`: also return standard errors, as
#'   [stats::predict.lm()] does: a list of `fit`, `se.fit` (from `vcov`:
#'   privacy noise and sampling error), `df` (`Inf`: the intervals are the
#'   bootstrap's or normal, not t-based) and `residual.scale`.
#' @param conf.int,conf.level `tidy()`: add interval columns, and their level.
#' @param exponentiate `tidy()`: as in broom's tidiers; `FALSE` only (the
#'   coefficients of a linear model are on the response's scale, so `TRUE`
#'   is a classed error).
#' @param complete `coef()`, `vcov()`: as in [stats::coef()]; every
#'   coefficient is estimated, so it changes nothing.
#' @param use.fallback `nobs()`: as in [stats::nobs()]; accepted and
#'   ignored (a fit keeps no rows to count).
#' @param digits Significant digits to print.
#' @param row.names,optional `as.data.frame()`: as in [base::as.data.frame()]
#'   (the call is refused).
#' @param ... Unused (an argument here is an error).
#' @return `confint()`: a matrix with one row per coefficient; `predict()`: a
#'   vector, or a matrix with `fit`, `lwr`, `upr` (a list with `se.fit` too
#'   when asked; for a shrunk fit the attributes `interval_centre` and
#'   `note`); `model.matrix()`: the design of `data`; `tidy()`, `glance()`:
#'   data frames (`tidy()` with `shrunk` and `interval_centre`; `glance()`'s
#'   `df` counts the coefficients other than the intercept, as broom's does
#'   for an lm; its `private` is FALSE, and its `epsilon` and `delta` NA,
#'   for a fit without a formal guarantee, whose tables are also classed
#'   `dp_nonprivate`); `summary()`: a `summary.dp_lm` object.
#'   `as.data.frame()` is refused, as it is for [stats::lm()]: `tidy()` and
#'   `glance()` give the tables.
#' @name dp_lm-methods
#' @examples
#' set.seed(1)
#' n <- 30000
#' d <- data.frame(x = rnorm(n), g = factor(sample(c("a", "b"), n, TRUE), levels = c("a", "b")))
#' d$y <- 1 + d$x + (d$g == "b") + rnorm(n)
#' fit <- dp_lm(y ~ x + g, d, epsilon = 1, delta = 1e-6, clip = 6, B = 200)
#' summary(fit)
#' vcov(fit)
#' confint(fit, "x", level = 0.9)
#' predict(fit, data.frame(x = 1, g = factor("b", levels = c("a", "b"))), interval = "confidence")
#' nobs(fit)       # NA: n is not released under add/remove neighbours
#' tidy(fit)
#' glance(fit)
NULL

#' @rdname dp_lm-methods
#' @export
print.dp_lm <- function(x, digits = 4, ...) {
  check_dp_lm(x)
  check_method_dots(...)
  digits <- check_digits(digits)
  nonprivate <- inherits(x, "dp_nonprivate")
  if (nonprivate) nonprivate_banner(x, lm_nonprivate_why(x))
  cat(if (nonprivate) "Linear model:" else "Private linear model:", deparse1(x$formula %||% as.name(x$response)), "\n")
  cat_wrapped("Release:", x$mechanism)
  if (inherits(x$diagnostics, "dp_diagnostics")) print_noise_warnings(x$diagnostics)
  cat_wrapped("Guarantee:", x$guarantee)
  if (inherits(x, "dp_lm_compressed") && is_num1(x$m)) {
    cat(sprintf("Fitted on compressed data (m = %d rows%s)\n", as.integer(x$m),
                if (is_num1(x$lambda) && x$lambda > 0) sprintf(", ridge lambda = %s", format(x$lambda)) else ""))
  }
  if (identical(x$units, "normalised")) {
    cat_wrapped("Units: NORMALISED columns (each scaled to squared norm n); give `scales` to compressed_lm() for the data's units.")
  }
  cat("Coefficients:\n")
  print(signif(x$coefficients, digits))
  lm_print_regularization(x$regularization)
  if (inherits(x$diagnostics, "dp_diagnostics")) print_diagnostics(x$diagnostics)
  invisible(x)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# A method's `...` takes nothing: a misspelt argument (`levels =`, `intervals =`)
# is refused, not silently dropped.
check_method_dots <- function(...) {
  if (...length()) {
    named <- dots_named(...)
    abort("unknown argument(s): %s.", if (length(named)) paste0("`", named, "`", collapse = ", ") else "unnamed",
          .arg = if (length(named)) named[1L] else "...")
  }
}

#' @rdname dp_lm-methods
#' @export
sigma.dp_lm <- function(object, ...) {
  check_dp_lm(object, "object")
  check_method_dots(...)
  object$sigma
}

#' @rdname dp_lm-methods
#' @export
residuals.dp_lm <- function(object, ...) {
  abort("a dp_lm keeps no data, so it has no residuals (they would be the private data's).", .arg = "object")
}

#' @rdname dp_lm-methods
#' @export
deviance.dp_lm <- function(object, ...) {
  abort("a dp_lm keeps no data, so it has no residual sum of squares (the private data's); sigma(object) is the released estimate of the residual sd.",
        .arg = "object")
}

#' @rdname dp_lm-methods
#' @export
logLik.dp_lm <- function(object, ...) {
  abort("a dp_lm keeps no data, so it has no likelihood (nor AIC or BIC): those are the private data's; compare fits by their intervals, or on data you hold with predict().",
        .arg = "object")
}

#' @rdname dp_lm-methods
#' @export
anova.dp_lm <- function(object, ...) {
  abort("a dp_lm keeps no data, so it has no analysis of variance (its sums of squares are the private data's); use confint() for the coefficients.",
        .arg = "object")
}

#' @rdname dp_lm-methods
#' @export
df.residual.dp_lm <- function(object, ...) {
  abort("a dp_lm has no residual degrees of freedom to give: n is not released under every neighbour notion, and its intervals are the bootstrap's, not t-based; see `n` and `B` in the fit.",
        .arg = "object")
}

#' @rdname dp_lm-methods
#' @export
fitted.dp_lm <- function(object, ...) {
  abort("a dp_lm keeps no data, so it has no fitted values; use predict(object, newdata).", .arg = "object")
}

#' @rdname dp_lm-methods
#' @export
plot.dp_lm <- function(x, ...) {
  abort("a dp_lm keeps no data, so it has no residuals or fitted values to plot (lm()'s diagnostic plots are the private rows'); use confint() or predict(x, newdata) on data you choose.",
        .arg = "x")
}

#' @rdname dp_lm-methods
#' @param formula,model,fit A `dp_lm` fit (the names the generics
#'   [stats::model.frame()], [stats::hatvalues()] and [stats::extractAIC()]
#'   give their first argument).
#' @export
model.frame.dp_lm <- function(formula, ...) {
  lm_no_data(formula, "model frame", "model.frame(formula(fit), data) builds one from data you hold", "formula")
}

#' @rdname dp_lm-methods
#' @export
labels.dp_lm <- function(object, ...) {
  check_dp_lm(object, "object")
  check_method_dots(...)
  tl <- attr(object$terms, "term.labels")
  if (is.null(tl)) character(0) else tl
}

#' @rdname dp_lm-methods
#' @export
variable.names.dp_lm <- function(object, ...) {
  check_dp_lm(object, "object")
  check_method_dots(...)
  names(object$coefficients)
}

#' @rdname dp_lm-methods
#' @export
family.dp_lm <- function(object, ...) {
  check_dp_lm(object, "object")
  check_method_dots(...)
  stats::gaussian()
}

#' @rdname dp_lm-methods
#' @export
case.names.dp_lm <- function(object, ...) lm_no_data(object, "cases", "its rows are the private data's")

#' @rdname dp_lm-methods
#' @export
hatvalues.dp_lm <- function(model, ...) lm_no_data(model, "leverages", "they are the private rows'", "model")

#' @rdname dp_lm-methods
#' @export
cooks.distance.dp_lm <- function(model, ...) lm_no_data(model, "Cook's distances", "they are the private rows'", "model")

#' @rdname dp_lm-methods
#' @export
influence.dp_lm <- function(model, ...) lm_no_data(model, "influence measures", "they are the private rows'", "model")

#' @rdname dp_lm-methods
#' @export
rstandard.dp_lm <- function(model, ...) lm_no_data(model, "standardized residuals", "they are the private rows'", "model")

#' @rdname dp_lm-methods
#' @export
rstudent.dp_lm <- function(model, ...) lm_no_data(model, "studentized residuals", "they are the private rows'", "model")

#' @rdname dp_lm-methods
#' @export
dfbeta.dp_lm <- function(model, ...) lm_no_data(model, "leave-one-out changes (dfbeta)", "they are the private rows'", "model")

#' @rdname dp_lm-methods
#' @export
dfbetas.dp_lm <- function(model, ...) lm_no_data(model, "leave-one-out changes (dfbetas)", "they are the private rows'", "model")

#' @rdname dp_lm-methods
#' @export
proj.dp_lm <- function(object, ...) lm_no_data(object, "projections", "they are the data's fitted values per term")

#' @rdname dp_lm-methods
#' @param scale,k `extractAIC()`: as in [stats::extractAIC()] (the call is refused).
#' @export
extractAIC.dp_lm <- function(fit, scale = 0, k = 2, ...) {
  lm_no_data(fit, "AIC (nor drop1() or step())", "its likelihood is the private data's; compare fits by their intervals", "fit")
}

#' @rdname dp_lm-methods
#' @export
dummy.coef.dp_lm <- function(object, ...) {
  lm_no_data(object, "dummy coefficients from dummy.coef()", "it rebuilds them from the data's model frame; coef() gives the fitted coding's")
}

#' @rdname dp_lm-methods
#' @export
alias.dp_lm <- function(object, ...) {
  lm_no_data(object, "alias table", "dp_lm() refuses designs whose columns are aliased whatever the data (by the factors' coding, or an identity of numeric terms such as I(x + z) beside x and z), and other aliasing is the data's")
}

#' @rdname dp_lm-methods
#' @export
effects.dp_lm <- function(object, ...) lm_no_data(object, "effects", "they are the data's rotated response")

#' @rdname dp_lm-methods
#' @param nsim,seed `simulate()`: as in [stats::simulate()] (the call is refused).
#' @export
simulate.dp_lm <- function(object, nsim = 1, seed = NULL, ...) {
  lm_no_data(object, "fitted values to simulate from", "use predict(object, newdata) with rnorm(sd = sigma(object)) on data you hold")
}

# A refusal of a method of lm() that needs the data (a fit keeps none), after
# the object is checked as a fit.
lm_no_data <- function(object, what, why, arg = "object") {
  check_dp_lm(object, arg)
  abort("a dp_lm keeps no data, so it has no %s: %s.", what, why, .arg = arg)
}

#' @rdname dp_lm-methods
#' @param data For `model.matrix()`: a data frame to build the fit's design
#'   from (a dp_lm keeps no data of its own).
#' @export
model.matrix.dp_lm <- function(object, data, ...) {
  check_dp_lm(object, "object")
  check_method_dots(...)
  if (missing(data)) abort("`data` is required: a dp_lm keeps no data, so it has no model matrix of its own.", .arg = "data")
  lm_newdata(object, data, arg = "data")
}

#' @rdname dp_lm-methods
#' @export
vcov.dp_lm <- function(object, complete = TRUE, ...) {
  check_dp_lm(object, "object")
  check_flag(complete, "complete")
  check_method_dots(...)
  object$vcov
}

#' @rdname dp_lm-methods
#' @export
coef.dp_lm <- function(object, complete = TRUE, ...) {
  check_dp_lm(object, "object")
  check_flag(complete, "complete")
  check_method_dots(...)
  object$coefficients
}

#' @rdname dp_lm-methods
#' @export
nobs.dp_lm <- function(object, use.fallback = FALSE, ...) {
  check_dp_lm(object, "object")
  check_flag(use.fallback, "use.fallback")
  check_method_dots(...)
  object$n
}

#' @rdname dp_lm-methods
#' @export
formula.dp_lm <- function(x, ...) {
  check_dp_lm(x)
  # as.formula() passes `env` (the caller's frame): accepted and not used,
  # as formula.lm() does; the formula keeps baseenv(), which holds no data
  dots <- list(...)
  dots$env <- NULL
  do.call(check_method_dots, dots)
  if (!inherits(x$formula, "formula")) abort("`x` is not a valid dp_lm object: its `formula` is missing.", .arg = "x")
  x$formula
}

#' @rdname dp_lm-methods
#' @export
confint.dp_lm <- function(object, parm = NULL, level = 0.95, type = NULL, ...) {
  check_dp_lm(object, "object")
  check_method_dots(...)
  level <- check_number(level, "level", lower = 0, upper = 1)
  type_arg <- type
  type <- if (is.null(type)) object$ci_type else check_choice(type, c("basic", "percentile", "normal"), "type")
  lm_interval_warning(object, "confint")
  cf <- lm_interval_center(object)
  idx <- lm_parm(parm, cf)
  a <- (1 - level) / 2
  pct <- paste(format(100 * c(a, 1 - a), trim = TRUE, scientific = FALSE, digits = 3), "%")
  out <- matrix(NA_real_, length(idx), 2L, dimnames = list(names(cf)[idx], pct))
  boot <- object$boot
  if (type != "normal" && (is.null(boot) || nrow(boot) < 2L)) {
    # asked for by name, an interval from draws the fit does not have is
    # refused, not replaced by another kind under the same labels
    if (!is.null(type_arg)) {
      abort("`type` = \"%s\" needs the fit's bootstrap draws, and it has none (%s); use type = \"normal\" (from vcov).",
            type, if (inherits(object, "dp_lm_compressed")) "a fit from compressed data has normal-theory intervals" else "B = 0 or no draw succeeded",
            .arg = "type")
    }
    type <- "normal"
  }
  for (j in seq_along(idx)) {
    i <- idx[j]
    out[j, ] <- switch(type,
      basic = 2 * cf[i] - stats::quantile(boot[, i], c(1 - a, a), names = FALSE),
      percentile = stats::quantile(boot[, i], c(a, 1 - a), names = FALSE),
      normal = cf[i] + c(-1, 1) * stats::qnorm(1 - a) * sqrt(object$vcov[i, i]))
  }
  out
}

# Intervals of a fit whose privately chosen bounds clamp many rows leave
# that bias out (lm_clamp_check()): every call that returns them says so, as
# a dpcov_noise_warning (options(dpcov.noise_warning = FALSE) silences it).
lm_interval_warning <- function(object, what) {
  d <- object$diagnostics
  if (is.list(d) && isTRUE(d$intervals_biased) && !isFALSE(getOption("dpcov.noise_warning"))) {
    msg <- sprintf(paste0("%s: the bounds (or clip) of the fit clamp many rows; the intervals leave ",
                          "that bias out and cover less often than their level (print() of the fit says why and ",
                          "what to give instead)."), what)
    warning(structure(class = c("dpcov_noise_warning", "warning", "condition"), list(message = msg, call = NULL)))
  }
  invisible()
}

lm_parm <- function(parm, cf) {
  if (is.null(parm)) return(seq_along(cf))
  if (is.character(parm) && !anyNA(parm) && all(parm %in% names(cf))) return(match(parm, names(cf)))
  if (is.numeric(parm) && !is.object(parm) && length(parm) && !anyNA(parm) && all(parm == round(parm)) &&
      all(parm >= 1 & parm <= length(cf))) return(as.integer(parm))
  # negative indices drop coefficients, as in confint.lm() (some must remain)
  if (is.numeric(parm) && !is.object(parm) && length(parm) && !anyNA(parm) && all(parm == round(parm)) &&
      all(parm <= -1 & parm >= -length(cf)) && length(unique(parm)) < length(cf)) {
    return(seq_along(cf)[as.integer(parm)])
  }
  abort("`parm` must name coefficients of the fit (%s) or give their indices.",
        paste(names(cf), collapse = ", "), .arg = "parm")
}

#' @rdname dp_lm-methods
#' @export
predict.dp_lm <- function(object, newdata, interval = "none", level = 0.95, se.fit = FALSE, type = "response", ...) {
  check_dp_lm(object, "object")
  check_method_dots(...)
  if (!identical(type, "response")) {
    abort("`type` must be \"response\" (the only type of a dp_lm's predictions: the fit keeps no data, so no \"terms\").",
          .arg = "type")
  }
  # abbreviations, as predict.lm()'s match.arg() takes them ("conf")
  intervals <- c("none", "confidence", "prediction")
  # predict.lm()'s default written out, as match.arg() takes it: the first
  if (identical(interval, intervals)) interval <- intervals[1L]
  if (is.character(interval) && length(interval) == 1L && !is.na(interval) && nzchar(interval) && !is.object(interval)) {
    m <- pmatch(interval, intervals)
    if (!is.na(m)) interval <- intervals[m]
  }
  interval <- check_choice(interval, intervals, "interval")
  level <- check_number(level, "level", lower = 0, upper = 1)
  se.fit <- check_flag(se.fit, "se.fit")
  if (missing(newdata) || is.null(newdata)) {
    abort("`newdata` is required: a dp_lm keeps no data, so it has no fitted values.", .arg = "newdata")
  }
  X <- lm_newdata(object, newdata, na_rows = TRUE)
  # a row of newdata with a missing value predicts NA (fit, interval and
  # se), as predict.lm() does with na.pass; the others are computed alone
  ok <- stats::complete.cases(X)
  fit <- drop(X %*% object$coefficients)
  out <- if (interval == "none") fit else lm_predict_interval(object, X, fit, level, ok,
                                                               prediction = interval == "prediction")
  over <- if (interval == "none") rep(FALSE, nrow(X)) else attr(out, "not_finite")
  attr(out, "not_finite") <- NULL
  if (se.fit) {
    # as predict.lm(): the fit (or the matrix with its interval) and its
    # standard errors, here from the bootstrap's covariance (noise and sampling)
    se <- rep(NA_real_, nrow(X))
    se[ok] <- lm_predict_se(object, X[ok, , drop = FALSE])
    names(se) <- rownames(X)
    bad <- ok & !is.finite(se) & all(is.finite(object$vcov))
    over <- over | bad
    se[bad] <- NA_real_
  }
  lm_overflow_warning(over)
  if (!se.fit) return(out)
  # df: the intervals are the bootstrap's or normal, not t-based
  list(fit = out, se.fit = se, df = Inf, residual.scale = object$sigma)
}

# Rows of newdata whose interval or standard error overflows double precision
# (finite values near 1e308: X b, or the bootstrap's X b*, is +-Inf or Inf -
# Inf) get NA there, as a missing value would, with a warning; the point
# prediction stays what X b gives (+-Inf, as predict.lm()).
lm_overflow_warning <- function(over) {
  if (!any(over)) return(invisible())
  # (counted, not listed: which rows overflow says which hold huge values)
  warn(paste0("`newdata`: the interval or standard error of %d row(s) is not finite in double ",
              "precision (values too large for the fit's arithmetic); they are NA."), sum(over))
  invisible()
}

# The standard errors of X b from the fit's vcov.
lm_predict_se <- function(object, X) sqrt(pmax(0, rowSums((X %*% object$vcov) * X)))

# predict()'s matrix of fit and confidence interval for the design X (its
# rows `ok` complete; the others NA).
lm_predict_interval <- function(object, X, fit, level, ok = rep(TRUE, nrow(X)), prediction = FALSE) {
  lm_interval_warning(object, "predict")
  # a new observation's interval: the mean's, each half widened in quadrature
  # by z sigma (the released residual sd), as predict.lm() adds sigma^2 to se^2
  if (prediction) {
    sigma <- object$sigma
    if (!is_num1(sigma) || is.na(sigma)) {
      warn(paste0("the fit's residual sd is not estimable (sigma() is NA: the release's noise left no residual ",
                  "variance), so prediction intervals are NA; interval = \"confidence\" gives the mean's."),
           .class = "dpcov_noise_warning")
    }
    out <- lm_predict_interval(object, X, fit, level, ok)
    z_sigma <- stats::qnorm(1 - (1 - level) / 2) * sigma
    centre <- rep(NA_real_, nrow(X))
    centre[ok] <- drop(X[ok, , drop = FALSE] %*% lm_interval_center(object))
    out[, "lwr"] <- centre - sqrt((centre - out[, "lwr"])^2 + z_sigma^2)
    out[, "upr"] <- centre + sqrt((out[, "upr"] - centre)^2 + z_sigma^2)
    return(out)
  }
  Xo <- X[ok, , drop = FALSE]
  centre <- drop(Xo %*% lm_interval_center(object))
  a <- (1 - level) / 2
  boot <- object$boot
  ci <- matrix(NA_real_, nrow(X), 2L)
  draws <- !is.null(boot) && nrow(boot) >= 2L && object$ci_type %in% c("basic", "percentile")
  ci[ok, ] <- if (draws) {
    pb <- tcrossprod(Xo, boot)  # rows: newdata, columns: draws
    # a row whose draws overflow (finite newdata near 1e308) has no quantiles
    fin <- is.finite(centre) & is.finite(rowSums(pb))
    lo <- hi <- rep(NA_real_, nrow(Xo))
    lo[fin] <- apply(pb[fin, , drop = FALSE], 1L, stats::quantile, a, names = FALSE)
    hi[fin] <- apply(pb[fin, , drop = FALSE], 1L, stats::quantile, 1 - a, names = FALSE)
    if (object$ci_type == "basic") cbind(2 * centre - hi, 2 * centre - lo) else cbind(lo, hi)
  } else {
    se <- lm_predict_se(object, Xo)
    cbind(centre - stats::qnorm(1 - a) * se, centre + stats::qnorm(1 - a) * se)
  }
  # from finite draws or a finite vcov, a bound that is not finite overflowed
  # (an NA vcov, no usable draws, gives NA bounds that are no overflow)
  over <- rep(FALSE, nrow(X))
  if (draws || all(is.finite(object$vcov))) over[ok] <- !(is.finite(ci[ok, 1L]) & is.finite(ci[ok, 2L]))
  ci[over, ] <- NA_real_
  out <- cbind(fit = fit, lwr = ci[, 1L], upr = ci[, 2L])
  rownames(out) <- rownames(X)
  structure(lm_shrunk_note(out, object, X, ok), not_finite = over)
}

# A shrunk fit (the adaptive ridge moved the estimate) predicts the shrunk
# value, while its intervals are least squares' (they may not contain it):
# the matrix carries the intervals' centre and a note saying so (print shows
# both).
lm_shrunk_note <- function(out, object, X, ok) {
  if (!lm_is_shrunk(object)) return(out)
  centre <- rep(NA_real_, nrow(X))
  centre[ok] <- drop(X[ok, , drop = FALSE] %*% lm_interval_center(object))
  names(centre) <- rownames(X)
  attr(out, "interval_centre") <- centre
  attr(out, "note") <- paste0("fit is the ridge-shrunk estimate (regularize = \"adaptive\"); lwr and upr are the ",
                              "unshrunk least-squares fit's interval, centred on interval_centre, and may not contain fit")
  out
}

# Whether the adaptive ridge shrank the fit's coefficients (its estimate is
# not the least-squares one its intervals centre on).
lm_is_shrunk <- function(object) {
  reg <- object$regularization
  is.list(reg) && is_num1(reg$lambda) && reg$lambda > 0 &&
    !identical(unname(lm_interval_center(object)), unname(object$coefficients))
}

# The design matrix of newdata, built with the fit's terms and factor levels.
# `na_rows`: a row with a missing value gives a row of NA (predict(), as
# predict.lm() with na.pass); otherwise it is refused (model.matrix()).
lm_newdata <- function(object, newdata, arg = "newdata", na_rows = FALSE) {
  if (identical(object$units, "normalised")) {
    abort("`object` has coefficients in normalised units (compressed data without `scales`); they do not apply to data in its own units. Refit with compressed_lm(..., scales =).",
          .arg = "object")
  }
  tt <- object$terms
  if (!inherits(tt, "terms")) abort("`object` is not a valid dp_lm object: its `terms` is malformed.", .arg = "object")
  if (is.matrix(newdata) && !is.object(newdata)) newdata <- as.data.frame(newdata)
  # a plain list of equal-length vectors, as predict.lm() takes (list(x = 1:3))
  if (is.list(newdata) && !is.object(newdata) && length(newdata) && !is.null(names(newdata)) &&
      all(nzchar(names(newdata))) && all(vapply(newdata, function(v) is.atomic(v) && is.null(dim(v)), logical(1))) &&
      length(unique(lengths(newdata))) == 1L) {
    newdata <- as.data.frame(newdata, stringsAsFactors = FALSE, optional = TRUE)
  }
  if (!is.data.frame(newdata)) abort("`%s` must be a data frame (or a named list of equal-length vectors).", arg, .arg = arg)
  tt <- stats::delete.response(tt)
  vars <- lm_data_vars(tt)
  clash <- lm_constants_shadowed(tt, names(newdata))
  if (length(clash)) {
    abort("`%s` has a column named `%s`, which the model uses as the constant; rename or drop the column.",
          arg, clash[1], .arg = arg)
  }
  miss <- setdiff(vars, names(newdata))
  if (length(miss)) abort("`%s` lacks the variable(s) %s.", arg, paste(miss, collapse = ", "), .arg = arg)
  # the variables the model uses as they are (not inside a call): a numeric
  # or logical one was no factor, so text or a factor there is refused
  direct <- vapply(as.list(attr(tt, "variables"))[-1L], function(e) if (is.name(e)) as.character(e) else "", "")
  for (v in vars) {
    col <- newdata[[v]]
    lev <- object$xlevels[[v]]
    # the fit's class checks (lm_design()): a Date or integer64 would be read
    # as days or raw bits
    lm_check_column(col, v, arg, text_ok = TRUE)
    # an infinite value given is refused (as the fit refuses one in `data`);
    # one a transformation makes (log(0)) predicts NA, below
    if (is.numeric(col) && any(is.infinite(col))) abort("`%s` contains infinite values.", arg, .arg = arg)
    # (never the design's column names: built from text, they quote its values)
    if (is.null(lev) && v %in% direct && (is.character(col) || is.factor(col))) {
      abort("`%s`: variable `%s` was numeric or logical in the model, not a factor; give it as numbers (or TRUE/FALSE), not %s.",
            arg, v, if (is.factor(col)) "a factor" else "text", .arg = arg)
    }
    if (!is.null(lev) && (is.character(col) || is.factor(col)) && !all(is.na(col) | as.character(col) %in% lev)) {
      abort("`%s`: factor `%s` has levels the fit does not know.", arg, v, .arg = arg)
    }
    if (!is.null(lev) && !(is.character(col) || is.factor(col) || all(is.na(col)))) {
      abort("`%s`: `%s` was a factor in the model (levels %s); give it as a factor or as text, not %s.", arg, v,
            paste0("\"", lev, "\"", collapse = ", "), class(col)[1L], .arg = arg)
    }
    if ((is.character(col) || is.logical(col) && all(is.na(col))) && !is.null(lev)) {
      newdata[[v]] <- factor(col, levels = lev)
    }
  }
  newdata <- lm_integers_as_double(newdata, names(newdata))
  # evaluated as the fit evaluated it (lm_design()): its strict ifelse()
  attr(tt, ".Environment") <- lm_eval_env()
  design <- function(newdata) tryCatch({
    mf <- stats::model.frame(tt, newdata, xlev = object$xlevels, na.action = stats::na.pass)
    # the fit's rule for transformed variables (a comparison is a number there)
    mf <- lm_frame_values(mf, tt, rule = FALSE)
    stats::model.matrix(tt, mf, contrasts.arg = object$contrasts)
  }, error = function(e) {
    # a fixed message: model.frame()'s and model.matrix()'s can quote values
    # of newdata (a factor's new levels), which may be private data
    abort("`%s`: the fit's design could not be built from its variables; give each as it was in the model (numbers, TRUE/FALSE, or a factor with the fit's levels).",
          arg, .arg = arg)
  })
  X <- design(newdata)
  # a column of NA only is logical, which names a logical variable's column
  # (`zTRUE`): where the fit's variable was numeric, it is a numeric NA
  all_na <- vapply(vars, function(v) is.logical(newdata[[v]]) && all(is.na(newdata[[v]])) &&
                     is.null(object$xlevels[[v]]), logical(1))
  if (!identical(colnames(X), names(object$coefficients)) && any(all_na)) {
    newdata[vars[all_na]] <- lapply(newdata[vars[all_na]], as.double)
    X <- design(newdata)
  }
  # a non-syntactic variable's column is named with backticks by
  # model.matrix() (`my x`), as lm() names its coefficient; compressed_lm()
  # names its coefficients by the release's columns (my x): the same column
  if (!identical(colnames(X), names(object$coefficients)) &&
      identical(unbacktick(colnames(X)), unbacktick(names(object$coefficients)))) {
    colnames(X) <- names(object$coefficients)
  }
  if (!identical(colnames(X), names(object$coefficients))) {
    # only the fit's columns are named: newdata's are built from its values
    abort("`%s` does not give the fit's design columns (%s); give each variable as it was in the model (numbers, TRUE/FALSE, or a factor with the fit's levels).",
          arg, paste(names(object$coefficients), collapse = ", "), .arg = arg)
  }
  if (!is.numeric(X)) abort("`%s` gives a design that is not numeric.", arg, .arg = arg)
  if (!na_rows && anyNA(X)) abort("`%s` contains NA values.", arg, .arg = arg)
  if (any(is.infinite(X))) {
    # a transformation's infinite value (log(0)) is a row predict() cannot
    # give, as log(-1)'s NaN is: NA there, not a refusal of every row
    if (!na_rows) abort("`%s` contains infinite values.", arg, .arg = arg)
    X[is.infinite(X)] <- NA
  }
  X
}

#' @rdname dp_lm-methods
#' @export
summary.dp_lm <- function(object, level = 0.95, ...) {
  check_dp_lm(object, "object")
  check_method_dots(...)
  ci <- confint(object, level = level)
  se <- sqrt(pmax(0, diag(object$vcov)))
  tab <- cbind(Estimate = object$coefficients, `Std. Error` = se, ci)
  structure(list(coefficients = tab, vcov = object$vcov, formula = object$formula, mechanism = object$mechanism,
                 guarantee = object$guarantee, n = object$n, n_used = object$n_used %||% NA_real_,
                 n_source = object$n_source %||% "", n_estimate = object$n_estimate %||% NA_real_,
                 n_noise_sd = object$n_noise_sd %||% NA_real_, diagnostics = object$diagnostics,
                 sigma = object$sigma, B = object$B %||% 0, draws = if (is.null(object$boot)) 0L else nrow(object$boot),
                 advice = if (is.list(object$release)) noise_advice(object$release),
                 ci_type = object$ci_type, units = object$units, level = level,
                 regularization = object$regularization,
                 nonprivate = inherits(object, "dp_nonprivate"),
                 nonprivate_why = if (inherits(object, "dp_nonprivate")) lm_nonprivate_why(object)),
            class = "summary.dp_lm")
}

#' @rdname dp_lm-methods
#' @export
vcov.summary.dp_lm <- function(object, complete = TRUE, ...) {
  check_flag(complete, "complete")
  check_method_dots(...)
  v <- if (is.list(object)) object$vcov
  k <- if (is.list(object) && is.matrix(object$coefficients)) nrow(object$coefficients) else -1L
  if (!(is.matrix(v) && is.numeric(v) && !is.object(v) && identical(dim(v), c(k, k)))) {
    abort("`object` is not a valid summary of a dp_lm: it holds no covariance of its coefficients (summary() of a fit gives one).",
          .arg = "object")
  }
  v
}

#' @rdname dp_lm-methods
#' @export
print.summary.dp_lm <- function(x, digits = 4, ...) {
  check_object(x, "summary.dp_lm", list(
    coefficients = function(v) is.matrix(v) && is.numeric(v) && ncol(v) == 4L, mechanism = is_string,
    guarantee = is_string, n = function(v) is_num1(v, na_ok = TRUE) && (is.na(v) || v >= 0), sigma = function(v) is_num1(v, na_ok = TRUE),
    ci_type = is_string, units = is_string, level = function(v) is_num1(v)))
  check_method_dots(...)
  digits <- check_digits(digits)
  if (isTRUE(x$nonprivate)) {
    cat_wrapped(sprintf("<dp_lm> NOT a private release: %s.",
                        if (is_string(x$nonprivate_why)) x$nonprivate_why else "fitted without a formal guarantee"))
  }
  cat(if (isTRUE(x$nonprivate)) "Linear model:" else "Private linear model:",
      if (inherits(x$formula, "formula")) deparse1(x$formula) else "", "\n")
  cat_wrapped("Release:", x$mechanism)
  diagnosed <- inherits(x$diagnostics, "dp_diagnostics")
  if (diagnosed) print_noise_warnings(x$diagnostics)
  cat_wrapped("Guarantee:", x$guarantee)
  n_est <- if (is_num1(x$n_estimate)) x$n_estimate else x$n_used
  cat_wrapped(if (!is.na(x$n)) sprintf("n = %s", format(x$n))
              else if (is_num1(x$n_noise_sd)) sprintf("n not released; its private estimate is %s (noise sd %s; %s)",
                                                      format(n_est, digits = 6), format(x$n_noise_sd, digits = 3), x$n_source)
              else sprintf("n not released; n = %s (%s)", format(n_est, digits = 6), x$n_source))
  # bootstrap intervals need two usable draws: with B = 0 (or every draw
  # failed) the standard errors and intervals are NA, and the header says so
  draws <- if (is_num1(x$draws)) x$draws else if (is_num1(x$B)) x$B else 0
  if (x$ci_type %in% c("basic", "percentile") && draws < 2) {
    if (!is_num1(x$B) || x$B == 0) {
      cat("Coefficients (no standard errors or intervals: B = 0, no bootstrap draws were made; refit with B > 0 for them):\n")
    } else if (x$B <= draws) {
      cat(sprintf("Coefficients (no standard errors or intervals: B = %s, and intervals need 2 or more bootstrap draws; refit with a larger B):\n",
                  format(x$B)))
    } else {
      # the draws were made and failed: more of them would fail alike
      cat_wrapped(sprintf("Coefficients (no standard errors or intervals: %s%s; %s):",
                          lm_failed_draws_words(x$B - draws, x$B),
                          if (draws == 1) ", 1 was usable and intervals need 2" else "",
                          lm_failed_draws_advice(if (is_string(x$advice)) x$advice else "more budget gives less noise")))
    }
  } else {
    ci_words <- switch(x$ci_type,
                       basic = , percentile = sprintf("%s parametric-bootstrap intervals (B = %s draws; sampling error%s)",
                                                      x$ci_type, format(x$B),
                                                      # (exact statistics have no privacy noise to count)
                                                      if (isTRUE(x$nonprivate) && grepl("^exact", x$mechanism %||% "")) "" else " and privacy noise"),
                       normal = "normal intervals from vcov")
    # (compressed_lm()'s vcov is analytic: no bootstrap was run)
    se_words <- if (identical(x$ci_type, "normal") && !isTRUE(x$B > 0)) "standard errors from vcov and" else
      "bootstrap standard errors and"
    cat_wrapped(sprintf("Coefficients, with %s %g%% %s:", se_words, 100 * x$level, ci_words))
  }
  print(signif(x$coefficients, digits))
  lm_print_regularization(x$regularization)
  cat(if (is.na(x$sigma)) "Residual standard deviation: not estimable (the released residual sum of squares is at or below 0 after the noise, up to rounding)\n"
      else sprintf("Residual standard deviation (estimate): %s\n", format(x$sigma, digits = digits)))
  if (identical(x$units, "normalised")) cat("Units: NORMALISED columns (squared norm n each).\n")
  if (diagnosed) print_diagnostics(x$diagnostics)
  invisible(x)
}

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' @rdname dp_lm-methods
#' @export
tidy.dp_lm <- function(x, conf.int = TRUE, conf.level = 0.95, exponentiate = FALSE, ...) {
  check_dp_lm(x)
  check_method_dots(...)
  check_flag(conf.int, "conf.int")
  if (!isFALSE(check_flag(exponentiate, "exponentiate"))) {
    abort("`exponentiate` = TRUE: a linear model's coefficients are on the response's scale; exponentiating is for log- and logit-link models.",
          .arg = "exponentiate")
  }
  conf.level <- check_number(conf.level, "conf.level", lower = 0, upper = 1)
  out <- data.frame(term = names(x$coefficients), estimate = unname(x$coefficients),
                    std.error = sqrt(pmax(0, unname(diag(x$vcov)))), stringsAsFactors = FALSE)
  if (conf.int) {
    ci <- confint(x, level = conf.level)
    out$conf.low <- unname(ci[, 1L])
    out$conf.high <- unname(ci[, 2L])
  }
  # the standard errors and intervals are about the least-squares estimate
  # (interval_centre); `shrunk` marks an estimate the ridge moved off it
  centre <- unname(lm_interval_center(x))
  out$shrunk <- lm_is_shrunk(x) & unname(x$coefficients) != centre
  out$interval_centre <- centre
  lm_label_table(out, x)
}

# A table of a non-private fit keeps the label (class and print banner).
lm_label_table <- function(out, x) {
  if (inherits(x, "dp_nonprivate")) class(out) <- c("dp_nonprivate", class(out))
  out
}

#' @rdname dp_lm-methods
#' @export
glance.dp_lm <- function(x, ...) {
  check_dp_lm(x)
  check_method_dots(...)
  rel <- x$release
  # a fit without a formal guarantee states none: epsilon and delta NA, private FALSE
  private <- !inherits(x, "dp_nonprivate")
  out <- data.frame(sigma = x$sigma, nobs = x$n, n_used = x$n_used %||% NA_real_, df = sum(names(x$coefficients) != "(Intercept)"),
                    private = private,
                    epsilon = if (private) rel$epsilon %||% NA_real_ else NA_real_,
                    delta = if (private) rel$delta %||% NA_real_ else NA_real_,
                    neighbor = if (is.null(rel$neighbor)) NA_character_ else rel$neighbor,
                    mechanism = x$mechanism, B = x$B %||% 0, units = x$units, stringsAsFactors = FALSE)
  lm_label_table(out, x)
}

#' @rdname dp_lm-methods
#' @export
as.data.frame.dp_lm <- function(x, row.names = NULL, optional = FALSE, ...) {
  abort("`x` is a dp_lm fit: as.data.frame() is not defined for it (nor for an lm); tidy(x) gives the coefficients, glance(x) one row about the fit.",
        .arg = "x")
}

# The variables of a model formula as the model frame names them (deparsed),
# from the formula alone (public); none when it cannot be read without data.
# Whether variable `v` of the formula (a column name or an expression such as
# I(z > 0)) is, by the schema of `data`, not a plain numeric vector: `v`
# evaluated as model.frame() would, but on the zero-row slice of `data`, so
# the answer (and with it the charge) depends on the column types only, never
# on the values. An expression that fails there counts as numeric (charged).
# The number of columns of dp_lm()'s Gram [1, X, y] from the data's schema (a
# zero-row slice: no value is read), or NA where it cannot be told so.
lm_gram_ncol <- function(formula, data) {
  frame <- if (is.data.frame(data) || is.matrix(data)) data[0L, , drop = FALSE] else return(NA_real_)
  tryCatch(as.double(ncol(suppressWarnings(lm_design(formula, frame, min_rows = 0L))$A)),
           error = function(e) NA_real_)
}

# Two rows made from the schema of the formula's columns of `data` alone:
# numbers 1 and 2, a factor's first two levels (its contrasts kept), FALSE
# and TRUE. NULL where a column is of another type (lm_design() refuses
# those from the schema) or `data` is no frame or matrix.
lm_synthetic_rows <- function(formula, data) {
  if (is.matrix(data) && !is.object(data)) data <- as.data.frame(data)
  if (!is.data.frame(data)) return(NULL)
  vars <- intersect(all.vars(formula), names(data))
  rows <- lapply(data[0L, vars, drop = FALSE], function(col) {
    if (is.factor(col)) {
      if (nlevels(col) < 2L) return(NULL)
      synthetic_factor(col, 1:2)
    } else if (is.object(col)) {
      NULL
    } else if (is.logical(col)) {
      c(FALSE, TRUE)
    } else if (is.integer(col)) {
      c(1L, 2L)
    } else if (is.double(col)) {
      c(1, 2)
    }
  })
  if (any(vapply(rows, is.null, logical(1)))) return(NULL)
  as.data.frame(rows, optional = TRUE, stringsAsFactors = FALSE)
}

# Before any charge: what the schema decides, found on two synthetic rows
# (lm_synthetic_rows(); no value of the data is read).
# - A formula whose model frame or design cannot be built on them fails on
#   the column types (log() of a factor): refused here; after the charge the
#   same failure kept it, as one on the values would.
# - A variable that is NA on rows without NA is NA for any data (arithmetic
#   on a factor, `g + 1`): refused (it was fitted as a column of zeros).
# - Bounds naming neither a variable of `data`, nor a variable or design
#   column of the model, are refused (a typo among partial bounds was refused
#   only after the private bounds were charged).
# Other refusals are left to the data, where the shape checks run as before.
lm_schema_checks <- function(formula, data, box, given) {
  # NA as a declared level (factor(exclude = NULL), addNA()): a level the
  # fit's xlevels cannot hold, so the fit came back unusable after its charge
  if (is.data.frame(data)) {
    for (v in intersect(all.vars(formula), names(data))) {
      if (is.factor(data[[v]]) && anyNA(levels(data[[v]]))) {
        abort("`data`: factor `%s` declares NA as a level; recode it as a named level (e.g. levels(x)[is.na(levels(x))] <- \"missing\").",
              v, .arg = "data")
      }
    }
  }
  syn <- lm_synthetic_rows(formula, data)
  if (is.null(syn)) return(invisible())
  d <- tryCatch(suppressWarnings(lm_design(formula, syn, min_rows = 0L)), error = identity)
  if (inherits(d, "error")) {
    if (inherits(d, "dpcov_error") && (grepl("could not be built", conditionMessage(d), fixed = TRUE) ||
                                       grepl("linear combinations of the others for any data", conditionMessage(d), fixed = TRUE))) {
      class(d) <- setdiff(class(d), "dpcov_data_error")
      stop(d)
    }
    return(invisible())
  }
  f <- eval(as.call(as.list(formula)), baseenv())
  attr(f, ".Environment") <- lm_eval_env()
  mf <- tryCatch(suppressWarnings(stats::model.frame(f, data = syn, na.action = stats::na.pass)), error = function(e) NULL)
  if (!is.null(mf)) {
    na_var <- names(mf)[vapply(mf, function(col) is.null(dim(col)) && all(is.na(col)) && !any(is.nan(col)), logical(1))]
    if (length(na_var)) {
      abort("`x`: the variable(s) %s are NA whatever the data (arithmetic on a factor, say, is not defined); build them from numeric columns, or use the factor as a term of its own.",
            paste0("`", na_var, "`", collapse = ", "), .arg = "x")
    }
  }
  b <- if (!is.null(box)) box else given
  if (is.null(names(b$lower))) return(invisible())
  refuse_unknown_bound_names(names(b$lower), if (is.data.frame(data)) names(data) else colnames(data),
                             colnames(d$A), rownames(attr(d$terms, "factors")))
}

lm_schema_not_numeric <- function(v, data, env) {
  frame <- if (is.data.frame(data)) {
    data[0L, , drop = FALSE]
  } else if (is.matrix(data)) {
    as.data.frame(data[0L, , drop = FALSE])
  } else {
    return(FALSE)
  }
  val <- tryCatch(eval(str2lang(v), frame, env), error = function(e) NULL)
  !is.null(val) && !(is.numeric(val) && is.null(dim(val)))
}

lm_formula_variables <- function(formula) {
  if (!inherits(formula, "formula")) return(character(0))
  tt <- tryCatch(stats::terms(formula), error = function(e) NULL)
  if (is.null(tt)) return(character(0))
  vapply(as.list(attr(tt, "variables"))[-1L], deparse1, "")
}

# A model frame's variable names as the design names its columns, so facts
# recorded per variable match the release's columns `cols`: model.matrix()
# backticks a bare non-syntactic name (`my e`), never a call (I(e * 1)), so
# each name is taken as it is or backticked, whichever is a column.
design_named <- function(v, cols) {
  if (is.null(v) || is.null(names(v))) return(v)
  n <- names(v)
  bt <- paste0("`", n, "`")
  names(v) <- ifelse(n %in% cols | !bt %in% cols, n, bt)
  v
}
