# The result of every private release: class c("dp_<family>", "dp_release").

#' Construct a private release object
#'
#' Internal constructor used by every mechanism. It holds only the released
#' (noisy) estimate and metadata: never the input, its Gram matrix, or any
#' other statistic computed from the data without noise. `n` is stored only
#' when `n_public` (the neighbour notion fixes it, or the release treats it as
#' public); otherwise it is `NA`. `call` is cleaned by [release_call()].
#' `scale` (one of [dp_scales]) and `centred` say what the estimate
#' estimates; they are required so that no family can forget them. `ridge` is
#' the public w in "sum + ridge" (E = A'A + w I) and "posterior sample"
#' (E = (A'A + w I) / (df - d - 1)), 0 otherwise.
#' @noRd
new_dp_release <- function(estimate, family, mechanism, epsilon, delta, neighbor, clip, n, p,
                           n_public, scale, centred, ridge = 0, params = list(),
                           tuning = tuning_record("none"), guarantee = NULL, call = NULL,
                           local = FALSE) {
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  scale <- check_choice(scale, dp_scales, "scale")
  centred <- check_flag(centred, "centred")
  if (is.null(guarantee)) {
    guarantee <- dp_guarantee_text(epsilon, delta, neighbor, clip, n_public, local)
  }
  if (isFALSE(tuning$private) && is.finite(clip)) {
    guarantee <- paste0("NONE: a tuning choice looked at the private data without spending ",
                        "privacy budget (noise calibrated as for: ", guarantee, ")")
  }
  structure(
    list(estimate = estimate, mechanism = mechanism, epsilon = epsilon,
         delta = delta, neighbor = neighbor, n_public = n_public, clip = clip,
         n = if (n_public) as.double(n) else NA_real_, p = as.double(p),
         scale = scale, centred = centred, ridge = as.double(ridge), params = params, tuning = tuning, guarantee = guarantee,
         call = release_call(call)),
    class = c(paste0("dp_", family), "dp_release")
  )
}

#' What a release estimates
#'
#' Every [dp_release] records in `scale` what its `estimate` estimates, in
#' `centred` whether the rows were centred (at a private mean) before the
#' second moment was taken, and in `ridge` a public number some scales need.
#' Write A for the n x p data with each row clipped to the release's `clip`
#' (after centring when `centred`), so \eqn{A^TA = \sum_i a_i a_i^T}:
#'
#' | `scale` | the estimate estimates | families |
#' |---|---|---|
#' | `"sum"` | \eqn{A^TA} (not divided by n) | [analyze_gauss()]; [wishart_noise()] with the expected shift; [jl_adaptive()] when its ridge is 0 |
#' | `"sum + ridge"` | \eqn{A^TA + w I}, w = `ridge` (public) | [jl_ridge()], [jl_adaptive()] (w = \eqn{w^2}); [wishart_noise()] without shift (w = \eqn{kB^2}) or with the safe shift; [analyze_gauss()] with `post = "shift"` when a shift was added |
#' | `"average"` | \eqn{A^TA / n} | [dp_threshold()], [ldp_aggregate()] |
#' | `"posterior sample"` | one draw \eqn{M \sim W^{-1}(A^TA + w I, df)}, \eqn{E M = (A^TA + w I)/(df - p - 1)}, w = `ridge`, df = `params$df` | [iwishart_posterior()] (df = n + p, so \eqn{E M = (A^TA + \psi I)/(n - 1)}), [iwishart_adaptive()] |
#' | `"covariance"` | the covariance of the rows, centred at a private mean; divisor in `params$divisor` | [dp_cov()] |
#' | `"correlation"` | the correlation matrix | [dp_cov()] with `type = "correlation"` |
#' | `"compressed rows"` | not a matrix of second moments: m rows \eqn{\Phi X} of the column-normalised data, \eqn{E[C^TC/m] = X^TX/n} in normalised units | [dp_compress()] |
#'
#' Projections to the PSD cone ([dp_threshold()], `post = "psd"`, [dp_cov()])
#' and thresholding bias the estimate, but do not change what it estimates.
#' [dp_as_cov()] converts a release to a covariance or a correlation where
#' that is possible without the data.
#' @name dp_scales
#' @seealso [dp_as_cov()], [dp_release].
NULL

