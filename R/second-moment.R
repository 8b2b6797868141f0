# Sufficient statistics (clipped Gram and n) and the input handling shared by
# every central mechanism: a data matrix, a `dp_suffstat`, or a chunk reader.

#' Clipped second-moment sufficient statistics
#'
#' Computes, in one pass over row blocks, the Gram matrix
#' \eqn{\sum_i c_i^2 x_i x_i^T} of the rows \eqn{x_i} of `x` after each row is
#' shrunk to L2 norm at most `clip` (\eqn{c_i = \min(1, B/\|x_i\|)}), and the
#' number of rows. This is **not** a private release: it is the exact,
#' non-private input that every central mechanism in dpcov accepts in place
#' of the data, so that data too large for memory, or held in a database, can
#' be reduced in one streaming pass and released afterwards.
#'
#' @param x A numeric matrix or data frame (rows are records), or a function
#'   that returns the next block of rows on each call and `NULL` when done
#'   (a source with no rows returns one block with its columns and no rows
#'   first: no rows are data, as in memory). A reader function is code run
#'   on the data, trusted as SQL is ([db_reader()]): a release's guarantee
#'   covers the rows it returns, not what else it does (the column names it
#'   gives its blocks become the release's; its side effects are its own).
#'   Its failures keep the budget's charge and their messages are withheld.
#' @param clip Row-norm bound B; `Inf` for no clipping.
#' @param lower,upper,bounds Public per-column bounds instead of `clip` (see
#'   [dpcov_arguments]): the statistics of the rows mapped to the uncentred
#'   box, \eqn{z_j = clamp(x_j, l_j, u_j) / \max(|l_j|, |u_j|)} (norm at most
#'   \eqn{\sqrt p}, which is `clip`), with the bounds recorded in `bounds`.
#'   The uncentred mechanisms given such statistics run on the box and map
#'   their release back to the data's units; [dp_lm()] maps the exact Gram
#'   back. [dp_cov()] refuses them (its box is centred: give it the data or a
#'   reader with the bounds).
#' @return An object of class `c("dp_suffstat", "dp_nonprivate")` with
#'   `gram`, `sum` (the column sums \eqn{\sum_i c_i x_i} of the clipped rows,
#'   from the same pass, which [dp_cov()] needs to centre privately), `n`,
#'   `p`, `clip`, `colnames` and `n_clipped` (rows shrunk); with public
#'   bounds also `bounds` (the public bounds, a data frame) and `zero_row`
#'   (the norm of the all-zero record's box row, for zero-out). Its print
#'   method says that it is not private.
#' @section Speed and threads:
#' The pass runs an AVX2/FMA kernel on x86-64 CPUs that have one (chosen
#' at run time; a portable kernel elsewhere) and, where R was built with
#' OpenMP, splits the rows over `getOption("dpcov.threads", 2)` threads
#' (at most 2 by default; set `options(dpcov.threads = 1)` for one). The
#' rows are cut into slices that depend only on the data's shape and the
#' slices' sums are added in a fixed order, so the result is bitwise the
#' same for any number of threads. On a machine busy with other processes,
#' OpenMP's idle threads spin by default and a second thread can cost more
#' than it gains: use `options(dpcov.threads = 1)`, or set the environment
#' variable `OMP_WAIT_POLICY=passive` before R starts.
#' @seealso [second_moment_db()] computes the same statistics inside a
#'   database; [db_reader()] and [csv_reader()] are ready chunk readers.
#' @examples
#' x <- matrix(rnorm(300), 100, 3)
#' s <- second_moment(x, clip = 2)
#' s
#' # the same statistics from a chunk reader
#' i <- 0
#' reader <- function() {
#'   if (i >= 100) return(NULL)
#'   rows <- (i + 1):min(i + 40, 100); i <<- i + 40
#'   x[rows, , drop = FALSE]
#' }
#' all.equal(second_moment(reader, clip = 2)$gram, s$gram)
#' @template param-dots-none
#' @export
second_moment <- function(x, clip = Inf, lower = NULL, upper = NULL, bounds = NULL, ...) {
  refuse_unknown_args("second_moment", ...)
  if (missing(x)) abort_missing("x")
  if (inherits(bounds, "dp_column_bounds")) {
    # a statistic carries no guarantee, so it could not carry the bounds' either
    abort(paste0("`bounds`: second_moment() computes a statistic, which cannot carry the guarantee of a ",
                 "dp_column_bounds() release; give the release as `bounds` to the mechanism (dp_cov(), ",
                 "analyze_gauss(), ...), whose guarantee then counts it."), .arg = "bounds")
  }
  box <- check_bounds(lower, upper, bounds)
  if (!is.null(box)) {
    check_bounds_exclusive(box, clip = if (missing(clip)) NULL else clip)
    return(box_second_moment(x, box))
  }
  clip <- check_clip(clip)
  check_release_width(x)  # the p x p Gram must fit before the kernel allocates it
  if (is.function(x)) return(second_moment_stream(x, clip))
  # one pass: the kernel reports NA/NaN/Inf as it gathers the rows
  # zero rows are data too (under add/remove n is private)
  x <- check_data_matrix(x, finite = FALSE, min_rows = 0L)
  g <- clipped_gram_cpp(x, clip, gram_threads())
  abort_nonfinite(g$nonfinite)
  new_suffstat(g$gram, g$n, clip, colnames(x), g$n_clipped, g$sum)
}

