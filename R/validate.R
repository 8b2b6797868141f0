# Argument checks. Every user-facing function validates here, in R, before any
# C++ runs; messages name the argument and say what was expected.

abort <- function(...) stop(sprintf(...), call. = FALSE)

is_number <- function(x) is.numeric(x) && length(x) == 1L && !is.na(x)

#' Coerce to a numeric matrix of finite values, or fail with a clear message.
#' Accepts numeric matrices, numeric vectors (one column) and data frames whose
#' columns are all numeric.
#' @noRd
check_data_matrix <- function(x, arg = "x", min_rows = 1L, min_cols = 1L) {
  if (is.data.frame(x)) {
    bad <- !vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (any(bad)) {
      abort("`%s` has non-numeric column(s): %s.", arg,
            paste(names(x)[bad], collapse = ", "))
    }
    x <- as.matrix(x)
  }
  if (is.vector(x) && is.numeric(x)) x <- matrix(x, ncol = 1L)
  if (!is.matrix(x)) abort("`%s` must be a numeric matrix or data frame, not %s.", arg, class(x)[1])
  if (!is.numeric(x)) abort("`%s` must be numeric, not %s.", arg, typeof(x))
  if (anyNA(x)) abort("`%s` contains NA or NaN values; remove or impute them first.", arg)
  # with NA ruled out, min() and max() find +-Inf without n x p temporaries
  # (is.infinite(x) allocates one, and so does range(), through c())
  if (length(x) && !(is.finite(min(x)) && is.finite(max(x)))) abort("`%s` contains infinite values.", arg)
  if (nrow(x) < min_rows) abort("`%s` needs at least %d row(s), has %d.", arg, as.integer(min_rows), nrow(x))
  if (ncol(x) < min_cols) abort("`%s` needs at least %d column(s), has %d.", arg, as.integer(min_cols), ncol(x))
  if (!is.double(x)) storage.mode(x) <- "double"
  x
}

#' A real number in an interval; open or closed ends.
#' @noRd
check_number <- function(x, arg, lower = -Inf, upper = Inf,
                         lower_open = TRUE, upper_open = TRUE, finite = TRUE) {
  if (!is_number(x)) abort("`%s` must be a single number.", arg)
  if (finite && !is.finite(x)) abort("`%s` must be finite.", arg)
  below <- if (lower_open) x <= lower else x < lower
  above <- if (upper_open) x >= upper else x > upper
  if (below || above) {
    abort("`%s` must be in %s%s, %s%s; got %s.", arg,
          if (lower_open) "(" else "[", format(lower), format(upper),
          if (upper_open) ")" else "]", format(x))
  }
  invisible(x)
}

#' Privacy parameter epsilon > 0, optionally below a method's upper limit.
#' @noRd
check_epsilon <- function(epsilon, max = Inf, method = NULL) {
  if (!is_number(epsilon) || !is.finite(epsilon)) abort("`epsilon` must be a single finite number.")
  if (epsilon <= 0) abort("`epsilon` must be > 0; got %s.", format(epsilon))
  if (epsilon >= max) {
    abort("`epsilon` must be < %s for %s; got %s.", format(max),
          if (is.null(method)) "this method" else method, format(epsilon))
  }
  invisible(epsilon)
}

#' Privacy parameter delta in (0, max), max <= 1.
#' @noRd
check_delta <- function(delta, max = 1, method = NULL) {
  if (!is_number(delta)) abort("`delta` must be a single number.")
  if (delta <= 0 || delta >= 1) abort("`delta` must be in (0, 1); got %s.", format(delta))
  if (delta >= max) {
    abort("`delta` must be < %s for %s; got %s.", format(max, digits = 4),
          if (is.null(method)) "this method" else method, format(delta))
  }
  invisible(delta)
}

#' A whole number >= min (stored as double or integer).
#' @noRd
check_count <- function(x, arg, min = 1) {
  if (!is_number(x) || !is.finite(x) || x != round(x)) abort("`%s` must be a single whole number.", arg)
  if (x < min) abort("`%s` must be >= %s; got %s.", arg, format(min), format(x))
  invisible(x)
}

#' Row-norm bound B: positive, Inf allowed (no clipping, no guarantee).
#' @noRd
check_clip <- function(clip) {
  if (!is_number(clip)) abort("`clip` must be a single number (the row-norm bound B), or Inf.")
  if (clip <= 0) abort("`clip` must be > 0; got %s.", format(clip))
  invisible(clip)
}

#' Single TRUE/FALSE.
#' @noRd
check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) abort("`%s` must be TRUE or FALSE.", arg)
  invisible(x)
}

#' Square symmetric positive definite matrix of finite numbers.
#' @noRd
check_spd <- function(S, arg) {
  if (is.numeric(S) && length(S) == 1L && is.null(dim(S))) S <- matrix(S)
  if (!is.matrix(S) || !is.numeric(S)) abort("`%s` must be a numeric matrix.", arg)
  if (anyNA(S) || any(!is.finite(S))) abort("`%s` contains NA, NaN or infinite values.", arg)
  if (nrow(S) != ncol(S)) abort("`%s` must be square; it is %d x %d.", arg, nrow(S), ncol(S))
  if (nrow(S) < 1L) abort("`%s` must have at least one row.", arg)
  tol <- 100 * .Machine$double.eps * max(1, max(abs(S)))
  if (max(abs(S - t(S))) > tol) abort("`%s` must be symmetric.", arg)
  if (inherits(try(chol(S), silent = TRUE), "try-error")) {
    abort("`%s` must be positive definite.", arg)
  }
  storage.mode(S) <- "double"
  S
}

#' Degrees of freedom of a p-dimensional Wishart: real, > p - 1.
#' @noRd
check_wishart_df <- function(df, p) {
  if (!is_number(df) || !is.finite(df)) abort("`df` must be a single finite number.")
  if (df <= p - 1) abort("`df` must be > p - 1 = %d; got %s.", as.integer(p - 1), format(df))
  invisible(df)
}

#' One of the allowed strings (match.arg with a message naming the argument).
#' @noRd
check_choice <- function(x, choices, arg) {
  if (!is.character(x) || length(x) < 1L) abort("`%s` must be one of %s.", arg, paste0('"', choices, '"', collapse = ", "))
  x <- x[1L]
  if (!x %in% choices) abort("`%s` must be one of %s; got \"%s\".", arg, paste0('"', choices, '"', collapse = ", "), x)
  x
}

#' Class labels: a factor (or vector coerced to one) with one label per row, no
#' missing values, unused levels dropped, each class with >= min_per_group rows.
#' @noRd
check_group <- function(group, n, arg = "group", min_per_group = 1L) {
  if (is.null(group) || length(group) != n) {
    abort("`%s` must have one label per row of the data (%d); it has %d.", arg, as.integer(n), length(group))
  }
  if (anyNA(group)) abort("`%s` contains missing labels.", arg)
  group <- droplevels(as.factor(group))
  if (nlevels(group) < 2L) abort("`%s` must contain at least two classes.", arg)
  small <- table(group) < min_per_group
  if (any(small)) {
    abort("every class in `%s` needs at least %d rows; class %s has fewer.", arg,
          as.integer(min_per_group), paste0('"', names(small)[small], '"', collapse = ", "))
  }
  group
}
