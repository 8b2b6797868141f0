# Argument checks. Every user-facing function validates here, in R, before any
# C++ runs; messages name the argument and say what was expected. Every check
# returns the value in the form the C++ core needs (doubles, not integers), so
# callers assign its result: `clip <- check_clip(clip)`.

#' Raise a dpcov error: class `c("dpcov_error", "error", "condition")`, message
#' from `sprintf(fmt, ...)`, and the offending argument's name in `$arg` when
#' the message is about one argument. `.class` prepends finer classes (e.g.
#' `"dpcov_budget_error"`) that callers can catch on their own.
#' @noRd
abort <- function(fmt, ..., .arg = NULL, .class = NULL) {
  msg <- if (...length()) sprintf(fmt, ...) else fmt
  # the argument is the first one the message quotes (`x`, or `x$field`, as
  # the explicit ones name a field)
  if (is.null(.arg)) {
    quoted <- regmatches(msg, regexpr("`[A-Za-z._][A-Za-z0-9._]*(\\$[A-Za-z0-9._]+)*`", msg))
    if (length(quoted)) .arg <- unbacktick(quoted)
  }
  stop(structure(class = c(.class, "dpcov_error", "error", "condition"),
                 list(message = msg, call = NULL, arg = .arg)))
}

# A warning of class `dpcov_warning` (a condition handlers can select, as
# the errors are `dpcov_error`s), formatted like abort(); `.class` adds a
# subclass in front.
warn <- function(fmt, ..., .class = NULL) {
  msg <- if (...length()) sprintf(fmt, ...) else fmt
  warning(structure(class = c(.class, "dpcov_warning", "warning", "condition"), list(message = msg, call = NULL)))
}

# Plain numbers only: no factors, dates or other classed objects, which are
# numeric underneath but not what the argument means.
# A 1 x 1 matrix is not a number either: it would carry its dim into results.
is_number <- function(x) {
  is.numeric(x) && length(x) == 1L && is.null(dim(x)) && !is.na(x) && !is.object(x)
}

# A missing argument (no default) is reported as a classed error naming it,
# not as R's "argument ... is missing, with no default".
# A name with its backticks dropped (`my x` -> my x).
unbacktick <- function(v) gsub("`", "", v, fixed = TRUE)

abort_missing <- function(arg) abort("`%s` is missing, with no default.", arg, .arg = arg)

# Ranges outside which the arithmetic of a release is no longer trustworthy
# (overflow or underflow when squaring or summing), so they are refused. See
# the "Privacy guarantees" vignette.
dp_limits <- list(epsilon = c(1e-6, 1e3), clip = c(1e-50, 1e50), cells = 2^31 - 1)

#' Coerce to a numeric matrix of finite values, or fail with a clear message.
#' Accepts numeric matrices, numeric vectors (one column) and data frames whose
#' columns are all numeric or logical. `finite = FALSE` skips the scans for
#' NA/NaN and infinite values (a full read of x each): only for callers whose
#' C++ kernel detects them in its own pass and that call abort_nonfinite()
#' with its report before using anything computed. `na_ok = TRUE` lets
#' missing values through and still refuses infinite ones (newdata whose
#' rows with an NA predict NA).
#' @noRd
check_data_matrix <- function(x, arg = "x", min_rows = 1L, min_cols = 1L, finite = TRUE, unique_names = TRUE,
                              na_ok = FALSE) {
  if (missing(x)) abort_missing(arg)
  if (is.data.frame(x)) {
    check_frame_dims(x, arg)
    bad <- !vapply(x, function(col) (is.numeric(col) || is.logical(col)) && !is.object(col) ||
                     is_plain_asis(col) && is.numeric(col), logical(1))
    if (any(bad)) {
      abort("`%s` has non-numeric column(s): %s; convert factors, text and classed numbers (dates, bit64::integer64, under I() too) to plain numbers (e.g. with model.matrix() or as.numeric()) or drop them.",
            arg, paste(names(x)[bad], collapse = ", "), .arg = arg)
    }
    x <- as.matrix(x)
  }
  if (is.null(x)) abort("`%s` must be a numeric matrix or data frame, not NULL.", arg, .arg = arg)
  if (is.vector(x) && (is.numeric(x) || is.logical(x)) && !is.object(x)) x <- matrix(x, ncol = 1L)
  if (!is.matrix(x) || is.object(x) && !is_plain_asis(x)) {
    abort("`%s` must be a numeric matrix or data frame, not %s.", arg, class(x)[1], .arg = arg)
  }
  if (!(is.numeric(x) || is.logical(x))) abort("`%s` must be numeric, not %s.", arg, typeof(x), .arg = arg)
  if (nrow(x) < min_rows) abort("`%s` needs at least %d row(s), has %d.", arg, as.integer(min_rows), nrow(x), .arg = arg)
  if (ncol(x) < min_cols) abort("`%s` needs at least %d column(s), has %d.", arg, as.integer(min_cols), ncol(x), .arg = arg)
  # `na_ok`: missing values pass (newdata whose NA rows predict NA), infinite ones do not
  if (finite && !na_ok && anyNA(x)) abort_nonfinite(1L, arg)
  if (!is.double(x)) storage.mode(x) <- "double"
  # with NA ruled out, min() and max() find +-Inf without n x p temporaries
  # (is.infinite(x) allocates one, and so does range(), through c())
  if (finite && length(x) && (if (na_ok) any(is.infinite(x)) else !(is.finite(min(x)) && is.finite(max(x))))) {
    abort_nonfinite(2L, arg)
  }
  nm <- colnames(x)
  if (!is.null(nm) && any(!nzchar(nm) & !is.na(nm))) colnames(x) <- fill_empty_colnames(nm)
  # releases name their columns, and methods pick them by name: a repeated
  # name would pick the first silently (schema, not values); `unique_names =
  # FALSE` for statistics that match columns by position when names repeat
  if (unique_names) check_unique_colnames(colnames(x), arg)
  x
}

