# Compression by a Gaussian random projection (Zhou, Ligett and Wasserman 2009):
# release Phi X (+ Delta), then analyse the compressed data (covariance, PCA,
# least squares / ridge) and evaluate the paper's privacy bound.

#' Release compressed data: Phi X with truncation (Zhou, Ligett and Wasserman)
#'
#' Publishes the m x p matrix \eqn{C = \Phi X} (plus optional affine noise
#' \eqn{\Delta}) in place of the n x p data X, following Sections 3-4 of Zhou,
#' Ligett and Wasserman (see Details).
#'
#' 1. columns of X are scaled to squared norm n (`normalize = TRUE`, the
#'    paper's first sanitisation step (4));
#' 2. \eqn{\Phi} is m x n with iid \eqn{N(0, 1/n)} entries, drawn afresh for
#'    every try;
#' 3. truncation (Procedure 4.1): a draw is discarded and redrawn when
#'    \eqn{\max_{jk} |(C^T C/m)_{jk} - \Sigma_1(j,k)| > \sqrt{2(C_1+C_2)}
#'    \sqrt{\ln(2np)/m} + \Delta_{max}} (see [compression_threshold()]); after
#'    `max_tries` discarded draws the function stops with an error. The
#'    result never says how many draws were discarded. The threshold, like
#'    \eqn{\Delta_{max}} and the paper's Lemma 4.4, is on the scale of
#'    normalised columns, so each difference is divided by
#'    \eqn{\sqrt{S_{jj}S_{kk}}}, S the compressed columns' \eqn{X^TX/n}: 1
#'    for normalised columns (the paper's test as printed); with `normalize =
#'    FALSE` a draw is kept or discarded exactly as its normalised version
#'    would be, whatever the columns' units;
#' 4. affine variant: \eqn{\Delta}, iid \eqn{N(0, \code{affine\_sd}^2)},
#'    m x p, is added to the accepted draw. Since it is independent noise added
#'    after truncation it is post-processing: the guarantee below is unchanged
#'    (the paper leaves the extra privacy of \eqn{\Delta} to future work).
#'
#' @section Privacy guarantee: The paper proves *distributional privacy*
#'   (its Definition 2.4, Theorem 4.6): for two databases X1, X2 of the same
#'   size whose normalised covariances \eqn{\Sigma_i = X_i^T X_i / n} satisfy
#'   its Assumption 1 (eigenvalues bounded away from 0, differences
#'   \eqn{\Delta = \Sigma_1 - \Sigma_2} small) and differ entrywise by at most
#'   `delta_max`, the output densities differ by a factor at most
#'   \eqn{e^\alpha}, with \eqn{\alpha} bounded by [compression_alpha()]. This
#'   is **not** (epsilon, delta)-differential privacy for arbitrary data: an
#'   outlying record changes \eqn{\Sigma} by more than `delta_max` and is not
#'   protected. The release therefore has `epsilon = delta = NA` and
#'   [has_guarantee()] is `FALSE`. The theorem also needs
#'   \eqn{m \ge 2(C_1 + C_2)\ln(2np)} ([compression_m_min()]; a warning is
#'   given when m is smaller, and the release then states that Theorem 4.6
#'   does not apply; draws are also discarded far more often), normalised
#'   columns, truncation, and \eqn{p < n} (Assumption 1 needs
#'   \eqn{\lambda_{min}(X^T X/n) > 0}, impossible when \eqn{p \ge n}, so
#'   \eqn{p \ge n} is an error).
#'
#' The truncation reference \eqn{\Sigma_1} is a fixed point common to all
#' databases in the theorem. By default (`reference = NULL`) it is the input's
#' own \eqn{X^T X / n}, the practical reading of Procedure 4.1; the discard set
#' then depends on the private data, which `print` flags in the tuning line.
#' Pass a public `reference` (e.g. from public or earlier data) to avoid that
#' (with `normalize = FALSE` the test still divides by the data's own column
#' norms, so the tuning line flags that case too).
#'
#' A public reference has two costs, both the paper's. First, the released
#' draw is *conditioned* on \eqn{C^TC/m} lying within the threshold of
#' \eqn{\Sigma_1}: where the data's \eqn{X^TX/n} differs from the reference,
#' draws on the far side are discarded, so \eqn{C^TC/m} is pulled toward the
#' reference and \eqn{E[C^TC/m] = X^TX/n} no longer holds. [compressed_cov()],
#' [compressed_pca()] and [compressed_lm()] inherit that bias, and the
#' release, and what is computed from it, say so when printed. Second,
#' whether any draw is accepted depends on the data: the theorem protects only
#' databases whose normalised covariance lies within `delta_max` of the
#' reference, and for those a draw is discarded with probability at most
#' \eqn{1/n^2} (Lemma 4.4, when \eqn{m \ge} [compression_m_min()]). An error
#' saying that every one of the `max_tries` draws was discarded therefore says
#' that the data lie far from the reference, outside what the theorem protects;
#' it is told to the curator, and no draw is returned in its place.
#'
#' @section Methods: `method = "gram"` (default) uses that, given X, the rows
#'   of \eqn{\Phi X} are iid \eqn{N(0, X^T X / n)}: it draws \eqn{Z R} with Z
#'   m x p iid N(0, 1) and R the symmetric square root of \eqn{X^T X/n}
#'   (defined when \eqn{X^T X} is singular), in \eqn{O(np^2 + mp^2)}. It also
#'   accepts sufficient statistics from [second_moment()], so data streamed in
#'   chunks can be compressed. `method = "explicit"` draws \eqn{\Phi} itself,
#'   column block by column block (an m x 256 tile at a time, filled in the
#'   order of `matrix(rnorm(m * n), m, n)`), and never holds an m x n matrix.
#'   Both give the same distribution. To compress a response with the same
#'   \eqn{\Phi}, compress `cbind(X, y)`.
#'
#' @param x A numeric matrix or data frame (n x p, rows are records), or (for
#'   `method = "gram"`) a `dp_suffstat` from [second_moment()] or a chunk
#'   reader function as accepted by [second_moment()].
#' @param m Number of rows of the compressed data, `1 <= m <= n`.
#' @param normalize Scale columns to squared norm n first (default `TRUE`).
#'   An all-zero column is left at zero (it has no norm to scale by); a
#'   constant column keeps only its sign, so centre the data rather than add
#'   an intercept column. The normalised data do not depend on the columns'
#'   scales, and columns of any finite size are accepted: when \eqn{X^TX}
#'   would overflow or underflow it is computed from the columns divided by
#'   their largest absolute value (only a column of subnormal numbers, all
#'   below 2.2e-308 in absolute value, is refused). Sufficient statistics
#'   cannot be rescaled: a column whose \eqn{x_j^Tx_j} is below 1e-200 there
#'   is refused. With `normalize = FALSE` the release is in the data's units,
#'   and columns whose squared norms \eqn{x_j^Tx_j} exceed 1e-6 of the
#'   double range (about 1.8e302; the compressed rows' squared sums must stay
#'   finite) or underflow are refused.
#' @param truncate Apply the truncation of Procedure 4.1 (default `TRUE`).
#' @param delta_max \eqn{\Delta_{max}}, the bound on entrywise differences of
#'   normalised covariances between the databases to protect; default
#'   `sqrt(log(n) / n)`, the order Procedure 4.1 states.
#' @param affine_sd Standard deviation of the affine noise \eqn{\Delta}
#'   (default 0: none).
#' @param method `"gram"` (exact fast path) or `"explicit"` (literal
#'   \eqn{\Phi}, for validation).
#' @param reference Optional public p x p reference \eqn{\Sigma_1} for the
#'   truncation, on the scale of \eqn{X^T X / n} (normalised, or in the
#'   data's units with `normalize = FALSE`); `NULL` uses the input's own
#'   \eqn{X^T X / n}. With dimnames, matched to the data's columns by name
#'   (other names are refused); by position where either has no names. The
#'   truncation conditions the released draw toward it, so estimates are
#'   pulled toward it where the data differ from it, and whether a draw is
#'   accepted at all depends on the data (see the Privacy guarantee section).
#' @param max_tries Maximum number of draws before giving up (default 100).
#'   With `truncate = FALSE` (one draw, no truncation) `max_tries`,
#'   `reference` and `delta_max` are refused.
#' @param budget Must be `NULL`: compression makes no (epsilon, delta) claim,
#'   so it cannot be charged to a [dp_budget()].
#' @return A `dp_release` of class `c("dp_compress", "dp_nonprivate",
#'   "dp_release")`: `estimate` is the m x p compressed matrix; `params` holds
#'   m, the threshold, `delta_max`, `affine_sd`, the method and whether
#'   \eqn{m \ge} [compression_m_min()]. It carries class `dp_nonprivate`,
#'   and `print` says first that it is not a private release, because it has
#'   no (epsilon, delta) guarantee (see the section below).
#' @template ref-zhou
#' @seealso [compressed_cov()], [compressed_pca()], [compressed_lm()],
#'   [compression_alpha()], [subspace_distance()].
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(5000 * 4), 5000, 4)
#' r <- dp_compress(x, m = 300)
#' r
#' dim(as.matrix(r))
#' round(compressed_cov(r), 2)
#' @export
dp_compress <- function(x, m, normalize = TRUE, truncate = TRUE, delta_max = NULL,
                        affine_sd = 0, method = "gram", reference = NULL,
                        max_tries = 100L, budget = NULL, ...) {
  refuse_unknown_args("dp_compress", ...)
  if (missing(x)) abort_missing("x")
  call <- match.call()
  if (!is.null(budget)) {
    abort_budget("`budget` cannot be charged by dp_compress(): compression is distributionally private (Zhou, Ligett and Wasserman), not (epsilon, delta)-differentially private, so it has no epsilon to account. Leave `budget` = NULL.")
  }
  method <- check_choice(method, c("gram", "explicit"), "method")
  check_flag(normalize, "normalize")
  check_flag(truncate, "truncate")
  # the truncation's settings, refused without it (not recorded as used)
  if (!truncate) {
    unused <- c("reference", "max_tries", "delta_max")[c(!is.null(reference), !missing(max_tries), !is.null(delta_max))]
    if (length(unused)) {
      abort("`%s` applies to the truncation, and `truncate` = FALSE draws once without it.", unused[1L],
            .arg = unused[1L])
    }
  }
  # (the explicit projection needs the rows: refused before a reader is read)
  if (method == "explicit" && (is.function(x) || inherits(x, "dp_suffstat"))) {
    abort("`method = \"explicit\"` projects the rows themselves: pass the data matrix, not %s.",
          if (is.function(x)) "a reader" else "sufficient statistics", .arg = "method")
  }
  if (is.function(x)) x <- second_moment(x, clip = Inf)  # chunk reader: one streaming pass
  if (inherits(x, "dp_suffstat")) {
    x <- check_suffstat(x)
    if (is.finite(x$clip)) {
      abort("`x` holds clipped statistics (clip = %s); compression needs the unclipped X'X: use second_moment(x, clip = Inf).", format(x$clip))
    }
    n <- x$n
    p <- x$p
    gram <- check_suffstat_range(x, normalize)
    cols <- fill_empty_colnames(x$colnames)
    data <- matrix(0, 0, 0)
  } else {
    # p < n and the p x p Gram's size from the shape, before X'X is formed
    if (length(dim(x)) == 2L) {
      refuse_compress_shape(ncol(x), nrow(x))
      check_cells(as.double(ncol(x))^2, "X'X", "x")
    }
    inp <- compress_matrix_gram(x, "x", normalize)
    x <- inp$x
    n <- nrow(x)
    p <- ncol(x)
    # empty names filled as dp_cov() fills them (V1, ...): two empty names
    # were duplicates to a named `reference`, and a release column unnamed
    cols <- fill_empty_colnames(colnames(x))
    gram <- inp$gram
    # the explicit path multiplies Phi by the data: by the columns divided by
    # their largest |value| when X'X had to be computed so (see
    # compress_matrix_gram()), so that Phi X neither overflows nor underflows
    data <- if (method == "explicit" && length(inp$pre)) scale_columns(x, inp$pre) else x
    rm(inp)
  }
  m <- check_count(m, "m", min = 1)
  refuse_compress_shape(p, n, m)
  check_cells(m * p, "the compressed matrix", "m")
  if (is.null(delta_max)) delta_max <- sqrt(log(n) / n)
  delta_max <- check_number(delta_max, "delta_max", lower = 0, upper = delta_max_limit,
                            lower_open = FALSE, upper_open = FALSE)
  affine_sd <- check_number(affine_sd, "affine_sd", lower = 0, upper = dp_limits$clip[2], lower_open = FALSE)
  max_tries <- check_count(max_tries, "max_tries", min = 1, max = 1e6)
  if (!is.null(reference)) reference <- check_reference(reference, p, cols)

  m_min <- compression_m_min(n, p)
  m_ok <- m >= m_min
  if (!m_ok) {
    warn(paste0("m = %d < 2 (C1 + C2) ln(2np) = %d: Lemma 4.4 no longer bounds the ",
                "discarded probability by 1/n^2 (draws may be discarded often) and ",
                "Theorem 4.6 does not apply."), as.integer(m), m_min)
  }

  if (!all(is.finite(range(gram)))) {
    abort("the column norms of `x` overflow when squared; rescale its columns (normalisation makes compression scale-free).")
  }
  # An all-zero column has no norm to normalise by; it is left at zero rather
  # than refused, so that the release does not fail on the data. The Gram is
  # in a range where n / diag and its products are finite (see gram_tiny).
  scales <- normalizing_scales(gram, n, normalize)
  sigma <- gram * tcrossprod(scales) / n
  rm(gram)
  # judged on the correlation scale: in raw units a column far smaller than
  # the others looks like a null direction
  d <- sqrt(diag(sigma))
  d[!(d > 0)] <- 1
  ev <- eigen(sigma / tcrossprod(d), symmetric = TRUE, only.values = TRUE)$values
  # (an indefinite X'X, which would be compressed as another matrix, is
  # refused by check_suffstat(): data's is PSD up to rounding)
  if (min(ev) <= 1e-10 * max(ev, 1)) {
    # Told to the curator only; nothing of it is stored in the release.
    warn(paste0("X'X/n is singular: the release is well defined, but Assumption 1 ",
                "(lambda_min > 0) fails for these data, so Theorem 4.6 gives them no bound."))
  }
  threshold <- compression_threshold(n, p, m, delta_max)
  ref <- if (is.null(reference)) sigma else reference
  est <- compress_draw_cpp(sigma, data, scales, as.integer(m), truncate, ref, threshold,
                           as.integer(max_tries), affine_sd, method == "explicit", 256L)
  if (!length(est)) {
    # with a reference given, it is the likelier cause (one on another scale
    # than X'X / n, e.g. in raw units with normalize = TRUE, meets no draw);
    # the refusal itself depends on the data, which the message says (no
    # draw is returned in place of the discarded ones)
    abort(paste0("every one of the %d draws was discarded by the truncation (threshold %s); ",
                 if (is.null(reference)) "increase `m` (>= %d), `delta_max` or `max_tries`."
                 else paste0("whether a draw is accepted depends on the data, and this says that their X'X / n lies far from ",
                             "the public `reference`, outside the databases Theorem 4.6 protects (within `delta_max` of it). ",
                             "Check `reference` (X'X / n on the ", if (normalize) "normalised scale, unit diagonal" else "data's scale",
                             "), or increase `m` (>= %d), `delta_max` or `max_tries`; a draw accepted so is conditioned to ",
                             "lie near the reference, so its estimates are pulled toward it.")),
          as.integer(max_tries), format(threshold, digits = 4), m_min,
          .arg = if (is.null(reference)) "m" else "reference")
  }
  colnames(est) <- cols

  tuning <- if (truncate && is.null(reference)) {
    tuning_record("truncation reference", private = FALSE,
                  detail = "Sigma1 = the input's own X'X/n; pass a public `reference` to avoid this")
  } else if (truncate && !normalize) {
    # The theorem's test is on normalised columns, where it reads only C and
    # Sigma1. Unnormalised, each entry is divided by sqrt(S_jj S_kk), the
    # data's own (private) column norms (truncation_weights() in compress.h):
    # the test is the normalised draw's against Sigma1 / sqrt(S_jj S_kk), a
    # reference moved by the private data, so the discard set depends on them
    # even with a public reference: recorded as the own-reference case is.
    tuning_record("truncation scale", private = FALSE,
                  detail = paste0("normalize = FALSE: the test divides each entry by the data's own column norms ",
                                  "sqrt(S_jj S_kk); use normalize = TRUE to avoid this"))
  } else {
    # normalised columns and a public reference: the test reads C and the
    # reference only (S_jj = 1), as in the theorem
    tuning_record("none")
  }
  rel <- new_dp_release(
    est, family = "compress",
    mechanism = "Compression Phi X (Zhou, Ligett and Wasserman 2009)",
    epsilon = NA_real_, delta = NA_real_, neighbor = "replace-one", clip = Inf,
    n = n, p = p, n_public = TRUE, scale = "compressed rows", centred = FALSE,
    params = list(m = as.integer(m), normalize = normalize, truncate = truncate,
                  threshold = if (truncate) threshold else NA_real_, delta_max = delta_max,
                  affine_sd = affine_sd, method = method, m_min = m_min, m_condition = m_ok,
                  reference = if (is.null(reference)) "own X'X/n" else "public (user-supplied)",
                  no_formal_guarantee = TRUE),
    tuning = tuning,
    guarantee = compression_guarantee_text(delta_max, m, m_min, normalize, truncate, affine_sd,
                                           public_reference = truncate && !is.null(reference)),
    call = call
  )
  # no (epsilon, delta) guarantee: labelled like the package's other outputs
  # that are not differentially private (as dp_threshold() with a tuning on
  # the data is)
  class(rel) <- c("dp_compress", "dp_nonprivate", "dp_release")
  rel
}

