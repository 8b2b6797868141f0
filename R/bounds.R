# Private choice of the row-norm bound B: a private quantile of the row L2
# norms, by the exponential mechanism over the data-free interval
# [lower, upper] (log scale), and (optionally) a noisy count of the rows the
# chosen bound clips.

#' Private choice of the clipping bound
#'
#' Every central mechanism in dpcov needs a row-norm bound B (`clip`): rows
#' longer than B are shrunk to length B, and the noise grows with B. Choosing
#' B by looking at the data (e.g. the largest row norm) is itself a leak.
#' `dp_clip_bound()` picks B as a **private quantile of the row L2 norms**
#' with the exponential mechanism (McSherry and Talwar 2007) in the
#' continuous form of Smith (2011), and reports how many rows B clips only
#' through a noisy count.
#'
#' @section The mechanism:
#' The candidates are every bound in the data-free range \[`lower`, `upper`\],
#' on the log scale. With \eqn{c(b) = \#\{i : \|x_i\|_2 \le b\}} and \eqn{n}
#' the number of rows, bound \eqn{b} has utility
#' \deqn{u(b) = -|c(b) - q n|,}
#' and \eqn{\log b} is drawn with density proportional to
#' \eqn{\exp(\epsilon_B u(b) / (2 \Delta_u))}, \eqn{\Delta_u = 1}. The row
#' norms, clamped to \[`lower`, `upper`\], cut the range into n + 1
#' intervals on which \eqn{c} is constant: interval k (k rows at or below it)
#' is chosen with probability proportional to its log-width times
#' \eqn{\exp(-\epsilon_B |k - qn| / 2)} (Gumbel-max trick), and \eqn{\log B}
#' uniformly within it, all from R's RNG (reproducible under `set.seed()`).
#' This is the quantile of Smith (2011), also used by diffprivlib. Weighting
#' by width matters: a grid of candidates with this utility puts equal weight
#' on every candidate above the largest norm (all clip nothing), so when the
#' norms are concentrated (data with a large mean) it picks a bound far above
#' them as often as a good one.
#'
#' **Sensitivity** \eqn{\Delta_u = 1} for every neighbour notion:
#' * `"replace-one"`: n is fixed, and replacing one row changes each
#'   \eqn{c(b)} by at most 1, so \eqn{u(b)} changes by at most 1.
#' * `"zero-out"`: as replace-one (the all-zero row has norm 0 <= b).
#' * `"add-remove"`: adding a row changes \eqn{c(b)} by \eqn{I \in \{0, 1\}}
#'   and \eqn{q n} by \eqn{q}, so \eqn{c(b) - q n} by \eqn{I - q}, at most
#'   \eqn{\max(q, 1 - q) \le 1} in absolute value (removing: the same with
#'   the sign flipped). n itself is used inside the mechanism but not
#'   released.
#'
#' The density of \eqn{\log B} at every point changes by a factor at most
#' \eqn{e^{\epsilon_B}} between neighbours (numerator and normalising
#' constant by \eqn{e^{\epsilon_B/2}} each), so the choice is
#' \eqn{\epsilon_B}-DP. Because the range is data-free and the norms are
#' clamped to it, rows longer than `upper` (or shorter than `lower`)
#' influence the output only through the fact that they are: making them even
#' longer (shorter) changes nothing, not even the random draws.
#'
#' **Accuracy.** Intervals whose rank is m rows from the target carry
#' weight \eqn{e^{-\epsilon_B m / 2}}: the rank error is a few times
#' \eqn{2/\epsilon_B} rows plus \eqn{2 \log(W / w)/\epsilon_B}, where W is the
#' log-width of the whole range and w that of the data's intervals near the
#' quantile. It is small once \eqn{n \epsilon_B} is large (n = 20000,
#' \eqn{\epsilon_B} = 0.1: within a few hundred rows); for small
#' \eqn{n\epsilon_B} the wide empty ends of the range win often, so give a
#' narrower public range, or a bound from public knowledge.
#'
#' @section The default range:
#' `lower = 1e-3`, `upper = 1e6`: nine decades. The range must be fixed
#' without the data; it covers row norms of data in common units
#' (standardised data has norms near \eqn{\sqrt p}; raw measurements up to
#' the millions). If your data's norms may lie outside it, widen it (from
#' public knowledge, never from the data). When the targeted quantile lies
#' beyond one end, B concentrates at that end, and `print()` says so.
#'
#' @section How many rows B clips:
#' With `count_share > 0` (default 0.1), a share `count_share * epsilon` of
#' the budget releases the number of rows longer than the chosen B plus
#' two-sided geometric noise (Ghosh, Roughgarden and Sundararajan 2012),
#' \eqn{P(Z = k) \propto \exp(-\epsilon_C |k|)}: the count has sensitivity 1
#' under all three neighbour notions (one row added, removed, replaced or
#' zeroed moves one row in or out of it). The noise is integer, symmetric and
#' unbiased (the released count may be negative), and avoids the
#' floating-point attacks on the continuous Laplace mechanism. The exponential
#' mechanism gets the remaining \eqn{\epsilon_B = (1 -}
#' `count_share`\eqn{)\epsilon}. With `count_share = 0` no count is released,
#' only the data-free target fraction \eqn{1 - q}.
#'
#' The two steps compose to epsilon-differential privacy (delta = 0). The
#' result holds the chosen bound and the settings; never n, a row norm, or a
#' count without noise.
#'
#' @param x A numeric matrix or data frame (rows are records; the input forms
#'   the mechanisms accept), or a chunk reader: a function that returns the
#'   next block of rows on each call and `NULL` when done (read once; the row
#'   norms, n numbers, are kept; a reader to be used again for the release
#'   afterwards must start over). A [second_moment()] object cannot be used:
#'   it holds no row norms.
#' @param epsilon Privacy loss of the whole call (delta = 0), in \[1e-6, 1000\].
#' @param quantile Target fraction q of rows with norm <= B, in (0, 1];
#'   default 0.9 (B clips about 10% of the rows).
#' @param lower,upper The ends of the data-free range of B, `0 < lower <
#'   upper`, within \[1e-50, 1e50\]. Defaults 1e-3 and 1e6.
#' @param neighbor `"add-remove"` (default; n is not released), `"replace-one"`
#'   or `"zero-out"` (n public). The sensitivities are 1 for all three (see
#'   the Details), so the output distribution is the same; the notion is recorded so
#'   the guarantee names it, and should match the release B is used for.
#' @param budget A [dp_budget()] to charge (epsilon, 0) before the data is
#'   read, or `NULL`.
#' @param count_share Share of `epsilon` spent on the noisy count of clipped
#'   rows, in \[0, 1); default 0.1. 0 releases no count.
#' @param ... Nothing: an argument dp_clip_bound() does not take is an error (a
#'   misspelt name is refused, not ignored).
#' @return An object of class `dp_bound`: a list with `bound` (the chosen B;
#'   `as.numeric()` of the object also returns it, so
#'   `analyze_gauss(x, eps, delta, clip = b$bound)` works), `quantile`,
#'   `epsilon` (total), `epsilon_bound`, `epsilon_count`, `delta` (0),
#'   `neighbor`, `n_clipped` (the noisy count of rows longer than B, or `NA`
#'   with `count_share = 0`), `count_noise_sd` (its noise's standard
#'   deviation), `lower`, `upper`, `mechanism`, `guarantee` (in words),
#'   `budget_charge` (the charge's row in the ledger when it was made, or `NULL` without a budget) and
#'   `call`. Its print method states the guarantee.
#'
#'   A later release with `clip = b$bound` spends its own budget: by basic
#'   composition the pipeline is (epsilon + epsilon', delta')-DP.
#' @references McSherry, F. and Talwar, K. (2007). Mechanism design via
#'   differential privacy. *Proceedings of the 48th Annual IEEE Symposium on
#'   Foundations of Computer Science (FOCS)*, 94-103.
#'
#'   Smith, A. (2011). Privacy-preserving statistical estimation with optimal
#'   convergence rates. *Proceedings of the 43rd ACM Symposium on Theory of
#'   Computing (STOC)*, 813-822.
#'
#'   Ghosh, A., Roughgarden, T. and Sundararajan, M. (2012). Universally
#'   utility-maximizing privacy mechanisms. *SIAM Journal on Computing*
#'   41(6), 1673-1693.
#' @examples
#' x <- matrix(rnorm(2000 * 3, sd = 2), 2000, 3)
#' b <- dp_clip_bound(x, epsilon = 0.5)
#' b
#' analyze_gauss(x, epsilon = 0.5, delta = 1e-6, clip = b$bound)
#' @export
dp_clip_bound <- function(x, epsilon, quantile = 0.9, lower = 1e-3, upper = 1e6,
                          neighbor = "add-remove", count_share = 0.1, budget = NULL, ...) {
  refuse_unknown_args("dp_clip_bound", ...)
  call <- match.call()
  if (missing(x)) abort_missing("x")
  epsilon <- check_epsilon(epsilon)
  quantile <- check_number(quantile, "quantile", lower = 0, upper = 1, upper_open = FALSE)
  lower <- check_finite_clip(lower, "lower", "the candidate range is finite")
  upper <- check_finite_clip(upper, "upper", "the candidate range is finite")
  if (lower >= upper) {
    abort("`upper` must be larger than `lower`; got lower = %s, upper = %s.", format(lower), format(upper),
          .arg = "upper")
  }
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  count_share <- check_number(count_share, "count_share", lower = 0, upper = 1, lower_open = FALSE)
  if (count_share > 0 && !(count_share * epsilon >= 1e-300)) {
    # the count's noise would have no finite scale (Inf - Inf: NaN)
    abort("`count_share` * `epsilon` (%s) is too small for the noisy count: give 0 (no count) or a larger share.",
          format(count_share * epsilon), .arg = "count_share")
  }
  if (inherits(x, "dp_suffstat")) {
    abort(paste0("`x` is a dp_suffstat (a clipped Gram matrix): it holds no row norms, so no bound ",
                 "can be chosen from it; pass the data matrix, data frame or a chunk reader."), .arg = "x")
  }
  # the quantile's utility and the clipped count move by at most 1 under every
  if (is.function(x)) reader_columns(x)  # a package reader's source is checked before the charge
  # notion, so the charge holds under all of them; its zCDP rho: the
  # exponential mechanism's (epsilon^2 / 8) and the geometric count's (epsilon^2 / 2)
  charge <- budget_charge(budget, "dp_clip_bound", epsilon, 0, neighbor = "any",
                          rho = em_zcdp_rho((1 - count_share) * epsilon) + (count_share * epsilon)^2 / 2)
  norms <- with_refund(budget, charge,
                       if (is.function(x)) row_norms_stream(x) else sqrt(row_sq_norms(check_data_matrix(x, min_rows = 0L))))

  # everything below the norms is the mechanism; nothing derived from them
  # without noise leaves this function
  epsilon_bound <- (1 - count_share) * epsilon
  epsilon_count <- count_share * epsilon
  iv <- quantile_intervals(norms, quantile, lower, upper, epsilon_bound,
                           quantile_utility_sensitivity(neighbor))
  # Gumbel-max: argmax(log w_k + G_k), G_k iid standard Gumbel, is a draw from
  # w / sum(w); then log B uniform in the chosen interval
  note_draw()
  k <- which.max(iv$log_weight + gumbel_noise(length(iv$log_weight)))
  bound <- exp(iv$z[k] + stats::runif(1L) * (iv$z[k + 1L] - iv$z[k]))
  bound <- min(max(bound, lower), upper)
  n_clipped <- NA_real_
  count_sd <- NA_real_
  if (count_share > 0) {
    n_clipped <- sum(norms > bound) + rgeometric2(1, epsilon_count)
    alpha <- geometric_alpha(1, epsilon_count)
    count_sd <- sqrt(2 * alpha) / -expm1(-epsilon_count)  # sd of the difference of two geometrics
  }
  structure(list(
    bound = bound, quantile = quantile, epsilon = epsilon, epsilon_bound = epsilon_bound,
    epsilon_count = epsilon_count, delta = 0, neighbor = neighbor, n_clipped = as.double(n_clipped),
    count_noise_sd = count_sd, lower = lower, upper = upper,
    mechanism = "exponential mechanism over [lower, upper] on the log scale (McSherry and Talwar 2007; Smith 2011)",
    guarantee = bound_guarantee_text(epsilon, neighbor),
    budget_charge = charge, call = release_call(call)), class = "dp_bound")
}

