# Private choice of the row-norm bound B: a private quantile of the row L2
# norms, by the exponential mechanism over a data-free log-spaced grid, and
# (optionally) a noisy count of the rows the chosen bound clips.

#' Private choice of the clipping bound
#'
#' Every central mechanism in dpcov needs a row-norm bound B (`clip`): rows
#' longer than B are shrunk to length B, and the noise grows with B. Choosing
#' B by looking at the data (e.g. the largest row norm) is itself a leak.
#' `dp_clip_bound()` picks B as a **private quantile of the row L2 norms**
#' with the exponential mechanism (McSherry and Talwar 2007), and reports how
#' many rows B clips only through a noisy count.
#'
#' @section The mechanism:
#' The candidates are a grid fixed before the data is seen: \eqn{K + 1}
#' log-spaced bounds \eqn{b_0 = } `lower` \eqn{< b_1 < \dots < b_K = } `upper`
#' with `bins` candidates per decade (\eqn{K = \lceil bins \cdot
#' \log_{10}(upper/lower) \rceil}). With \eqn{c(b) = \#\{i : \|x_i\|_2 \le b\}}
#' and \eqn{n} the number of rows, candidate \eqn{b} has utility
#' \deqn{u(b) = -|c(b) - q n|,}
#' and is chosen with probability proportional to
#' \eqn{\exp(\epsilon_B u(b) / (2 \Delta_u))}, \eqn{\Delta_u = 1}, sampled with
#' the Gumbel-max trick from R's RNG (reproducible under `set.seed()`).
#'
#' **Sensitivity** \eqn{\Delta_u = 1} for every neighbour notion:
#' * `"replace-one"`: n is fixed, and replacing one row changes each
#'   \eqn{c(b)} by at most 1 (the old row may leave the count, the new one
#'   enter it, not both in the same direction), so \eqn{u(b)} changes by at
#'   most 1.
#' * `"zero-out"`: as replace-one (the all-zero row has norm 0 <= b).
#' * `"add-remove"`: adding a row changes \eqn{c(b)} by \eqn{I \in \{0, 1\}}
#'   and \eqn{q n} by \eqn{q}, so \eqn{c(b) - q n} by \eqn{I - q}, at most
#'   \eqn{\max(q, 1 - q) \le 1} in absolute value (removing: the same with
#'   the sign flipped). n itself is used inside the mechanism but not
#'   released.
#'
#' Because the grid is data-free and \eqn{c(b)} only asks whether a row is
#' shorter than each grid point, rows longer than `upper` (or shorter than
#' `lower`) influence the output only through the fact that they are: making
#' them even longer (shorter) changes nothing, not even the random draws.
#'
#' **Accuracy** (Dwork and Roth 2014, Theorem 3.11): with probability at least
#' \eqn{1 - \beta} the chosen \eqn{b} has \eqn{|c(b) - q n|} within
#' \eqn{2 (\ln(K + 1) + \ln(1/\beta)) / \epsilon_B} rows of the best grid
#' point's. With the default grid (181 candidates), \eqn{\epsilon_B = 0.9}
#' and \eqn{\beta = 0.01} that is about 22 rows, whatever n is.
#'
#' @section The default grid:
#' `lower = 1e-3`, `upper = 1e6`, `bins = 20`: nine decades, 181 candidates.
#' The range must be fixed without the data; it covers row norms of data in
#' common units (standardised data has norms near \eqn{\sqrt p}, so up to
#' about 100 for \eqn{p \le 10^4}; raw measurements up to the millions).
#' Adjacent candidates differ by \eqn{10^{1/20} \approx 1.122}, so the grid
#' puts B at most 12% above the norm of the targeted quantile, which inflates
#' the noise of a second-moment release (proportional to \eqn{B^2}) by at most
#' 26%. A finer grid costs little, \eqn{2 \ln 2 / \epsilon_B} rows of accuracy
#' per doubling, but gains little either. If your data's norms may lie
#' outside \[`lower`, `upper`\], widen the range (from public knowledge, never
#' from the data). When the targeted quantile lies beyond one end, the choice
#' concentrates on that end, and `print()` says so; but when *all* rows lie
#' beyond the grid, every candidate has the same utility and B is uniform on
#' the grid (no private choice can tell where the data went). A noisy count
#' of clipped rows near n (or near 0 with B small) is the sign of that.
#'
#' @section How many rows B clips:
#' With `count_share > 0` (default 0.1), a share `count_share * epsilon` of
#' the budget releases the number of rows longer than the chosen B plus
#' two-sided geometric noise (Ghosh, Roughgarden and Sundararajan 2012),
#' \eqn{P(Z = k) \propto \exp(-\epsilon_C |k|)}: the count has sensitivity 1
#' under all three neighbour notions (one row added, removed, replaced or
#' zeroed moves one row in or out of it). The noise is integer, symmetric and
#' unbiased (the released count may be negative), and avoids the
#' floating-point attacks on the continuous Laplace mechanism. The default
#' share puts the count's noise (sd \eqn{\approx \sqrt2 / \epsilon_C}, about
#' 14 rows at epsilon = 1) on the scale of the quantile's own rank error; the
#' exponential mechanism gets the remaining \eqn{\epsilon_B = (1 -}
#' `count_share`\eqn{)\epsilon}. With `count_share = 0` no count is released,
#' only the data-free target fraction \eqn{1 - q}.
#'
#' The two steps compose to epsilon-differential privacy (delta = 0). The
#' result holds the chosen bound, the data-free grid and the settings; never
#' n, a row norm, or a count without noise.
#'
#' @param x A numeric matrix or data frame (rows are records; the input forms
#'   the mechanisms accept), or a chunk reader: a function that returns the
#'   next block of rows on each call and `NULL` when done (read once, in one
#'   pass that accumulates only the histogram of row norms over the grid; a
#'   reader to be used again for the release afterwards must start over). A
#'   [second_moment()] object cannot be used: it holds no row norms.
#' @param epsilon Privacy loss of the whole call (delta = 0), in \[1e-6, 1000\].
#' @param quantile Target fraction q of rows with norm <= B, in (0, 1];
#'   default 0.9 (B clips about 10% of the rows).
#' @param lower,upper The ends of the candidate grid, `0 < lower < upper`,
#'   within \[1e-50, 1e50\]. Data-free defaults 1e-3 and 1e6.
#' @param bins Candidates per decade (factor of 10), a whole number in
#'   \[1, 1000\]; default 20.
#' @param neighbor `"add-remove"` (default; n is not released), `"replace-one"`
#'   or `"zero-out"` (n public). The sensitivities are 1 for all three (see
#'   above), so the output distribution is the same; the notion is recorded so
#'   the guarantee names it, and should match the release B is used for.
#' @param count_share Share of `epsilon` spent on the noisy count of clipped
#'   rows, in \[0, 1); default 0.1. 0 releases no count.
#' @return An object of class `dp_bound`: a list with `bound` (the chosen B;
#'   `as.numeric()` of the object also returns it, so
#'   `analyze_gauss(x, eps, delta, clip = b$bound)` works), `quantile`,
#'   `epsilon` (total), `epsilon_bound`, `epsilon_count`, `delta` (0),
#'   `neighbor`, `n_clipped` (the noisy count of rows longer than B, or `NA`
#'   with `count_share = 0`), `count_noise_sd` (its noise's standard
#'   deviation), `grid` (the candidates), `lower`, `upper`, `bins`,
#'   `mechanism`, `guarantee` (in words) and `call`. Its print method states
#'   the guarantee.
#'
#'   A later release with `clip = b$bound` spends its own budget: by basic
#'   composition the pipeline is (epsilon + epsilon', delta')-DP.
#' @references McSherry, F. and Talwar, K. (2007). Mechanism design via
#'   differential privacy. *Proceedings of the 48th Annual IEEE Symposium on
#'   Foundations of Computer Science (FOCS)*, 94-103.
#'
#'   Ghosh, A., Roughgarden, T. and Sundararajan, M. (2012). Universally
#'   utility-maximizing privacy mechanisms. *SIAM Journal on Computing*
#'   41(6), 1673-1693.
#'
#'   Dwork, C. and Roth, A. (2014). The algorithmic foundations of
#'   differential privacy. *Foundations and Trends in Theoretical Computer
#'   Science* 9(3-4), 211-407.
#' @examples
#' x <- matrix(rnorm(2000 * 3, sd = 2), 2000, 3)
#' b <- dp_clip_bound(x, epsilon = 0.5)
#' b
#' analyze_gauss(x, epsilon = 0.5, delta = 1e-6, clip = b$bound)
#' @export
dp_clip_bound <- function(x, epsilon, quantile = 0.9, lower = 1e-3, upper = 1e6, bins = 20,
                          neighbor = "add-remove", count_share = 0.1) {
  call <- match.call()
  if (missing(x)) abort_missing("x")
  epsilon <- check_epsilon(epsilon)
  quantile <- check_number(quantile, "quantile", lower = 0, upper = 1, upper_open = FALSE)
  lower <- check_grid_end(lower, "lower")
  upper <- check_grid_end(upper, "upper")
  if (lower >= upper) {
    abort("`upper` must be larger than `lower`; got lower = %s, upper = %s.", format(lower), format(upper),
          .arg = "upper")
  }
  bins <- check_count(bins, "bins", min = 1, max = 1000)
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  count_share <- check_number(count_share, "count_share", lower = 0, upper = 1, lower_open = FALSE)
  if (inherits(x, "dp_suffstat")) {
    abort(paste0("`x` is a dp_suffstat (a clipped Gram matrix): it holds no row norms, so no bound ",
                 "can be chosen from it; pass the data matrix, data frame or a chunk reader."), .arg = "x")
  }
  grid <- clip_bound_grid(lower, upper, bins)
  hist <- if (is.function(x)) norm_histogram_stream(x, grid) else norm_histogram(check_data_matrix(x), grid)

  # everything below the histogram is the mechanism; nothing derived from
  # `hist` without noise leaves this function
  n <- sum(hist)
  at_most <- cumsum(hist)[seq_along(grid)]  # c(b_k) = #{i : ||x_i|| <= b_k}
  epsilon_bound <- (1 - count_share) * epsilon
  epsilon_count <- count_share * epsilon
  log_prob <- exp_mech_log_prob(-abs(at_most - quantile * n), epsilon_bound,
                                quantile_utility_sensitivity(neighbor))
  # Gumbel-max: argmax(log p_k + G_k), G_k iid standard Gumbel, is a draw from p
  k <- which.max(log_prob - log(-log(stats::runif(length(grid)))))
  n_clipped <- NA_real_
  count_sd <- NA_real_
  if (count_share > 0) {
    n_clipped <- (n - at_most[k]) + rgeometric2(1, epsilon_count)
    alpha <- geometric_alpha(1, epsilon_count)
    count_sd <- sqrt(2 * alpha) / -expm1(-epsilon_count)  # sd of the difference of two geometrics
  }
  structure(list(
    bound = grid[k], quantile = quantile, epsilon = epsilon, epsilon_bound = epsilon_bound,
    epsilon_count = epsilon_count, delta = 0, neighbor = neighbor, n_clipped = as.double(n_clipped),
    count_noise_sd = count_sd, grid = grid, lower = lower, upper = upper, bins = bins,
    mechanism = "exponential mechanism over a log-spaced grid (McSherry and Talwar 2007)",
    guarantee = bound_guarantee_text(epsilon, neighbor),
    call = release_call(call)), class = "dp_bound")
}

