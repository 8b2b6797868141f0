#' @param lower,upper,bounds Public per-column bounds instead of `clip` (see
#'   [dpcov_arguments]): each value is clamped to its column's public range
#'   and divided by \eqn{s_j = \max(|l_j|, |u_j|)}, a linear map to the box
#'   \eqn{[-1, 1]^p}; the mechanism runs there on rows of norm at most
#'   \eqn{\sqrt p} (nothing clipped) and its output \eqn{M} is mapped back to
#'   the data's units, \eqn{S M S}, on the mechanism's own scale (for the
#'   JL mechanisms a public ridge \eqn{wI} on the box is the per-column
#'   ridge \eqn{w s_j^2}, `ridge`, one per column, which [dp_as_cov()]
#'   removes as for any release; for the posterior mechanisms a draw stays
#'   a draw, its prior \eqn{\psi s_j^2}); positive definiteness is kept. The release records the bounds in
#'   `params$bounds`; its noise parameters are the box's, and dp_lm()'s
#'   bootstrap redraws the noise there. [dp_threshold()]'s threshold applies
#'   on the box scale. Data (a matrix or data frame) only; central model only.
#'   Under zero-out, a range that excludes 0 moves the zero record: its box
#'   row's norm enters the sensitivity. `NULL` (default): `clip`.