dp_scales <- c("sum", "sum + ridge", "average", "posterior sample", "covariance", "correlation",
               "compressed rows")

#' The "Estimates:" line of print(): what the estimate estimates, in words.
#' @noRd
estimates_text <- function(x) {
  ridge <- if (is.null(x$ridge)) 0 else x$ridge
  rows <- if (isTRUE(x$centred)) "the rows centred at a private mean and clipped" else "the clipped rows (uncentred)"
  switch(x$scale,
    "sum" = sprintf("A'A, the sum of outer products of %s; not divided by n", rows),
    "sum + ridge" = sprintf("A'A + w I with public w = %s: the sum of outer products of %s plus a ridge",
                            format(ridge, digits = 4), rows),
    "average" = sprintf("A'A / n, the average outer product of %s", rows),
    "posterior sample" = sprintf("one posterior draw M ~ W^-1(A'A + w I, df) for %s, w = %s, df = %s; E M = (A'A + w I) / (df - p - 1)",
                                 rows, format(ridge, digits = 4), format(x$params$df)),
    "covariance" = sprintf("the covariance matrix, centred at a private mean (released in `center`), divisor %s",
                           if (is.null(x$params$divisor)) "n" else x$params$divisor),
    "correlation" = "the correlation matrix, centred at a private mean (released in `center`)",
    "compressed rows" = "not a second-moment matrix: m compressed rows Phi X of the column-normalised data (E C'C / m = X'X / n in normalised units)")
}

#' The call to store in a returned object: the function's name, the data
#' argument `x` only as the symbol (or `pkg::name`) the caller wrote, and other
#' arguments only as code (symbols, plain scalars and calls made of them). Any
#' value the call holds instead of code (e.g. a data matrix put there by
#' `do.call()`) becomes the symbol `<value>` (`<data>` for `x`).
#' @noRd
release_call <- function(call, data_args = "x") {
  if (is.null(call)) return(NULL)
  is_code <- function(e) {
    if (is.symbol(e)) return(TRUE)
    if (is.atomic(e)) return(length(e) == 1L && is.null(attributes(e)))
    if (is.call(e)) return(all(vapply(as.list(e), function(a) missing(a) || is_code(a), logical(1))))
    FALSE
  }
  is_name <- function(e) is.symbol(e) || is.call(e) && length(e) == 3L &&
    (identical(e[[1L]], quote(`::`)) || identical(e[[1L]], quote(`:::`))) &&
    is.symbol(e[[2L]]) && is.symbol(e[[3L]])
  fun <- call[[1L]]
  if (!is_name(fun)) fun <- as.symbol("<function>")
  args <- as.list(call)[-1L]
  nm <- names(args)
  if (is.null(nm)) nm <- rep("", length(args))
  for (i in seq_along(args)) {
    a <- args[[i]]
    if (nm[i] %in% data_args) {
      if (!is_name(a)) args[[i]] <- as.symbol("<data>")
    } else if (!is_code(a)) {
      args[[i]] <- as.symbol("<value>")
    }
  }
  as.call(c(list(fun), args))
}

#' How a tuning parameter was chosen. `private` is TRUE when the choice spent
#' no privacy on, or did not look at, the private data.
#' @noRd
tuning_record <- function(method, private = TRUE, detail = NULL, value = NULL) {
  list(method = method, private = private, detail = detail, value = value)
}

#' Mark a returned object as intentionally non-private (a tuning curve, a
#' study, exact statistics): class `dp_nonprivate` is added, and its print
#' method says so.
#' @noRd
as_nonprivate <- function(x, class) {
  class(x) <- unique(c(class, "dp_nonprivate", class(x)))
  x
}