# The ends of the grid: positive, finite, in the range of a `clip`.
check_grid_end <- function(v, arg) {
  v <- check_clip(v, arg)
  if (!is.finite(v)) abort("`%s` must be finite (the candidate grid is finite).", arg, .arg = arg)
  v
}

# The data-free candidates: log-spaced, `bins` per decade (slightly more when
# the range is not a whole number of decades), both ends exact.
clip_bound_grid <- function(lower, upper, bins) {
  K <- max(1, ceiling(bins * log10(upper / lower) - 1e-9))
  grid <- exp(seq(log(lower), log(upper), length.out = K + 1))
  grid[c(1, K + 1)] <- c(lower, upper)
  grid
}

# Squared row norms, one column at a time: n-vectors only, no n x p copy.
# A square that overflows to Inf is a row longer than any grid point.
row_sq_norms <- function(x) {
  s <- numeric(nrow(x))
  for (j in seq_len(ncol(x))) s <- s + x[, j]^2
  s
}

# Histogram of the row norms over the grid: cell 1 holds rows with norm <=
# grid[1], cell k + 1 rows in (grid[k], grid[k + 1]], the last cell rows
# longer than grid[K + 1]. Compared on the squared scale (grid^2 is finite
# and positive for grid ends in [1e-50, 1e50]).
norm_histogram <- function(x, grid) {
  cell <- findInterval(row_sq_norms(x), grid^2, left.open = TRUE)
  as.double(tabulate(cell + 1L, nbins = length(grid) + 1L))
}

