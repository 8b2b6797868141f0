# The result of every private release: class c("dp_<family>", "dp_release").

#' Construct a private release object
#'
#' Internal constructor used by every mechanism. It holds only the released
#' (noisy) estimate and metadata: never the input, its Gram matrix, or any
#' other statistic computed from the data without noise.
#' @noRd
new_dp_release <- function(estimate, family, mechanism, epsilon, delta,
                           neighbor = c("replace-one", "add-remove"), clip, n, p,
                           params = list(), tuning = tuning_record("none"),
                           guarantee = NULL, call = NULL) {
  neighbor <- match.arg(neighbor)
  if (is.null(guarantee)) guarantee <- dp_guarantee_text(epsilon, delta, neighbor, clip)
  structure(
    list(estimate = estimate, mechanism = mechanism, epsilon = epsilon,
         delta = delta, neighbor = neighbor, clip = clip, n = n, p = p,
         params = params, tuning = tuning, guarantee = guarantee, call = call),
    class = c(paste0("dp_", family), "dp_release")
  )
}

#' How a tuning parameter was chosen. `private` is TRUE when the choice spent
#' no privacy on, or did not look at, the private data.
#' @noRd
tuning_record <- function(method, private = TRUE, detail = NULL, value = NULL) {
  list(method = method, private = private, detail = detail, value = value)
}

dp_guarantee_text <- function(epsilon, delta, neighbor, clip) {
  if (!is.finite(clip)) {
    return(paste0("NONE: rows were not clipped (clip = Inf), so the sensitivity is ",
                  "unbounded and no formal privacy guarantee holds (calibrated as if ",
                  "epsilon = ", format(epsilon), ", delta = ", format(delta), ")."))
  }
  sprintf("(%s, %s)-differential privacy, %s neighbours, rows clipped to L2 norm <= %s.",
          format(epsilon), format(delta), neighbor, format(clip))
}

#' Has a release a formal privacy guarantee?
#'
#' @param x A `dp_release`.
#' @return `TRUE` when the rows were clipped and the tuning spent no private
#'   information outside the stated budget.
#' @examples
#' r <- analyze_gauss(matrix(rnorm(200), 50, 4), epsilon = 0.5, delta = 1e-5, clip = 2)
#' has_guarantee(r)
#' @export
has_guarantee <- function(x) {
  stopifnot(inherits(x, "dp_release"))
  isTRUE(is.finite(x$clip)) && !isFALSE(x$tuning$private) &&
    !isTRUE(x$params$no_formal_guarantee)
}

#' Methods for private releases
#'
#' Every mechanism returns an object of class `c("dp_<family>", "dp_release")`
#' with components `estimate` (the released matrix or compressed data),
#' `mechanism`, `epsilon`, `delta`, `neighbor`, `clip`, `n`, `p`, `params`
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
  cat(sprintf("<%s> %s\n", class(x)[1], x$mechanism))
  cat("Guarantee:", x$guarantee, "\n")
  cat(sprintf("Data: n = %s rows, p = %s columns\n", format(x$n), format(x$p)))
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
  cat("Private release:", x$mechanism, "\n")
  cat("Guarantee:", x$guarantee, "\n")
  cat(sprintf("n = %s, p = %s, epsilon = %s, delta = %s\n", format(x$n), format(x$p),
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
as.matrix.dp_release <- function(x, ...) x$estimate