second_moment_stream <- function(reader, clip) {
  threads <- gram_threads()
  pass <- reader_fold(reader, function(b) clipped_gram_cpp(b, clip, threads)[c("gram", "sum", "n_clipped")],
                      combine = function(a, b) Map(`+`, a, b))
  new_suffstat(pass$total$gram, pass$n, clip, pass$colnames, pass$total$n_clipped, pass$total$sum)
}

# Threads of the clipped Gram pass: option `dpcov.threads`, by default 2 (the
# most a package may start unasked); the result does not depend on it.
gram_threads <- function() {
  t <- getOption("dpcov.threads", 2L)
  if (!is_number(t) || !is.finite(t) || t < 1 || t != round(t)) {
    abort("option `dpcov.threads` must be a whole number >= 1, not %s.", deparse(t)[1], .arg = "dpcov.threads")
  }
  as.integer(min(t, 1024))
}

#' One pass over a chunk reader: each block validated (a numeric matrix, the
#' same number of columns as the first, or `p` when given), `f(block)` folded
#' over the non-empty blocks with `combine`. Returns the fold `total`, the
#' row count `n`, `p` and the first block's column names; fewer than
#' `min_rows` rows is an error (`too_few`, given n): 0 by default, as rows in
#' memory (under add/remove n is private, and no rows is data too). A reader
#' that returns no block at all leaves the columns unknown, which is refused.
#' Every reader of the package goes through here.
#' @noRd
reader_fold <- function(reader, f, combine = `+`, p = NULL, min_rows = 0L,
                        too_few = "the reader `x` returned no rows.") {
  check_reader(reader)
  # a reader that can reset (the package's readers) starts every pass at its
  # first row, and is left there after an error (a bad block, too few rows):
  # a pass abandoned midway (a peek at a block, an interrupt, an error) would
  # otherwise make the next release read only the rows after it, silently
  if ("reset" %in% names(formals(reader))) {
    # the reader's own code runs from here: a failure of it keeps the charge,
    # and its message, which it chooses and may quote data, is withheld
    reader_read()
    as_data_error(tryCatch(reader(reset = TRUE), error = function(e) {
      abort("the reader function `x` failed to start again (reset = TRUE); its message is withheld (it may quote data): call the reader yourself to see it.",
            .arg = "x")
    }))
    return(withCallingHandlers(reader_fold_pass(reader, f, combine, p, min_rows, too_few), error = function(e) {
      try(reader(reset = TRUE), silent = TRUE)
    }))
  }
  reader_fold_pass(reader, f, combine, p, min_rows, too_few)
}