# Compression's guarantee needs p < n, and compression m <= n rows; said
# from the shape alone, by dp_compress() and by the accounting functions
# (compression_alpha(), compression_condition()), which evaluate the theorem
# for releases dp_compress() would make. `what` is the subject of the p < n
# message (the data argument, or the numbers given for them).
refuse_compress_shape <- function(p, n, m = NULL, arg = "x", what = sprintf("`%s` has", arg)) {
  if (p >= n) {
    abort(paste0("%s p = %s columns and only n = %s rows: the distributional-privacy ",
                 "guarantee (Assumption 1, lambda_min(X'X/n) > 0, used by Theorem 4.6) ",
                 "needs p < n."), what, format(p), format(n), .arg = arg)
  }
  # (n may exceed the integer range in statistics: formatted, not %d)
  if (!is.null(m) && any(m > n)) {
    abort("`m` must be <= n = %s (compression reduces the number of rows); got %s.", format(n),
          paste(format(m[m > n]), collapse = ", "), .arg = "m")
  }
}

# Why a compression release (and what is computed from it) is not private.
compression_nonprivate_why <- paste0(
  "compression (Zhou, Ligett and Wasserman) is distributionally private only under ",
  "assumptions on the data, not (epsilon, delta)-differentially private; has_guarantee() is FALSE")

# What a draw truncated toward a public reference is (Procedure 4.1 with a
# fixed Sigma1): said by the release's guarantee, its Estimates line and the
# print of compressed_cov() of it.
truncated_reference_text <- paste0(
  "Truncated toward a public reference Sigma1: only draws with C'C / m within the threshold of it are ",
  "released, so C'C / m is pulled toward the reference where the data's X'X / n differs from it ",
  "(E C'C / m = X'X / n no longer holds), and the theorem protects only data whose normalised ",
  "X'X / n lies within delta_max of it.")

