#' @references Wang, D. and Xu, J. (2019). Differentially private high
#'   dimensional sparse covariance matrix estimation. *53rd Annual Conference
#'   on Information Sciences and Systems (CISS 2019)*; journal version
#'   *Theoretical Computer Science* 865 (2021), 119-130. arXiv:1901.06413.
#'
#'   Li, H. and Wang, J. (2023). Differentially private sparse covariance
#'   matrix estimation under lower-bounded moment assumption. *Mathematics*
#'   11(17), 3670. doi:10.3390/math11173670.
