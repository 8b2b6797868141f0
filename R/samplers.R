#' Wishart and inverse-Wishart random matrices
#'
#' Draws by the Bartlett decomposition in the C++ core, factoring the scale
#' matrix once per call. `rwishart()` returns \eqn{W \sim W_p(\Sigma, df)}
#' (mean `df * Sigma`); `riwishart()` returns \eqn{M \sim W_p^{-1}(\Psi, df)},
#' i.e. \eqn{M^{-1} \sim W_p(\Psi^{-1}, df)} (mean `Psi / (df - p - 1)` for
#' `df > p + 1`), without inverting `Psi` or any full matrix.
#'
#' `rwishart()` consumes R's random numbers in the same order as
#' [stats::rWishart()], so under the same seed and R's default normal
#' generator (`RNGkind(normal.kind = "Inversion")`) the two give the same
#' draws up to rounding (for p >= 2 the products are summed in another
#' order, a relative 4e-16 at most; bit for bit at p = 1). The package computes its normals by inversion from R's uniforms
#' whatever `normal.kind` is set, so under another normal kind the draws
#' differ from `stats::rWishart()`'s, with the same distribution.
#'
#' @param n Number of draws (>= 1).
#' @param df Degrees of freedom, a real number > p - 1 and at most 1e15. For `riwishart()`
#'   with df - p + 1 far below 1 the last Bartlett chi-square (df - p + 1
#'   degrees of freedom) often falls below the double range, and the draw,
#'   of the order of its inverse, exceeds it (at df = p - 1 + 1e-3 most draws
#'   do), as it does when `Psi`'s entries are near the double range: such a
#'   draw is refused with a classed error naming `df`, never
#'   returned with infinite entries. `rwishart()` is not affected: a chi-square that small only
#'   leaves its draw numerically singular.
#' @param Sigma,Psi Scale matrix, p x p symmetric positive definite.
#' @param chol If `TRUE`, return the lower-triangular Cholesky factor `L` of
#'   each draw (`W = L L^T`) instead of the draw itself.
#' @return A p x p x n array.
#' @examples
#' S <- diag(3)
#' W <- rwishart(2, df = 5, Sigma = S)
#' W[, , 1]
#' M <- riwishart(1000, df = 10, Psi = S)
#' apply(M, 1:2, mean) # about S / (10 - 3 - 1)
#' @template ref-bartlett
#' @template param-dots-none
#' @export
rwishart <- function(n, df, Sigma, chol = FALSE, ...) {
  refuse_unknown_args("rwishart", ...)
  n <- check_count(n, "n")
  Sigma <- check_spd(Sigma, "Sigma")
  df <- check_wishart_df(df, nrow(Sigma))
  check_flag(chol, "chol")
  check_cells(n * nrow(Sigma)^2, "the draws", "n")
  out <- rwishart_cpp(n, df, Sigma, chol)
  name_slices(out, dimnames(Sigma))
}

#' @rdname rwishart
#' @export
riwishart <- function(n, df, Psi, chol = FALSE, ...) {
  refuse_unknown_args("riwishart", ...)
  n <- check_count(n, "n")
  Psi <- check_spd(Psi, "Psi")
  df <- check_wishart_df(df, nrow(Psi))
  check_flag(chol, "chol")
  check_cells(n * nrow(Psi)^2, "the draws", "n")
  out <- checked_iwishart_draws(riwishart_cpp(n, df, Psi, chol, FALSE), df, nrow(Psi))
  name_slices(out, dimnames(Psi))
}

# The inverse-Wishart draws, or a classed error when one cannot be
# represented in double precision: its entries are of the order of the
# scale's over a Bartlett chi-square, so they overflow when a chi-square with
# df - j degrees of freedom underflowed (likely when df - p + 1 is far below
# 1) or when the scale is near the double range. Never returns non-finite draws.
checked_iwishart_draws <- function(out, df, p, what = "`df`") {
  failed <- attr(out, "failed")
  attr(out, "failed") <- NULL
  if (isTRUE(failed > 0) || !(is.finite(min(out)) && is.finite(max(out)))) {
    # probability that one draw fails: a chi-square with df - j (j = 0..p-1)
    # degrees of freedom below the smallest normal double
    risk <- 1 - prod(stats::pchisq(.Machine$double.xmin, df - seq(0, p - 1), lower.tail = FALSE))
    abort(paste0("%s = %s with p = %d: %s of the inverse-Wishart draws cannot be represented in double ",
                 "precision. A draw's entries are of the order of the scale matrix's over a Bartlett chi-square ",
                 "with df - p + 1 = %s degrees of freedom: they overflow when that chi-square falls below 2.2e-308 ",
                 "(about %s%% of the draws at this df) or when the scale's entries are near the double range. ",
                 "Use a larger df, or rescale the scale matrix."),
          what, format(df, digits = 15), as.integer(p), if (isTRUE(failed > 0)) failed else "some",
          format(df - (p - 1), digits = 15), format(signif(100 * risk, 2)), .arg = "df")
  }
  out
}

name_slices <- function(a, dn) {
  if (!is.null(dn)) dimnames(a) <- c(dn, list(NULL))
  a
}