#' A reader whose blocks are `f(block)`: it passes `reset` on to `reader`
#' (a no-op for a reader that cannot reset), so reader_fold() starts each pass
#' of the wrapped reader at its first row as it does the reader's own.
#' @noRd
reader_map <- function(reader, f) {
  force(reader)
  force(f)
  can_reset <- "reset" %in% names(formals(reader))
  out <- function(reset = FALSE) {
    if (isTRUE(reset)) return(if (can_reset) reader(reset = TRUE) else NULL)
    blk <- reader()
    if (is.null(blk)) NULL else f(blk)
  }
  # a package reader's own refusals keep their words through the map
  if (inherits(reader, "dp_reader")) class(out) <- c("dp_reader", "function")
  out
}

reader_fold_pass <- function(reader, f, combine, p, min_rows, too_few) {
  reader_read()
  total <- NULL
  n <- 0
  nm <- NULL
  repeat {
    # a reader's failures and its blocks' refusals (a missing value) depend
    # on the values it read: data errors, whose charges stand (with_refund())
    block <- as_data_error(tryCatch(reader(), error = function(e) {
      # a package reader's own refusals (a missing value, a text field) are
      # its words, which quote no data; another function's message is withheld
      # (a block refused by the package on its way, as the box's map does: its own words, as they are)
      if (inherits(e, "dpcov_reader_block")) stop(e)
      if (inherits(e, "dpcov_error") && inherits(reader, "dp_reader")) {
        abort("`x` (the reader): %s", conditionMessage(e), .arg = "x")
      }
      abort("the reader function `x` failed; its message is withheld (it may quote data): call the reader yourself to see it.",
            .arg = "x")
    }))
    if (is.null(block)) break
    block <- as_data_error(check_reader_block(block))
    if (is.null(p)) {
      p <- ncol(block)
      # a function's width is known only from its first block: the p x p
      # matrices must fit before any is allocated
      check_cells(as.double(p)^2, "the second-moment matrix", "x")
      nm <- colnames(block)
    } else if (ncol(block) != p) {
      abort("the reader returned a block with %d columns after blocks with %d.", ncol(block), as.integer(p),
            .arg = "x")
    } else if (!is.null(nm) && !is.null(colnames(block)) && !identical(colnames(block), nm)) {
      # the names are public schema; summing by position would mix variables
      abort("the reader returned a block whose columns (%s) are not the first block's (%s), in the same order.",
            paste(colnames(block), collapse = ", "), paste(nm, collapse = ", "), .arg = "x")
    } else if (is.null(nm)) {
      nm <- colnames(block)
    }
    if (!nrow(block)) next
    n <- n + nrow(block)
    v <- f(block)
    total <- if (is.null(total)) v else combine(total, v)
  }
  if (is.null(p)) {
    abort(paste0("the reader `x` returned no block: it returned NULL at once. A reader that has run out must start ",
                 "again from its first block after returning NULL (or take `reset = TRUE`), and with no rows a ",
                 "reader returns one block with its columns and no rows first, then NULL."),
          .arg = "x")
  }
  if (n < min_rows) abort(too_few, .arg = "x", .class = "dpcov_data_error")  # (after a pass: the charge is kept)
  # no rows (allowed where n is private): the fold of an empty block, so that
  # the release has its shape and only noise, as with no rows in memory
  if (is.null(total)) total <- f(matrix(numeric(0), 0L, p, dimnames = list(NULL, nm)))
  list(total = total, n = n, p = p, colnames = nm)
}

# The bound rows are clipped to: `clip` less a margin, (p + 8) 2^-52
# relative, for the rounding of a computed norm and of the scaling, so that
# the exact norm of every clipped or kept row is <= clip, the bound the noise
# is calibrated to (the C++ kernel's inner_clip(), and second_moment_db()'s SQL).
inner_clip <- function(clip, p) {
  if (!is.finite(clip)) return(clip)
  clip * (1 - (p + 8) * .Machine$double.eps)
}

# The rows of X clipped to L2 norm <= clip: x min(1, clip / ||x||). A row
# whose squares overflow is (x / top) * (clip / r), top its largest |entry|
# and r the norm of x / top, two factors in the normal range (as the C++
# kernel's clip_row()): one factor clip / ||x|| underflows for a tiny clip
# and a huge row, and its rounding let the row's norm reach 2 clip.
clipped_rows <- function(X, clip) {
  if (!is.finite(clip)) return(X)  # clip = Inf: no clipping (and no guarantee)
  clip <- inner_clip(clip, ncol(X))
  sq <- rowSums(X^2)
  big <- which(!is.finite(sq))
  out <- X * ifelse(sq > clip^2, clip / sqrt(sq), 1)
  for (i in big) {
    z <- X[i, ] / max(abs(X[i, ]))
    out[i, ] <- z * (clip / sqrt(sum(z^2)))
  }
  out
}

