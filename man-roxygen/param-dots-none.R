#' @param ... Nothing: an argument the function does not take is an error (a
#'   misspelt name is refused, not ignored).