# Squared row norms, one column at a time: n-vectors only, no n x p copy.
# A square that overflows to Inf is a row longer than any bound.
row_sq_norms <- function(x) {
  s <- numeric(nrow(x))
  for (j in seq_len(ncol(x))) s <- s + x[, j]^2
  s
}

# The row norms of a chunk reader's blocks, in one pass.
# (the blocks' norms are kept in a list and joined once: combining them
# block by block copied the growing vector each time, quadratic in the
# number of blocks; memory is one double per row)
row_norms_stream <- function(reader) {
  parts <- reader_fold(reader, function(b) list(sqrt(row_sq_norms(b))), combine = c)$total
  unlist(parts, use.names = FALSE)
}


# Validate a dp_bound given as input (hand-made objects included).
check_bound <- function(x, arg = "x") {
  if (missing(x)) abort_missing(arg)
  check_object(x, "dp_bound", list(
    bound = function(v) is_num1(v) && v > 0,
    quantile = function(v) is_num1(v) && v > 0 && v <= 1,
    epsilon = function(v) is_num1(v) && v > 0,
    epsilon_bound = function(v) is_num1(v) && v > 0,
    epsilon_count = function(v) is_num1(v) && v >= 0,
    neighbor = function(v) is_string(v) && v %in% dp_neighbors,
    n_clipped = function(v) is_num1(v, na_ok = TRUE) && (is.na(v) || v == round(v)),
    count_noise_sd = function(v) is_num1(v, na_ok = TRUE) && (is.na(v) || v >= 0),
    lower = function(v) is_num1(v) && v > 0,
    upper = function(v) is_num1(v) && v > 0,
    guarantee = is_string, mechanism = is_string), arg = arg)
  # (printed as they are: a range upside down, or a step larger than the whole)
  if (!(x$lower < x$upper)) abort("`%s` is not a valid dp_bound: its `lower` must be below its `upper`.", arg, .arg = arg)
  if (x$epsilon_bound + x$epsilon_count > x$epsilon * (1 + 1e-9)) {
    abort("`%s` is not a valid dp_bound: its steps' epsilon_bound and epsilon_count exceed its `epsilon`.", arg, .arg = arg)
  }
  invisible(x)
}