#' Validate a `dp_release` given as input (a hand-made object of the class is
#' input like any other): the fields every method reads, with their types.
#' @noRd
check_release <- function(x, arg = "x", square = FALSE) {
  if (missing(x)) abort_missing(arg)
  if (!inherits(x, "dp_release") || !is.list(x)) abort("`%s` must be a dp_release object.", arg, .arg = arg)
  # every family but compression releases a square (second-moment) matrix
  square <- square || !inherits(x, "dp_compress")
  bad <- function(what) abort("`%s` is not a valid dp_release: %s.", arg, what, .arg = arg)
  need <- c("estimate", "mechanism", "epsilon", "delta", "neighbor", "clip", "n", "p", "scale",
            "centred", "params", "tuning")
  miss <- setdiff(need, names(x))
  if (length(miss)) bad(paste("missing", paste(miss, collapse = ", ")))
  est <- x$estimate
  if (!is.matrix(est) || !is.numeric(est) || is.object(est) || !length(est)) bad("`estimate` must be a non-empty numeric matrix")
  if (anyNA(est) || !all(is.finite(range(est)))) bad("`estimate` contains NA, NaN or infinite values")
  if (!is.character(x$mechanism) || length(x$mechanism) != 1L) bad("`mechanism` must be one string")
  for (f in c("epsilon", "delta")) {
    v <- x[[f]]
    if (!is.numeric(v) || length(v) != 1L || !is.na(v) && !(v > 0 && is.finite(v))) bad(sprintf("`%s` must be one positive number or NA", f))
  }
  if (!is.character(x$neighbor) || length(x$neighbor) != 1L || !x$neighbor %in% dp_neighbors) bad("unknown `neighbor`")
  if (!is_number(x$clip) || !(x$clip > 0)) bad("`clip` must be one positive number or Inf")
  if (!is.numeric(x$n) || length(x$n) != 1L || !is.na(x$n) && !(x$n >= 1 && is.finite(x$n) && x$n == round(x$n))) bad("`n` must be a whole number or NA")
  if (!is_number(x$p) || x$p != ncol(est)) bad("`p` must equal the number of columns of `estimate`")
  if (!is.list(x$params) || !is.list(x$tuning)) bad("`params` and `tuning` must be lists")
  if (!is_string(x$scale) || !x$scale %in% dp_scales) {
    bad(paste0("`scale` must be one of ", paste0('"', dp_scales, '"', collapse = ", ")))
  }
  if (!is_flag(x$centred)) bad("`centred` must be TRUE or FALSE")
  if (!is.null(x$ridge) && !(is_num1(x$ridge) && x$ridge >= 0)) bad("`ridge` must be one number >= 0")
  if (x$scale == "compressed rows" && !inherits(x, "dp_compress")) bad("only compression releases hold compressed rows")
  if (x$scale == "posterior sample" && !(is_num1(x$params$df) && x$params$df > 0)) bad("a posterior sample needs its degrees of freedom `params$df`")
  if (square) {
    if (nrow(est) != ncol(est)) abort("`%s` must be a release of a square matrix; its estimate is %d x %d.", arg, nrow(est), ncol(est), .arg = arg)
    if (max(abs(est - t(est))) > 1e-8 * max(1, max(abs(est)))) abort("`%s` has a non-symmetric estimate.", arg, .arg = arg)
  }
  invisible(x)
}

#' Has a release a formal privacy guarantee?
#'
#' @param x A `dp_release`.
#' @return `TRUE` when the rows were clipped (finite `clip`), every tuning
#'   choice spent no private information outside the stated budget, and no
#'   step (e.g. centring by exact means, compression's distributional privacy)
#'   voided the guarantee. The guarantee is (epsilon, delta)-DP for the
#'   neighbour notion in `x$neighbor`; `x$n_public` says whether the number
#'   of rows n is treated as public (always under `"replace-one"` and
#'   `"zero-out"`, where neighbours have the same size; under `"add-remove"`
#'   only for releases whose noise scale depends on n, which say so; the
#'   others do not release n, and `x$n` is `NA`). `x$guarantee` states it in
#'   words.
#' @examples
#' r <- analyze_gauss(matrix(rnorm(200), 50, 4), epsilon = 0.5, delta = 1e-5, clip = 2)
#' has_guarantee(r)
#' r$guarantee
#' @export
has_guarantee <- function(x) {
  check_release(x)
  isTRUE(is.finite(x$clip)) && !isFALSE(x$tuning$private) &&
    !isTRUE(x$params$no_formal_guarantee) && !is.na(x$epsilon) && !is.na(x$delta)
}

#' Mark a release as having no formal guarantee (e.g. its input was centred
#' with exact, non-private means) and say why in its guarantee text.
#' @noRd
void_guarantee <- function(release, reason) {
  release$params$no_formal_guarantee <- TRUE
  if (startsWith(release$guarantee, "NONE: ")) {
    # already void (e.g. clip = Inf): add the reason, do not nest
    release$guarantee <- paste0("NONE: ", reason, "; and ", substring(release$guarantee, 7L))
  } else {
    release$guarantee <- paste0("NONE: ", reason, " (noise calibrated as for: ", release$guarantee, ")")
  }
  release
}