# A reader is called with no arguments: every formal but `...` needs a default.
check_reader <- function(reader, arg = "x") {
  f <- formals(reader)
  if (is.primitive(reader) || any(vapply(f, function(a) identical(a, quote(expr = )), logical(1)) & names(f) != "...")) {
    abort("`%s` is a function but not a chunk reader: a reader takes no arguments and returns the next block of rows, or NULL when done.",
          arg, .arg = arg)
  }
  invisible(reader)
}

# A function that needs the rows themselves (the local model, cross-validation,
# labels per row) refuses sufficient statistics and chunk readers, saying why
# and what works instead.
refuse_summary_source <- function(x, what, needs, instead, arg = "x") {
  kind <- if (inherits(x, "dp_suffstat")) {
    "a dp_suffstat (a clipped Gram matrix and n, with no rows)"
  } else if (is.function(x)) {
    "a chunk reader"
  } else {
    return(invisible(x))
  }
  abort("`%s` is %s, but %s needs %s; %s", arg, kind, what, needs, instead, .arg = arg)
}

# `sum` (column sums of the clipped rows) is NULL where a caller has only the
# Gram (e.g. rows centred at a released mean, whose sums nobody needs).
new_suffstat <- function(gram, n, clip, colnames, n_clipped, sum = NULL) {
  if (!all(is.finite(range(gram))) || (!is.null(sum) && !all(is.finite(sum)))) {
    # only reachable with clip = Inf: clipped rows have norm <= clip <= 1e50
    abort("the squared row norms of `x` overflow; rescale the data or give a finite `clip`.", .arg = "x",
          .class = "dpcov_data_error")
  }
  dimnames(gram) <- if (is.null(colnames)) NULL else list(colnames, colnames)
  if (!is.null(sum)) sum <- stats::setNames(as.double(sum), colnames)
  structure(list(gram = gram, sum = sum, n = as.double(n), p = as.double(ncol(gram)), clip = clip,
                 colnames = colnames, n_clipped = as.double(n_clipped)),
            class = c("dp_suffstat", "dp_nonprivate"))
}

# A block a reader returned, checked as data: a refusal names `x`, the
# reader, and says it was a block it returned (the block is not an argument:
# quoted as one, the message read "`a block returned by the reader`
# contains infinite values"). Classed so that a reader whose map runs this
# check (the box's, a centring) is not said to have "failed".
check_reader_block <- function(block) {
  tryCatch(check_data_matrix(block, arg = "x", min_rows = 0L), dpcov_error = function(e) {
    abort("`x` (the reader): %s", sub("^`x` ", "a block it returned ", conditionMessage(e)), .arg = "x",
          .class = c("dpcov_reader_block", setdiff(class(e), c("dpcov_error", "error", "condition"))))
  })
}

# Positive semidefinite up to rounding, judged on the correlation scale:
# with a slack relative to the largest diagonal, an indefinite block of
# columns on a far smaller scale (1e-6 beside 1e6) passed. Rounding leaves a
# data Gram's correlation eigenvalues above -p eps; 1e-8 is the slack.
# Columns below 1e-100 of the largest scale are judged at that scale (their
# entries are rounding of the others'), and the division is in two steps so
# that no product of two small scales underflows.
gram_is_psd <- function(g, tol = 1e-8) {
  d <- sqrt(pmax(diag(g), 0))
  d <- pmax(d, 1e-100 * max(d))
  r <- t(t(g / d) / d)
  tryCatch(is.matrix(chol(r + diag(tol, ncol(r)))), error = function(e) FALSE)
}