#' Print and convert a private clipping bound
#'
#' @param x A `dp_bound` from [dp_clip_bound()].
#' @param digits Significant digits to print.
#' @param ... Unused.
#' @return `print` returns `x` invisibly; `as.numeric()` (`as.double()`) the
#'   chosen bound B.
#' @examples
#' b <- dp_clip_bound(matrix(rnorm(3000), 1000, 3), epsilon = 1)
#' print(b)
#' as.numeric(b)
#' @name dp_bound
NULL

#' @rdname dp_bound
#' @export
print.dp_bound <- function(x, digits = 4, ...) {
  check_bound(x)
  digits <- check_digits(digits)
  fmt <- function(v) format(v, digits = digits)
  cat(sprintf("<dp_bound> private row-norm bound B = %s\n", fmt(x$bound)))
  cat_wrapped("Guarantee:", x$guarantee)
  cat(sprintf("Target: the %s quantile of the row L2 norms (B should clip about %s%% of the rows)\n",
              fmt(x$quantile), fmt(100 * (1 - x$quantile))))
  cat(sprintf("Mechanism: %s, epsilon = %s, data-free range [%s, %s]\n",
              x$mechanism, format_privacy(x$epsilon_bound), fmt(x$lower), fmt(x$upper)))
  if (is.na(x$n_clipped)) {
    cat("Rows clipped by B: not released (count_share = 0); the target is a fraction",
        fmt(1 - x$quantile), "of the rows.\n")
  } else {
    cat(sprintf("Rows clipped by B (noisy count, two-sided geometric noise, epsilon = %s, sd %s): %s\n",
                format_privacy(x$epsilon_count), fmt(x$count_noise_sd), format(x$n_clipped)))
  }
  if (x$bound >= x$upper / 1.1) {
    cat_wrapped("Note: B is near the top of the range; the quantile may lie above it. Raise `upper` (from public knowledge).")
  } else if (x$bound <= x$lower * 1.1) {
    cat_wrapped("Note: B is near the bottom of the range; the quantile may lie below it. Lower `lower` (from public knowledge).")
  }
  invisible(x)
}

#' @rdname dp_bound
#' @export
as.double.dp_bound <- function(x, ...) {
  check_bound(x)
  x$bound
}
