# Private per-column bounds: for each column a private median (location, on a
# data-free asinh axis) and a private low and high tail quantile (on an asinh
# axis centred at that released median), by the exponential mechanism in
# Smith's continuous form. They feed the box path of dp_cov() when no public
# bounds are given.

#' Private per-column bounds (lower and upper) of a data set
#'
#' A mechanism on a bounded box (`dp_cov(x, epsilon, delta, lower =, upper =)`)
#' needs a range for every column, and choosing it from the data (the minimum
#' and the maximum) is itself a leak. `dp_column_bounds()` releases one
#' privately: per column, a point below which about `m` rows lie and one above
#' which about `m` rows lie, with `m` of order \eqn{1/\epsilon_q} (a fixed
#' number of rows, not a fixed fraction), so the share of rows clamped, and
#' with it the clamping bias, falls like \eqn{1/(n\epsilon)}.
#'
#' @section The mechanism:
#' Every column gets ten choices, each by the exponential mechanism
#' (McSherry and Talwar 2007) over an interval, in the continuous form of
#' Smith (2011) also used by [dp_clip_bound()]: the column's values (clamped
#' to the data-free range \[-`range`, `range`\]) cut a transformed axis into
#' n + 1 intervals on which the count of values below is constant, interval
#' i has utility \eqn{u_i} and is chosen with probability proportional to
#' \eqn{\mu_i \exp(\epsilon_q u_i / 2)}, \eqn{\mu_i} its mass under a
#' data-free base measure, and the point is drawn from the base measure within
#' it (Gumbel-max trick, all from R's RNG).
#'
#' 1. **Location**, on the axis \eqn{t = \mathrm{asinh}(x/\tau)},
#'    \eqn{\tau} = `resolution` (linear for \eqn{|x| < \tau}, logarithmic
#'    beyond, so one data-free axis covers every location and scale from
#'    \eqn{\tau} to `range`), in two choices. First a coarse bin: the axis
#'    is cut at the integers (bins a factor e apart in magnitude) and a bin
#'    chosen by the exponential mechanism with its count of values as
#'    utility (sensitivity 1). Then the median \eqn{\hat m} in a window of
#'    that bin and one more on each side (values outside it count at its
#'    ends), base measure uniform in t, utility \eqn{-|i - n/2|}. The median
#'    alone on the whole axis needs \eqn{n\epsilon_q/4} above the log of the
#'    ratio of the axis' width to the data's, and narrow data far from 0 (a
#'    longitude near 180 degrees) lost to the empty axis in most draws at
#'    \eqn{n\epsilon_q} of tens; the bin's count is of order n against 0 on
#'    the empty bins.
#' 2. **Scale**: the median absolute deviation \eqn{\hat s} from the
#'    released \eqn{\hat m} (public now), on the axis
#'    \eqn{|\mathrm{asinh}((x - \hat m)/\tau_0)|},
#'    \eqn{\tau_0 = 10^{-9}\max(\tau, |\hat m|)} (logarithmic in the
#'    distance from \eqn{\hat m}, so a large mean costs nothing), in two
#'    choices as for the location: a unit bin of that axis by its count,
#'    then the median in the window of it and one bin on each side, uniform
#'    base measure, utility \eqn{-|i - n/2|}.
#' 3. **Tails**, on the axis \eqn{s = \mathrm{asinh}((x - \hat m)/\hat s)}
#'    (the bulk of the data within a few units of 0, the empty ends of the
#'    range far out), base measure \eqn{e^{-|s|/\lambda} ds},
#'    \eqn{\lambda} = `decay`: the upper bound has utility
#'    \eqn{-|(n - i) - m_n|} (rows above it), the lower \eqn{-|i - m_n|}
#'    (rows below it), \eqn{m_n = \min(m, a n)},
#'    \eqn{m = } `tail_factor`\eqn{/\epsilon_q}, \eqn{a} = `max_level`.
#'    Each in two choices, as for the location: first a unit bin of the
#'    s axis, with utility minus the distance from \eqn{m_n} to the counts
#'    of rows beyond the bin's points (0 for the bin that holds the target)
#'    and weight the base measure's mass of the bin; then the point, with
#'    the utility above, in the window of that bin and one bin towards the
#'    data. In one choice over the whole axis a dense tail that ends
#'    abruptly (prices capped at a maximum) leaves the target only the tiny
#'    measure between the last few values, against the empty rest weighted
#'    \eqn{e^{-\epsilon_q m_n/2}}: on `ggplot2::diamonds` the log price's
#'    upper bound overshot its maximum by a fifth or more in 17% of draws,
#'    once by a factor 450; the bin's whole measure wins, and the window
#'    bounds the overshoot.
#'
#' 4. **Refinement**: the upper bound again, now targeting
#'    \eqn{m'_n = \min(2/\epsilon_q, m_n)} rows above it, searched in the
#'    window \eqn{u \in [0, 3]} beyond the first upper bound \eqn{h},
#'    \eqn{u = (x - h)/(h - \hat m)}, on the axis
#'    \eqn{r = \log(1 + u/\kappa)}, \eqn{\kappa = 10^{-3}}, with base
#'    measure \eqn{e^{-r/3} dr} (values outside the window count at its
#'    ends); the lower bound likewise. The first stage must target many rows
#'    to beat the empty ends; the window's empty part is bounded (at worst a
#'    bound 4 times as far from the median), so the refinement can target few
#'    rows, and the clamping bias falls further. On the logarithmic axis most
#'    of the measure lies just beyond \eqn{h}, so a tail that ends shortly
#'    after it leaves the empty rest of the window little weight (a linear
#'    axis with \eqn{e^{-2u} du} let the empty part win about three draws in
#'    four there, and a price's bound overshot its maximum by a third), while
#'    each further factor \eqn{e^3} of distance costs only a factor e, so a
#'    heavy tail is still reached. Where n is public (`neighbor`
#'    `"replace-one"` or `"zero-out"`) and the first stage was capped
#'    (\eqn{m_n = a n < m}: n epsilon too small for its target, so \eqn{h}
#'    sits near a quartile, well inside the data), \eqn{\kappa = 0.3}: two
#'    thirds of the measure within 2% of \eqn{h} kept a third of the draws
#'    there, clamping a quarter of the rows (on `datasets::quakes`' model at
#'    epsilon 1 the median number of rows clamped in some variable fell from
#'    474 to 274 of 1000, and the default `dp_lm()`'s median slope error
#'    from 0.31 to 0.14). Under add/remove n is private: the choice reads a
#'    noisy count instead, drawn first by one more exponential mechanism
#'    (utility \eqn{-|c - n|}, so \eqn{P(c) \propto e^{-\epsilon_q|c - n|/2}},
#'    two-sided geometric noise of sd about \eqn{2.8/\epsilon_q}, a few
#'    percent of the cap's \eqn{4m} rows): \eqn{10p + 1} choices in all, and
#'    the release's guarantee holds under every notion; where n is public,
#'    under the call's. The count is released (`n_noisy`), and with it, or
#'    the public n, the result says whether the first stage was capped
#'    (`capped`).
#'
#' The decaying base measure of the tails makes every further factor
#' \eqn{e^{\lambda}} of distance (in units of the scale) cost a factor e of
#' weight: without it, the wide empty ends of the data-free range (all with
#' the same utility \eqn{-m}) win whenever \eqn{\epsilon_q m} is not far
#' above the log of their width, and a bound lands orders of magnitude beyond
#' the data (the measured failure of a flat measure; see the simulation in
#' the package sources, tools/column-bounds-sim.R). Measuring the distance in
#' units of the private scale keeps the pull on the data's own tails small.
#'
#' **Sensitivity** of every utility is 1 under all three neighbour notions
#' (`quantile_utility_sensitivity()` in R/privacy.R): replacing or zeroing
#' one row moves each count by at most 1 with n fixed; adding (removing) a row
#' moves a count by \eqn{I \in \{0, 1\}} and \eqn{n/2} by 1/2, \eqn{m_n} by
#' at most \eqn{a \le 1/2} in the same direction, so each utility by at most
#' 1 (a tail bin's utility, \eqn{-\max(0, c_{lo} - m_n, m_n - c_{hi})} for
#' the counts at its two edges, too: each term moves by at most 1). n is used
#' inside the mechanism, never released. Each choice is then
#' \eqn{\epsilon_q}-DP; it is also \eqn{\epsilon_q}-bounded-range (the log
#' ratio of its densities spans at most \eqn{\epsilon_q}), hence
#' \eqn{\epsilon_q^2/8}-zero-concentrated DP (Cesar and Rogers 2021).
#'
#' **Composition** of the k = 10p choices (10p + 1 under add/remove, with the
#' noisy count; each uses the values released before
#' it: adaptive composition): with `delta = 0` basic composition,
#' \eqn{\epsilon_q = \epsilon/k}; with `delta > 0` the larger of that and
#' the \eqn{\epsilon_q} whose total \eqn{\rho = k\epsilon_q^2/8} converts to
#' (`epsilon`, `delta`)-DP (Canonne, Kamath and Steinke 2020, as in
#' [dp_budget()]), of order \eqn{\epsilon/\sqrt{10p\log(1/\delta)}}
#' instead of \eqn{\epsilon/(10p)}: better for many columns. A budget is charged (epsilon, delta) with that \eqn{\rho}
#' recorded: inside one call that uses the bounds (the default of [dp_cov()],
#' [dp_lm()]) it composes with the Gaussian steps by zCDP, and a zCDP
#' [dp_budget()] adds it to the other releases' rho; a basic budget adds the
#' release's epsilon and delta.
#'
#' @section Accuracy and its limits:
#' The median lands among the data once \eqn{n\epsilon_q/4} exceeds the log of
#' the ratio of the axis' width to the data's (a few tens); the tails target
#' \eqn{m = } `tail_factor`\eqn{/\epsilon_q} rows, enough to beat the empty
#' ends, and the refinement \eqn{2/\epsilon_q} rows. When \eqn{m > a n} the bounds are the `max_level` and
#' 1 - `max_level` quantiles (quartiles by default): a release inside them is
#' strongly biased (spreads under-estimated), and may miss the data
#' altogether: the result's `capped` is then `TRUE` (decided from the public
#' n, or under add/remove from the released noisy count `n_noisy`: no further
#' look at the data), `print()` says so, and the call raises a warning of
#' class `dpcov_noise_warning` (see [release_diagnostics()]). The
#' result's `clamped_share` is the share targeted beyond each bound,
#' computed from `n_hint` when given, else from that n. Values beyond \[-`range`, `range`\] count as at
#' its ends: bounds never leave it, so data with values near or beyond it
#' need a larger `range` (from public knowledge). A column whose values are
#' mostly one value (more than three quarters zeros, say) has a median
#' absolute deviation of 0: where the first stage is capped at the quartiles
#' its bounds close on that value and clamp every other row to it (the
#' capped stage is flagged as above, and so do [dp_cov()] and [dp_lm()]);
#' give such a column public bounds.
#'
#' Logical columns (a logical matrix or vector, or logical columns of a data
#' frame: a public schema) get their coding \eqn{[0, 1]} as bounds, with no
#' choice spent on them (listed in `coded_columns`; their `center` and
#' `scale` are `NA`), as in [dp_cov()]'s default: private bounds would spend
#' budget on nothing and could close on the more common value.
#'
#' @param x A numeric matrix or data frame (rows are records).
#' @param epsilon Privacy loss of the whole call (all its choices).
#' @param delta 0 (default: pure epsilon-DP by basic composition) or a delta
#'   in (0, 1) for the zCDP composition (see above).
#' @param neighbor `"add-remove"` (default), `"replace-one"` or `"zero-out"`:
#'   the utilities' sensitivities are 1 under all three notions. Where n is
#'   public (replace-one, zero-out) the refinement's axis reads it and the
#'   guarantee holds under that notion; under add/remove it reads a noisy
#'   count (one more choice) and the guarantee holds under every notion.
#' @param range Public bound on the data's magnitude: the bounds are searched
#'   in \[-`range`, `range`\] (default 1e6); fix it without the data.
#' @param resolution \eqn{\tau} of the location axis (default 0.01): below it
#'   the axis is linear. At least `1e-290 * max(1, range)`.
#' @param tail_factor Rows targeted beyond each bound times \eqn{\epsilon_q}
#'   (default 16, the best of 8, 16, 32 in the simulation).
#' @param max_level Largest share of rows a bound may target beyond it
#'   (default 0.25).
#' @param decay \eqn{\lambda} of the tails' base measure (default 2).
#' @param n_hint An optional *public* or already released (noisy) number of
#'   rows (at least 1), used only to report the share of rows clamped
#'   (`clamped_share`); never the data's n.
#' @param budget A [dp_budget()] to charge before the data is read, or `NULL`.
#' @param ... Nothing: an argument dp_column_bounds() does not take is an error (a
#'   misspelt name is refused, not ignored).
#' @return An object of class `dp_column_bounds`: a list with `bounds` (a data
#'   frame with columns `lower` and `upper`, one row per column, row names
#'   the column names; give the object to `bounds =` of a release, which
#'   then adds this release's (epsilon, delta) to its own guarantee; the
#'   bare table passed on its own is taken as public), `center` (the private
#'   medians), `scale` (the private median absolute deviations), `epsilon`, `delta`, `epsilon_quantile` (\eqn{\epsilon_q}),
#'   `rho`, `composition` (`"basic"` or `"zCDP"`), `tail_rows` (the
#'   refinement's target, \eqn{m'_n}), `first_rows` (the first stage's,
#'   \eqn{m}), `max_level`, `clamped_share` (\eqn{\min(m'_n/n, a)} with n
#'   `n_hint`, or the public n, or the noisy count), `n_hint`, `n` (the
#'   number of rows where the notion makes it public, `"replace-one"` or
#'   `"zero-out"`; else `NA`), `n_noisy` (under add/remove the mechanism's
#'   noisy count, one of its charged choices; else `NA`), `capped` (whether
#'   the first stage was capped at `max_level`, from `n` or `n_noisy`),
#'   `range`, `resolution`, `decay`, `coded_columns` (the logical columns,
#'   bounded by their coding at no cost), `neighbor`, `mechanism`,
#'   `guarantee`, `budget_charge`, `release_id` (names this release for the
#'   budgets: a release given these bounds charges them to its budget unless
#'   that budget charged them already; see [dp_budget()]) and `call`.
#' @references McSherry, F. and Talwar, K. (2007). Mechanism design via
#'   differential privacy. *FOCS 2007*, 94-103.
#'
#'   Smith, A. (2011). Privacy-preserving statistical estimation with optimal
#'   convergence rates. *STOC 2011*, 813-822.
#'
#'   Cesar, M. and Rogers, R. (2021). Bounding, concentrating, and truncating:
#'   unifying privacy loss composition for data analytics. *ALT 2021*, PMLR
#'   132, 421-457 (bounded range implies \eqn{\epsilon^2/8}-zCDP).
#'
#'   Canonne, C. L., Kamath, G. and Steinke, T. (2020). The discrete Gaussian
#'   for differential privacy. *NeurIPS 2020*. arXiv:2004.00010.
#' @examples
#' set.seed(1)
#' x <- data.frame(price = exp(rnorm(3000, 7, 1)), depth = rnorm(3000, 62, 1.4))
#' b <- dp_column_bounds(x, epsilon = 1, delta = 1e-7)
#' b
#' b$bounds
#' @export
dp_column_bounds <- function(x, epsilon, delta = 0, neighbor = "add-remove", range = 1e6, resolution = 0.01,
                             tail_factor = 16, max_level = 0.25, decay = 2, n_hint = NULL, budget = NULL, ...) {
  refuse_unknown_args("dp_column_bounds", ...)
  call <- match.call()
  if (missing(x)) abort_missing("x")
  epsilon <- check_epsilon(epsilon)
  delta <- check_number(delta, "delta", lower = 0, upper = 1, lower_open = FALSE)
  # 0 (pure DP) or a delta check_delta() takes: a subnormal one has no
  # finite log(1 / delta) for the zCDP conversion
  if (delta > 0) delta <- check_delta(delta)
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  range <- check_number(range, "range", lower = 0, upper = 1e50)
  resolution <- check_number(resolution, "resolution", lower = 0, upper = 1e50)
  if (resolution >= range) {
    abort("`resolution` (%s) must be smaller than `range` (%s).", format(resolution), format(range),
          .arg = "resolution")
  }
  # the mechanism's axes divide range by a billionth of the resolution: that
  # must stay a finite, normal number whatever the data
  if (resolution < 1e-290 * max(1, range)) {
    abort("`resolution` (%s) must be at least 1e-290 * max(1, `range`) (%s).", format(resolution),
          format(1e-290 * max(1, range)), .arg = "resolution")
  }
  tail_factor <- check_number(tail_factor, "tail_factor", lower = 0, upper = 1e6)
  max_level <- check_number(max_level, "max_level", lower = 0, upper = 0.5, upper_open = FALSE)
  decay <- check_number(decay, "decay", lower = 0, upper = 1e6)
  if (!is.null(n_hint)) n_hint <- check_number(n_hint, "n_hint", lower = 1, upper = 2^52, lower_open = FALSE)
  if (inherits(x, "dp_suffstat") || is.function(x)) {
    abort("`x` must be a numeric matrix or data frame: the column bounds need the columns' values.", .arg = "x")
  }
  # the number of columns is a public shape; learnt without reading values
  p <- if (is.data.frame(x) || is.matrix(x)) data_ncol(x) else if (is.vector(x)) 1L else NA_integer_
  if (is.na(p) || p < 1L) x <- check_data_matrix(x)  # refuses with the usual classed error
  # logical columns (schema: public) are bounded by their coding [0, 1], as
  # in dp_cov()'s default: no choice is spent on them, and private bounds
  # could close on the more common value
  coded <- coded_flags(x, p)
  eq <- column_bounds_epsilon(epsilon, delta, max(1L, sum(!coded)), noisy_count = neighbor == "add-remove")
  # every utility moves by at most 1 under every notion; where n is public the
  # refinement's axis reads it, and the charge holds under the call's notion
  check_data_colnames(x)  # they name the bounds
  charge <- budget_charge(budget, "dp_column_bounds", epsilon, eq$delta, neighbor = column_bounds_notion(neighbor),
                          rho = eq$rho)
  # any n (0 included) under add/remove: success must not depend on n
  X <- with_refund(budget, charge, {
    X <- check_data_matrix(x, min_rows = 0L)
    if (any(!coded)) check_charged_columns(X[, !coded, drop = FALSE], eq)
    check_unique_colnames(colnames(X))
    X
  })
  out <- column_bounds_coded(X, coded, eq$epsilon_q, range, resolution, tail_factor, max_level, decay,
                             n_public = neighbor != "add-remove")
  nm <- colnames(X)
  bounds <- data.frame(lower = out$lower, upper = out$upper)
  if (!is.null(nm)) rownames(bounds) <- nm
  center <- stats::setNames(out$center, nm)
  scale <- stats::setNames(out$scale, nm)
  m <- tail_factor / eq$epsilon_q
  m2 <- min(column_bounds_refine / eq$epsilon_q, m)
  # the rows the checks read: n where the notion makes it public, else the
  # mechanism's noisy count (drawn and charged as one of its choices)
  n_public <- if (neighbor == "add-remove") NA_real_ else as.double(nrow(X))
  n_own <- if (is.na(n_public)) out$n_noisy else n_public
  capped <- column_bounds_capped(m, n_own, max_level)
  share <- min(max_level, m2 / max(1, if (is.null(n_hint)) n_own else n_hint))
  res <- structure(list(
    bounds = bounds, center = center, scale = scale, epsilon = epsilon, delta = eq$delta, epsilon_quantile = eq$epsilon_q,
    rho = eq$rho, composition = eq$composition, tail_rows = m2, first_rows = m, max_level = max_level,
    n_hint = if (is.null(n_hint)) NA_real_ else n_hint, n = n_public, n_noisy = as.double(out$n_noisy), capped = capped,
    clamped_share = share, coded_columns = if (any(coded)) (nm %||% paste0("V", seq_len(p)))[coded] else character(0),
    range = range, resolution = resolution, decay = decay, neighbor = neighbor,
    mechanism = paste0("per column: exponential mechanisms for a coarse bin and the median in it on an asinh axis, the median ",
                       "absolute deviation from it, and a low and a high tail point on an asinh axis ",
                       "centred at the median in units of that scale (Smith 2011)"),
    guarantee = column_bounds_guarantee_text(epsilon, eq$delta, neighbor, eq$choices, eq$epsilon_q, eq$composition,
                                             count = neighbor == "add-remove", stated = TRUE,
                                             coded = sum(coded), coded_all = all(coded)),
    budget_charge = charge, release_id = new_release_id(), call = release_call(call)), class = "dp_column_bounds")
  remember_bounds_release(res)
  # a release given these bounds charges them to a budget that has not (given_release_step())
  register_charged_release(budget, res$release_id, charge)
  # (all columns logical: no bound was chosen, nothing to warn about)
  if (capped && any(!coded)) {
    noise_warning(list(level = "mostly noise", message_levels = "mostly noise",
                       messages = sub("^WARNING: ", "", column_bounds_note(m, m2, max_level, n_own, bounds, range)[1L])),
                  "dp_column_bounds")
  }
  res
}