# A release (not a plain matrix) whose draw was truncated toward a public
# reference; read from its public parameters.
truncated_to_public_reference <- function(x) {
  inherits(x, "dp_compress") && is.list(x$params) && isTRUE(x$params$truncate) &&
    identical(x$params$reference, "public (user-supplied)")
}

# The "Estimates:" line of a compression release truncated toward a public
# reference (estimates_text(), R/release.R, gives it): it does not claim
# E C'C / m = X'X / n.
compressed_rows_text <- function(x) {
  s <- x$params$affine_sd
  aff <- is_num1(s) && s > 0
  sprintf(paste0("not a second-moment matrix: m compressed rows Phi X%s of the %s, TRUNCATED toward a public ",
                 "reference Sigma1: only draws with C'C / m%s within the threshold of Sigma1 are kept, so C'C / m ",
                 "is pulled toward Sigma1 where the data's X'X / n differs from it (E C'C / m = X'X / n%s only ",
                 "where the data equal the reference)"),
          if (aff) " + Delta" else "",
          if (isFALSE(x$params$normalize)) "data, in its units" else "column-normalised data",
          if (aff) " (before Delta)" else "",
          if (aff) " + s^2 I" else "")
}

#' @rdname dp_compress
#' @param digits Significant digits (print).
#' @param ... `print`: passed to the [dp_release] print method;
#'   `dp_compress()`: nothing (an argument it does not take is an error).
#' @export
print.dp_compress <- function(x, digits = 4, ...) {
  check_release(x)
  nonprivate_banner(x, compression_nonprivate_why)
  print.dp_release(x, digits = digits, ...)
}

# Delta_max bounds differences of normalised covariances (entries in [-1, 1]);
# far larger values only make the bounds overflow.
delta_max_limit <- 1e6

compression_guarantee_text <- function(delta_max, m, m_min, normalize, truncate, affine_sd,
                                       public_reference = FALSE) {
  txt <- paste0(
    "distributional privacy of Zhou, Ligett and Wasserman (Def. 2.4, Thm 4.6) under their ",
    "Assumption 1, for databases whose normalised covariances differ entrywise by at most ",
    "delta_max = ", format(delta_max, digits = 4), "; alpha for a pair of databases: ",
    "compression_alpha(). NOT (epsilon, delta)-differential privacy for arbitrary data.")
  # the guarantee line is what the release, its summary and the analyses of
  # it (compressed_pca(), compressed_lm()) all print
  if (public_reference) txt <- paste0(txt, " ", truncated_reference_text)
  fails <- c(
    if (m < m_min) sprintf("m = %d < %d = 2(C1+C2)ln(2np)", as.integer(m), m_min),
    if (!normalize) "columns not normalised",
    if (!truncate) "no truncation")
  if (length(fails)) {
    txt <- paste0(txt, " Theorem 4.6 does NOT apply here (", paste(fails, collapse = "; "), ").")
  }
  if (affine_sd > 0) {
    txt <- paste0(txt, " Affine noise (sd ", format(affine_sd, digits = 4),
                  ") added after truncation: post-processing, not counted.")
  }
  txt
}

# The data matrix, checked in one C++ pass without n x p temporaries (a
# double matrix is used as is, not copied); other inputs go through
# check_data_matrix(). Zero and constant columns are valid data: refusing
# them would make the release depend on the values.
check_compress_matrix <- function(x, arg, normalize, unique_names = TRUE) {
  x <- compress_input(x, arg, unique_names)
  abort_nonfinite(nonfinite_columns(x), arg)
  # normalised columns are computed from the columns divided by their
  # largest |value| when needed (compress_matrix_gram()): any finite data
  if (!normalize) check_no_overflow(x, arg)
  x
}

# The shape checks of compression's data; a double matrix is used as is, not
# copied, and not scanned: the callers find NA/NaN and Inf themselves.
# `unique_names`: as check_data_matrix()'s (a release's columns are named;
# the studies' are not).
compress_input <- function(x, arg, unique_names = TRUE) {
  if (is.matrix(x) && is.double(x) && !is.object(x)) {
    if (nrow(x) < 2L) abort("`%s` needs at least 2 row(s), has %d.", arg, nrow(x))
    if (ncol(x) < 1L) abort("`%s` needs at least 1 column(s), has %d.", arg, ncol(x))
    if (unique_names) check_unique_colnames(fill_empty_colnames(colnames(x)), arg)
    return(x)
  }
  check_data_matrix(x, arg, min_rows = 2L, finite = FALSE, unique_names = unique_names)
}

# abort_nonfinite()'s code from one C++ scan of the columns (flag 3: NA/NaN,
# 4: +-Inf; NA/NaN wins).
nonfinite_columns <- function(x) {
  flag <- scan_columns_cpp(x)
  if (any(flag == 3L)) 1L else if (any(flag == 4L)) 2L else 0L
}

# dp_compress()'s data matrix and X'X from ONE read of X (a double matrix is
# not copied), with the same refusals as check_compress_matrix(): NA/NaN and
# infinite values show on the Gram's diagonal (crossprod_lower()), so the
# columns are scanned only when it is not finite.
#
# With `normalize`, only the normalised X'X/n is needed, which does not
# depend on the columns' scales. When X'X itself is out of range (a column
# whose squares overflow, or one so small, x_j'x_j < gram_tiny, that its
# products underflow), it is computed from the columns divided by their
# largest |value| (`pre`, returned for the explicit path); an all-zero column
# stays zero. Only a column of subnormal numbers (largest |value| < 2.2e-308,
# too imprecise to scale) is refused.
#
# Without normalisation X'X/n is released in the data's units: x_j'x_j must
# be at most compress_raw_max (check_raw_gram()), and a non-zero column with
# x_j'x_j < gram_tiny is refused.
compress_matrix_gram <- function(x, arg, normalize = TRUE, unique_names = TRUE) {
  x <- compress_input(x, arg, unique_names)
  gram <- crossprod_cpp(x)
  d <- diag(gram)
  if (!all(is.finite(d))) abort_nonfinite(nonfinite_columns(x), arg)  # else: squares overflow
  pre <- numeric(0)
  if (!normalize) {
    check_raw_gram(d, arg)
    small <- d < gram_tiny
    if (any(small)) {
      small[small] <- col_maxabs(x[, small, drop = FALSE]) > 0
      if (any(small)) {
        abort("`%s`: column(s) %s are too small to compress without normalisation (x_j'x_j < %s: X'X / n is not accurate in double precision); use normalize = TRUE (scale-free) or rescale them.",
              arg, paste(column_labels(colnames(x), which(small)), collapse = ", "), format(gram_tiny), .arg = arg)
      }
    }
    return(list(x = x, gram = gram, pre = pre))
  }
  out_of_range <- !is.finite(d) | d < gram_tiny
  if (any(out_of_range)) {
    cmax <- col_maxabs(x)
    if (any(out_of_range & cmax > 0)) {
      subnormal <- cmax > 0 & cmax < .Machine$double.xmin
      if (any(subnormal)) {
        abort("`%s`: column(s) %s hold only subnormal numbers (largest |value| < %s), too imprecise to normalise; rescale them.",
              arg, paste(column_labels(colnames(x), which(subnormal)), collapse = ", "),
              format(.Machine$double.xmin, digits = 3), .arg = arg)
      }
      pre <- ifelse(cmax > 0, 1 / cmax, 1)
      gram <- scaled_crossprod(x, pre)
    }
  }
  list(x = x, gram = gram, pre = pre)
}

# The smallest diagonal entry x_j'x_j of X'X taken as computed accurately:
# a product x_ij x_ik below the normal range (2.2e-308) loses at most 2.2e-308
# each, n of them a negligible part of sqrt(x_j'x_j x_k'x_k) >= 1e-200; and
# n / 1e-200 and its square root, the normalising scale, are finite.
gram_tiny <- 1e-200

# Column scales of the normalisation (squared norm n), 1 for an all-zero
# column (and all 1 without normalisation).
normalizing_scales <- function(gram, n, normalize) {
  d <- diag(gram)
  if (normalize) ifelse(d > 0, sqrt(n / d), 1) else rep(1, length(d))
}

# x with column j multiplied by pre[j]: one copy of x.
scale_columns <- function(x, pre) {
  for (j in seq_len(ncol(x))) x[, j] <- x[, j] * pre[j]
  x
}

# The largest |x_ij| of each column, without an n x p temporary.
col_maxabs <- function(x) {
  vapply(seq_len(ncol(x)), function(j) max(abs(x[, j])), numeric(1))
}

# (X diag(pre))'(X diag(pre)) in blocks of rows: no n x p temporary.
scaled_crossprod <- function(x, pre, block = 65536L) {
  n <- nrow(x)
  G <- matrix(0, ncol(x), ncol(x))
  for (start in seq(1L, n, by = block)) {
    xb <- scale_columns(x[start:min(n, start + block - 1L), , drop = FALSE], pre)
    G <- G + crossprod(xb)
  }
  symmetric_part(G)
}

# Without normalisation the compressed rows are in the data's units: their
# entries are about N(0, x_j'x_j / n), and C'C / m, the truncation's test and
# the analyses of a release sum their squares. Room of 1e-6 below the double
# range for x_j'x_j keeps every such sum finite (an entry is at most about 40
# normal sds), where max|x_ij|^2 <= xmax / n let C'C overflow when m was near n.
compress_raw_max <- 1e-6 * .Machine$double.xmax

check_raw_gram <- function(d, arg) {
  if (max(d) > compress_raw_max) {
    # (no value quoted: it would be one of the data)
    abort("`%s` has columns too large to compress in the data's units (x_j'x_j above %s): the compressed rows' squared sums would overflow; rescale them, or use normalize = TRUE (scale-free).",
          arg, format(compress_raw_max, digits = 3), .arg = arg)
  }
}

