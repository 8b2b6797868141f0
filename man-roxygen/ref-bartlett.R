#' @references Smith, W. B. and Hocking, R. R. (1972). Algorithm AS 53:
#'   Wishart variate generator. *Journal of the Royal Statistical Society,
#'   Series C (Applied Statistics)* 21(3), 341-345.