#' Methods for private releases
#'
#' Every mechanism returns an object of class `c("dp_<family>", "dp_release")`
#' with components `estimate` (the released matrix or compressed data),
#' `mechanism`, `epsilon`, `delta`, `neighbor`, `clip`, `n`, `p`, `scale`,
#' `centred` and `ridge` (what the estimate estimates, see [dp_scales]), `params`
#' (what the mechanism used: noise scale, threshold, degrees of freedom, ...),
#' `tuning` (how tuning parameters were chosen and whether that choice was
#' private), `guarantee` (the privacy statement in words) and `call`.
#'
#' @param x,object A `dp_release`.
#' @param digits Significant digits to print.
#' @param ... Unused.
#' @return `print` returns `x` invisibly; `summary` a `summary.dp_release`
#'   list; `as.matrix` the released estimate.
#' @name dp_release
#' @examples
#' r <- analyze_gauss(matrix(rnorm(200), 50, 4), epsilon = 0.5, delta = 1e-5, clip = 2)
#' r
#' summary(r)
#' as.matrix(r)[1:2, 1:2]
NULL

#' @rdname dp_release
#' @export
print.dp_release <- function(x, digits = 4, ...) {
  check_release(x)
  digits <- check_digits(digits)
  cat(sprintf("<%s> %s\n", class(x)[1], x$mechanism))
  cat("Guarantee:", x$guarantee, "\n")
  cat("Estimates:", estimates_text(x), "\n")
  cat(sprintf("Data: %s, p = %s columns\n", n_text(x), format(x$p)))
  shown <- x$params[vapply(x$params, function(v) is.atomic(v) && length(v) == 1L, logical(1))]
  if (length(shown)) {
    vals <- vapply(shown, function(v) if (is.numeric(v)) format(v, digits = digits) else as.character(v),
                   character(1))
    cat("Parameters:", paste(names(vals), vals, sep = " = ", collapse = ", "), "\n")
  }
  print_tuning(x$tuning)
  est <- x$estimate
  if (is.matrix(est)) {
    cat(sprintf("Estimate: %d x %d matrix", nrow(est), ncol(est)))
    if (nrow(est) == ncol(est) && isSymmetric(unname(est))) {
      ev <- eigen(est, symmetric = TRUE, only.values = TRUE)$values
      cat(sprintf(", eigenvalues in [%s, %s]", format(min(ev), digits = digits),
                  format(max(ev), digits = digits)))
    }
    cat("\n")
    k <- min(nrow(est), ncol(est), 5L)
    print(signif(est[seq_len(min(nrow(est), 5L)), seq_len(min(ncol(est), 5L)), drop = FALSE], digits))
    if (nrow(est) > k || ncol(est) > k) cat("...\n")
  }
  invisible(x)
}

n_text <- function(x) {
  if (is.na(x$n)) "n not released (private under add/remove neighbours)" else sprintf("n = %s rows", format(x$n))
}

print_tuning <- function(tuning) {
  if (is.null(tuning) || identical(tuning$method, "none")) return(invisible())
  cat("Tuning:", tuning$method)
  if (!is.null(tuning$detail)) cat(" -", tuning$detail)
  cat("\n")
  if (isFALSE(tuning$private)) {
    cat("  WARNING: tuning looked at the private data without spending privacy budget;",
        "the stated guarantee does not cover that choice.\n")
  }
  invisible()
}

#' @rdname dp_release
#' @export
summary.dp_release <- function(object, ...) {
  check_release(object, "object")
  est <- object$estimate
  out <- list(mechanism = object$mechanism, guarantee = object$guarantee,
              has_guarantee = has_guarantee(object), n = object$n, p = object$p,
              epsilon = object$epsilon, delta = object$delta, tuning = object$tuning)
  if (is.matrix(est) && nrow(est) == ncol(est) && isSymmetric(unname(est))) {
    ev <- eigen(est, symmetric = TRUE, only.values = TRUE)$values
    out$eigenvalues <- ev
    out$positive_definite <- min(ev) > 0
    out$zero_fraction <- mean(est == 0)
  }
  structure(out, class = "summary.dp_release")
}