# Sufficient statistics cannot be rescaled: a column whose x_j'x_j is tiny
# may have lost its products to underflow (one that is 0 while its sum or a
# cross-product is not certainly has), and a Gram too large for n / diag.
check_suffstat_range <- function(s, normalize) {
  gram <- s$gram
  d <- diag(gram)
  if (!all(is.finite(range(gram)))) {
    abort("the column norms of `x` overflow when squared; rescale its columns before second_moment() (normalisation makes compression scale-free).")
  }
  if (!normalize) check_raw_gram(d, "x")
  zero <- d == 0
  lost <- (d > 0 & d < gram_tiny) |
    (zero & (s$sum != 0 | colSums(gram != 0) > 0))
  if (any(lost)) {
    abort("`x`: the squared norms x_j'x_j of column(s) %s are below %s: their products may have underflowed in second_moment(), so X'X is not accurate; rescale the column(s) (e.g. divide by their largest absolute value; normalisation makes compression scale-free) and recompute the statistics, or pass the data matrix.",
          paste(column_labels(s$colnames, which(lost)), collapse = ", "), format(gram_tiny), .arg = "x")
  }
  gram
}

# Names as a formula writes them: backticked where not syntactic, with a
# backtick or backslash in the name escaped (pasting backticks around it did
# not, and reformulate() failed to parse).
backquote_names <- function(nm) vapply(nm, function(v) deparse1(as.name(v), backtick = TRUE), "", USE.NAMES = FALSE)

column_labels <- function(names, idx) {
  if (is.null(names)) as.character(idx) else ifelse(is.na(names[idx]) | !nzchar(names[idx]), idx, names[idx])
}

check_reference <- function(reference, p, cols = NULL) {
  if (!is.matrix(reference) || !is.numeric(reference) || is.object(reference)) abort("`reference` must be a numeric p x p matrix.")
  if (anyNA(reference) || any(!is.finite(reference))) abort("`reference` contains NA, NaN or infinite values.")
  if (length(reference)) check_no_overflow(reference, "reference")
  if (nrow(reference) != p || ncol(reference) != p) {
    abort("`reference` must be %d x %d (p x p); it is %d x %d.", p, p, nrow(reference), ncol(reference))
  }
  # a named reference is matched to the data's columns by name, as every
  # named input is (by position it truncated on the wrong entries)
  # empty names filled as the data's are (V1, ...)
  rn <- fill_empty_colnames(rownames(reference))
  cn <- fill_empty_colnames(colnames(reference))
  if (!is.null(rn) || !is.null(cn)) {
    if (!identical(rn, cn) && !is.null(rn) && !is.null(cn)) {
      abort("`reference` has row names other than its column names; name both by the data's columns.", .arg = "reference")
    }
    nm <- if (is.null(cn)) rn else cn
    if (!is.null(cols)) {
      if (!setequal(nm, cols) || anyDuplicated(nm)) {
        abort("`reference` names its columns %s, not the data's %s; name them by the data's columns (or drop the names to match by position).",
              paste(nm, collapse = ", "), paste(cols, collapse = ", "), .arg = "reference")
      }
      reference <- reference[match(cols, nm), match(cols, nm), drop = FALSE]
      dimnames(reference) <- list(cols, cols)
    }
  }
  if (max(abs(reference - t(reference))) > 1e-12 * max(abs(reference))) {
    abort("`reference` must be symmetric.", .arg = "reference")
  }
  storage.mode(reference) <- "double"
  reference
}

# The variance s^2 of a release's affine noise Delta (iid N(0, s^2) entries,
# added after truncation): E[Delta'Delta] / m = s^2 I sits on C'C / m's
# diagonal, so the analyses of C'C / m remove it (0 for a plain matrix).
compressed_affine_var <- function(object, arg = "object") {
  if (!inherits(object, "dp_compress")) return(0)
  s <- object$params$affine_sd
  if (!(is_num1(s) && s >= 0 && is.finite(s^2))) {
    abort("`%s`: its `params$affine_sd` must be one finite number >= 0 (0: no affine noise).", arg, .arg = arg)
  }
  s^2
}

# The compressed matrix of a release, or a plain numeric matrix of one row or
# more (dp_compress(m = 1) releases one, which the functions accept alike).
# C'C / m is formed as crossprod(C / sqrt(m)) (compressed_gram()): with every
# |C_ij| <= sqrt(xmax) / 2 each of its entries is finite, whatever m; a
# release's rows are far inside that (dp_compress()'s compress_raw_max), a
# hand-made one's need not be.
compressed_matrix <- function(object, arg = "object") {
  C <- if (inherits(object, "dp_compress")) {
    check_release(object, arg)$estimate
  } else {
    if (inherits(object, "dp_release")) abort("`%s` must be a `dp_compress` release or a matrix.", arg)
    check_data_matrix(object, arg, min_rows = 1L)
  }
  if (!(max(abs(range(C))) <= sqrt(.Machine$double.xmax) / 2)) {
    abort("`%s` has entries too large: C'C / m would overflow; rescale it.", arg, .arg = arg)
  }
  C
}

# C'C / m without the overflow of C'C.
compressed_gram <- function(C, D = C) crossprod(C / sqrt(NROW(C)), D / sqrt(NROW(D)))

# A result computed from compressed rows within range (compressed_matrix())
# may still overflow in a solve or a product: refused, never returned as Inf.
check_compressed_finite <- function(..., arg = "release") {
  if (!all(is.finite(unlist(list(...))))) {
    abort("`%s`: the result overflows the double range (the compressed rows are too large, or the system too ill-conditioned, for it); rescale the data.",
          arg, .arg = arg)
  }
}

#' Compressed covariance
#'
#' \eqn{C^T C / m}, the compressed sample covariance of Zhou, Ligett and
#' Wasserman; its expectation is \eqn{X^T X / n} (of the normalised data).
#' A release with affine noise \eqn{\Delta} (`affine_sd` = s in
#' [dp_compress()]) has \eqn{E[C^TC/m] = X^TX/n + s^2 I}: \eqn{s^2} is
#' subtracted from the diagonal, so the expectation is again \eqn{X^TX/n}
#' ([compressed_lm()] and the PCA of a release do the same). Of a release
#' truncated toward a public `reference` the expectation is not
#' \eqn{X^TX/n}: the released draw is conditioned to lie near the
#' reference, so \eqn{C^TC/m} is pulled toward it where the data differ from
#' it (see [dp_compress()]); the matrix then carries the attribute
#' `truncated_to_reference` (`TRUE`) and `print` says so.
#' Like the [dp_compress()] release it is computed from, it has no (epsilon,
#' delta) guarantee, so it is labelled non-private: class `dp_nonprivate`,
#' and `print` says so first. [as.matrix()] gives the plain matrix.
#' @param release A `dp_compress` release or an m x p matrix.
#' @param ... Only the deprecated name `object` of `release`.
#' @return The p x p matrix \eqn{C^T C / m} (less \eqn{s^2 I} with affine
#'   noise), of class
#'   `c("compressed_cov", "dp_nonprivate", "matrix", "array")` (base matrix functions such as [det()] apply).
#' @seealso [dpcov_arguments] for the shared argument names.
#' @examples
#' set.seed(1)
#' r <- dp_compress(matrix(rnorm(4000 * 3), 4000, 3), m = 300)
#' compressed_cov(r)
#' @template ref-zhou
#' @export
compressed_cov <- function(release, ...) {
  release <- renamed_arg(release, missing(release), list(...), "compressed_cov")
  C <- compressed_matrix(release, "release")
  s2 <- compressed_affine_var(release, "release")
  out <- structure(compressed_gram(C) - diag(s2, ncol(C)), class = c("compressed_cov", "dp_nonprivate", "matrix", "array"))
  if (s2 > 0) attr(out, "affine_sd") <- sqrt(s2)  # public: the release's own parameter
  # (public too: how the release was truncated; print says what it implies)
  if (truncated_to_public_reference(release)) attr(out, "truncated_to_reference") <- TRUE
  out
}

#' @rdname compressed_cov
#' @param x A `compressed_cov` matrix.
#' @param digits Significant digits (print).
#' @export
print.compressed_cov <- function(x, digits = 4, ...) {
  check_compressed_cov(x)
  digits <- check_digits(digits)
  s <- attr(x, "affine_sd", exact = TRUE)
  nonprivate_banner(x, paste0(compression_nonprivate_why, if (is_num1(s) && s > 0) {
    sprintf(" (C'C / m of compressed rows less s^2 I, s = %s the affine noise's sd)", format(s, digits = 4))
  } else " (C'C / m of compressed rows)",
  if (isTRUE(attr(x, "truncated_to_reference", exact = TRUE))) paste0(". ", sub("\\.$", "", truncated_reference_text))))
  print(signif(as.matrix(x), digits), ...)
  invisible(x)
}

#' @rdname compressed_cov
#' @export
as.matrix.compressed_cov <- function(x, ...) {
  check_compressed_cov(x)
  matrix(unclass(x), nrow(x), ncol(x), dimnames = dimnames(x))
}

# A compressed_cov given as input (hand-made ones included): a square matrix of numbers.
check_compressed_cov <- function(x, arg = "x") check_labelled_cov(x, "compressed_cov", arg)

# A covariance matrix labelled by its class (compressed_cov, pooled_cov):
# square, finite and symmetric, or its print would state what it is not.
check_labelled_cov <- function(x, class, arg = "x") {
  if (!is.matrix(x) || !is.numeric(x) || nrow(x) != ncol(x) || !length(x)) {
    abort("`%s` is not a valid %s: it must be a square numeric matrix.", arg, class, .arg = arg)
  }
  m <- unclass(x)
  if (!all(is.finite(m))) abort("`%s` is not a valid %s: it holds NA, NaN or infinite values.", arg, class, .arg = arg)
  if (max(abs(m - t(m))) > 1e-8 * max(1, max(abs(m)))) {
    abort("`%s` is not a valid %s: it is not symmetric.", arg, class, .arg = arg)
  }
  invisible(x)
}

