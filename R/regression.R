# Linear regression from a released second-moment matrix (Sheffet, Sections
# 3-6): any column as the label, any subset of the others as features.

#' Least squares from a released second-moment matrix
#'
#' Given a (private) estimate M of \eqn{A^TA} for data A with columns
#' \eqn{[X, y, \ldots]}, returns
#' \eqn{\tilde\beta = \arg\min_{\beta: \beta_y = -1} \beta^T M \beta} over the
#' chosen columns, i.e. `solve(M[X, X], M[X, y])`: the ordinary least-squares
#' coefficients when M is the exact Gram matrix. Any column can be the label
#' and any subset of the others the features, so one release answers any
#' number of regressions (Sheffet, Section 6.2); regressions are
#' post-processing and cost no further privacy.
#'
#' An intercept needs a column of ones in the released data (as in the
#' paper's experiments); name it in `intercept` and it is fitted and
#' reported first as `"(Intercept)"`.
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
#' @return A named numeric vector of coefficients.
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(600), 200, 3, dimnames = list(NULL, c("a", "b", "c")))
#' y <- drop(X %*% c(1, -1, 0.5)) + 2 + rnorm(200, sd = 0.5)
#' A <- cbind(X, one = 1, y = y)
#' # exact statistics: the lm() coefficients
#' dp_regression(second_moment(A), "y", intercept = "one")
#' coef(lm(y ~ X))
#' # from a private release
#' rel <- wishart_noise(A, epsilon = 0.5, delta = 1e-4, clip = 10, shift = TRUE)
#' dp_regression(rel, "y", features = c("a", "b"), intercept = "one")
#' @template ref-sheffet
#' @export
dp_regression <- function(release, response, features = NULL, intercept = NULL) {
  M <- regression_matrix(release)
  d <- nrow(M)
  y <- release_column_index(response, M, "response")
  if (length(y) != 1L) abort("`response` must name exactly one column.")
  icpt <- if (is.null(intercept) || isFALSE(intercept)) integer(0) else release_column_index(intercept, M, "intercept")
  if (length(icpt) > 1L) abort("`intercept` must name one column (the column of ones).")
  if (length(icpt) && icpt == y) abort("the `intercept` column cannot also be the `response`.")
  if (is.null(features)) {
    feat <- setdiff(seq_len(d), c(y, icpt))
  } else {
    feat <- release_column_index(features, M, "features")
    if (anyDuplicated(feat)) abort("`features` contains duplicated columns.")
    if (y %in% feat) abort("`features` must not contain the response column.")
    feat <- setdiff(feat, icpt)
  }
  cols <- c(icpt, feat)
  if (!length(cols)) abort("no feature columns: give `features` or `intercept`.")
  Mxx <- M[cols, cols, drop = FALSE]
  Mxy <- M[cols, y]
  beta <- tryCatch(solve(Mxx, Mxy), error = function(e) NULL)
  if (is.null(beta)) {
    warning("the released feature block is singular; returning the minimum-norm solution.",
            call. = FALSE)
    e <- eigen(Mxx, symmetric = TRUE)
    keep <- abs(e$values) > max(abs(e$values)) * d * .Machine$double.eps
    beta <- drop(e$vectors[, keep, drop = FALSE] %*%
                   (crossprod(e$vectors[, keep, drop = FALSE], Mxy) / e$values[keep]))
  }
  nm <- colnames(M)
  labels <- if (is.null(nm)) paste0("V", cols) else nm[cols]
  if (length(icpt)) labels[1L] <- "(Intercept)"
  stats::setNames(as.numeric(beta), labels)
}

regression_matrix <- function(release) {
  M <- if (inherits(release, "dp_release")) {
    check_release(release, "release", square = TRUE)$estimate
  } else if (inherits(release, "dp_suffstat")) {
    check_suffstat(release, "release")$gram
  } else {
    release
  }
  if (!is.matrix(M) || !is.numeric(M) || is.object(M) || nrow(M) != ncol(M)) {
    abort("`release` must be a dp_release of a second-moment matrix, a second_moment() object, or a square numeric matrix.")
  }
  if (anyNA(M) || any(!is.finite(M))) abort("`release`: the released matrix contains NA or infinite values.")
  if (max(abs(M - t(M))) > 1e-8 * max(1, max(abs(M)))) abort("`release` must be a symmetric matrix.")
  storage.mode(M) <- "double"
  if (nrow(M) < 2L) abort("the released matrix must have at least 2 columns (a feature and a label).")
  M
}

release_column_index <- function(cols, M, arg) {
  d <- ncol(M)
  if (is.character(cols)) {
    nm <- colnames(M)
    if (is.null(nm)) abort("`%s` names columns but the released matrix has no column names; use indices.", arg)
    idx <- match(cols, nm)
    if (anyNA(idx)) abort("`%s`: unknown column(s) %s.", arg, paste0('"', cols[is.na(idx)], '"', collapse = ", "))
    return(idx)
  }
  if (!is.numeric(cols) || !length(cols) || anyNA(cols) || any(cols != round(cols)) ||
      any(cols < 1) || any(cols > d)) {
    abort("`%s` must be column names or whole-number indices in 1..%d.", arg, d)
  }
  as.integer(cols)
}