#' @export
print.summary.dp_release <- function(x, digits = 4, ...) {
  check_object(x, "summary.dp_release", list(
    mechanism = is_string, guarantee = is_string, n = function(v) is_num1(v, na_ok = TRUE),
    p = function(v) is_whole1(v, 1), epsilon = function(v) is_num1(v, na_ok = TRUE),
    delta = function(v) is_num1(v, na_ok = TRUE), tuning = function(v) is.null(v) || is.list(v),
    eigenvalues = function(v) is.null(v) || is_finite_num(v),
    positive_definite = function(v) is.null(v) || is_flag(v),
    zero_fraction = function(v) is.null(v) || is_num1(v)))
  digits <- check_digits(digits)
  cat("Private release:", x$mechanism, "\n")
  cat("Guarantee:", x$guarantee, "\n")
  cat(sprintf("%s, p = %s, epsilon = %s, delta = %s\n", n_text(x), format(x$p),
              format(x$epsilon), format(x$delta)))
  if (!is.null(x$eigenvalues)) {
    cat(sprintf("Eigenvalues: min %s, max %s; positive definite: %s; zero entries: %.1f%%\n",
                format(min(x$eigenvalues), digits = digits),
                format(max(x$eigenvalues), digits = digits),
                x$positive_definite, 100 * x$zero_fraction))
  }
  print_tuning(x$tuning)
  invisible(x)
}

#' @rdname dp_release
#' @export
as.matrix.dp_release <- function(x, ...) {
  check_release(x)
  x$estimate
}

#' Objects that are not private releases
#'
#' Tuning curves ([threshold_cv()]), exact sufficient statistics
#' ([second_moment()]), studies and accounting tables carry class
#' `dp_nonprivate`: they are computed from data without privacy noise (or
#' from simulated data) and must not be published as if they were private.
#' Their print methods say so first.
#' @param x An object of class `dp_nonprivate`.
#' @param ... Passed to the next print method.
#' @return `x`, invisibly.
#' @examples
#' second_moment(matrix(rnorm(20), 10, 2))
#' @export
print.dp_nonprivate <- function(x, ...) {
  nonprivate_banner(x, if (inherits(x, "dp_release")) {
    "a tuning choice in it was computed from the data without privacy noise"
  })
  NextMethod()
  invisible(x)
}

#' The first line every non-private object prints (print methods of classes
#' that also carry `dp_nonprivate` call it themselves).
#' @noRd
nonprivate_banner <- function(x, why = NULL) {
  cls <- setdiff(class(x), "dp_nonprivate")[1]
  if (is.na(cls)) cls <- "dp_nonprivate"
  if (is.null(why)) why <- "computed without privacy noise"
  cat(sprintf("<%s> NOT a private release: %s.\n", cls, why))
  invisible()
}

#' Plot a release, or turn it into a long table
#'
#' `plot` draws a square release as a heat map of its estimate (row 1 at the
#' top) with a colour scale symmetric about 0 beside it, and compressed rows
#' ([dp_compress()]) as a scatterplot matrix of (at most) their first five
#' columns. `as.data.frame` gives the released values in long format: one
#' row per entry, columns `row`, `col` and `estimate` (names where the
#' estimate has them, else indices). Both read only the released estimate.
#' @param x A [dp_release].
#' @param main Title (`NULL` for the release's class and scale).
#' @param row.names,optional Ignored (as in [base::as.data.frame()]).
#' @param ... `plot`: passed to [graphics::image()] or [graphics::pairs()];
#'   `as.data.frame`: unused.
#' @return `plot`: `x`, invisibly. `as.data.frame`: a data frame.
#' @seealso [dp_release], [dp_pca()].
#' @examples
#' set.seed(1)
#' r <- analyze_gauss(matrix(rnorm(400), 100, 4), epsilon = 1, delta = 1e-5, clip = 3)
#' plot(r)
#' head(as.data.frame(r))
#' @name dp_release_plot
NULL