#' Validate a `dp_suffstat` given as input (hand-made objects included).
#' @noRd
check_suffstat <- function(s, arg = "x") {
  bad <- function(what) abort("`%s` is not a valid dp_suffstat: %s.", arg, what, .arg = arg)
  if (!is.list(s) || !all(c("gram", "n", "p", "clip") %in% names(s))) bad("it needs `gram`, `n`, `p` and `clip`")
  g <- s$gram
  if (!is.matrix(g) || !is.numeric(g) || is.object(g) || nrow(g) != ncol(g) || !length(g)) bad("`gram` must be a square numeric matrix")
  if (anyNA(g) || !all(is.finite(range(g)))) bad("`gram` contains NA, NaN or infinite values")
  if (max(abs(g - t(g))) > 1e-8 * max(1, max(abs(g)))) bad("`gram` must be symmetric")
  # (whole numbers are exact in a double up to 2^53: no data set in memory or a database is larger)
  if (!is_number(s$n) || s$n < 0 || s$n != round(s$n) || !(s$n <= 2^53)) bad("`n` must be a whole number in [0, 2^53]")
  if (!is_number(s$p) || s$p != ncol(g)) bad("`p` must equal the dimension of `gram`")
  if (!is.null(s$colnames) && !(is.character(s$colnames) && !is.object(s$colnames) && length(s$colnames) == ncol(g))) {
    bad("`colnames` must be NULL or one name per column of `gram`")
  }
  # one set of names for the gram, the sums and the releases: `colnames`, else
  # the gram's own, with empty ones filled as check_data_matrix() fills data's
  s$colnames <- fill_empty_colnames(if (is.null(s$colnames)) colnames(g) else s$colnames)
  dimnames(g) <- if (is.null(s$colnames)) NULL else list(s$colnames, s$colnames)
  if (!is_number(s$clip) || !(s$clip > 0)) bad("`clip` must be a positive number or Inf")
  check_clip(s$clip, arg = paste0(arg, "$clip"))
  # rows of norm <= clip: every diagonal entry, and their sum (the sum of the
  # squared row norms), at most n clip^2; a diagonal that passes entry by
  # entry can still be p times too large, and the noise too small for it
  if (is.finite(s$clip) && (any(diag(g) < 0) || sum(diag(g)) > s$n * s$clip^2 * (1 + 1e-8))) {
    bad("its diagonal is not that of rows with norm <= `clip` (the trace is at most n clip^2)")
  }
  # Cauchy-Schwarz: |g_ij| <= sqrt(g_ii g_jj) in a Gram (a hand-made entry
  # beyond it, 1e17 where the diagonal is 300, was released with noise lost
  # to its rounding); square roots first, as squares of large entries
  # overflow. Entries below 1.5e-154 square to 0 in the diagonal but not in
  # the products (rows clipped from 1e308 to the clip): n of those, each at
  # most 1.5e-154 times the other column's root, is the slack.
  d <- sqrt(pmax(diag(g), 0))
  slack <- max(1, s$n) * 2 * sqrt(.Machine$double.xmin) * outer(d, d, pmax)
  if (any(abs(g) > tcrossprod(d) * (1 + 1e-8) + slack + 1e-300)) {
    bad("`gram` is not a Gram matrix: an off-diagonal entry exceeds the square root of the product of its two diagonal entries")
  }
  # a Gram is positive semidefinite, which Cauchy-Schwarz (its 2 x 2 minors)
  # does not make it for p > 2: an indefinite hand-made one reached the
  # mechanisms (the posterior's scale failed after the charge; a shifted
  # Wishart release kept a negative eigenvalue)
  if (ncol(g) > 2L && max(diag(g)) > 0 && !gram_is_psd(g)) {
    bad("`gram` is not a Gram matrix: it is not positive semidefinite")
  }
  if (!is.null(s$zero_row) && !(is_number(s$zero_row) && is.finite(s$zero_row) && s$zero_row >= 0)) {
    bad("`zero_row` must be NULL or a finite number >= 0 (the norm of the row the all-zero record becomes)")
  }
  if (!is.null(s$sum)) {
    v <- s$sum
    if (!is.numeric(v) || is.object(v) || length(v) != ncol(g) || anyNA(v) || !all(is.finite(v))) {
      bad("`sum` must be NULL or p finite numbers (the column sums of the clipped rows)")
    }
    # Cauchy-Schwarz: (sum_i c_i x_ij)^2 <= n sum_i c_i^2 x_ij^2
    if (any(v^2 > s$n * diag(g) * (1 + 1e-8) + 1e-300)) bad("`sum` is not the column sums of the rows whose Gram is `gram`")
    s$sum <- as.double(v)
    names(s$sum) <- colnames(g)
  }
  storage.mode(g) <- "double"
  s$gram <- g
  s$n <- as.double(s$n)
  s$p <- as.double(s$p)
  s$clip <- as.double(s$clip)
  if (!is.null(s$bounds)) {
    b <- s$bounds
    if (!is.data.frame(b) || nrow(b) != ncol(g) || !is_finite_num(b$lower) || !is_finite_num(b$upper) ||
        any(!(b$lower < b$upper)) || !isTRUE(all.equal(s$clip, sqrt(ncol(g))))) {
      bad("`bounds` must be NULL or the public bounds (a data frame lower < upper, one row per column) of box rows with `clip` = sqrt(p)")
    }
    # the zero record's box row follows from the public bounds: recomputed,
    # never taken from the object (a hand-made one without it was charged as
    # if the zero record stayed at the origin)
    s$zero_row <- zero_row_norm(box_zero_row(box_map(b, centred = FALSE)), s$clip)
  }
  s
}

