#' @references Li, H. and Wang, J. (2023). Differentially private sparse
#'   covariance matrix estimation under lower-bounded moment assumption.
#'   *Mathematics* 11(17), 3670. doi:10.3390/math11173670. (Section 4.2 and
#'   Table 7: the QDA study this function serves.)
#'
#'   Wu, G. D., Chen, J., Hoffmann, C., et al. (2011). Linking long-term
#'   dietary patterns with gut microbial enterotypes. *Science* 334(6052),
#'   105-108. doi:10.1126/science.1208344. (The COMBO data.)
