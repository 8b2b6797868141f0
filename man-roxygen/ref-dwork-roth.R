#' @references Dwork, C. and Roth, A. (2014). The algorithmic foundations of
#'   differential privacy. *Foundations and Trends in Theoretical Computer
#'   Science* 9(3-4), 211-407.