# Arithmetic on a labelled covariance (x + 1, -x, log(x)) is no longer that
# covariance: the generic `generic` on the plain matrices of its operands
# (`args`), a matrix still labelled non-private; R's refusal of an operand
# (text, a list) becomes a classed error naming it.
labelled_cov_arith <- function(generic, args, dots = list()) {
  labelled <- vapply(args, inherits, logical(1), what = c("compressed_cov", "pooled_cov"))
  plain <- Map(function(a, l) if (l) unclass_matrix(a) else a, args, labelled)
  value <- tryCatch(do.call(generic, c(plain, dots)), error = function(e) {
    # the argument R refused: the other operand, else an argument of the function
    arg <- c(names(args)[!labelled], names(dots)[nzchar(names(dots))], names(args)[1L])[1L]
    abort("`%s`: %s() cannot be applied to a labelled covariance with it (%s).", arg, generic, conditionMessage(e),
          .arg = arg)
  })
  label_edited_cov(value)
}

# An edited labelled covariance: a plain matrix still labelled non-private
# (the implicit class kept: det(), isSymmetric(), as.data.frame() dispatch on it).
label_edited_cov <- function(value) {
  # a vector too (dim(x) <- NULL, x[[20]] <- v lengthening it): the same
  # exact numbers, no longer a matrix
  if (is.matrix(value) || is.array(value) || (is.numeric(value) || is.logical(value)) && is.null(dim(value))) {
    class(value) <- c("dp_nonprivate", class(unclass(value)))
  }
  value
}

# The numbers of a labelled covariance, as a matrix with its dimnames.
unclass_matrix <- function(x) {
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x))) {
    abort("`x` is not a valid labelled covariance: it must be a numeric matrix.", .arg = "x")
  }
  matrix(unclass(x), nrow(x), ncol(x), dimnames = dimnames(x))
}

#' @rdname compressed_cov
#' @param e1,e2 Operands of arithmetic (`Ops`): the result is a plain matrix
#'   labelled non-private (`dp_nonprivate`), no longer the covariance; so for
#'   `Math` functions (`log(x)`).
#' @export
Ops.compressed_cov <- function(e1, e2) {
  labelled_cov_arith(.Generic, if (missing(e2)) list(e1 = e1) else list(e1 = e1, e2 = e2))
}

#' @rdname compressed_cov
#' @export
Math.compressed_cov <- function(x, ...) labelled_cov_arith(.Generic, list(x = x), list(...))

#' @rdname compressed_cov
#' @param value Replacement values (`x[i, j] <- value`, `x[[i]] <- value`,
#'   `dim(x) <- value`): the result is a plain matrix labelled non-private,
#'   no longer the covariance. So is [stats::cov2cor()]'s, which assigns into
#'   its argument. `dimnames(x) <- value` keeps the class when the rows and
#'   columns get the same names (the same matrix, its variables renamed), and
#'   otherwise gives the plain labelled matrix too. (`storage.mode<-` and
#'   `mode<-` are not generic, so they cannot be caught: use [as.matrix()]
#'   first.)
#' @export
`[<-.compressed_cov` <- function(x, ..., value) labelled_cov_assign(`[<-`, x, ..., value = value)

#' @rdname compressed_cov
#' @export
`[[<-.compressed_cov` <- function(x, ..., value) labelled_cov_assign(`[[<-`, x, ..., value = value)

#' @rdname compressed_cov
#' @export
`dim<-.compressed_cov` <- function(x, value) labelled_cov_assign(`dim<-`, x, value = value)

#' @rdname compressed_cov
#' @export
`dimnames<-.compressed_cov` <- function(x, value) {
  renamed <- labelled_cov_assign(`dimnames<-`, x, value = value)
  dn <- dimnames(renamed)
  # the same numbers with their variables renamed are still the covariance
  # (a hand-made object is checked as any input is)
  if (!identical(dn[[1L]], dn[[2L]])) return(renamed)
  # (attr<- does not dispatch; the class and public attributes stay)
  attr(x, "dimnames") <- dn
  x
}

# Assignment into a labelled covariance (x[i, j] <- v, x[[i]] <- v, dim(x) <-
# v, ...): edited, it is not the covariance, so the label is kept and not the
# class (cov2cor() assigns into a copy of its argument and kept the class,
# so a correlation printed as the covariance); `assign` is the base
# replacement function, applied to the plain matrix.
labelled_cov_assign <- function(assign, x, ..., value) {
  x <- unclass_matrix(x)
  x <- tryCatch(assign(x, ..., value = value), error = function(e) {
    # an index out of range is the index's fault, not the value's
    arg <- if (grepl("subscript", conditionMessage(e))) "x" else "value"
    abort("`%s`: %s cannot be assigned into a labelled covariance (%s).", arg,
          if (arg == "x") "at that index a value" else "it", conditionMessage(e), .arg = arg)
  })
  label_edited_cov(x)
}

#' PCA on compressed data
#'
#' Principal components of the compressed covariance \eqn{C^T C / m}
#' (uncentred, as in the paper's Theorem 3.5): for a [dp_compress()] release
#' this is [dp_pca()] (with its units, guarantee and the subspace-error bound
#' of Proposition 3.4), plus class `compressed_pca`; a plain m x p matrix
#' gives the same decomposition without a guarantee. `rotation` holds the
#' loadings, `sdev` the square roots of the eigenvalues of \eqn{C^T C/m}
#' (the singular values of C over \eqn{\sqrt m}), and `x` the scores of the
#' compressed rows. It equals `prcomp(C, center = FALSE)` except that the
#' variances divide by m, not m - 1.
#' @param release A `dp_compress` release or an m x p matrix.
#' @param rank Number of components to keep (default all).
#' @param ... Only the deprecated name `object` of `release`.
#' @return An object of class `c("compressed_pca", "dp_pca", "prcomp")`; see
#'   [dp_pca()].
#' @seealso [dp_pca()], [dpcov_arguments].
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(4000 * 4), 4000, 4) %*% diag(c(3, 2, 1, 0.5))
#' pc <- compressed_pca(dp_compress(x, m = 400))
#' summary(pc)
#' @template ref-zhou
#' @export
compressed_pca <- function(release, rank = NULL, ...) {
  release <- renamed_arg(release, missing(release), list(...), "compressed_pca")
  call <- match.call()
  if (inherits(release, "dp_release")) {
    if (!inherits(release, "dp_compress")) abort("`release` must be a `dp_compress` release or a matrix; use dp_pca() for other releases.", .arg = "release")
    out <- dp_pca(release, rank)
    out$call <- release_call(call, c("release", "object"))
    class(out) <- c("compressed_pca", class(out))
    return(out)
  }
  C <- compressed_matrix(release, "release")
  p <- ncol(C)
  s <- compressed_svd(C, check_rank(rank, p))
  rotation <- s$v
  dimnames(rotation) <- list(colnames(C), paste0("PC", seq_len(ncol(rotation))))
  sdev <- s$d
  check_compressed_finite(sdev, C %*% rotation)
  # a plain matrix has no guarantee (it may be the raw data): labelled so
  as_nonprivate(structure(list(sdev = sdev, rotation = rotation, center = FALSE, scale = FALSE,
                               x = C %*% rotation, units = "those of the matrix given; uncentred, per row (C'C / m)",
                               per_row = TRUE, n_negative = 0L, subspace_bound = NULL, source = NULL,
                               guarantee = "none stated: computed from a plain matrix, not from a release",
                               call = release_call(call, c("release", "object"))),
                          class = c("compressed_pca", "dp_pca", "prcomp")), "compressed_pca")
}

# The SVD of compressed rows C for a PCA of C'C / m: the right singular
# vectors of the top k (as prcomp(C, center = FALSE), so loadings carry the
# same signs) and all p singular values of C / sqrt(m) (the square roots of
# C'C / m's eigenvalues), zero beyond min(m, p).
compressed_svd <- function(C, k) {
  s <- svd(C / sqrt(nrow(C)), nu = 0, nv = k)
  p <- ncol(C)
  list(d = if (length(s$d) < p) c(s$d, rep(0, p - length(s$d))) else s$d, v = s$v)
}