# Exponential mechanisms per column: the location's coarse bin, the median,
# the scale's coarse bin, the scale, the upper bound's coarse bin and point,
# the lower's, and the refined upper and lower.
column_bounds_choices <- 10L
# The refinement: rows targeted beyond each bound times epsilon_q, and how far
# beyond the first bound (in multiples of its distance from the median) it
# may reach.
column_bounds_refine <- 2
column_bounds_reach <- 3
# The refinement's axis, s = log1p(u / kappa) for u the distance beyond the
# first bound in units of its distance w from the median, and its base
# measure exp(-s / decay) there: each factor e^decay (about 20) further out
# costs a factor e of weight, from kappa w on (bench/refine-axis.R: on the
# linear axis with exp(-2u), the empty part of the window won about three
# draws in four beyond a short tail, and the price's bound overshot its
# maximum by a third).
column_bounds_refine_kappa <- 1e-3
# Where n is public (replace-one, zero-out) and the first stage was capped
# at max_level n rows (n epsilon_q too small for its target), the first
# bound sits near a quartile, well inside the data, and with kappa = 1e-3 two
# thirds of the window's measure lies within 2% of its distance beyond it: a
# third of the refinements stayed there (quakes' model at epsilon 1: a
# median of 474 of 1000 rows clamped in some variable against a target of 44
# per end). The axis is then nearly linear out to 0.3 of that distance
# (bench/RESULTS.md, "The refinement after a capped first stage"). The
# choice reads n where it is public; under add/remove, where two neighbours
# could straddle the cap, it reads a noisy count (count_exp_mech()).
column_bounds_refine_kappa_capped <- 0.3
column_bounds_refine_decay <- 3
refine_axis <- function(u, kappa = column_bounds_refine_kappa) log1p(u / kappa)
refine_unaxis <- function(s, kappa = column_bounds_refine_kappa) kappa * expm1(s)