#' Empty column names (cbind(X, v) leaves one) become `V<j>`, the name an
#' unnamed column gets, so results and their bounds can name every column;
#' a clash with an existing name is refused later (check_unique_colnames()).
#' @noRd
fill_empty_colnames <- function(nm) {
  if (is.null(nm)) return(nm)
  empty <- !is.na(nm) & !nzchar(nm)
  nm[empty] <- paste0("V", which(empty))
  nm
}

#' I() alone: a plain vector marked "as is". Any other class under it (bit64's
#' integer64, whose is.numeric() is TRUE; Date; a unit class) is the class's
#' number, not its storage's double (integer64's bits read as a double are
#' about 1e-321), and is refused like the bare classed column.
#' @noRd
is_plain_asis <- function(x) inherits(x, "AsIs") && !length(setdiff(oldClass(x), "AsIs"))

#' Column names that name per-column bounds (row names of a bounds frame):
#' unique, not NA and not empty (a bound named "" cannot be given back:
#' bound_vector() refuses it). Public schema; `nm` NULL (unnamed columns)
#' passes.
#' @noRd
# Whether names identify one column each: none missing, empty or repeated.
names_identify <- function(nm) !anyNA(nm) && all(nzchar(nm)) && !anyDuplicated(nm)

# Names of two parts of one object that must agree (a stored centre and the
# rotation's rows, a classifier's means and scaling): equal when both have them.
same_names <- function(a, b) is.null(a) || is.null(b) || identical(as.character(a), as.character(b))

# `newdata` cut to the columns `cols` by name where it has them all (a data
# frame's other columns, text or factors, are not the model's: "extra
# columns ignored", as predict.prcomp() and predict.lda() ignore them);
# otherwise as it is, for the checks that follow to refuse.
named_columns <- function(newdata, cols) {
  have <- colnames(newdata)
  if (is.null(cols) || !names_identify(cols) || is.null(have) || !is.null(dim(newdata)) && length(dim(newdata)) != 2L ||
      !all(cols %in% have) || anyDuplicated(have[have %in% cols])) {
    return(newdata)
  }
  newdata[, cols, drop = FALSE]
}

check_unique_colnames <- function(nm, arg = "x") {
  if (is.null(nm)) return(invisible(NULL))
  bad <- unique(nm[is.na(nm) | !nzchar(nm) | duplicated(nm)])
  if (length(bad)) {
    label <- ifelse(is.na(bad), "NA", ifelse(nzchar(bad), paste0("`", bad, "`"), "\"\""))
    abort("`%s` has duplicate or missing column names (%s); results and per-column bounds are named by column: name every column, once (e.g. with make.unique()).",
          arg, paste(label, collapse = ", "), .arg = arg)
  }
  invisible(nm)
}

#' A data frame's columns are vectors or matrices: as.matrix() cannot expand
#' an array of three or more dimensions (it failed with a plain error after
#' the charge). Schema, checked before anything is charged.
#' @noRd
check_frame_dims <- function(x, arg = "x") {
  deep <- vapply(x, function(col) length(dim(col)) > 2L, logical(1))
  if (any(deep)) {
    abort("`%s` has array column(s) of three or more dimensions (%s); give columns that are vectors or matrices.",
          arg, paste0("`", names(x)[deep], "`", collapse = ", "), .arg = arg)
  }
  invisible(x)
}

#' check_unique_colnames() for data in memory, before anything is charged
#' (names are schema, read without the values); a data frame's matrix
#' columns get their names as as.matrix() expands them, from one row of NAs.
#' @noRd
check_data_colnames <- function(x, arg = "x") {
  if (is.data.frame(x)) {
    check_frame_dims(x, arg)
    check_unique_colnames(fill_empty_colnames(names(x)), arg)
    if (any(vapply(x, function(col) length(dim(col)) == 2L, logical(1)))) {
      check_unique_colnames(data_colnames(x), arg)
    }
  }
  else if (is.matrix(x)) check_unique_colnames(data_colnames(x), arg)
  invisible(x)
}

#' The column names check_data_matrix() gives `x` (schema, read without the
#' values): a data frame's as as.matrix() expands its matrix columns (`m.1`,
#' `m.2`), from one row of NAs; a matrix's own; NULL for a vector.
#' @noRd
data_colnames <- function(x) {
  fill_empty_colnames(if (is.data.frame(x)) colnames(as.matrix(x[NA_integer_, , drop = FALSE])) else colnames(x))
}

#' The error for non-finite data, from check_data_matrix() or from a kernel's
#' report (`code`: 0 none, 1 NA/NaN, 2 +-Inf; NA/NaN wins when both occur).
#' @noRd
abort_nonfinite <- function(code, arg = "x") {
  # a refusal of the values: a budget's charge stands (with_refund())
  if (code == 1L) abort("`%s` contains NA or NaN values; remove or impute them first.", arg, .arg = arg, .class = "dpcov_data_error")
  if (code == 2L) abort("`%s` contains infinite values.", arg, .arg = arg, .class = "dpcov_data_error")
  invisible(NULL)
}

#' A real number in an interval; open or closed ends. Returns it as a double.
#' @noRd
check_number <- function(x, arg, lower = -Inf, upper = Inf,
                         lower_open = TRUE, upper_open = TRUE, finite = TRUE) {
  if (missing(x)) abort_missing(arg)
  if (!is_number(x)) abort("`%s` must be a single number.", arg, .arg = arg)
  if (finite && !is.finite(x)) abort("`%s` must be finite.", arg, .arg = arg)
  below <- if (lower_open) x <= lower else x < lower
  above <- if (upper_open) x >= upper else x > upper
  if (below || above) {
    abort("`%s` must be in %s%s, %s%s; got %s.", arg,
          if (lower_open) "(" else "[", format(lower), format(upper),
          if (upper_open) ")" else "]", format(x), .arg = arg)
  }
  as.double(x)
}

