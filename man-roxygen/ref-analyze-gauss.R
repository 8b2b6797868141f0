#' @references Dwork, C., Talwar, K., Thakurta, A. and Zhang, L. (2014).
#'   Analyze Gauss: optimal bounds for privacy-preserving principal component
#'   analysis. *Proceedings of the 46th Annual ACM Symposium on Theory of
#'   Computing (STOC 2014)*, 11-20.