#' The budget of each of the `choices` * p choices (10p for the bounds, 2p
#' for the tightening of public ones): basic composition, or (delta > 0)
#' zCDP when it gives more. Returns epsilon_q, the delta actually used, the
#' total rho and the composition's name.
#' @noRd
column_bounds_epsilon <- function(epsilon, delta, p, choices = column_bounds_choices, noisy_count = FALSE) {
  k <- choices * p + as.integer(noisy_count)
  eq <- epsilon / k
  composition <- "basic"
  used_delta <- 0
  if (delta > 0) {
    ez <- sqrt(8 * zcdp_rho(epsilon, delta) / k)
    if (ez > eq) {
      eq <- ez
      composition <- "zCDP"
      used_delta <- delta
    }
  }
  list(epsilon_q = eq, delta = used_delta, rho = k * em_zcdp_rho(eq), composition = composition, choices = k,
       p = p)
}

#' The budget of the column choices was set, and charged, for `cols$p`
#' columns before the data was read; the matrix the choices run on must have
#' exactly those (a data frame's matrix columns expand under as.matrix(), so
#' counting its top-level columns under-charged). An internal check: a
#' mismatch is a bug, never the user's input.
#' @noRd
check_charged_columns <- function(X, cols) {
  if (ncol(X) != cols$p) {
    stop(sprintf("internal error: column choices charged for %d column(s), run on %d", as.integer(cols$p), ncol(X)),
         call. = FALSE)
  }
  invisible(X)
}

#' column_bounds_mechanism() on the columns of `X` not `coded`; the coded
#' (logical) ones get their coding [0, 1] (or the bounds `lower`, `upper`
#' given for them: the fixed columns of partial bounds) and no median or
#' spread (NA).
#' Every result one per column of `X`.
#' @noRd
column_bounds_coded <- function(X, coded, eps_q, ..., lower = rep(0, ncol(X)), upper = rep(1, ncol(X))) {
  out <- column_bounds_mechanism(X[, !coded, drop = FALSE], eps_q, ...)
  full <- function(v, fill) replace(rep_len(fill, ncol(X)), !coded, v)
  out$lower <- full(out$lower, lower)
  out$upper <- full(out$upper, upper)
  out$center <- full(out$center, NA_real_)
  out$scale <- full(out$scale, NA_real_)
  out
}

