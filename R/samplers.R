#' Wishart and inverse-Wishart random matrices
#'
#' Draws by the Bartlett decomposition in the C++ core, factoring the scale
#' matrix once per call. `rwishart()` returns \eqn{W \sim W_p(\Sigma, df)}
#' (mean `df * Sigma`); `riwishart()` returns \eqn{M \sim W_p^{-1}(\Psi, df)},
#' i.e. \eqn{M^{-1} \sim W_p(\Psi^{-1}, df)} (mean `Psi / (df - p - 1)` for
#' `df > p + 1`), without inverting `Psi` or any full matrix.
#'
#' `rwishart()` consumes R's random numbers in the same order as
#' [stats::rWishart()], so under the same seed the two give the same draws.
#'
#' @param n Number of draws (>= 1).
#' @param df Degrees of freedom, a real number > p - 1.
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
#' @export
rwishart <- function(n, df, Sigma, chol = FALSE) {
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
riwishart <- function(n, df, Psi, chol = FALSE) {
  n <- check_count(n, "n")
  Psi <- check_spd(Psi, "Psi")
  df <- check_wishart_df(df, nrow(Psi))
  check_flag(chol, "chol")
  check_cells(n * nrow(Psi)^2, "the draws", "n")
  out <- riwishart_cpp(n, df, Psi, chol)
  name_slices(out, dimnames(Psi))
}

name_slices <- function(a, dn) {
  if (!is.null(dn)) dimnames(a) <- c(dn, list(NULL))
  a
}