#' Distance between principal subspaces, and the bound of Proposition 3.4
#'
#' \eqn{\|P_D(A) - P_D(A + B)\|_F}, where \eqn{P_D(M)} projects onto the span
#' of the top D eigenvectors of M, beside the bound \eqn{\|B\|_F / \delta_D},
#' \eqn{\delta_D = (\lambda_D - \lambda_{D+1})/2} (eigenvalues of A), of
#' Proposition 3.4 (Zwald and Blanchard), which holds when
#' \eqn{\|B\|_F \le \delta_D/2} and \eqn{\lambda_D > 0}. With
#' \eqn{A = X^T X/n} and \eqn{A + B = C^T C/m} this is the PCA utility of
#' compression (Theorem 3.5).
#' @param a Symmetric p x p matrix A (e.g. the true \eqn{X^T X/n}); a
#'   [dp_release] (its estimate, on the release's own `scale`: a sum is not
#'   an average, see [dp_as_cov()]) or a [pooled_cov()] is read as its matrix.
#' @param b Symmetric p x p matrix A + B, a [dp_release] (its estimate), or
#'   a `dp_compress` release (then [compressed_cov()] is used). When `a` and `b` both have names (row or
#'   column names), they are matched by name: `b` is put in `a`'s order, and
#'   names that differ are an error. Unnamed matrices are matched by
#'   position.
#' @param dim Subspace dimension D, `1 <= dim < p`.
#' @return A one-row data frame: `dim`, `distance`, `bound`, `delta_D`,
#'   `norm_B` (\eqn{\|B\|_F}) and `bound_applies` (the proposition's
#'   condition).
#' @examples
#' a <- diag(c(4, 2, 1))
#' subspace_distance(a, a + 0.05 * matrix(c(0, 1, 0, 1, 0, 0, 0, 0, 0), 3), dim = 1)
#' @template ref-zhou
#' @template param-dots-none
#' @export
subspace_distance <- function(a, b, dim, ...) {
  refuse_unknown_args("subspace_distance", ...)
  if (missing(a)) abort_missing("a")
  if (missing(b)) abort_missing("b")
  a <- check_symmetric_matrix(square_estimate(a, "a"), "a")
  b <- check_symmetric_matrix(square_estimate(b, "b"), "b")
  p <- ncol(a)
  if (ncol(b) != p) abort("`a` and `b` must have the same dimension; got %d and %d.", p, ncol(b))
  # named variables are matched by name (B = b - a is taken entrywise)
  b <- align_square(b, square_names(a, "a"), "b", "`a`")
  dim <- check_count(dim, "dim")
  if (dim >= p) abort("`dim` must be < p = %d; got %s.", p, format(dim))
  ea <- eigen(a, symmetric = TRUE)
  eb <- eigen(b, symmetric = TRUE)
  va <- ea$vectors[, seq_len(dim), drop = FALSE]
  vb <- eb$vectors[, seq_len(dim), drop = FALSE]
  distance <- norm(tcrossprod(va) - tcrossprod(vb), "F")
  delta_d <- (ea$values[dim] - ea$values[dim + 1]) / 2
  norm_b <- norm(b - a, "F")
  data.frame(dim = as.integer(dim), distance = distance,
             bound = if (delta_d > 0) norm_b / delta_d else Inf, delta_D = delta_d,
             norm_B = norm_b, bound_applies = ea$values[dim] > 0 && norm_b <= delta_d / 2)
}

check_symmetric_matrix <- function(s, arg) {
  if (!is.matrix(s) || !is.numeric(s) || is.object(s) || !length(s)) abort("`%s` must be a non-empty numeric matrix.", arg)
  if (anyNA(s) || any(!is.finite(s))) abort("`%s` contains NA, NaN or infinite values.", arg)
  check_no_overflow(s, arg)
  if (nrow(s) != ncol(s)) abort("`%s` must be square; it is %d x %d.", arg, nrow(s), ncol(s))
  if (max(abs(s - t(s))) > 1e-10 * max(1, max(abs(s)))) abort("`%s` must be symmetric.", arg)
  storage.mode(s) <- "double"
  s
}

#' Least squares and ridge regression on compressed data
#'
#' Regresses one column of compressed data on the others:
#' \eqn{\hat\beta = (C_X^T C_X/m + \lambda I)^{-1} C_X^T c_y/m}, which for
#' \eqn{\lambda = 0} is least squares through the origin on the compressed
#' rows (Zhou, Lafferty and Wasserman's compressed regression). Compress
#' `cbind(X, y)` so that X and y share \eqn{\Phi}; centre X and y before
#' compressing if an intercept is wanted (a constant column keeps only its
#' sign under the normalisation).
#'
#' **Units.** [dp_compress()] with `normalize = TRUE` scales column j by
#' \eqn{\sqrt{n}/\|X_j\|}, i.e. divides it by its root mean square
#' \eqn{r_j = \|X_j\|/\sqrt n} (its standard deviation when centred). The
#' fit of the normalised columns, \eqn{\tilde\beta}, is then in normalised
#' units; with `scales` = \eqn{(r_j)} for the features and the response
#' (public values, or privately released ones such as the square roots of
#' the diagonal of a [dp_cov()] release of centred data, whose privacy cost
#' adds to the total) the coefficients are returned in the data's units,
#' \eqn{\beta_j = \tilde\beta_j r_y / r_j}. Without `scales` the result says
#' that its coefficients are in normalised units. A release made with
#' `normalize = FALSE` is in the data's units already.
#'
#' **Uncertainty.** Given the data, the compressed rows are iid
#' \eqn{N(0, A^TA/n)} for \eqn{A = [X, y]}, so the compressed fit is the
#' full-data least-squares fit plus Gaussian error with covariance
#' \eqn{\hat\sigma^2 (C_X^TC_X)^{-1}} (\eqn{\lambda = 0}; the sandwich
#' \eqn{\hat\sigma^2 H^{-1}C_X^TC_X H^{-1}/m^2}, \eqn{H = C_X^TC_X/m + \lambda I},
#' otherwise, ridge bias not included); the full-data fit's own sampling error adds
#' about \eqn{m/n} of that. `vcov` is the sum, and intervals are normal.
#'
#' **Affine noise.** With `affine_sd` = s > 0 in [dp_compress()],
#' \eqn{E[C_X^TC_X/m] = X^TX/n + s^2 I}: H is \eqn{C_X^TC_X/m - s^2 I +
#' \lambda I} (left in, \eqn{s^2} acted as a ridge and shrank every slope by
#' about \eqn{1/(1 + s^2)}); where the features hold no more than that noise
#' in some direction, H is not positive definite and the fit is refused.
#'
#' @param release A `dp_compress` release of `cbind(X, y)`, or an m x p matrix.
#' @param ... Only the deprecated name `object` of `release`.
#' @param response Column of the response: a name or an index.
#' @param features Columns used as predictors (names or indices); default
#'   all others.
#' @param lambda Ridge penalty (>= 0) on the scale of \eqn{C^T C/m}. With
#'   `lambda = 0` the compressed features must determine the coefficients: an
#'   all-zero feature column (which [dp_compress()] compresses to zeros) or
#'   collinear features make \eqn{C_X^TC_X} singular, a classed error naming
#'   `features`; drop those columns or give `lambda` > 0.
#' @param scales `NULL`, or the root mean squares \eqn{\|X_j\|/\sqrt n} of
#'   the columns (one per column of the release, in order or named), public or
#'   privately released: the coefficients are then in the data's units.
#'   Refused for a release in the data's units already
#'   (`dp_compress(normalize = FALSE)`), where it would change nothing.
#' @return A fit of class `c("dp_lm_compressed", "dp_lm", "dp_nonprivate")` (compressed data has no (epsilon, delta) guarantee; see
#'   [dp_lm-methods]) with `coefficients`, `vcov`, `sigma` (residual sd on
#'   the compressed rows, in the response's units when `scales` is given),
#'   `units` (`"data"` or `"normalised"`), `lambda`, `m`, `n`, `response`,
#'   `release` and `guarantee`; no residuals (they are rows of the release,
#'   not of the data, but the fit needs none).
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(5000 * 3), 5000, 3, dimnames = list(NULL, c("a", "b", "c")))
#' y <- drop(x %*% c(1, -1, 0.5)) + rnorm(5000)
#' r <- dp_compress(cbind(x, y = y), m = 1000)
#' coef(compressed_lm(r, response = "y"))                  # normalised units
#' rms <- c(sqrt(colMeans(x^2)), y = sqrt(mean(y^2)))      # here: public knowledge
#' fit <- compressed_lm(r, response = "y", scales = rms)   # the data's units
#' confint(fit)
#' @template ref-zhou
#' @export
compressed_lm <- function(release, response, features = NULL, lambda = 0, scales = NULL, ...) {
  call <- match.call()
  release <- renamed_arg(release, missing(release), list(...), "compressed_lm")
  if (missing(response)) abort_missing("response")
  C <- compressed_matrix(release, "release")
  if (is.null(colnames(C))) colnames(C) <- rep("", ncol(C))
  colnames(C) <- ifelse(is.na(colnames(C)) | !nzchar(colnames(C)), paste0("V", seq_len(ncol(C))), colnames(C))
  yi <- column_index(C, response, "response")
  if (length(yi) != 1L) abort("`response` must name exactly one column.")
  xi <- if (is.null(features)) setdiff(seq_len(ncol(C)), yi) else column_index(C, features, "features")
  if (!length(xi) || yi %in% xi) abort("`features` must be non-empty and must not contain the response.")
  if (anyDuplicated(xi)) abort("`features` contains duplicated columns.", .arg = "features")
  lambda <- check_number(lambda, "lambda", lower = 0, upper = dp_limits$clip[2], lower_open = FALSE)
  normalised <- !inherits(release, "dp_compress") || !isFALSE(release$params$normalize)
  # scales map normalised coefficients to the data's units: given for a
  # release already in those units they would be dropped, so they are refused
  if (!is.null(scales) && !normalised) {
    abort("`scales` maps normalised coefficients to the data's units, and this release is in the data's units already (dp_compress(normalize = FALSE)); drop `scales`.",
          .arg = "scales")
  }
  if (!is.null(scales)) scales <- check_per_column(scales, ncol(C), colnames(C), "scales", positive = TRUE)
  m <- nrow(C)
  k <- length(xi)
  cx <- C[, xi, drop = FALSE]
  cy <- C[, yi]
  if (lambda == 0 && m <= k) {
    abort("least squares needs more compressed rows (m = %d) than features (%d); use `lambda` > 0.",
          m, k)
  }
  # the affine noise's s^2 I on the features' block (E[Delta'Delta] / m) is
  # removed, as in compressed_cov(); left in, it acted as a ridge of s^2
  s2 <- compressed_affine_var(release, "release")
  G <- compressed_gram(cx)
  H <- G - diag(s2, k) + diag(lambda, k)
  check_compressed_system(H, cx, lambda, s2)
  beta <- drop(solve(H, compressed_gram(cx, cy)))
  res <- cy - drop(cx %*% beta)
  sigma <- sqrt(sum((res / sqrt(max(1, m - k)))^2))
  Hi <- solve(H)
  V <- sigma^2 * Hi %*% (G / m) %*% Hi
  n <- if (inherits(release, "dp_compress") && is_num1(release$n)) release$n else NA_real_
  if (!is.na(n)) V <- V * (1 + m / n)  # the full-data fit's own sampling error
  units <- if (normalised && is.null(scales)) "normalised" else "data"
  if (normalised && !is.null(scales)) {
    f <- scales[yi] / scales[xi]
    beta <- beta * f
    V <- V * tcrossprod(f)
    sigma <- sigma * scales[yi]
  }
  check_compressed_finite(beta, sigma, V)
  nm <- colnames(C)[xi]
  names(beta) <- nm
  V <- symmetric_part(V)
  dimnames(V) <- list(nm, nm)
  rel <- if (inherits(release, "dp_compress")) release else NULL
  tt <- with_base_env(stats::terms(stats::reformulate(backquote_names(nm), response = as.name(colnames(C)[yi]),
                                                     intercept = FALSE)))
  structure(list(coefficients = beta, vcov = V, boot = NULL, sigma = sigma, n = n, n_used = n,
                 n_source = if (is.na(n)) "unknown" else "public (released)", df = k,
                 response = colnames(C)[yi], release = rel, B = 0, ci_type = "normal", units = units,
                 mechanism = if (is.null(rel)) "compressed matrix (no release metadata)" else rel$mechanism,
                 guarantee = if (is.null(rel)) "unknown: a plain matrix was given" else rel$guarantee,
                 lambda = lambda, m = m, terms = tt, xlevels = list(), contrasts = NULL,
                 formula = stats::formula(tt), call = release_call(call, data_args = c("release", "object"))),
            # compressed data has no (epsilon, delta) guarantee: nor has its fit
            class = c("dp_lm_compressed", "dp_lm", "dp_nonprivate"))
}