#' @export
print.dp_suffstat <- function(x, ...) {
  x <- check_suffstat(x)
  cat(sprintf("<dp_suffstat> clipped Gram matrix%s of n = %s rows, p = %d columns, clip = %s\n",
              if (is.null(x$sum)) "" else " and column sums", format(x$n), x$p, format(x$clip)))
  if (!is.null(x$bounds)) {
    cat("Rows clamped to public per-column bounds and mapped to the box [-1, 1]^p (x / max(|lower|, |upper|)).\n")
  }
  cat("NOT a private release: exact statistics of the data. Pass it to a mechanism;",
      "do not publish it.\n")
  invisible(x)
}

#' Resolve a mechanism's data argument to sufficient statistics.
#'
#' Accepts a data matrix / data frame, a `dp_suffstat`, or a chunk reader.
#' A `dp_suffstat` carries its own clip bound, which must agree with `clip`
#' when the caller gives one.
#' @noRd
as_suffstat <- function(x, clip, min_rows = 0L) {
  if (inherits(x, "dp_suffstat")) {
    s <- check_suffstat(x)
    if (!missing(clip) && !is.null(clip) && !identical(check_clip(clip), s$clip)) {
      abort("`clip` = %s differs from the clip bound %s the sufficient statistics were computed with.",
            format(clip), format(s$clip))
    }
  } else {
    if (missing(clip) || is.null(clip)) abort("`clip` (the row-norm bound B) is required; use Inf for none.", .arg = "clip")
    if (is.null(x)) abort("`x` must be a numeric matrix, data frame, dp_suffstat or reader function, not NULL.")
    s <- second_moment(x, clip)
  }
  # the data's count is not printed: under add/remove it is private
  if (s$n < min_rows) abort("`x`: this mechanism needs at least %d rows; the data has fewer.", as.integer(min_rows), .arg = "x")
  s
}

