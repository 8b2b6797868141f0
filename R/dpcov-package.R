#' dpcov: differentially private covariance and second-moment matrices
#'
#' Releases covariance and second-moment matrices under differential privacy.
#' Start with `vignette("getting-started", package = "dpcov")`.
#'
#' @keywords internal
#' @useDynLib dpcov, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom stats confint formula nobs predict vcov sigma residuals fitted model.matrix biplot screeplot
#' @importFrom stats alias case.names cooks.distance dfbeta dfbetas dummy.coef effects extractAIC family
#' @importFrom stats hatvalues influence model.frame proj rstandard rstudent simulate variable.names
#' @importFrom graphics plot
"_PACKAGE"