#' Privacy parameter epsilon, in the range where every mechanism's arithmetic is
#' exact (Algorithm 3's degrees of freedom grow as 1/epsilon^2) and a guarantee
#' still means something, and below a
#' method's upper limit.
#' @noRd
check_epsilon <- function(epsilon, max = Inf, method = NULL) {
  if (missing(epsilon)) abort_missing("epsilon")
  if (!is_number(epsilon) || !is.finite(epsilon)) abort("`epsilon` must be a single finite number.", .arg = "epsilon")
  if (epsilon <= 0) abort("`epsilon` must be > 0; got %s.", format(epsilon), .arg = "epsilon")
  lim <- dp_limits$epsilon
  if (epsilon < lim[1] || epsilon > lim[2]) {
    abort("`epsilon` must be in [%s, %s]; got %s (below it some noise parameters exceed exact double arithmetic; above it the guarantee protects nothing).",
          format(lim[1]), format(lim[2]), format(epsilon), .arg = "epsilon")
  }
  if (epsilon >= max) {
    abort("`epsilon` must be < %s for %s; got %s.", format(max),
          if (is.null(method)) "this method" else method, format(epsilon), .arg = "epsilon")
  }
  as.double(epsilon)
}

#' Privacy parameter delta in (0, max), max <= 1.
#' @noRd
check_delta <- function(delta, max = 1, method = NULL) {
  if (missing(delta)) abort_missing("delta")
  if (!is_number(delta)) abort("`delta` must be a single number.", .arg = "delta")
  if (!(delta > 0 && delta < 1)) abort("`delta` must be in (0, 1); got %s.", format(delta), .arg = "delta")
  if (delta < .Machine$double.xmin) abort("`delta` must be at least %s; got %s.", format(.Machine$double.xmin), format(delta), .arg = "delta")
  if (delta >= max) {
    abort("`delta` must be < %s for %s; got %s.", format_privacy(max, up = FALSE),
          if (is.null(method)) "this method" else method, format(delta), .arg = "delta")
  }
  as.double(delta)
}

# The steps' shares of a release's `delta`, as of its epsilon: at least the
# smallest delta check_delta() takes, or a refusal naming the `delta` given
# (a step's own check_delta() would name a share the user never gave).
check_step_deltas <- function(delta, steps) {
  if (any(steps < .Machine$double.xmin)) {
    abort("`delta` = %s leaves a step delta = %s, below the smallest delta dpcov calibrates (%s); give a larger `delta`.",
          format(delta), format(min(steps), digits = 3), format(.Machine$double.xmin, digits = 4), .arg = "delta")
  }
  invisible(delta)
}

#' A whole number in [min, max] (stored as double or integer); returned as a
#' double so that counts beyond the integer range stay exact.
#' @noRd
check_count <- function(x, arg, min = 1, max = 2^52) {
  if (missing(x)) abort_missing(arg)
  if (!is_number(x) || !is.finite(x) || x != round(x)) abort("`%s` must be a single whole number.", arg, .arg = arg)
  if (x < min) abort("`%s` must be >= %s; got %s.", arg, format(min), format(x), .arg = arg)
  if (x > max) abort("`%s` must be <= %s; got %s.", arg, format(max), format(x), .arg = arg)
  as.double(x)
}

#' Row-norm bound B: positive and within the range whose squares and sums stay
#' finite, or Inf (no clipping, no guarantee).
#' @noRd
check_clip <- function(clip, arg = "clip") {
  if (missing(clip)) abort_missing(arg)
  if (!is_number(clip)) abort("`%s` must be a single number (the row-norm bound B), or Inf.", arg, .arg = arg)
  if (clip <= 0) abort("`%s` must be > 0; got %s.", arg, format(clip), .arg = arg)
  lim <- dp_limits$clip
  if (is.finite(clip) && (clip < lim[1] || clip > lim[2])) {
    abort("`%s` must be in [%s, %s] (or Inf); got %s. Rescale the data so that row norms are of moderate size.",
          arg, format(lim[1]), format(lim[2]), format(clip), .arg = arg)
  }
  as.double(clip)
}

#' A finite row-norm bound (`clip` without its Inf mode); `why` says why Inf
#' is refused here.
#' @noRd
check_finite_clip <- function(clip, arg, why) {
  clip <- check_clip(clip, arg)
  if (!is.finite(clip)) abort("`%s` must be finite: %s.", arg, why, .arg = arg)
  clip
}

#' Single TRUE/FALSE.
#' @noRd
check_flag <- function(x, arg) {
  if (!is.logical(x) || length(x) != 1L || is.na(x) || is.object(x)) abort("`%s` must be TRUE or FALSE.", arg, .arg = arg)
  isTRUE(x)  # (without the names or attributes `x` may carry)
}

# A release's p x p matrices must fit check_cells(): p from the input's
# shape (a matrix's or data frame's columns, statistics' p, a package
# reader's schema), checked before a budget is charged (a p of 50,000
# reached C++ and failed with bad_alloc after the charge).
check_release_width <- function(x, arg = "x") {
  p <- input_width(x)
  if (!is.na(p)) check_cells(p^2, "the second-moment matrix", arg)
  invisible(p)
}

# The columns an input's shape makes public before it is read: a matrix's or
# data frame's, a bare vector's one (read as one column), statistics' p, a
# package reader's schema; NA where unknown (another reader, malformed
# statistics, no columns).
input_width <- function(x) {
  p <- if (is.matrix(x) || is.data.frame(x)) {
    data_ncol(x)
  } else if ((is.numeric(x) || is.logical(x)) && is.null(dim(x)) && !is.object(x) && length(x)) {
    1L
  } else if (inherits(x, "dp_suffstat") && is.list(x)) {
    x$p
  } else if (is.function(x)) {
    length(reader_columns(x))
  }
  if (is_whole1(p, 1)) as.double(p) else NA_real_
}

#' Refuse a result whose size would exhaust memory, before allocating it.
#' @noRd
check_cells <- function(cells, what, arg) {
  if (cells > dp_limits$cells) {
    abort("%s would hold %s numbers, more than the %s dpcov allocates; reduce `%s`.",
          what, format(cells, big.mark = ",", decimal.mark = "."), format(dp_limits$cells, big.mark = ",", decimal.mark = "."), arg, .arg = arg)
  }
  invisible(cells)
}

