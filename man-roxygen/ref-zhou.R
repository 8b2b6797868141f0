#' @references Zhou, S., Ligett, K. and Wasserman, L. (2009). Differential
#'   privacy with compression. *Proceedings of the IEEE International
#'   Symposium on Information Theory (ISIT 2009)*, 2718-2722. Full version:
#'   arXiv:0901.1365.