#' The mechanism on a checked matrix: per column (in order) the location's
#' coarse bin, the median, the scale's coarse bin, the scale (median absolute
#' deviation), the upper
#' and the lower point, and their refinements. Values returned in data units.
#' @noRd
column_bounds_mechanism <- function(X, eps_q, range, resolution, tail_factor, max_level, decay, n_public = FALSE,
                                    kappa = NULL) {
  n <- nrow(X)
  p <- ncol(X)
  sens <- quantile_utility_sensitivity("add-remove")
  m_n <- min(tail_factor / eps_q, max_level * n)
  # the refinement's axis: nearly linear where the first stage is capped
  # (column_bounds_refine_kappa_capped), which reads n where it is public and
  # a noisy count where it is not (drawn first, one more choice of the budget;
  # released in `n_noisy`, as private as the bounds)
  count <- if (n_public) NA_real_ else count_exp_mech(n, eps_q)
  capped <- max_level * (if (n_public) n else count) < tail_factor / eps_q
  # (`kappa` given: that axis whatever the rule, for the tests' controls)
  if (is.null(kappa)) kappa <- if (isTRUE(capped)) column_bounds_refine_kappa_capped else column_bounds_refine_kappa
  top <- asinh(range / resolution)
  i <- seq.int(0, n)
  lower <- upper <- center <- spread <- numeric(p)
  # the coarse bins of the location axis: unit width in t = asinh(x / tau), a data-free grid
  edges <- unit_bin_edges(top)
  for (j in seq_len(p)) {
    v <- sort(pmin(pmax(X[, j], -range), range))
    t <- asinh(v / resolution)
    # location, first the coarse bin holding most values (exponential mechanism
    # on the counts: the chosen bin's utility is its count, of order n where
    # the data are, against 0 on the empty axis), then the median in a window
    # of one more bin on each side (values outside count at its ends): the
    # median alone on the whole axis loses to its empty width when the data
    # are narrow against their magnitude (a longitude near 180, n epsilon_q
    # of tens)
    med <- resolution * sinh(column_bounds_median(t, edges, eps_q, sens))
    med <- min(max(med, -range), range)
    # the scale: the median absolute deviation from the released median, on
    # the axis |asinh((x - med) / tau0)| (logarithmic in the distance)
    tau0 <- 1e-9 * max(resolution, abs(med))
    top0 <- asinh(2 * range / tau0)
    a <- sort(abs(asinh((v - med) / tau0)))
    # as for the location: a coarse bin of the log-deviation axis by its
    # count, then the median absolute deviation in a window around it
    scale <- tau0 * sinh(column_bounds_median(a, c(0, seq_len(floor(top0)), top0), eps_q, sens))
    scale <- max(scale, tau0)
    # the tails, on the axis asinh((x - med) / scale): the data's bulk within a
    # few units of 0, the empty ends far out, where the base measure decays
    top2 <- asinh(2 * range / scale)
    s <- asinh((v - med) / scale)
    hi <- med + scale * sinh(column_bounds_tail(s, top2, m_n, eps_q, sens, decay, upper = TRUE))
    lo <- med + scale * sinh(column_bounds_tail(s, top2, m_n, eps_q, sens, decay, upper = FALSE))
    # refinement: fewer rows beyond, searched in a window reaching
    # column_bounds_reach times further from the median (decaying measure): the
    # window's empty part is bounded, so fewer rows can be targeted safely
    m2 <- min(column_bounds_refine / eps_q, m_n)
    # on the axis log1p(u / kappa) of u = (x - h) / (h - med) in [0, reach],
    # base measure exp(-s / column_bounds_refine_decay) there: most of it just
    # beyond the first bound, so a tail that ends there (a price's) leaves the
    # window's empty rest little weight, and a heavy tail is still reached
    w <- max(hi - med, tau0)
    u <- refine_axis(pmin(pmax((v - hi) / w, 0), column_bounds_reach), kappa)
    hi <- hi + w * refine_unaxis(interval_exp_mech(c(0, u, refine_axis(column_bounds_reach, kappa)), -abs(n - i - m2),
                                                   eps_q, sens, column_bounds_refine_decay), kappa)
    w <- max(med - lo, tau0)
    u <- -refine_axis(-pmin(pmax((v - lo) / w, -column_bounds_reach), 0), kappa)
    lo <- lo - w * refine_unaxis(-interval_exp_mech(c(-refine_axis(column_bounds_reach, kappa), u, 0), -abs(i - m2),
                                                    eps_q, sens, column_bounds_refine_decay), kappa)
    b <- column_bounds_order(lo, hi, resolution, range)
    lower[j] <- b[1]
    upper[j] <- b[2]
    center[j] <- med
    spread[j] <- scale
  }
  # the noisy count is one of the charged choices: released, it tells (with a
  # public n) whether the first stage was capped
  list(lower = lower, upper = upper, center = center, scale = spread, n_noisy = count)
}

#' A private tail point of the sorted values `s` (on the axis asinh((x -
#' med) / scale), in [-top2, top2]): about `m` rows beyond it (above for the
#' upper bound, below for the lower). Two choices of `eps_q` each: first a
#' unit bin of the axis (a data-free grid) by the exponential mechanism with
#' tail_bin_utility() (minus the distance from m to the counts of rows beyond
#' the bin's points) and the base measure's mass of the bin; then the point
#' by the continuous mechanism (utility -|rows beyond - m|, base measure
#' exp(-|s| / decay)) in the window of that bin and one more towards the
#' data (values outside count at its ends). In one continuous choice over
#' the whole axis the empty rest of it (every point there with utility -m)
#' weighs about exp(-eps_q m / 2) against the measure of the few points near
#' the target, which a dense, abruptly ending tail (capped prices: the 400th
#' largest log price 0.06 below the largest) makes tiny: on ggplot2's
#' diamonds a log price's upper bound overshot the maximum by a fifth or more
#' in 17% of draws, once by a factor 450. The bin holding the target has
#' utility 0 and a whole bin's measure, and the window bounds how far beyond
#' the data the point can land (bench/RESULTS.md, "Tail bins").
#' @noRd
column_bounds_tail <- function(s, top2, m, eps_q, sens, decay, upper) {
  n <- length(s)
  e <- unit_bin_edges(top2)
  # rows beyond each edge: above it (upper), below it (lower)
  beyond <- if (upper) n - findInterval(e, s) else findInterval(e, s, left.open = TRUE)
  k <- bin_exp_mech(tail_bin_utility(beyond, m), eps_q, sens,
                    log_mass = log_base_mass(e[-length(e)], e[-1L], decay))
  win <- if (upper) c(e[max(1L, k - 1L)], e[k + 1L]) else c(e[k], e[min(length(e), k + 2L)])
  i <- seq.int(0, n)
  utility <- if (upper) -abs(n - i - m) else -abs(i - m)
  interval_exp_mech(c(win[1], pmin(pmax(s, win[1]), win[2]), win[2]), utility, eps_q, sens, decay)
}

# The data-free grid of unit bins on [-top, top] (cut at the integers) that
# the location's and the tails' coarse choices pick from.
unit_bin_edges <- function(top) unique(c(-top, seq(ceiling(-top), floor(top)), top))

#' A private median of the sorted values `t` on a data-free axis cut into
#' coarse bins at `edges`: a bin chosen by the exponential mechanism on the bin
#' counts, then the median (utility -|i - n/2|, uniform base measure) in the
#' window of that bin and one more on each side, values outside it counted at
#' its ends. Two choices of `eps_q` each; returns the point on the axis.
#' @noRd
column_bounds_median <- function(t, edges, eps_q, sens) {
  n <- length(t)
  counts <- tabulate(findInterval(t, edges, rightmost.closed = TRUE, all.inside = TRUE), length(edges) - 1L)
  k <- bin_exp_mech(counts, eps_q, sens)
  lo <- edges[max(1L, k - 1L)]
  hi <- edges[min(length(edges), k + 2L)]
  interval_exp_mech(c(lo, pmin(pmax(t, lo), hi), hi), -abs(seq.int(0, n) - n / 2), eps_q, sens, Inf)
}

# Post-processing of two released points: ordered, inside the range, and of
# positive width (a box needs lower < upper, whatever the draws).
column_bounds_order <- function(lo, hi, resolution, range) {
  lo <- min(max(lo, -range), range)
  hi <- min(max(hi, -range), range)
  if (lo > hi) {
    t <- lo
    lo <- hi
    hi <- t
  }
  if (!(hi - lo > 1e-12 * max(resolution, abs(lo), abs(hi)))) {
    mid <- (lo + hi) / 2
    lo <- mid - resolution / 2
    hi <- mid + resolution / 2
  }
  c(lo, hi)
}

#' Validate a dp_column_bounds given as input (hand-made objects included).
#' @noRd
check_column_bounds <- function(x, arg = "x") {
  opt_count <- function(v) is.null(v) || is_num1(v, na_ok = TRUE) && (is.na(v) || v >= 0)
  check_object(x, "dp_column_bounds", list(
    # (what print() reads: a negative n printed "clamp about -800% of the rows")
    n = opt_count, n_noisy = function(v) is.null(v) || is_num1(v, na_ok = TRUE),
    capped = function(v) is.null(v) || is_flag(v),
    coded_columns = function(v) is.null(v) || is.character(v) && !anyNA(v),
    bounds = function(v) is.data.frame(v) && identical(names(v), c("lower", "upper")) &&
      is.double(v$lower) && is.double(v$upper) && all(is.finite(v$lower)) && all(v$upper > v$lower),
    epsilon = function(v) is_num1(v) && v > 0, delta = function(v) is_num1(v) && v >= 0 && v < 1,
    epsilon_quantile = function(v) is_num1(v) && v > 0, tail_rows = function(v) is_num1(v) && v > 0,
    first_rows = function(v) is_num1(v) && v > 0, n_hint = function(v) is_num1(v, na_ok = TRUE) && !isTRUE(v < 1),
    range = function(v) is_num1(v) && v > 0,
    max_level = function(v) is_num1(v) && v > 0 && v <= 0.5,
    clamped_share = function(v) is_num1(v, na_ok = TRUE),
    composition = is_string, guarantee = is_string, mechanism = is_string,
    neighbor = function(v) is_string(v) && v %in% dp_neighbors), arg = arg)
}

#' Print private column bounds
#'
#' @param x A `dp_column_bounds` from [dp_column_bounds()].
#' @param digits Significant digits to print.
#' @param row.names,optional `as.data.frame()`: as in [base::as.data.frame()]
#'   (`row.names` one distinct name per column bounded, replacing the
#'   columns' names, else a classed error; `optional` `TRUE` or `FALSE`).
#' @param ... `as.data.frame()`, `tidy()`: nothing (an argument they do not
#'   take is an error); `print`: unused.
#' @return `print` returns `x` invisibly; `as.data.frame()` the bounds (a
#'   data frame with columns `lower` and `upper`, named by its row names, as
#'   `bounds =` takes it); `tidy()` one row per column: `column`, `lower`,
#'   `upper`, and the private `center` and `scale` released with them (`NA`
#'   for a logical column, bounded by its coding).
#' @examples
#' set.seed(1)
#' b <- dp_column_bounds(matrix(rexp(30000), 10000, 3), epsilon = 2, delta = 1e-6)
#' print(b)
#' as.data.frame(b)
#' @name dp_column_bounds_methods
NULL