#' Square symmetric positive definite matrix of finite numbers.
#' @noRd
check_spd <- function(S, arg) {
  if (missing(S)) abort_missing(arg)
  if (is_number(S)) S <- matrix(S)
  if (!is.matrix(S) || !is.numeric(S) || is.object(S)) abort("`%s` must be a numeric matrix.", arg, .arg = arg)
  if (nrow(S) < 1L || ncol(S) < 1L) abort("`%s` must have at least one row and column.", arg, .arg = arg)
  if (anyNA(S) || any(!is.finite(S))) abort("`%s` contains NA, NaN or infinite values.", arg, .arg = arg)
  if (nrow(S) != ncol(S)) abort("`%s` must be square; it is %d x %d.", arg, nrow(S), ncol(S), .arg = arg)
  storage.mode(S) <- "double"
  top <- max(abs(S))
  if (!is.finite(top * top)) abort("`%s` has entries too large to factor reliably (max |entry| %s).", arg, format(top), .arg = arg)
  # a diagonal below 1e-290 is at the subnormal range, where the factor's
  # products lose digits (a draw 7% off at 1e-322)
  if (min(diag(S)) > 0 && min(diag(S)) < 1e-290) {
    abort("`%s` has diagonal entries too small to factor reliably (below 1e-290); rescale it.", arg, .arg = arg)
  }
  # relative to the entries' size: an absolute floor accepted small
  # asymmetric matrices and sampled from their lower triangle
  tol <- 100 * .Machine$double.eps * top
  if (max(abs(S - t(S))) > tol) abort("`%s` must be symmetric.", arg, .arg = arg)
  # both Cholesky routines must succeed: the samplers use Eigen's LLT (lower
  # triangle), rdata() base::chol() (LAPACK, upper), and at the boundary of
  # positive definiteness they can disagree
  if (!is_pd(S) || inherits(try(chol(S), silent = TRUE), "try-error")) {
    abort("`%s` must be positive definite.", arg, .arg = arg)
  }
  S
}

#' Degrees of freedom of a p-dimensional Wishart: real, > p - 1.
#' @noRd
check_wishart_df <- function(df, p) {
  if (missing(df)) abort_missing("df")
  if (!is_number(df) || !is.finite(df)) abort("`df` must be a single finite number.", .arg = "df")
  if (df <= p - 1) abort("`df` must be > p - 1 = %d; got %s.", as.integer(p - 1), format(df), .arg = "df")
  if (df > 1e15) abort("`df` must be <= 1e15; got %s.", format(df), .arg = "df")
  as.double(df)
}

#' Exactly one of the allowed strings. Defaults are single strings, so a
#' vector (even of valid choices) is an error rather than silently its first.
#' @noRd
check_choice <- function(x, choices, arg) {
  allowed <- paste0('"', choices, '"', collapse = ", ")
  if (!is.character(x) || length(x) != 1L || is.na(x) || is.object(x)) {
    abort("`%s` must be one string, one of %s.", arg, allowed, .arg = arg)
  }
  if (!x %in% choices) abort("`%s` must be one of %s; got \"%s\".", arg, allowed, x, .arg = arg)
  # the package's own string: a name or an attribute on `x` (c(k = "equal"))
  # would make identical(x, "equal") FALSE downstream
  choices[match(x, choices)]
}

#' Class labels: a factor (or vector coerced to one) with one label per row, no
#' missing values, unused levels dropped, each class with >= min_per_group rows.
#' @noRd
check_group <- function(group, n, arg = "group", min_per_group = 1L) {
  if (missing(group)) abort_missing(arg)
  if (is.null(group) || !is.atomic(group) && !is.factor(group) || is.complex(group)) {
    abort("`%s` must be a vector or factor of labels (one per row of the data), not %s.", arg,
          if (is.null(group)) "NULL" else if (is.complex(group)) "complex" else class(group)[1L], .arg = arg)
  }
  if (length(group) != n) {
    abort("`%s` must have one label per row of the data (%d); it has %d.", arg, as.integer(n), length(group), .arg = arg)
  }
  # (a factor made with exclude = NULL has NA as a level, which anyNA() does not see)
  if (anyNA(group) || is.factor(group) && anyNA(levels(group))) abort("`%s` contains missing labels.", arg, .arg = arg)
  # (as MASS::lda() does: a declared class with no rows is said, not dropped silently)
  empty <- if (is.factor(group)) setdiff(levels(group), as.character(unique(group))) else character(0)
  if (length(empty)) warn("`%s`: class(es) %s have no rows and are dropped.", arg, paste0('"', empty, '"', collapse = ", "))
  group <- droplevels(as.factor(group))
  if (nlevels(group) < 2L) abort("`%s` must contain at least two classes.", arg, .arg = arg)
  small <- table(group) < min_per_group
  if (any(small)) {
    abort("every class in `%s` needs at least %d rows; class %s has fewer.", arg,
          as.integer(min_per_group), paste0('"', names(small)[small], '"', collapse = ", "), .arg = arg)
  }
  group
}

#' A numeric vector of finite values (length >= min_length); returned as double.
#' @noRd
check_numeric_vector <- function(x, arg, min_length = 1L, lower = -Inf) {
  if (missing(x)) abort_missing(arg)
  if (!is.numeric(x) || is.object(x) || !is.null(dim(x)) || length(x) < min_length) {
    abort("`%s` must be a numeric vector of length >= %d.", arg, as.integer(min_length), .arg = arg)
  }
  if (anyNA(x) || any(!is.finite(x))) abort("`%s` contains NA, NaN or infinite values.", arg, .arg = arg)
  if (any(x < lower)) abort("`%s` must be >= %s.", arg, format(lower), .arg = arg)
  as.double(x)
}