# The normal equations H beta = C_X'c_y / m must determine beta: with
# lambda = 0 an all-zero feature column (valid data; dp_compress() leaves it
# at zero) or collinear compressed features make H singular, and a lambda
# far below the scale of C'C/m does not lift it out of rounding.
check_compressed_system <- function(H, cx, lambda, s2 = 0) {
  ev <- eigen(H, symmetric = TRUE, only.values = TRUE)$values
  if (max(ev) > 0 && min(ev) > length(ev) * .Machine$double.eps * max(ev)) return(invisible())
  if (s2 > 0) {
    abort("the compressed features do not determine the coefficients: C_X'C_X / m - s^2 I (the affine noise's variance s^2 = %s removed) is not positive definite; in some direction the features hold no more than that noise. Use `lambda` > 0 on the scale of C'C / m, or fewer features.",
          format(s2, digits = 4), .arg = "features")
  }
  zero <- colnames(cx)[colSums(cx != 0) == 0]
  abort("the compressed features do not determine the coefficients: C_X'C_X / m%s is singular (%s). Drop %s, or use `lambda` > 0 on the scale of C'C / m (its largest eigenvalue is %s).",
        if (lambda > 0) " + lambda I" else "",
        if (length(zero)) paste0("all-zero feature column(s): ", paste(zero, collapse = ", ")) else "collinear feature columns",
        if (length(zero)) "those columns from `features`" else "collinear columns from `features`",
        format(max(ev), digits = 3), .arg = "features")
}


column_index <- function(C, cols, arg) {
  if (is.character(cols)) {
    idx <- match(cols, colnames(C))
    if (anyNA(idx)) abort("`%s`: no column named %s.", arg, paste(cols[is.na(idx)], collapse = ", "), .arg = arg)
    return(idx)
  }
  if (!is.numeric(cols) || anyNA(cols) || any(cols != round(cols)) || any(cols < 1) ||
      any(cols > ncol(C))) {
    abort("`%s` must be column names or indices in 1..%d.", arg, ncol(C), .arg = arg)
  }
  as.integer(cols)
}

#' Privacy accounting of compression: Theorem 4.6 and the condition of Theorem 3.2
#'
#' `compression_alpha()` evaluates, for two databases X1 (the reference) and
#' X2 of the same size and a range of m, the bound (15) of Theorem 4.6 of Zhou,
#' Ligett and Wasserman on the distributional-privacy loss (without its
#' \eqn{o(1)} term):
#' \deqn{\alpha \le \frac{m p \|\Delta\|_F}{2 \lambda_{min}(\Sigma_2)
#' \lambda_{min}(\Sigma_1)} \left(C\sqrt{\frac{\ln 2np}{m}} + \Delta_{max} +
#' \frac{2 \|\Delta\|_F \|\Sigma_1\|_2^2}{p \lambda_{min}(\Sigma_2)
#' \lambda_{min}(\Sigma_1)}\right),}
#' \eqn{\Sigma_i = X_i^T X_i / n} (normalised), \eqn{\Delta = \Sigma_1 -
#' \Sigma_2}, \eqn{C = \sqrt{2(C_1 + C_2)}}. `compression_condition()` gives the
#' data-free quantities: the minimum m of Lemma 4.4 and the quantity of the
#' sufficient condition (9) of Theorem 3.2,
#' \eqn{p^2 \Delta_{max} \sqrt{m \ln 2np}}, which (9) requires to be
#' \eqn{o(1)} (so it should be well below 1), together with the other two
#' quantities the proof of Theorem 3.2 requires to be \eqn{o(1)}:
#' \eqn{p \Delta_{max}} (stated just before (16)) and
#' \eqn{m p^2 \Delta_{max}^2} (the second condition of (16), whose first is
#' the quantity of (9)).
#'
#' Both refuse the shapes [dp_compress()] refuses, with its messages:
#' \eqn{p \ge n} (Assumption 1 fails) and \eqn{m > n}.
#'
#' This is the paper's distributional privacy under its Assumption 1, not
#' (epsilon, delta)-differential privacy: alpha bounds the density ratio for
#' these two databases only. Both functions are accounting tools for the
#' curator: `compression_alpha()` reads the private data and its result must
#' not be published as if it were private.
#'
#' @param x1,x2 Numeric matrices of the same dimension n x p (p < n).
#' @param m Rows of the compressed data, each at most n (a vector gives the
#'   trade-off in m).
#' @param normalize Normalise columns to squared norm n first, as
#'   [dp_compress()] does (default `TRUE`). With `FALSE` the columns of both
#'   matrices must already have squared norm n (relative 1e-6): Theorem 4.6
#'   is for such data, and on others alpha would change with the units.
#' @param delta_max \eqn{\Delta_{max}}; default the pair's own
#'   \eqn{\max_{jk} |\Delta_{jk}|} (the smallest value that satisfies (6)).
#' @param n,p Rows and columns of the data (p < n).
#' @return A data frame with one row per m. `compression_condition()`:
#'   `m`, `m_min`, `m_condition` (m >= m_min), `condition_9`
#'   (\eqn{p^2\Delta_{max}\sqrt{m\ln 2np}}), `p_delta_max`,
#'   `m_p2_delta_max2`. `compression_alpha()` adds `alpha`, `norm_Delta`
#'   (\eqn{\|\Delta\|_F}), `lambda_min_1`, `lambda_min_2` and `delta_max`.
#' @examples
#' set.seed(1)
#' x1 <- matrix(rnorm(2000 * 3), 2000, 3)
#' x2 <- x1
#' x2[1, ] <- rnorm(3)            # a neighbouring database
#' compression_alpha(x1, x2, m = c(200, 400, 800))
#' compression_condition(n = 2000, p = 3, m = 400, delta_max = 1e-3)
#' @template ref-zhou
#' @template param-dots-none
#' @export
compression_alpha <- function(x1, x2, m, normalize = TRUE, delta_max = NULL, ...) {
  refuse_unknown_args("compression_alpha", ...)
  if (missing(x1)) abort_missing("x1")
  if (missing(x2)) abort_missing("x2")
  if (missing(m)) abort_missing("m")
  check_flag(normalize, "normalize")
  x1 <- check_compress_matrix(x1, "x1", normalize, unique_names = FALSE)
  x2 <- check_compress_matrix(x2, "x2", normalize, unique_names = FALSE)
  if (!identical(dim(x1), dim(x2))) {
    abort("`x1` and `x2` must have the same dimension; got %s and %s.",
          paste(dim(x1), collapse = " x "), paste(dim(x2), collapse = " x "), .arg = "x2")
  }
  n <- nrow(x1)
  p <- ncol(x1)
  # the shapes dp_compress() refuses: alpha is for releases it would make
  check_counts(m, "m", min = 1)
  refuse_compress_shape(p, n, m, arg = "x1")
  if (!normalize) {
    # Lemma 4.4 and Theorem 4.6 are for columns of squared norm n: on other
    # units alpha changes with the units (x 10 divided it by 30)
    for (a in c("x1", "x2")) {
      sq <- colSums(get(a)^2) / n
      if (max(abs(sq - 1)) > 1e-6) {
        abort("`normalize` = FALSE: Theorem 4.6 is for data whose columns have squared norm n, and the columns of `%s` do not (sum of squares / n from %s to %s), so its alpha would depend on their units. Use normalize = TRUE.",
              a, format(min(sq), digits = 4), format(max(sq), digits = 4), .arg = "normalize")
      }
    }
  }
  s1 <- normalized_cov(x1, normalize, "x1")
  s2 <- normalized_cov(x2, normalize, "x2")
  d <- s1 - s2
  if (is.null(delta_max)) delta_max <- max(abs(d))
  delta_max <- check_number(delta_max, "delta_max", lower = 0, upper = delta_max_limit,
                            lower_open = FALSE, upper_open = FALSE)
  e1 <- eigen(s1, symmetric = TRUE, only.values = TRUE)$values
  l1 <- min(e1)
  l2 <- min(eigen(s2, symmetric = TRUE, only.values = TRUE)$values)
  tol <- 1e-10 * max(e1, 1)
  if (l1 <= tol || l2 <= tol) {
    abort("Theorem 4.6 needs lambda_min(X'X/n) > 0 (Assumption 1); X'X/n of `%s` is singular.",
          if (l1 <= tol) "x1" else "x2")
  }
  cond <- compression_condition(n, p, m, delta_max)
  k <- zlw_constants()
  nd <- norm(d, "F")
  alpha <- m * p * nd / (2 * l2 * l1) *
    (sqrt(2 * (k[["C1"]] + k[["C2"]])) * sqrt(log(2 * n * p) / m) + delta_max +
       2 * nd * max(e1)^2 / (p * l2 * l1))
  out <- cbind(cond[, "m", drop = FALSE], alpha = alpha, cond[, -1, drop = FALSE],
               norm_Delta = nd, lambda_min_1 = l1, lambda_min_2 = l2, delta_max = delta_max)
  as_nonprivate(out, "compression_alpha")  # computed from the private data
}