#' @rdname dp_column_bounds_methods
#' @export
print.dp_column_bounds <- function(x, digits = 4, ...) {
  check_column_bounds(x)
  digits <- check_digits(digits)
  fmt <- function(v) format(v, digits = digits)
  cat_wrapped(sprintf("<dp_column_bounds> private lower and upper bounds of %d column(s)", nrow(x$bounds)))
  cat_wrapped("Guarantee:", x$guarantee)
  cat_wrapped(sprintf(paste0("Target: about %s rows beyond each bound (2 / epsilon per choice; the first stage %s, ",
                             "tail_factor / epsilon), at most a share %s."),
                      fmt(x$tail_rows), fmt(x$first_rows), fmt(x$max_level)))
  print(signif(as.matrix(x$bounds), digits))
  # the mechanism's own n (public, or its noisy count) says whether the first
  # stage was capped; n_hint, where given, the share clamped
  own <- c(x$n, x$n_noisy)
  own <- own[is.numeric(own) & !is.na(own)]
  n_hat <- if (!is.na(x$n_hint)) x$n_hint else if (length(own)) own[1L] else NA_real_
  # columns bounded by their coding only: no private bound to judge
  if (is.character(x$coded_columns) && length(x$coded_columns) >= nrow(x$bounds)) return(invisible(x))
  for (m in column_bounds_note(x$first_rows, x$tail_rows, x$max_level, n_hat, x$bounds, x$range,
                               capped = if (is_flag(x$capped)) x$capped)) cat_wrapped(m)
  invisible(x)
}

#' @rdname dp_column_bounds_methods
#' @export
as.data.frame.dp_column_bounds <- function(x, row.names = NULL, optional = FALSE, ...) {
  check_column_bounds(x)
  data_frame_args(x$bounds, row.names, optional, ...)
}

#' @rdname dp_column_bounds_methods
#' @export
tidy.dp_column_bounds <- function(x, ...) {
  check_column_bounds(x)
  check_method_dots(...)
  b <- x$bounds
  cols <- if (is.character(attr(b, "row.names"))) rownames(b) else paste0("V", seq_len(nrow(b)))
  # (center and scale: one per column, or absent from a hand-made object)
  per_col <- function(v) if (is.numeric(v) && length(v) == nrow(b)) unname(as.double(v)) else rep(NA_real_, nrow(b))
  data.frame(column = cols, lower = b$lower, upper = b$upper, center = per_col(x$center), scale = per_col(x$scale),
             stringsAsFactors = FALSE)
}

# Whether the bounds' first stage was capped: its target m1 rows beyond each
# bound at least max_level of the (public or noisy) n, so the bounds sit near
# the quartiles. From public and released quantities only.
column_bounds_capped <- function(m1, n_hat, max_level = column_bounds_defaults$max_level) {
  m1 >= max_level * max(1, n_hat)
}

#' Plain-words warnings about private column bounds, from public or released
#' values only: `n_hat` a public or noisy n (NA: unknown), `m1` and `m2` the
#' rows targeted by the first stage and the refinement.
#' @noRd
column_bounds_note <- function(m1, m2, max_level, n_hat, bounds, range, capped = NULL, in_release = FALSE,
                               partial = FALSE) {
  out <- character(0)
  # (bounds given for some columns: the notes are about the others)
  every <- if (partial) "every column without public bounds" else "every column"
  if (is.null(capped)) capped <- !is.na(n_hat) && column_bounds_capped(m1, n_hat, max_level)
  if (capped) {
    out <- c(out, sprintf(paste0("WARNING: n * epsilon is too small for private bounds: they target the %s and %s ",
                                 "quantiles of %s or beyond, may miss the data altogether, and aim to clamp ",
                                 "%s of the rows at each end (a target: capped bounds are noisy, and often clamp ",
                                 "several times that); the release can be far off. Give public ",
                                 "bounds (lower, upper) or more epsilon."),
                          format(max_level), format(1 - max_level), every,
                          if (is.na(n_hat)) "many" else
                            sprintf("about %s%%", format(100 * min(max_level, m2 / max(1, n_hat)), digits = 2))))
  } else if (!is.na(n_hat) && m2 >= 0.1 * max(1, n_hat)) {
    out <- c(out, sprintf(paste0("WARNING: the private bounds clamp about %s%% of the rows at each end of %s ",
                                 "(n * epsilon is too small for tighter ones); spreads are under-estimated. ",
                                 "Give public bounds (lower, upper) or more epsilon."),
                          format(100 * m2 / n_hat, digits = 2), every))
  } else if (!is.na(n_hat) && m2 >= 0.01 * max(1, n_hat)) {
    # a few percent: on faithful and penguins at epsilon 8 the variances were
    # within 3% of the truth, so a note, not a warning
    out <- c(out, sprintf(paste0("Note: the private bounds clamp about %s%% of the rows at each end of %s; ",
                                 "spreads are under-estimated, slightly for light tails, by much more for ",
                                 "a long tail, whose few largest rows can hold most of a column's variance. Public ",
                                 "bounds (lower, upper) or more epsilon avoid it."),
                          format(100 * m2 / n_hat, digits = 2), every))
  }
  at_end <- c(bounds$lower, bounds$upper)
  if (any(abs(at_end) >= range * (1 - 1e-6))) {
    out <- c(out, if (in_release) {
      sprintf("WARNING: a bound lies at the end of the range it was searched in (+/- %s); the data may extend beyond it: %s.",
              format(signif(range, 3)),
              if (partial) "give its column public bounds in lower/upper" else
                "give public bounds (lower/upper), or choose bounds with dp_column_bounds(range = ) and give them as `bounds`")
    } else "WARNING: a bound lies at the end of the public range; the data may extend beyond it: raise `range` (from public knowledge).")
  }
  out
}

#' The neighbour notion the bounds' mechanism holds under: every notion when
#' n is private (its utilities, the noisy count's -|c - n| included, move by
#' at most 1 under each, and the refinement's axis follows the count), else
#' the call's (the axis reads the public n).
#' @noRd
column_bounds_notion <- function(neighbor) if (neighbor == "add-remove") "any" else neighbor

#' The guarantee of dp_column_bounds(), in words.
#' @noRd
column_bounds_guarantee_text <- function(epsilon, delta, neighbor, k, eps_q, composition, count = FALSE,
                                         stated = FALSE, coded = 0L, coded_all = FALSE) {
  counted <- if (count && stated) {
    " (one of them a noisy count of the rows, which sets the refinement's axis and is released in `n_noisy`)"
  } else if (count) " (one of them a noisy count of the rows, used only to set the refinement's axis)" else ""
  how <- if (composition == "zCDP") {
    sprintf("(%s, %s)-differential privacy from %d exponential mechanisms of epsilon %s each%s, composed as zero-concentrated DP (rho = epsilon^2/8 each)",
            format_privacy(epsilon), format_privacy(delta), k, format_privacy(eps_q), counted)
  } else {
    sprintf("%s-differential privacy (delta = 0) by basic composition of %d exponential mechanisms of epsilon %s each%s",
            format_privacy(epsilon), k, format_privacy(eps_q), counted)
  }
  # under add/remove (n private, read as a noisy count) every choice's
  # utility has sensitivity 1 under all three notions: the ledger records
  # "any", and the text says so too
  notion <- if (neighbor == "any") "under every neighbour notion" else if (neighbor == "add-remove") {
    paste0(neighbor_words(neighbor), ", and so under every neighbour notion (each choice's utility has ",
           "sensitivity 1 under all three)")
  } else neighbor_words(neighbor)
  # dp_column_bounds() states a public n (replace-one, zero-out: neighbours have the same n)
  n_words <- if (stated && !count) "n is public under this notion (stated in `n`)" else "n is used but not released by this step"
  coded_words <- if (coded > 0L) {
    sprintf("; the %d logical column(s) are bounded by their coding [0, 1], with no choice spent on them%s",
            as.integer(coded), if (coded_all) " (the charge stated covers one column's choices; none was made)" else "")
  } else ""
  sprintf("%s, %s; %s%s.", how, notion, n_words, coded_words)
}

# ---- dp_cov()'s default: private column bounds, then the box -------------------

# The number of columns of a data set, a public shape, read without its values
# (at least 1; a malformed `x` is refused by the step that reads it): the
# columns check_data_matrix() will have, so a data frame's matrix column
# counts its columns, as as.matrix() expands it.
public_ncol <- function(x) {
  p <- if (is.data.frame(x) || is.matrix(x)) data_ncol(x) else 1L
  max(1L, p)
}

# The columns of a matrix or data frame once as.matrix() has expanded its
# matrix (and data frame) columns; 0 for none.
data_ncol <- function(x) {
  if (!is.data.frame(x)) return(as.integer(NCOL(x)))
  as.integer(sum(vapply(x, data_ncol, 1L)))
}