#' One number per column of a release (a centre, column scales): by
#' position when unnamed; when named (and the release's columns are), matched
#' by name, and its names must include every column (a vector of another
#' order or of other columns was used by position, a silent wrong answer).
#' `positive`: the entries must be > 0.
#' @noRd
check_per_column <- function(v, p, cols, arg, positive = FALSE) {
  if (missing(v)) abort_missing(arg)
  nm <- names(v)
  v <- check_numeric_vector(v, arg)
  if (!is.null(nm) && !is.null(cols)) {
    if (anyNA(nm) || anyDuplicated(nm) || !all(cols %in% nm)) {
      abort("`%s` is named by column, and its names (%s) do not include every column of the release (%s).",
            arg, paste(nm, collapse = ", "), paste(cols, collapse = ", "), .arg = arg)
    }
    v <- v[match(cols, nm)]
  }
  if (length(v) != p) {
    abort("`%s` must have one entry per column of the release (%d); it has %d.", arg, as.integer(p),
          length(v), .arg = arg)
  }
  # (after matching: a named entry of another column is not used)
  if (positive && any(v <= 0)) abort("`%s` must be positive, one per column.", arg, .arg = arg)
  unname(v)
}

#' Whole numbers (a vector) in [min, max]; returned as doubles.
#' @noRd
check_counts <- function(x, arg, min = 1, max = 2^52) {
  x <- check_numeric_vector(x, arg)
  if (any(x != round(x))) abort("`%s` must be whole numbers.", arg, .arg = arg)
  if (any(x < min) || any(x > max)) {
    abort("`%s` must be whole numbers in [%s, %s].", arg, format(min), format(max), .arg = arg)
  }
  x
}

#' A finite numeric matrix (not a data frame, not classed) whose sums of
#' squares cannot overflow; returned as doubles.
#' @noRd
check_numeric_matrix <- function(x, arg, square = FALSE) {
  if (missing(x)) abort_missing(arg)
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x)) || is.object(x) || !length(x)) {
    abort("`%s` must be a non-empty numeric matrix.", arg, .arg = arg)
  }
  if (anyNA(x) || !all(is.finite(range(x)))) abort("`%s` contains NA, NaN or infinite values.", arg, .arg = arg)
  if (square && nrow(x) != ncol(x)) abort("`%s` must be square; it is %d x %d.", arg, nrow(x), ncol(x), .arg = arg)
  check_no_overflow(x, arg)
  storage.mode(x) <- "double"
  x
}

#' Refuse values whose squares summed over the rows overflow (e.g. data *
#' 1e200): the cross-products of such data are not finite numbers.
#' @noRd
check_no_overflow <- function(x, arg) {
  if (!length(x)) return(invisible(x))
  top <- max(max(x), -min(x))  # no n x p temporaries
  if (top > sqrt(.Machine$double.xmax / max(1, NROW(x)))) {
    # (the largest entry is not quoted: it may be a value of the data)
    abort("`%s` has entries too large: their squared sums overflow; rescale it.", arg, .arg = arg)
  }
  invisible(x)
}

# Columns whose largest |entry| is below 1e-150: their squares (1e-300) are
# near the subnormal range and their sums of squares lose digits or vanish
# (a QDA on such data put every row in one class). For non-private fits,
# which may look at the data's values.
check_no_underflow <- function(x, arg) {
  if (!length(x)) return(invisible(x))
  top <- apply(abs(x), 2L, max)
  if (any(top > 0 & top < 1e-150)) {
    abort("`%s` has columns whose entries are all below 1e-150 in size: their squared sums underflow; rescale it.",
          arg, .arg = arg)
  }
  invisible(x)
}

#' Run `expr`; a dpcov_error it raises is re-raised as an error about `arg`
#' (e.g. a malformed field of an object, or a user function that failed).
#' @noRd
with_arg <- function(expr, arg, what = NULL) {
  tryCatch(expr, dpcov_error = function(e) {
    abort("`%s`%s: %s", arg, if (is.null(what)) "" else paste0(" (", what, ")"), conditionMessage(e), .arg = arg)
  })
}

#' Call a user-supplied function; an error it raises becomes a dpcov_error
#' naming the argument that supplied it.
#' @noRd
call_user <- function(f, args, arg, what = "the function") {
  # called through symbols, not with the values: an error's call (e.g.
  # "unused argument (c(1, 1, ...))") would otherwise deparse the data
  env <- new.env(parent = emptyenv())
  nm <- paste0("arg", seq_along(args))
  for (i in seq_along(args)) assign(nm[i], args[[i]], envir = env)
  assign("f", f, envir = env)
  cl <- as.call(c(as.name("f"), lapply(nm, as.name)))
  tryCatch(eval(cl, env), error = function(e) {
    abort("`%s`: %s failed: %s", arg, what, conditionMessage(e), .arg = arg)
  })
}

# ---- hand-made objects of package classes -----------------------------------------

#' Validate an object of a package class given as input: its class, and each
#' field a method reads against a predicate. `fields` maps a field name to a
#' function of the field's value returning TRUE when it is well formed.
#' @noRd
check_object <- function(x, class, fields, arg = "x") {
  if (!inherits(x, class) || !is.list(x)) abort("`%s` must be a %s object.", arg, class, .arg = arg)
  for (f in names(fields)) {
    ok <- tryCatch(isTRUE(fields[[f]](x[[f]])), error = function(e) FALSE)
    if (!ok) abort("`%s` is not a valid %s object: its `%s` is missing or malformed.", arg, class, f, .arg = arg)
  }
  invisible(x)
}

