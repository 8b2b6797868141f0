#' @param lower,upper,bounds Public per-column bounds instead of `clip` (see
#'   [dpcov_arguments]): each value is clamped to its column's public range
#'   and divided by \eqn{s_j = \max(|l_j|, |u_j|)}, a linear map to the box
#'   \eqn{[-1, 1]^p}; the mechanism runs there on rows of norm at most
#'   \eqn{\sqrt p} (nothing clipped) and its estimate of the sum (public ridge
#'   removed, a posterior draw rescaled) or of the average is mapped back to
#'   the data's units, \eqn{S \hat G S} (on the `"sum"` or `"average"` scale;
#'   the release records the bounds in `params$bounds`, and dp_lm()'s
#'   bootstrap redraws its noise on the box scale). Thresholds apply on the box
#'   scale. Data (a matrix or data frame) only; central model only. Under
#'   zero-out, a range that excludes 0 moves the zero record: its box row's
#'   norm enters the sensitivity. `NULL` (default): `clip`.