# The number of rows of a data set in memory, a public shape where n is
# public (NA for anything else: a malformed `x` is refused later).
public_nrow <- function(x) {
  n <- if (is.data.frame(x) || is.matrix(x)) nrow(x) else if (is.numeric(x) && is.null(dim(x))) length(x) else NA
  as.numeric(n)
}

# dp_cov()'s default bound_share with private column bounds: they take
# 2 * 0.25 = half of epsilon and of delta, about a quarter of the zCDP budget
# (composed_gaussian()); see ?dp_cov for the measurements behind it.
column_bounds_share <- 0.25

# ---- bounds given for some columns, the others chosen privately ----------------

#' Bounds given for some columns only (`box`, check_bounds(partial = TRUE)
#' output, NA for both bounds of the others), aligned to the columns of the
#' data in memory, the logical columns among the NA bounded by their coding
#' [0, 1] as the default bounds them. `partial` is TRUE while some column
#' is left NA (its bounds chosen privately), `none_given` where none but
#' the logical columns' coding is given (the default's bounds). Schema and
#' shape only: before any charge.
#' @noRd
partial_bounds <- function(box, x) {
  arg <- box$arg
  if (inherits(x, "dp_suffstat") || is.function(x)) {
    abort(paste0("`x` is %s, and `%s` has NA bounds, which are chosen privately from the data's columns: that ",
                 "needs the data in memory (a matrix or data frame); give every column's bounds."),
          if (is.function(x)) "a reader" else "a dp_suffstat", arg, .arg = "x")
  }
  # (the data's shape first: the bounds are aligned to its columns)
  if (!(is.data.frame(x) || is.matrix(x) || (is.numeric(x) || is.logical(x)) && is.null(dim(x)) && !is.object(x)) ||
      !length(x) || data_ncol(x) < 1L) {
    abort("`x` must be a numeric matrix or data frame (rows are records) with at least one column.", .arg = "x")
  }
  p <- public_ncol(x)
  k <- length(box$lower)
  if (is.null(names(box$lower)) && k != 1L && k != p) {
    # (named as align_bounds() names the same mistake without NA)
    abort("`%s` gives %d bounds (NA where chosen privately), and `x` has %d column(s): give one per column.",
          arg, as.integer(k), as.integer(p), .arg = arg)
  }
  a <- align_bounds(box, data_colnames(x), p, arg, na_ok = TRUE)
  coded <- coded_flags(x, length(a$lower))
  fill <- coded & is.na(a$lower)
  # no bounds given but the logical columns' coding: the default, as labelled
  none <- all(fill | is.na(a$lower) | coded & a$lower == 0 & a$upper == 1)
  a$lower[fill] <- 0
  a$upper[fill] <- 1
  list(lower = a$lower, upper = a$upper, arg = arg, partial = anyNA(a$lower), none_given = none)
}

#' Per column of `x`, whether its bounds are fixed without a private choice:
#' given (`given`, partial_bounds() output), or by its coding (a logical
#' column) where none are given.
#' @noRd
fixed_bounds_flags <- function(x, given = NULL) {
  if (is.null(given)) coded_flags(x) else !is.na(given$lower)
}

# Defaults of dp_cov()'s private column bounds (see ?dp_column_bounds).
column_bounds_defaults <- list(range = 1e6, resolution = 0.01, tail_factor = 16, max_level = 0.25, decay = 2)

#' dp_cov() without any bounds: per-column bounds chosen privately by
#' dp_column_bounds()'s mechanism (charged by the caller, with `cols` its
#' budget per choice), then the box path with them. The release records the
#' bounds (params$bounds, bounds_source "private"), the column step's budget,
#' and, from released quantities only (the public or noisy n), the share of
#' rows the bounds target beyond them; print() notes it from 1% and warns
#' from 10%.
#' @noRd
dp_cov_private_box <- function(x, cols, eps_cols, min_rows, epsilon, delta, eps_mean, delta_mean, eps_second,
                               delta_second, split, mechanism, type, divisor, neighbor, calibration, charge, call,
                               gauss = NULL, box_weights = NULL, given = NULL) {
  # logical columns (schema) are bounded by their coding [0, 1], columns
  # with bounds `given` (partial_bounds()) by them; the others privately
  X <- check_data_matrix(x, min_rows = min_rows)
  coded <- coded_flags(x, ncol(X))
  fixed <- if (is.null(given)) coded else !is.na(given$lower)
  if (length(fixed) != ncol(X)) {
    stop(sprintf("internal error: bounds aligned to %d column(s), the data has %d", length(fixed), ncol(X)),
         call. = FALSE)
  }
  check_charged_columns(X[, !fixed, drop = FALSE], cols)
  d <- column_bounds_defaults
  cb <- column_bounds_coded(X, fixed, cols$epsilon_q, d$range, d$resolution, d$tail_factor, d$max_level, d$decay,
                            n_public = neighbor != "add-remove",
                            lower = if (is.null(given)) 0 else given$lower, upper = if (is.null(given)) 1 else given$upper)
  # judged (and warned about) once it is labelled private, below
  rel <- muffle_noise_warnings(
    dp_cov_box(X, list(lower = cb$lower, upper = cb$upper, weights = box_weights), epsilon, delta, eps_mean, delta_mean,
               eps_second, delta_second, split, mechanism, type, divisor, neighbor, calibration, charge, call,
               min_rows, gauss = gauss))
  all_cols <- release_colnames(rel)
  # (a logical column given other bounds than its coding is not coded)
  coded <- coded & cb$lower == 0 & cb$upper == 1
  if (any(coded)) rel$params$coded_columns <- all_cols[coded]
  # the bounds given (NA where chosen privately): which columns' bounds came
  # from the data, for the diagnostics (bounds_from_data())
  if (!is.null(given)) rel$params$public_bounds <- data.frame(lower = given$lower, upper = given$upper, row.names = all_cols)
  m <- d$tail_factor / cols$epsilon_q
  m2 <- min(column_bounds_refine / cols$epsilon_q, m)
  n_hat <- if (!is.na(rel$n)) rel$n else rel$params$n_noisy
  share <- min(d$max_level, m2 / max(1, n_hat))
  rel$params$bounds_source <- "private"
  # the private spreads (the medians of absolute deviations the mechanism
  # chose, released with the bounds): 0 where most rows share one value
  rel$params$column_bounds <- list(epsilon = eps_cols, delta = cols$delta, epsilon_quantile = cols$epsilon_q,
                                   rho = cols$rho, composition = cols$composition, tail_rows = m2,
                                   first_rows = m, clamped_share = share,
                                   scale = stats::setNames(cb$scale[!fixed], all_cols[!fixed]),
                                   center = stats::setNames(cb$center[!fixed], all_cols[!fixed]), range = d$range)
  rel <- box_relabel_source(rel, if (is.null(given)) "private" else "partial")
  warn <- column_bounds_note(m, m2, d$max_level, n_hat, rel$params[["bounds"]][!fixed, , drop = FALSE], d$range,
                             in_release = TRUE, partial = !is.null(given))
  rel$tuning <- tuning_record(
    "private column bounds", private = TRUE,
    detail = paste(c(sprintf(paste0("per-column lower and upper bounds%s by dp_column_bounds()'s mechanism ",
                                    "(%d exponential mechanisms, epsilon %s each; (%s, %s)-DP in all, inside the ",
                                    "stated budget), targeting about %s rows beyond each bound"),
                             if (is.null(given)) "" else sprintf(" of the %d column(s) without public bounds", sum(!fixed)),
                             cols$choices, format_privacy(cols$epsilon_q), format_privacy(eps_cols),
                             format_privacy(cols$delta), format(m2, digits = 4)), warn), collapse = "\n  "))
  rel$params$composition <- if (is.null(gauss)) "basic" else gauss$composition
  rel$guarantee <- sprintf(paste0("(%s, %s)-differential privacy by %s of per-column bounds chosen ",
                                  "privately%s (%s) and the release on the box they define: %s"),
                           format_privacy(epsilon), format_privacy(delta), composition_words(gauss),
                           if (!is.null(given)) {
                             sprintf(" for the %d column(s) without public bounds, the other %d with theirs (params$public_bounds)",
                                     sum(!fixed), sum(fixed))
                           } else if (any(coded)) {
                             sprintf(" for the %d non-logical column(s), the logical ones bounded by their coding [0, 1]",
                                     sum(!coded))
                           } else "",
                           sub("\\.$", "", column_bounds_guarantee_text(eps_cols, cols$delta, column_bounds_notion(neighbor), cols$choices,
                                                                         cols$epsilon_q, cols$composition,
                                                                         count = neighbor == "add-remove")),
                           rel$guarantee)
  finish_diagnostics(rel)
}