# Predicates for check_object(). A scalar has no dim: a 1 x 1 matrix would
# carry its dim into what the methods compute with it (non-conformable
# arrays, matrix(x, nrow) refusing a matrix), an unclassed error there.
is_string <- function(v) is.character(v) && length(v) == 1L && is.null(dim(v)) && !is.na(v)
is_flag <- function(v) is.logical(v) && length(v) == 1L && is.null(dim(v)) && !is.na(v)
is_num1 <- function(v, na_ok = FALSE) {
  is.numeric(v) && length(v) == 1L && is.null(dim(v)) && !is.object(v) &&
    (is.finite(v) || na_ok && is.na(v) && !is.nan(v))
}
is_whole1 <- function(v, min = 0) is_num1(v) && v == round(v) && v >= min
is_finite_num <- function(v, min_length = 1L) {
  is.numeric(v) && !is.object(v) && length(v) >= min_length && all(is.finite(v))
}
is_finite_matrix <- function(v) is.matrix(v) && is_finite_num(v) && !is.object(v)
is_frame_with <- function(v, numeric = NULL, character = NULL, min_rows = 1L) {
  num_cols <- as.character(numeric)
  chr_cols <- as.character(character)
  is.data.frame(v) && nrow(v) >= min_rows && all(c(num_cols, chr_cols) %in% names(v)) &&
    all(vapply(v[num_cols], function(c) is.numeric(c) && !any(is.nan(c) | is.infinite(c)), logical(1))) &&
    all(vapply(v[chr_cols], function(c) is.character(c) || is.factor(c), logical(1)))
}

#' `digits` of a print method: a whole number in [min, 15].
#' @noRd
check_digits <- function(digits, min = 1) check_count(digits, "digits", min = min, max = 15)

#' A plot's `ylim`: NULL or two finite increasing numbers.
#' @noRd
check_ylim <- function(ylim) {
  if (is.null(ylim)) return(NULL)
  if (!is.numeric(ylim) || length(ylim) != 2L || !all(is.finite(ylim)) || ylim[1] >= ylim[2]) {
    abort("`ylim` must be NULL or two finite increasing numbers.", .arg = "ylim")
  }
  as.double(ylim)
}

# ---- public per-column bounds (issue 19) -------------------------------------------

#' Per-column public bounds: `lower` and `upper` (numbers, length 1 or p,
#' optionally named by column), or `bounds` (a data frame with columns
#' `lower`, `upper` and no others, the column names as row names, or a named list of
#' `c(lower, upper)` pairs); not both forms. Returns `NULL` when none is
#' given, else `list(lower =, upper =)`: with `p` given, aligned to the
#' columns (`colnames`; names of other columns are dropped), else validated but not aligned (a reader's columns are
#' known only when it is read; align later with align_bounds()). Every
#' column needs lower < upper: a column of width 0 is a constant, known
#' in advance, and carries no covariance; drop it.
#' @noRd
check_bounds <- function(lower = NULL, upper = NULL, bounds = NULL, colnames = NULL, p = NULL, partial = FALSE) {
  if (is.null(lower) && is.null(upper) && is.null(bounds)) return(NULL)
  if (!is.null(bounds)) {
    if (!is.null(lower) || !is.null(upper)) {
      abort("give the public bounds either as `bounds` or as `lower` and `upper`, not both.", .arg = "bounds")
    }
    b <- bounds_from_frame(bounds, partial)
  } else {
    if (is.null(lower)) abort("`lower` is missing: give `lower` and `upper` together (or `bounds`).", .arg = "lower")
    if (is.null(upper)) abort("`upper` is missing: give `lower` and `upper` together (or `bounds`).", .arg = "upper")
    b <- list(lower = bound_vector(lower, "lower", partial), upper = bound_vector(upper, "upper", partial))
    nl <- names(b$lower)
    nu <- names(b$upper)
    if (is.null(nl) != is.null(nu) || !is.null(nl) && !setequal(nl, nu)) {
      abort("`lower` and `upper` must be named alike (the same column names) or both unnamed.", .arg = "upper")
    }
    if (!is.null(nl)) b$upper <- b$upper[nl]
    if (is.null(nl) && length(b$lower) != length(b$upper) && min(length(b$lower), length(b$upper)) != 1L) {
      abort("`lower` has %d values and `upper` %d; give one value, or one per column, for each.",
            length(b$lower), length(b$upper), .arg = "upper")
    }
    if (is.null(nl) && length(b$lower) != length(b$upper)) {
      k <- max(length(b$lower), length(b$upper))
      b <- list(lower = rep_len(b$lower, k), upper = rep_len(b$upper, k))
    }
  }
  # the first column a check fails on, as the messages name it
  first_col <- function(bad) {
    i <- which(bad)[1L]
    list(i = i, label = if (is.null(names(b$lower))) sprintf("column %d", i) else sprintf("`%s`", names(b$lower)[i]))
  }
  width_arg <- if (is.null(bounds)) "upper" else "bounds"
  # NA for both of a column's bounds: not known, chosen privately (`partial`
  # callers only; bound_vector() refuses NA elsewhere); one of the two known
  # is not a way to give bounds
  unknown <- is.na(b$lower) & is.na(b$upper)
  half <- xor(is.na(b$lower), is.na(b$upper))
  if (any(half)) {
    k <- first_col(half)
    abort(paste0("%s has lower = %s, upper = %s: give both public bounds of a column, or NA for both (chosen ",
                 "privately with the columns whose bounds are not known)."),
          k$label, format(b$lower[k$i]), format(b$upper[k$i]),
          .arg = if (!is.null(bounds)) "bounds" else if (is.na(b$lower[k$i])) "lower" else "upper")
  }
  bad <- !unknown & !(b$lower < b$upper)
  if (any(bad)) {
    k <- first_col(bad)
    abort("`upper` must be above `lower` for every column; %s has lower = %s, upper = %s%s.",
          k$label, format(b$lower[k$i]), format(b$upper[k$i]),
          if (b$lower[k$i] == b$upper[k$i]) " (a constant column carries no covariance: drop it)" else " (reversed: swap them)",
          .arg = width_arg)
  }
  # a width whose square underflows maps the covariance back (W S W) to
  # subnormal numbers or 0: refused, as a clip below 1e-50 is
  narrow <- !unknown & (b$upper - b$lower) < dp_limits$clip[1L]
  if (any(narrow)) {
    abort("the public bounds of %s are narrower than %s; rescale the data (e.g. to other units).",
          first_col(narrow)$label, format(dp_limits$clip[1L]), .arg = width_arg)
  }
  # the argument later alignment errors name
  b$arg <- if (is.null(bounds)) "lower" else "bounds"
  if (any(unknown)) b$partial <- TRUE
  if (is.null(p)) return(b)
  align_bounds(b, colnames, p)
}

