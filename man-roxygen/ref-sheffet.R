#' @references Sheffet, O. (2019). Old techniques in differentially private
#'   linear regression. *Proceedings of the 30th International Conference on
#'   Algorithmic Learning Theory (ALT 2019)*, PMLR 98, 789-827. Earlier
#'   version: Private approximations of the 2nd-moment matrix using existing
#'   techniques in linear regression, arXiv:1507.00056.