#' @rdname dp_release_plot
#' @export
plot.dp_release <- function(x, main = NULL, ...) {
  check_release(x)
  if (!is.null(main) && !is_string(main)) abort("`main` must be NULL or one string.", .arg = "main")
  est <- x$estimate
  if (is.null(main)) main <- sprintf("<%s> release: %s", class(x)[1], x$scale)
  p <- ncol(est)
  cols <- colnames(est)
  if (is.null(cols)) cols <- paste0("V", seq_len(p))
  if (inherits(x, "dp_compress")) {
    k <- min(p, 5L)
    C <- est[, seq_len(k), drop = FALSE]
    colnames(C) <- cols[seq_len(k)]
    if (k == 1L) {
      graphics::hist(C[, 1], main = main, xlab = cols[1], col = "grey80", ...)
    } else {
      graphics::pairs(C, main = main, pch = 20, cex = 0.5, col = grDevices::adjustcolor("black", 0.5), ...)
    }
    return(invisible(x))
  }
  lim <- max(abs(est))
  if (!(lim > 0)) lim <- 1
  nb <- 21L
  breaks <- seq(-lim, lim, length.out = nb + 1L)
  pal <- grDevices::hcl.colors(nb, "Blue-Red 3")
  op <- graphics::par(mar = c(5, 5, 3, 7))
  on.exit(graphics::par(op))
  graphics::image(seq_len(p), seq_len(p), t(est)[, p:1, drop = FALSE], breaks = breaks, col = pal,
                  axes = FALSE, xlab = "", ylab = "", main = main, ...)
  lab_at <- if (p <= 25) seq_len(p) else unique(round(seq(1, p, length.out = 10)))
  graphics::axis(1, at = lab_at, labels = cols[lab_at], las = 2, cex.axis = 0.75)
  graphics::axis(2, at = p + 1 - lab_at, labels = cols[lab_at], las = 1, cex.axis = 0.75)
  graphics::box()
  # the colour scale, in the right margin
  u <- graphics::par("usr")
  w <- diff(u[1:2])
  x0 <- u[2] + 0.04 * w
  x1 <- x0 + 0.05 * w
  ys <- seq(u[3], u[4], length.out = nb + 1L)
  graphics::rect(x0, ys[-(nb + 1L)], x1, ys[-1L], col = pal, border = NA, xpd = TRUE)
  graphics::rect(x0, u[3], x1, u[4], border = "grey40", xpd = TRUE)
  ticks <- pretty(c(-lim, lim), n = 5)
  ticks <- ticks[abs(ticks) <= lim]
  yt <- u[3] + (ticks + lim) / (2 * lim) * diff(u[3:4])
  graphics::segments(x1, yt, x1 + 0.015 * w, yt, xpd = TRUE)
  graphics::text(x1 + 0.02 * w, yt, axis_labels(ticks), pos = 4, cex = 0.7, xpd = TRUE, offset = 0.1)
  invisible(x)
}

#' @rdname dp_release_plot
#' @export
as.data.frame.dp_release <- function(x, row.names = NULL, optional = FALSE, ...) {
  check_release(x)
  est <- x$estimate
  rn <- rownames(est)
  cn <- colnames(est)
  rows <- if (is.null(rn)) seq_len(nrow(est)) else rn
  cols <- if (is.null(cn)) seq_len(ncol(est)) else cn
  data.frame(row = rep(rows, times = ncol(est)), col = rep(cols, each = nrow(est)),
             estimate = as.vector(est), stringsAsFactors = FALSE)
}

#' Mark a number or vector computed from private data without noise (a
#' cross-validated constant, a data-scaled grid): the attribute
#' `dp_nonprivate` says where it came from, and a release tuned with it is
#' labelled non-private (nonprivate_source() reads the mark).
#' @noRd
mark_nonprivate <- function(v, why) {
  attr(v, "dp_nonprivate") <- why
  v
}

nonprivate_source <- function(v) {
  why <- attr(v, "dp_nonprivate", exact = TRUE)
  if (is_string(why)) why else NULL
}

#' Does matrix `a` hold any row of matrix `b` (exactly)? Used to refuse the
#' "public" label for a sample taken from the private data.
#' @noRd
shares_rows <- function(a, b) {
  a <- as.matrix(a)
  b <- as.matrix(b)
  if (!nrow(a) || !nrow(b) || ncol(a) != ncol(b)) return(FALSE)
  key <- function(m) do.call(paste, c(lapply(seq_len(ncol(m)), function(j) sprintf("%.17g", m[, j])), sep = "\r"))
  any(key(a) %in% key(b))
}