#' Validated bounds aligned to the columns of the data: by name when named
#' (every column needs a bound; names of other columns are ignored, so one
#' public table serves every call, as in dp_lm(); a misspelt name leaves its
#' column without a bound, which is an error), else by position (length 1
#' recycled, or p).
#' @noRd
align_bounds <- function(b, colnames, p, arg = if (is.null(b$arg)) "lower" else b$arg, na_ok = FALSE) {
  nm <- names(b$lower)
  if (!is.null(nm)) {
    if (is.null(colnames)) {
      abort("`%s` names columns, but the data has no column names; give the bounds in column order.", arg, .arg = arg)
    }
    miss <- setdiff(colnames, nm)
    if (length(miss)) {
      # (`na_ok`: the caller takes NA for bounds chosen privately, and says so)
      abort("`%s` gives no bounds for column(s) %s%s", arg, paste0("`", miss, "`", collapse = ", "),
            if (na_ok) ": give public bounds, or NA to choose them privately." else "; every column needs public bounds.",
            .arg = arg)
    }
    idx <- match(colnames, nm)
    return(list(lower = unname(b$lower[idx]), upper = unname(b$upper[idx])))
  }
  k <- length(b$lower)
  if (k != 1L && k != p) {
    abort("`%s` has %d values; give 1 (every column) or one per column (%d).", arg, as.integer(k), as.integer(p),
          .arg = arg)
  }
  list(lower = rep_len(unname(b$lower), p), upper = rep_len(unname(b$upper), p))
}

# `lower` or `upper`: finite plain numbers, names all or none, unique; with
# `partial`, NA (not NaN) too: a bound not known, chosen privately.
bound_vector <- function(v, arg, partial = FALSE) {
  # (a vector of NA alone is logical)
  if (partial && is.logical(v) && !is.object(v) && is.null(dim(v)) && length(v) && all(is.na(v))) {
    v <- stats::setNames(as.double(v), names(v))
  }
  if (!is.numeric(v) || is.object(v) || !is.null(dim(v)) || !length(v)) {
    abort("`%s` must be a numeric vector (one public bound per column, or one for all).", arg, .arg = arg)
  }
  if (partial) {
    if (any(is.nan(v)) || !all(is.finite(v) | is.na(v))) {
      abort("`%s` must be finite numbers, or NA for a column whose bounds are not known (no NaN or Inf).", arg,
            .arg = arg)
    }
  } else if (anyNA(v) || !all(is.finite(v))) {
    abort(paste0("`%s` must be finite numbers (no NA, NaN or Inf); NA (bounds not known, chosen privately) is for ",
                 "dp_cov(), dp_lm() and dp_pca()."), arg, .arg = arg)
  }
  if (any(abs(v) > dp_limits$clip[2], na.rm = TRUE)) {
    abort("`%s` must lie within +-%s; rescale the data.", arg, format(dp_limits$clip[2]), .arg = arg)
  }
  nm <- names(v)
  if (!is.null(nm) && (anyNA(nm) || !all(nzchar(nm)) || anyDuplicated(nm))) {
    abort("`%s`: name every value by its column, once (or name none).", arg, .arg = arg)
  }
  stats::setNames(as.double(v), nm)
}

# `bounds`: a data frame (lower, upper; row names = columns) or a named list
# of c(lower, upper) pairs.
bounds_from_frame <- function(bounds, partial = FALSE) {
  # the private bounds of dp_column_bounds(): their table; the release that
  # uses them adds their guarantee to its own (compose_bounds_guarantee())
  if (inherits(bounds, "dp_column_bounds")) {
    # a hand-made or edited one is input like any other: every column's
    # bounds finite (an NA would send its columns down the partial path,
    # whose guarantee leaves this release's out) and its guarantee stated
    check_column_bounds(bounds, "bounds")
    bounds <- bounds$bounds
  }
  if (is.data.frame(bounds)) {
    if (!all(c("lower", "upper") %in% names(bounds)) || !nrow(bounds)) {
      abort("`bounds` must be a data frame with columns `lower` and `upper` (one row per column, named by row names).",
            .arg = "bounds")
    }
    # a tidy table's column of names (`column`, `variable`) is not read: with
    # automatic row names its bounds would be applied by position, silently
    other <- setdiff(names(bounds), c("lower", "upper"))
    if (length(other)) {
      abort(paste0("`bounds` has column(s) %s besides `lower` and `upper`; a bounds frame names its columns by its ",
                   "row names (e.g. data.frame(lower = b$lower, upper = b$upper, row.names = b$column)), or give ",
                   "a named list of c(lower, upper) pairs."),
            paste0("`", other, "`", collapse = ", "), .arg = "bounds")
    }
    auto <- .row_names_info(bounds) < 0L  # automatic row names: bounds in column order
    lo <- bounds$lower
    up <- bounds$upper
    nm <- if (auto) NULL else rownames(bounds)
  } else if (is.list(bounds) && !is.object(bounds) && length(bounds)) {
    nm <- names(bounds)
    if (is.null(nm)) abort("`bounds` as a list must be named by column: list(col = c(lower, upper), ...).", .arg = "bounds")
    # (c(NA, NA), a column whose bounds are not known, is logical)
    ok <- vapply(bounds, function(v) (is.numeric(v) || partial && is.logical(v) && all(is.na(v))) && !is.object(v) &&
                   length(v) == 2L && is.null(dim(v)), logical(1))
    if (!all(ok)) {
      abort("`bounds`: every element must be c(lower, upper), two numbers; `%s` is not.", nm[!ok][1L], .arg = "bounds")
    }
    lo <- vapply(bounds, function(v) as.double(v[1L]), numeric(1))
    up <- vapply(bounds, function(v) as.double(v[2L]), numeric(1))
  } else {
    abort("`bounds` must be a data frame (columns `lower`, `upper`) or a named list of c(lower, upper) pairs.",
          .arg = "bounds")
  }
  # (a frame column of NA alone, bounds not known, is logical)
  all_na <- function(v) partial && is.logical(v) && !is.object(v) && length(v) > 0L && all(is.na(v))
  if (all_na(lo)) lo <- as.double(lo)
  if (all_na(up)) up <- as.double(up)
  if (!is.numeric(lo) || !is.numeric(up) || is.object(lo) || is.object(up)) {
    abort("`bounds`: `lower` and `upper` must be numeric.", .arg = "bounds")
  }
  with_arg(list(lower = bound_vector(stats::setNames(lo, nm), "lower", partial),
                upper = bound_vector(stats::setNames(up, nm), "upper", partial)), "bounds")
}