#' Analyze Gauss: second-moment matrix plus symmetric Gaussian noise
#'
#' The mechanism of Dwork, Talwar, Thakurta and Zhang (2014): release
#' \eqn{A^T A + N} where \eqn{N} is symmetric with entries on and above the
#' diagonal iid \eqn{N(0, \sigma^2)}, and sigma calibrated by
#' [gaussian_sigma()] to the sensitivity of \eqn{A^T A} for rows of norm at
#' most `clip` ([second_moment_sensitivity()]).
#'
#' @param x Data matrix or data frame (n x d), a [second_moment()] object,
#'   or a chunk reader function.
#' @param epsilon,delta Privacy parameters.
#' @param clip Row-norm bound B (rows longer than B are shrunk to length B).
#'   `Inf` disables clipping and voids the guarantee (for experiments only).
#' @param neighbor `"add-remove"` (default, as in Dwork et al.: sensitivity
#'   `B^2`; n is not released), `"replace-one"` (sensitivity `sqrt(2) B^2`)
#'   or `"zero-out"` (sensitivity `B^2`); under the last two n is public.
#'   The statistic counts nothing and a zero row adds nothing to it, so an
#'   add/remove release is zero-out private at the same (epsilon, delta): its
#'   budget charge is recorded as `"add-remove, zero-out"` and costs a
#'   zero-out [dp_budget()] no more (unless public bounds that exclude 0 move
#'   the zero record).
#' @param calibration `"analytic"` (default) or `"classic"` (epsilon < 1
#'   only), see [gaussian_sigma()].
#' @param sigma_clip_inf When `clip = Inf`, the row-norm bound B to calibrate
#'   the noise as if rows were bounded by it (the papers' simulations).
#' @param post Post-processing (free of privacy cost): `"none"`; `"shift"`,
#'   Sheffet's scaled Analyze Gauss (Section 6): when the output is not
#'   positive definite add \eqn{cI} with \eqn{c = E\|N\|} ([analyze_gauss_shift()]);
#'   `"psd"`: the nearest PSD matrix in Frobenius norm (negative eigenvalues
#'   set to 0).
#' @param budget A [dp_budget()] to charge before the data is read, or `NULL`
#'   (no accounting). An over-spend is refused with a `dpcov_budget_error`
#'   and nothing is charged; the release records its charge's index in
#'   `params$budget_charge`. A release with `clip = Inf` has no guarantee and
#'   cannot be charged.
#' @param lower,upper,bounds Public per-column bounds instead of `clip` (see
#'   [dpcov_arguments]): each value is clamped to its column's range and
#'   divided by \eqn{s_j = \max(|l_j|, |u_j|)}, a linear map to the box
#'   \eqn{[-1, 1]^p} (the origin stays put, so the uncentred second moment
#'   maps back exactly, \eqn{S \hat G_z S}); the noise is calibrated to the
#'   box's row-norm bound \eqn{\sqrt p} there. Data (a matrix or data frame)
#'   only, with `post = "none"` or `"psd"` (projected on the box scale).
#'   Under zero-out, a range that excludes 0 moves the zero record; its box
#'   row's norm enters the sensitivity. `NULL` (default): `clip`.
#' @param ... Nothing: an argument analyze_gauss() does not take is an error (a
#'   misspelt name is refused, not ignored).
#' @return A `dp_release` of class `dp_second_moment`. With `post = "shift"`,
#'   `params$shift` is the c added (0 when the output was already positive
#'   definite).
#' @references Dwork, C., Talwar, K., Thakurta, A. and Zhang, L. (2014).
#'   Analyze Gauss: optimal bounds for privacy-preserving principal component
#'   analysis. *Proceedings of the 46th ACM Symposium on Theory of Computing
#'   (STOC)*, 11-20.
#' @template ref-sheffet
#' @examples
#' x <- matrix(rnorm(20000), 5000, 4)
#' analyze_gauss(x, epsilon = 0.5, delta = 1e-5, clip = 2)
#' analyze_gauss(x, epsilon = 0.5, delta = 1e-5, clip = 2, post = "shift")
#' @export
analyze_gauss <- function(x, epsilon, delta, clip, neighbor = "add-remove",
                          calibration = "analytic", sigma_clip_inf = NULL,
                          post = "none", budget = NULL, lower = NULL, upper = NULL, bounds = NULL, ...) {
  refuse_unknown_args("analyze_gauss", ...)
  if (missing(x)) abort_missing("x")
  call <- match.call()
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  calibration <- check_choice(calibration, c("analytic", "classic"), "calibration")
  post <- check_choice(post, c("none", "shift", "psd"), "post")
  epsilon <- check_epsilon(epsilon)
  delta <- check_delta(delta)
  if (is_box_suffstat(x)) return(box_uncentred_call(sys.function(), environment(), call))
  box <- check_bounds(lower, upper, bounds)
  if (!is.null(box)) {
    check_bounds_exclusive(box, clip = if (missing(clip)) NULL else clip)
    bounds_g <- bounds_release_guarantee(bounds, neighbor)
    refuse_void_bounds_budget(budget, bounds_g, delta, neighbor)
    return(compose_bounds_guarantee(analyze_gauss_box(x, box, epsilon, delta, neighbor, calibration, sigma_clip_inf,
                                                      post, budget, call, bounds_g), bounds_g))
  }
  # the clip to calibrate to is an argument (or a suffstat's field): refused
  # before the charge and before the data is read
  clip_arg <- budget_clip(x, if (missing(clip)) NULL else clip)
  noise_clip(clip_arg, sigma_clip_inf)
  # sigma / sensitivity depends only on (epsilon, delta, calibration)
  # rows are seen only through sum x x' (no count): an add/remove charge
  # holds under zero-out too, unless a dp_suffstat's map moved the zero record
  zero_record <- suffstat_zero_row(if (inherits(x, "dp_suffstat")) x, "zero-out")
  check_release_width(x)
  charge <- budget_charge(budget, "Analyze Gauss", epsilon, delta,
                          sigma_ratio = noise_sigma(1, epsilon, delta, calibration),
                          clip = clip_arg, neighbor = notion_no_count(neighbor, zero_record))
  s <- with_refund(budget, charge, {
    s <- as_suffstat(x, if (missing(clip)) NULL else clip)
    if (neighbor != "add-remove" && s$n < 1) abort_public_rows()
    s
  })
  B <- noise_clip(s$clip, sigma_clip_inf)
  zero_row <- suffstat_zero_row(s, neighbor)
  sigma <- noise_sigma(gram_sensitivity(B, neighbor, zero_row = zero_row), epsilon, delta, calibration,
                       proven = is.finite(s$clip))
  est <- s$gram + symmetric_gaussian_cpp(s$p, sigma)
  params <- list(sigma = sigma, calibration = calibration, noise_clip = B, post = post)
  if (zero_row > 0) params$zero_row <- zero_row
  params$budget_charge <- charge
  mechanism <- "Analyze Gauss (Dwork et al. 2014)"
  if (post == "shift") {
    params$shift <- 0
    if (!is_pd(est)) {
      params$shift <- analyze_gauss_shift(s$p, sigma)
      est <- est + diag(params$shift, s$p)
    }
    mechanism <- paste0(mechanism, ", scaled (+ E||N|| I when not PD; Sheffet, Section 6)")
  } else if (post == "psd") {
    est <- psd_project(est)$matrix  # the thresholding family's projection
    mechanism <- paste0(mechanism, ", projected to PSD")
  }
  dimnames(est) <- dimnames(s$gram)
  # E est = A'A, plus the public shift when one was added
  shifted <- isTRUE(params$shift > 0)
  new_dp_release(est, "second_moment", mechanism, epsilon, delta, neighbor, s$clip, s$n, s$p,
                 n_public = neighbor != "add-remove",
                 scale = if (shifted) "sum + ridge" else "sum", centred = FALSE,
                 ridge = if (shifted) params$shift else 0, params = params, call = call)
}

# Under zero-out: the norm of the row the all-zero record became before the
# statistics were computed (set by callers that centre or augment rows; 0 for
# raw rows). Irrelevant to the other notions.
suffstat_zero_row <- function(s, neighbor) {
  if (neighbor != "zero-out" || is.null(s) || is.null(s$zero_row)) 0 else s$zero_row
}

# The row-norm bound used to calibrate noise: the clip bound, or with clip = Inf
# (no guarantee) the bound the caller asks to calibrate as if it held.
noise_clip <- function(clip, calibrate_as = NULL) {
  if (!is.null(calibrate_as)) {
    calibrate_as <- check_clip(calibrate_as, "sigma_clip_inf")
    if (!is.finite(calibrate_as)) abort("`sigma_clip_inf` must be finite.")
    if (is.finite(clip)) abort("`sigma_clip_inf` applies only with `clip` = Inf; with a finite `clip` the noise is calibrated to `clip`.")
    return(calibrate_as)
  }
  if (is.finite(clip)) return(clip)
  abort("with `clip` = Inf the noise cannot be calibrated; give `sigma_clip_inf`, the row-norm bound to calibrate as if it held.")
}