# The same histogram accumulated over the blocks of a chunk reader, in one pass.
norm_histogram_stream <- function(reader, grid) {
  check_reader(reader)
  hist <- numeric(length(grid) + 1L)
  p <- NULL
  repeat {
    block <- tryCatch(reader(), error = function(e) {
      abort("the reader function `x` failed: %s", conditionMessage(e), .arg = "x")
    })
    if (is.null(block)) break
    block <- with_arg(check_data_matrix(block, arg = "a block returned by the reader", min_rows = 0L),
                      "x", "the reader")
    if (is.null(p)) {
      p <- ncol(block)
    } else if (ncol(block) != p) {
      abort("the reader `x` returned a block with %d columns after blocks with %d.", ncol(block), p, .arg = "x")
    }
    if (nrow(block)) hist <- hist + norm_histogram(block, grid)
  }
  if (sum(hist) == 0) abort("the reader `x` returned no rows.", .arg = "x")
  hist
}

# The guarantee of dp_clip_bound(), in words.
bound_guarantee_text <- function(epsilon, neighbor) {
  notion <- switch(neighbor,
                   "replace-one" = "replace-one-row neighbours",
                   "add-remove" = "add/remove-one-row neighbours",
                   "zero-out" = "zero-out neighbours (one row replaced by the all-zero row)")
  n_words <- if (neighbor == "add-remove") "n is not released" else
    "n is public (neighbouring data sets have the same size) but not released"
  sprintf("%s-differential privacy (delta = 0), %s; %s.", format(epsilon), notion, n_words)
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
    n_clipped = function(v) is_num1(v, na_ok = TRUE),
    count_noise_sd = function(v) is_num1(v, na_ok = TRUE),
    grid = function(v) is_finite_num(v, 2L) && all(v > 0),
    bins = function(v) is_whole1(v, 1),
    guarantee = is_string, mechanism = is_string), arg = arg)
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
  grid <- x$grid
  cat(sprintf("<dp_bound> private row-norm bound B = %s\n", fmt(x$bound)))
  cat("Guarantee:", x$guarantee, "\n")
  cat(sprintf("Target: the %s quantile of the row L2 norms (B should clip about %s%% of the rows)\n",
              fmt(x$quantile), fmt(100 * (1 - x$quantile))))
  cat(sprintf("Mechanism: %s, epsilon = %s, %d data-free candidates in [%s, %s] (%s per decade)\n",
              x$mechanism, fmt(x$epsilon_bound), length(grid), fmt(min(grid)), fmt(max(grid)), fmt(x$bins)))
  if (is.na(x$n_clipped)) {
    cat("Rows clipped by B: not released (count_share = 0); the target is a fraction",
        fmt(1 - x$quantile), "of the rows.\n")
  } else {
    cat(sprintf("Rows clipped by B (noisy count, two-sided geometric noise, epsilon = %s, sd %s): %s\n",
                fmt(x$epsilon_count), fmt(x$count_noise_sd), format(x$n_clipped)))
  }
  if (x$bound >= max(grid)) {
    cat("Note: B is the top of the grid; the quantile may lie above it. Raise `upper` (from public knowledge).\n")
  } else if (x$bound <= min(grid)) {
    cat("Note: B is the bottom of the grid; the quantile may lie below it. Lower `lower` (from public knowledge).\n")
  }
  invisible(x)
}

#' @rdname dp_bound
#' @export
as.double.dp_bound <- function(x, ...) {
  check_bound(x)
  x$bound
}