#' Bounds refuse a row-norm clip: one way to give public knowledge.
#' @noRd
check_bounds_exclusive <- function(box, clip = NULL, clip_mean = NULL) {
  if (is.null(box)) return(invisible(NULL))
  for (arg in c("clip", "clip_mean")) {
    if (!is.null(get(arg))) {
      abort(paste0("`%s` and per-column bounds (`lower`/`upper` or `bounds`) are two ways to give the same public ",
                   "knowledge; give one. With bounds the row-norm bound follows from the box."),
            arg, .arg = arg, .class = "dpcov_bounds_error")
    }
  }
  invisible(NULL)
}

#' The variable names of a square matrix: its column names, or its row names
#' when it has only those; NULL when unnamed. Row and column names that
#' disagree cannot say which variable is where, and are refused.
#' @noRd
square_names <- function(m, arg) {
  d <- square_dimnames(m)
  if (!identical(d[[1L]], d[[2L]])) {
    abort("`%s` has row names that differ from its column names, so its variables cannot be matched by name.", arg, .arg = arg)
  }
  d[[2L]]
}

#' The names of a square matrix's variables, for its rows and its columns:
#' names given on one dimension alone name both (a covariance's rows and
#' columns are the same variables). Read so by square_names() (qda_plugin(),
#' subspace_distance()) and cov_error().
#' @noRd
square_dimnames <- function(m) {
  rn <- rownames(m)
  cn <- colnames(m)
  list(if (is.null(rn)) cn else rn, if (is.null(cn)) rn else cn)
}

#' The permutation that puts names `have` (of `arg`) in the order `want` (of
#' `against`), or NULL when there is nothing to match (either is unnamed, or
#' they are already in order). Named matrices are matched by name, never
#' silently by position: names that differ as sets, or cannot identify the
#' variables (missing, empty, repeated), are refused.
#' @noRd
name_order <- function(have, want, arg, against) {
  if (is.null(have) || is.null(want) || identical(have, want)) return(NULL)
  usable <- function(nm) !anyNA(nm) && all(nzchar(nm)) && !anyDuplicated(nm)
  if (length(have) != length(want) || !setequal(have, want) || !usable(have) || !usable(want)) {
    show <- function(nm) paste(c(utils::head(nm, 6L), if (length(nm) > 6L) "..."), collapse = ", ")
    abort("`%s` names the variables %s but %s names %s: named matrices are matched by name, so both must name the same variables (distinct, non-empty names, in any order).",
          arg, show(have), against, show(want), .arg = arg)
  }
  match(want, have)
}

#' A square matrix `m` (argument `arg`) with its rows and columns put in the
#' order of the names `want` (those of `against`), when both are named.
#' @noRd
align_square <- function(m, want, arg, against) {
  o <- name_order(square_names(m, arg), want, arg, against)
  if (is.null(o)) return(m)
  m <- m[o, o, drop = FALSE]
  dimnames(m) <- list(want, want)
  m
}

#' The symmetric part of a square matrix, (M + M') / 2, as halves added: the
#' sum overflows to Inf where entries pass half the largest double (a Gram
#' with `clip = Inf` may hold such finite entries).
#' @noRd
symmetric_part <- function(M) M / 2 + t(M) / 2

#' Arguments `fn` does not take: an exported function ends in `...` only to
#' refuse them with a classed error naming them (R's own "unused argument"
#' is not classed), with the closest name it does take.
#' @noRd
refuse_unknown_args <- function(fn, ...) {
  if (!...length()) return(invisible(NULL))
  known <- setdiff(names(formals(get(fn, envir = asNamespace("dpcov")))), "...")
  named <- dots_named(...)
  unnamed <- ...length() - length(named)
  extra <- if (unnamed) sprintf("%d unnamed value(s) beyond the arguments it takes", unnamed)
  if (!length(named)) {
    abort("%s() got %s (%s).", fn, extra,
          if (length(known)) paste0("`", known, "`", collapse = ", ") else "it takes none", .arg = "...")
  }
  # Sheffet's mechanisms fix their notion (sheffet_notions): a `neighbor`
  # from analyze_gauss() habits gets the reason, not just a refusal
  nb <- intersect(named, c("neighbor", "neighbour"))
  if (length(nb) && fn %in% names(sheffet_notions)) {
    abort(paste0("%s() has no argument `%s`: its guarantee is fixed by its proof and holds under %s, which its ",
                 "release and budget charge record (see ?dp_budget, Neighbour notions)."),
          fn, nb[1L], if (sheffet_notions[[fn]] == "any") "every neighbour notion (it sees the rows only through A'A and never uses n)" else
            paste(neighbor_words(sheffet_notions[[fn]]), "(it uses n)"), .arg = nb[1L])
  }
  # the nearest name it takes, by whole-name edit distance (a typo, not a substring)
  hint <- vapply(named, function(a) {
    if (!length(known)) return(" (it takes none)")
    d <- utils::adist(a, known)[1L, ]
    if (min(d) <= max(1, nchar(a) %/% 3)) sprintf(" (did you mean `%s`?)", known[which.min(d)]) else ""
  }, "")
  abort("%s() has no argument(s) %s%s.", fn, paste0("`", named, "`", hint, collapse = ", "),
        if (unnamed) paste0(", and got ", extra) else "", .arg = named[1L])
}