#' @rdname compression_alpha
#' @export
compression_condition <- function(n, p, m, delta_max, ...) {
  refuse_unknown_args("compression_condition", ...)
  m_min <- compression_m_min(n, p)
  compression_threshold(n, p, m, delta_max)  # validates m and delta_max
  # the shapes dp_compress() refuses (p < n, m <= n), with its messages
  refuse_compress_shape(p, n, m, arg = "p", what = "`p` and `n` describe data with")
  data.frame(m = m, m_min = m_min, m_condition = m >= m_min,
             condition_9 = p^2 * delta_max * sqrt(m * log(2 * n * p)),
             p_delta_max = p * delta_max, m_p2_delta_max2 = m * p^2 * delta_max^2)
}

normalized_cov <- function(x, normalize, arg = "x") {
  g <- compress_matrix_gram(x, arg, normalize, unique_names = FALSE)$gram
  n <- nrow(x)
  g * tcrossprod(normalizing_scales(g, n, normalize)) / n
}

#' PCA utility of compression against m: a replication study
#'
#' For each m in `m` and each of `reps` replications, compresses `x` with
#' [dp_compress()] and measures [subspace_distance()] between the top-`dim`
#' principal subspace of the (normalised) \eqn{X^T X / n} and that of the
#' compressed covariance \eqn{C^T C / m}, beside the bound of Proposition 3.4
#' and the worst case of Theorem 5.1, \eqn{p \tau / \delta_D} with
#' \eqn{\tau = \sqrt{2(C_1+C_2)}\sqrt{\ln(2np)/m} + 2\Delta_{max}}, the
#' theorem's bound on \eqn{\max_{jk}|B_{jk}|}: the truncation threshold of
#' (12) plus \eqn{\Delta_{max}} for the distance (6) between the reference
#' \eqn{\Sigma_1} and the data's \eqn{X^TX/n} (with `normalize = FALSE`
#' that bound is on the correlation scale, \eqn{|B_{jk}| \le \tau
#' \sqrt{A_{jj}A_{kk}}}, and the worst case is
#' \eqn{\tau\,\mathrm{tr}(A) / \delta_D}, A the data's \eqn{X^TX/n}). \eqn{\Delta_{max}} is the one
#' the releases were truncated with, [dp_compress()]'s default
#' \eqn{\sqrt{\ln(n)/n}}.
#' Replications run through `future.apply` (`future.seed = TRUE`), so any
#' `future` plan parallelises them reproducibly; progress is reported through
#' `progressr`.
#' @param x Numeric data matrix (n x p, p < n).
#' @param m Vector of compressed sizes.
#' @param dim Principal subspace dimension D.
#' @param reps Replications per m.
#' @param normalize,method Passed to [dp_compress()].
#' @return A data frame of class `c("compression_study", "dp_study",
#'   "dp_nonprivate")` (see [dp_study]) with one row per (m, replication):
#'   `m`, `rep`, the columns of [subspace_distance()], and `worst_case`
#'   (`delta_D` and the bounds are exact statistics of `x`, hence not
#'   private). Its `plot` method draws the mean distance and both bounds
#'   against m, `summary` their means per m.
#' @examples
#' set.seed(1)
#' f <- rnorm(2000)
#' x <- cbind(f, f, f, 0, 0) + matrix(rnorm(2000 * 5), 2000, 5)
#' s <- compression_pca_study(x, m = c(300, 1000), dim = 1, reps = 3)
#' summary(s)
#' plot(s)
#' @template ref-zhou
#' @export
compression_pca_study <- function(x, m, dim, reps = 20L, normalize = TRUE,
                                  method = "gram", ...) {
  refuse_unknown_args("compression_pca_study", ...)
  if (missing(x)) abort_missing("x")
  if (missing(m)) abort_missing("m")
  method <- check_choice(method, c("gram", "explicit"), "method")
  check_flag(normalize, "normalize")
  # (a study of subspaces: the columns' names play no part, and repeat freely)
  x <- unname(check_compress_matrix(x, "x", normalize, unique_names = FALSE))
  reps <- check_count(reps, "reps", max = 1e6)
  n <- nrow(x)
  p <- ncol(x)
  if (!is.numeric(m) || is.object(m) || !length(m) || anyNA(m) || any(m != round(m)) || any(m < 1) || any(m > n)) {
    abort("`m` must be whole numbers in 1..n = %d.", n)
  }
  check_cells(max(m) * p, "a compressed matrix", "m")
  dim <- check_count(dim, "dim")
  if (dim >= p) abort("`dim` must be < p = %d; got %s.", p, format(dim))
  if (any(m < compression_m_min(n, p))) {
    warn("some m are below 2 (C1 + C2) ln(2np) = %d: Theorem 4.6 does not apply to them.", compression_m_min(n, p))
  }
  A <- normalized_cov(x, normalize)
  ev <- eigen(A, symmetric = TRUE, only.values = TRUE)$values
  delta_d <- (ev[dim] - ev[dim + 1]) / 2
  grid <- data.frame(m = rep(m, each = reps), rep = rep(seq_len(reps), length(m)))
  progress <- progressr::progressor(nrow(grid))
  rows <- future.apply::future_lapply(seq_len(nrow(grid)), function(i) {
    r <- suppressWarnings(dp_compress(x, grid$m[i], normalize = normalize, method = method))
    progress()
    subspace_distance(A, r, dim)
  }, future.seed = TRUE)
  out <- cbind(grid, do.call(rbind, rows))
  # Theorem 5.1: tau <= C sqrt(ln(2np) / m) + 2 Delta_max, with the Delta_max
  # of the releases (dp_compress()'s default); the threshold is linear in it.
  # ||B||_F <= p tau on normalised columns; unnormalised ones are truncated on
  # that scale, |B_jk| <= tau sqrt(A_jj A_kk), so ||B||_F <= tau tr(A)
  delta_max <- sqrt(log(n) / n)
  out$worst_case <- (if (normalize) p else sum(diag(A))) * compression_threshold(n, p, out$m, 2 * delta_max) / delta_d
  # delta_D and the bounds are exact statistics of x
  new_study(out, "compression_study")
}

#' @rdname compression_pca_study
#' @param main Plot title.
#' @param legend_pos `"outside"` (default: in the right margin, beside the
#'   data), `"none"`, or a [graphics::legend()] keyword to put it inside.
#' @param ... Passed to [graphics::plot()], overriding the defaults (`pch`,
#'   `log`, `xlab`, ...); `compression_pca_study()`: nothing (an argument it does not
#'   take is an error).
#' @export
plot.compression_study <- function(x, main = NULL, legend_pos = "outside", ...) {
  check_compression_study(x)
  if (!is.null(main) && !is_string(main)) abort("`main` must be NULL or one string.", .arg = "main")
  legend_pos <- check_legend_pos(legend_pos)
  a <- stats::aggregate(cbind(distance, bound, worst_case) ~ m, data = as.data.frame(unclass(x)), FUN = mean)
  if (is.null(main)) main <- sprintf("PCA subspace error, D = %d", x$dim[1])
  labels <- c("observed (mean)", "Prop. 3.4 bound", "Thm 5.1 worst case")
  if (legend_pos == "outside") {
    leg <- legend_outside_setup(labels, cex = 0.8)
    on.exit(graphics::par(leg$op))
  }
  yr <- range(c(a$distance, a$bound, a$worst_case))
  xr <- range(a$m)
  graphics_call(graphics::plot, list(a$m, a$distance),
                list(log = "xy", type = "b", pch = 19, xlim = headroom(xr, log = TRUE), ylim = headroom(yr, log = TRUE),
                     main = main, xlab = "m (compressed rows)", ylab = "subspace distance", axes = FALSE), list(...))
  study_axis(1, NULL)
  study_axis(2, NULL)
  graphics::box()
  graphics::lines(a$m, a$bound, type = "b", pch = 2, lty = 2)
  graphics::lines(a$m, a$worst_case, type = "b", pch = 4, lty = 3)
  if (legend_pos == "outside") {
    legend_outside(labels, pch = c(19, 2, 4), lty = 1:3, leg = leg)
  } else if (legend_pos != "none") {
    graphics::legend(legend_pos, labels, pch = c(19, 2, 4), lty = 1:3, bty = "n", cex = 0.8)
  }
  invisible(a)
}

#' The matrix a comparison reads from what the package returns: a release's
#' estimate (compressed rows become their covariance), a pooled or
#' compressed covariance as its matrix; anything else as given (checked by
#' the caller).
#' @noRd
square_estimate <- function(v, arg) {
  if (inherits(v, "dp_compress")) v <- compressed_cov(v)
  if (inherits(v, "dp_release")) return(check_release(v, arg)$estimate)
  if (inherits(v, c("compressed_cov", "pooled_cov"))) return(as.matrix(v))
  # a matrix labelled only as non-private (arithmetic on one of the above) is a matrix
  if (is_nonprivate_matrix(v)) return(unclass_matrix(v))
  v
}