#' dp_cov() with public bounds tightened privately: column_bounds_within()
#' inside the public `window` (charged by the caller, `cols` its budget per
#' choice), then the box path on the tightened bounds. Labelled like
#' dp_cov_private_box()'s release, with bounds_source "public, tightened
#' privately" and the public bounds kept in params$public_bounds.
#' @noRd
dp_cov_tightened_box <- function(x, window, cols, eps_cols, min_rows, epsilon, delta, eps_mean, delta_mean,
                                 eps_second, delta_second, split, mechanism, type, divisor, neighbor, calibration,
                                 charge, call, gauss) {
  X <- check_data_matrix(x, min_rows = min_rows)
  # logical columns, and integer ones in [0, 1], keep their public bounds (tightened_columns()), as charged
  moved <- tightened_columns(x, ncol(X), bounds = window)
  check_charged_columns(X[, moved, drop = FALSE], cols)
  w <- align_bounds(window, colnames(X), ncol(X))
  cb <- list(lower = w$lower, upper = w$upper, weights = window$weights)
  tb <- column_bounds_within(X[, moved, drop = FALSE], w$lower[moved], w$upper[moved], cols$epsilon_q)
  cb$lower[moved] <- tb$lower
  cb$upper[moved] <- tb$upper
  rel <- muffle_noise_warnings(
    dp_cov_box(X, cb, epsilon, delta, eps_mean, delta_mean, eps_second, delta_second, split, mechanism, type,
               divisor, neighbor, calibration, charge, call, min_rows, gauss = gauss))
  rel <- tightened_labels(rel, cols, eps_cols, sum(moved),
                          data.frame(lower = w$lower, upper = w$upper, row.names = rownames(rel$params[["bounds"]])))
  rel$params$composition <- if (is.null(gauss)) "basic" else gauss$composition
  rel$guarantee <- sprintf(paste0("(%s, %s)-differential privacy by %s of the public bounds tightened privately ",
                                  "(%s) and the release on the box they define: %s"),
                           format_privacy(epsilon), format_privacy(delta), composition_words(gauss),
                           sub("\\.$", "", tighten_guarantee_text(eps_cols, cols, sum(moved), !all(moved))),
                           rel$guarantee)
  finish_diagnostics(rel)
}

#' What every release on tightened bounds records (public or released
#' quantities only): the bounds' source, the public bounds, the step's
#' budget and target, the mechanism's name and the tuning record, for `k`
#' tightened columns with `eps_cols` and `cols` (column_bounds_epsilon()).
#' @noRd
tightened_labels <- function(rel, cols, eps_cols, k, public) {
  m2 <- column_bounds_refine / cols$epsilon_q
  n_hat <- released_rows(rel)
  share <- min(tighten_max_level, m2 / max(1, n_hat))
  rel$params$bounds_source <- "public, tightened privately"
  rel$params$public_bounds <- public
  rel$params$column_bounds <- list(epsilon = eps_cols, delta = cols$delta, epsilon_quantile = cols$epsilon_q,
                                   rho = cols$rho, composition = cols$composition, tail_rows = m2,
                                   clamped_share = share, variables = k)
  rel <- box_relabel_source(rel, "tightened")
  rel$tuning <- tuning_record("public bounds tightened privately", private = TRUE,
                              detail = tighten_detail(k, cols, eps_cols, m2, share, n_hat))
  rel
}

#' The tuning record's words for tightened bounds (public or released
#' quantities only: `n_hat` public or noisy), with a warning when the
#' tightened bounds target more rows beyond each than the automatic rule
#' allows (reached only with `tighten = TRUE`).
#' @noRd
tighten_detail <- function(k, cols, eps_cols, m2, share, n_hat) {
  out <- sprintf(paste0("per-column bounds inside the public ones, by %d exponential mechanisms (epsilon %s each; ",
                        "(%s, %s)-DP in all, inside the stated budget), targeting about %s rows beyond each bound"),
                 tighten_choices * k, format_privacy(cols$epsilon_q), format_privacy(eps_cols), format_privacy(cols$delta),
                 format(m2, digits = 4))
  if (share >= tighten_auto_level) {
    out <- c(out, sprintf(paste0("WARNING: the tightened bounds clamp about %s%% of the rows at each end of every ",
                                 "column; spreads are under-estimated. Use tighten = FALSE or more epsilon."),
                          format(100 * share, digits = 2)))
  }
  paste(out, collapse = "\n  ")
}

#' The guarantee of the tightening step.
#' @noRd
tighten_guarantee_text <- function(eps_cols, cols, k, logical_kept = FALSE) {
  how <- if (cols$composition == "zCDP") {
    sprintf("(%s, %s)-DP by zero-concentrated composition of %d exponential mechanisms of epsilon %s each",
            format_privacy(eps_cols), format_privacy(cols$delta), tighten_choices * k, format_privacy(cols$epsilon_q))
  } else {
    sprintf("%s-DP by basic composition of %d exponential mechanisms of epsilon %s each", format_privacy(eps_cols),
            tighten_choices * k, format_privacy(cols$epsilon_q))
  }
  paste0(how, ", a lower and an upper point per column inside its public interval",
         if (logical_kept) " (logical columns, and integer ones in [0, 1], keep their public bounds)", ", under every neighbour notion; ",
         "n is used but not released by this step")
}

# ---- dp_lm()'s default: private bounds of the model frame's numeric variables ----

#' The rho charged for dp_lm()'s private bounds before the number of numeric
#' variables k is known: the zCDP total is zcdp_rho(epsilon, delta) whatever
#' k when that composition is used, and with basic composition K choices of
#' epsilon / K each (K = 10k, plus one for a noisy count) have rho K
#' (epsilon / K)^2 / 8 = epsilon^2 / (8K) <= epsilon^2 / 80; the larger is a
#' valid rho for every k (rho-zCDP implies rho'-zCDP for rho' >= rho).
#' @noRd
lm_bounds_rho <- function(epsilon, delta) {
  basic <- em_zcdp_rho(epsilon / column_bounds_choices)  * column_bounds_choices
  if (delta > 0) max(zcdp_rho(epsilon, delta), basic) else basic
}

#' Private bounds of the numeric variables of dp_lm()'s model frame `mf`
#' (response included), named by variable for lm_box_bounds(); factors and
#' logicals get their public bounds there. The step's facts go into `state`.
#' @noRd
lm_private_bounds <- function(mf, epsilon, delta, state, given = NULL, data_names = NULL) {
  num <- vapply(mf, function(col) is.numeric(col) && is.null(dim(col)), logical(1))
  # bounds given for some variables (NA for the others): only the NA ones'
  # are chosen; every numeric variable needs its bounds or an NA
  if (!is.null(given)) {
    gn <- names(given$lower)
    unknown <- gn[is.na(given$lower)]
    # (an NA for a column of `data` the model does not use, or a factor, is
    # ignored, as public bounds are: one table serves every call)
    lm_check_na_names(setdiff(unknown, c(names(mf), data_names)), given$arg)
    miss <- setdiff(names(mf)[num], gn)
    if (length(miss)) {
      abort("`%s` gives no bounds for the numeric variable(s) %s: give public bounds, or NA to choose them privately.",
            given$arg, paste0("`", miss, "`", collapse = ", "), .arg = given$arg)
    }
    num <- num & names(mf) %in% unknown
  }
  k <- sum(num)
  cols <- column_bounds_epsilon(epsilon, delta, max(1L, k), noisy_count = !isTRUE(state$n_public))
  d <- column_bounds_defaults
  # (k = 0: a logical response and logical or factor terms, all bounded by their coding)
  X <- matrix(as.double(unlist(mf[num], use.names = FALSE)), nrow(mf), k)
  cb <- column_bounds_mechanism(X, cols$epsilon_q, d$range, d$resolution, d$tail_factor, d$max_level, d$decay,
                                n_public = isTRUE(state$n_public))
  state$k <- k
  state$rho <- cols$rho
  state$epsilon_q <- cols$epsilon_q
  state$composition <- cols$composition
  state$first_rows <- d$tail_factor / cols$epsilon_q
  state$tail_rows <- min(column_bounds_refine / cols$epsilon_q, state$first_rows)
  state$scale <- stats::setNames(cb$scale, names(mf)[num])
  state$center <- stats::setNames(cb$center, names(mf)[num])
  out <- list(lower = stats::setNames(cb$lower, names(mf)[num]), upper = stats::setNames(cb$upper, names(mf)[num]))
  if (is.null(given)) return(out)
  known <- !is.na(given$lower)
  structure(list(lower = c(out$lower, given$lower[known]), upper = c(out$upper, given$upper[known])),
            private = names(mf)[num])
}

# ---- public bounds tightened privately ------------------------------------------

# Two choices per column (the lower and the upper bound), each targeting about
# column_bounds_refine / epsilon_q rows beyond it, at most a share
# tighten_max_level of them. The automatic rule (`tighten = NULL`) tightens
# when n is public and that target is at most a twentieth of n, for what
# each estimates:
# * the covariance in the data's units (dp_cov(), tighten = NULL):
#   tighten_auto_level. Above it the draws' spread in rank (order 1 /
#   epsilon_q times the log of the window's width against the data's
#   spacing) clamps enough of a column to bias its variance (bench/tighten.R:
#   quakes' bimodal depth at epsilon 0.25 lost to its public bounds), and the
#   budget is better left to the release; a tenth, the level before, let the
#   clamped share reach a third on faithful (below);
# * slopes and principal axes (dp_lm(), dp_pca()): tighten_auto_level_fit. They are ratios of the covariance's entries, in which a
#   clamped tail's shrinkage largely cancels, while the noise of every
#   narrowed column falls (bench/tighten-fit.R: the slope error and the
#   principal angle fell in most cells of bench/peers.R's grid). But the
#   rows actually clamped are not the target: on a bimodal column whose
#   public bounds are already its range (faithful, n = 272) the choice lands
#   in the gap between the modes, and a target of a fifth of n (epsilon 0.5)
#   clamped 22-100% of a column, a tenth (epsilon 1) 22-32%, and the
#   intervals covered 50% and 65% with no warning; at a twentieth (epsilon
#   2) 10% and 92%. A quarter, the level before, tightened all of these.
# The tightening takes 2 * tighten_share of epsilon and delta when
# `bound_share` is not given.
tighten_choices <- 2L
tighten_max_level <- 0.25
tighten_auto_level <- 0.05
tighten_auto_level_fit <- 0.05
tighten_share <- 0.15
# Each public bound is also a candidate of its own choice, an atom of the
# base measure of mass tighten_atom_share times the public width, with
# utility -m (no row beyond it). Without it a bound that many rows attain
# (a Likert item's top answer, a 0/1 column's ones) could not be kept: every
# point inside has all those rows beyond it, the bound itself has measure 0,
# so the tightened bound landed in the gap below the pile and clamped it
# (a 1-5 scale with a quarter of its rows at each end, public bounds [1, 5]:
# tightened to [1.6, 4.5], slopes 0.21-0.26 off at every epsilon, 0.03-0.11
# with the atom). The atom wins once the pile holds more than about
# (2 + log(w / (share W))) m rows, w the gap below it and W the public
# width; elsewhere it is one more empty candidate beside the gap between the
# data's extreme and the bound. 0.005 left bench/peers.R's penguins and
# quakes within their run-to-run noise (250 releases per cell, epsilon 1-4:
# median ratios 0.90-1.05 but quakes' principal angle at epsilon 4, 1.13,
# 95% bootstrap 1.01-1.25); 0.02 cost that angle 16%.
tighten_atom_share <- 0.005

#' The budget of the tightening of `p` columns' public bounds: 2 *
#' `share` of epsilon and delta over its 2p choices (column_bounds_epsilon()).
#' @noRd
tighten_epsilon <- function(epsilon, delta, share, p) {
  column_bounds_epsilon(2 * share * epsilon, 2 * share * delta, p, tighten_choices)
}

#' Whether to tighten public bounds: `tighten` as given (TRUE/FALSE), or for
#' NULL the automatic rule from public quantities only: n public (replace-one
#' or zero-out, and the rows in memory) and the rows targeted beyond each
#' bound at most `level` of n.
#' @noRd
tighten_decision <- function(tighten, n_public, eps_q, level = tighten_auto_level) {
  if (!is.null(tighten)) return(tighten)
  !is.na(n_public) && column_bounds_refine / eps_q <= level * n_public
}

#' dp_pca()'s `tighten` for dp_cov() when its `...` (`dots`) give public
#' bounds and no `tighten`: the automatic rule at the level of principal axes, from the
#' public arguments (`dots`) and the data's shape only. Arguments that
#' dp_cov() will refuse give FALSE here, so that dp_cov() raises its own
#' classed error.
#' @noRd
pca_tighten <- function(x, dots) {
  if (is.function(x) || inherits(x, "dp_suffstat")) return(FALSE)
  tryCatch({
    neighbor <- check_choice(if (is.null(dots[["neighbor"]])) "add-remove" else dots[["neighbor"]], dp_neighbors, "neighbor")
    share <- if (is.null(dots[["bound_share"]])) tighten_share else check_number(dots[["bound_share"]], "bound_share", 0, 0.5)
    box <- check_bounds(dots[["lower"]], dots[["upper"]], dots[["bounds"]], partial = TRUE)
    if (is.null(box)) return(FALSE)  # no public bounds: nothing to tighten
    # bounds NA for some columns are never tightened; NA only on logical
    # columns is their coding, public bounds as if given
    if (isTRUE(box$partial)) {
      box <- partial_bounds(box, x)
      if (isTRUE(box$partial)) return(FALSE)
    }
    k <- sum(tightened_columns(x, bounds = box))
    if (k == 0L) return(FALSE)  # all logical (or integer in [0, 1]): nothing to tighten
    cols <- tighten_epsilon(check_epsilon(dots[["epsilon"]]), check_delta(dots[["delta"]]), share, k)
    n_pub <- if (neighbor == "add-remove") NA_real_ else public_nrow(x)
    tighten_decision(NULL, n_pub, cols$epsilon_q, tighten_auto_level_fit)
  }, error = function(e) FALSE)
}

#' Public bounds tightened privately: per column two exponential mechanisms
#' (Smith 2011's continuous form, interval_exp_mech()) over the public interval
#' [lower_j, upper_j] with the uniform base measure, the values clamped to it:
#' the upper bound with utility -|(n - i) - m_n| (rows above it), the lower
#' with -|i - m_n| (rows below), m_n = min(column_bounds_refine / eps_q,
#' tighten_max_level n). The utilities are those of dp_column_bounds()'s tails
#' (sensitivity 1 under every notion). Each public bound is also a candidate
#' of its own choice (an atom of the data-free base measure, utility -m_n:
#' `atom_share`), so a bound many rows attain can be kept (`atom_share` 0,
#' for the tests' controls: no atom). Both draws lie in the public interval;
#' a pair out of order is swapped, and one of width 0 gives back the public
#' interval (post-processing of released values). Returns lower and upper in
#' the data's units.
#' @noRd
column_bounds_within <- function(X, lower, upper, eps_q, atom_share = tighten_atom_share) {
  n <- nrow(X)
  i <- seq.int(0, n)
  m_n <- min(column_bounds_refine / eps_q, tighten_max_level * n)
  sens <- quantile_utility_sensitivity("add-remove")
  lo <- hi <- numeric(ncol(X))
  for (j in seq_len(ncol(X))) {
    z <- c(lower[j], sort(pmin(pmax(X[, j], lower[j]), upper[j])), upper[j])
    # each public bound is also a candidate in itself (no row beyond it)
    atom_mass <- log(atom_share * (upper[j] - lower[j]))
    h <- interval_exp_mech(z, -abs(n - i - m_n), eps_q, sens, Inf,
                           atom = list(at = upper[j], log_mass = atom_mass, utility = -m_n))
    l <- interval_exp_mech(z, -abs(i - m_n), eps_q, sens, Inf,
                           atom = list(at = lower[j], log_mass = atom_mass, utility = -m_n))
    b <- sort(c(l, h))
    if (!(b[2] - b[1] > 1e-9 * (upper[j] - lower[j]))) b <- c(lower[j], upper[j])
    lo[j] <- b[1]
    hi[j] <- b[2]
  }
  list(lower = lo, upper = hi)
}

# ---- dp_lm() with public bounds tightened privately --------------------------

#' The public bounds of dp_lm()'s model frame `mf` with those of `vars` (the
#' bounds named by a variable of the formula) tightened by
#' column_bounds_within() inside them; a variable that is not numeric (a
#' factor or a logical) keeps its bounds, so at most the charged number of
#' columns is tightened. The step's facts go into `state`.
#' @noRd
lm_tightened_bounds <- function(mf, box, vars, cols, state) {
  num <- vars[vapply(vars, function(v) is.numeric(mf[[v]]) && is.null(dim(mf[[v]])), logical(1))]
  lo <- box$lower[num]
  hi <- box$upper[num]
  if (length(num)) {
    X <- matrix(unlist(mf[num], use.names = FALSE), nrow(mf), length(num))
    cb <- column_bounds_within(X, lo, hi, cols$epsilon_q)
    box$lower[num] <- cb$lower
    box$upper[num] <- cb$upper
  }
  state$k <- length(vars)
  state$public <- data.frame(lower = unname(lo), upper = unname(hi), row.names = num)
  state$tightened <- data.frame(lower = unname(box$lower[num]), upper = unname(box$upper[num]), row.names = num)
  box
}

#' dp_lm()'s release labelled for the tightened bounds (public and released
#' quantities only).
#' @noRd
lm_tightened_labels <- function(rel, state, cols, eps_bound, epsilon, delta, gauss) {
  rel$epsilon <- epsilon
  rel$delta <- delta
  rel <- tightened_labels(rel, cols, eps_bound, state$k, state$public)
  rel$params$tightened_bounds <- state$tightened
  if (!startsWith(rel$guarantee, "NONE")) {
    rel$params$composition <- if (is.null(gauss)) "basic" else gauss$composition
    rel$guarantee <- sprintf(paste0("(%s, %s)-differential privacy in total by %s: the public bounds of %d ",
                                    "variable(s) tightened privately (%s), then %s"),
                             format_privacy(epsilon), format_privacy(delta), composition_words(gauss), state$k,
                             tighten_guarantee_text(eps_bound, cols, state$k), rel$guarantee)
  }
  if (!is.null(rel$diagnostics)) rel <- muffle_noise_warnings(finish_diagnostics(rel))
  rel
}
