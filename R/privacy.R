# Every noise calibration and every sensitivity in dpcov lives in this file,
# together with the words each release uses to state its guarantee.

# ---- Neighbour notions ---------------------------------------------------------

# The neighbour notions a release can be calibrated for.
#  * "replace-one": one row replaced by any other row (bounded DP); neighbours
#    have the same size, so n is public by definition.
#  * "add-remove": one row added or removed (unbounded DP); n is private unless
#    a release says it treats it as public.
#  * "zero-out": one row replaced by the all-zero row (n public); what Wang &
#    Xu's printed noise and the papers' local-model noise are calibrated for.
dp_neighbors <- c("replace-one", "add-remove", "zero-out")

# A central neighbour notion, in words.
neighbor_words <- function(neighbor) {
  switch(neighbor,
         "replace-one" = "replace-one-row neighbours",
         "add-remove" = "add/remove-one-row neighbours",
         "zero-out" = "zero-out neighbours (one row replaced by the all-zero row)",
         # a charge whose guarantee holds under all three (a private quantile's)
         "any" = "every neighbour notion",
         # a charge that holds under both at the same cost (notion_no_count)
         "add-remove, zero-out" = "add/remove-one-row and zero-out neighbours")
}

# The local model's notions, in the words its guarantees use.
local_neighbor_words <- function(neighbor) {
  switch(neighbor,
         "replace-one" = "replace-one (any two values of a record)",
         "zero-out" = "zero-out (a record against the all-zero record)")
}

# The neighbour notions of Sheffet's mechanisms (by function), in one place:
# the notion each charge records. Algorithms 1, 2, 3 and 5 see the data only
# through A'A (a zeroed row is a removed one) and never use n, so they hold
# under every notion ("any"); Algorithm 4's psi and degrees of freedom use n,
# so it holds for replace-one only. A mechanism missing here is an error, never
# a default.
sheffet_notions <- c(jl_ridge = "any", jl_adaptive = "any", wishart_noise = "any",
                     iwishart_posterior = "replace-one", iwishart_adaptive = "any")

# The notion a Sheffet release states: "any" is stated as add/remove, since n
# is not released.
sheffet_release_notion <- function(mechanism) {
  if (!is_string(mechanism) || !mechanism %in% names(sheffet_notions)) {
    stop("internal: no neighbour notion recorded for mechanism ", deparse1(mechanism), call. = FALSE)
  }
  notion <- sheffet_notions[[mechanism]]
  if (notion == "any") "add-remove" else notion
}

#' A privacy parameter (epsilon, delta, rho, a clip or another bound a
#' guarantee states) as text: 7 significant digits whatever
#' `options(digits)` says, the decimal mark "." whatever `OutDec` says, and
#' rounded up at the last digit shown where rounding to nearest would lower
#' it, so that a guarantee never reads stronger than it is (`up = FALSE`
#' rounds down: for what is left of a budget). A value within a relative
#' 8 eps (2^-49) of the 7-digit decimal is that decimal (floating-point
#' sums of charges).
#' @noRd
format_privacy <- function(v, up = TRUE) {
  vapply(as.double(v), function(x) {
    if (!is.finite(x) || x == 0) return(sprintf("%.7g", x))
    # the 7-digit decimal read back (a correctly rounded parse): x itself
    # when x is that decimal's double (1e-19), where signif()'s arithmetic
    # can land one unit off it and trigger a spurious step
    s <- as.numeric(sprintf("%.7g", x))
    step <- 10^(floor(log10(abs(x))) - 6)
    # a few ulps off the decimal is the rounding of the arithmetic that made
    # x (three charges of 1e-4 sum to 3e-4 plus an ulp), not privacy loss:
    # it printed 0.0003000001
    slack <- 8 * .Machine$double.eps * abs(x)
    if (up && s < x - slack) s <- s + step
    if (!up && s > x + slack) s <- s - step
    sprintf("%.7g", s)
  }, character(1))
}

# The guarantee of dp_clip_bound(), in words.
bound_guarantee_text <- function(epsilon, neighbor) {
  n_words <- if (neighbor == "add-remove") "n is not released" else
    "n is public (neighbouring data sets have the same size) but not released"
  sprintf("%s-differential privacy (delta = 0), %s; %s.", format_privacy(epsilon), neighbor_words(neighbor), n_words)
}

#' The guarantee of a release, in words
#'
#' @param n_public `TRUE` when the release discloses n (exactly) or its noise
#'   scale depends on n; `FALSE` when n is neither released nor used.
#' @param local Local model: the guarantee holds for every record's report.
#' @noRd
dp_guarantee_text <- function(epsilon, delta, neighbor, clip, n_public, local = FALSE) {
  if (!is.finite(clip)) {
    return(paste0("NONE: rows were not clipped (clip = Inf), so the sensitivity is ",
                  "unbounded and no formal privacy guarantee holds (noise calibrated as if ",
                  "epsilon = ", format_privacy(epsilon), ", delta = ", format_privacy(delta), ")."))
  }
  notion <- if (local) local_neighbor_words(neighbor) else neighbor_words(neighbor)
  n_text <- if (local) {
    "the number of reports n is public"
  } else if (neighbor == "add-remove") {
    # a release that discloses n has no add/remove guarantee (thresholding refuses the notion)
    if (n_public) stop("internal error: an add/remove release cannot disclose n", call. = FALSE)
    "n is not released"
  } else {
    "n is public (neighbouring data sets have the same size)"
  }
  sprintf("(%s, %s)-%sdifferential privacy, %s; rows clipped to L2 norm <= %s; %s.",
          format_privacy(epsilon), format_privacy(delta), if (local) "local " else "", notion,
          format_privacy(clip), n_text)
}

# ---- The Gaussian and Laplace mechanisms ----------------------------------------

#' Noise scale of the Gaussian mechanism
#'
#' The standard deviation of Gaussian noise that makes a query with L2
#' sensitivity `sensitivity` (epsilon, delta)-differentially private.
#'
#' * `"analytic"` (default): the smallest sigma for which the Gaussian
#'   mechanism is (epsilon, delta)-DP (Balle and Wang 2018, Theorem 8): the
#'   root of \eqn{\Phi(\Delta/(2\sigma) - \epsilon\sigma/\Delta) - e^\epsilon
#'   \Phi(-\Delta/(2\sigma) - \epsilon\sigma/\Delta) = \delta}. Valid for every
#'   epsilon > 0 and never larger than the classic value.
#' * `"classic"`: \eqn{\sigma = \Delta \sqrt{2 \log(1.25/\delta)} / \epsilon}
#'   (Dwork and Roth 2014, Theorem A.1). Proven only for `epsilon < 1`; larger
#'   epsilon is an error (at epsilon = 10, delta = 1e-5 it gives delta = 2.3e-5).
#'
#' epsilon must lie in \[1e-6, 1000\]: below it some mechanisms' noise parameters
#' (Sheffet's Wishart degrees of freedom grow as \eqn{1/\epsilon^2}) exceed exact
#' double arithmetic, and above it a guarantee protects nothing.
#'
#' @param sensitivity L2 sensitivity of the query (> 0).
#' @param epsilon Privacy loss, in \[1e-6, 1000\].
#' @param delta Failure probability, in (0, 1).
#' @param calibration `"analytic"` or `"classic"`.
#' @return The noise standard deviation.
#' @references Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian
#'   mechanism for differential privacy: analytical calibration and optimal
#'   denoising. *Proceedings of the 35th International Conference on Machine
#'   Learning (ICML)*, PMLR 80, 394-403.
#'
#'   Dwork, C. and Roth, A. (2014). The algorithmic foundations of
#'   differential privacy. *Foundations and Trends in Theoretical Computer
#'   Science* 9(3-4), 211-407.
#' @examples
#' gaussian_sigma(1, epsilon = 0.5, delta = 1e-5)
#' gaussian_sigma(1, epsilon = 0.5, delta = 1e-5, calibration = "classic")
#' gaussian_sigma(1, epsilon = 4, delta = 1e-5)
#' @template param-dots-none
#' @export
gaussian_sigma <- function(sensitivity, epsilon, delta, calibration = "analytic", ...) {
  refuse_unknown_args("gaussian_sigma", ...)
  calibration <- check_choice(calibration, c("analytic", "classic"), "calibration")
  sensitivity <- check_sensitivity(sensitivity)
  epsilon <- check_epsilon(epsilon)
  delta <- check_delta(delta)
  sigma <- noise_sigma(sensitivity, epsilon, delta, calibration, proven = TRUE, arg = "sensitivity")
  refuse_subnormal_scale(sigma, "Gaussian noise sd")
}

# A sensitivity > 0 that is a normal double: a subnormal one has
# a few bits left, and its noise scale, rounded on that grid, can land below
# the one calibrated (2.5 times the epsilon asked for, at 5 x 2^-1074).
check_sensitivity <- function(sensitivity) {
  sensitivity <- check_number(sensitivity, "sensitivity", lower = 0)
  if (sensitivity < .Machine$double.xmin) {
    abort("`sensitivity` = %s is below the smallest normal double (%s), where a noise scale cannot be computed exactly; give a larger `sensitivity` (rescale the statistic).",
          format(sensitivity), format(.Machine$double.xmin, digits = 4), .arg = "sensitivity")
  }
  sensitivity
}

refuse_subnormal_scale <- function(scale, what) {
  if (scale > 0 && scale < .Machine$double.xmin) {
    abort("the %s, %s, is below the smallest normal double, where it is rounded on a coarse grid (possibly down); rescale to a larger `sensitivity`.",
          what, format(scale), .arg = "sensitivity")
  }
  scale
}

#' The Gaussian sigma for validated arguments. With `proven = FALSE` (releases
#' that claim no guarantee, e.g. clip = Inf in the papers' simulations) the
#' classic formula is allowed outside its proven range.
#' @noRd
noise_sigma <- function(sensitivity, epsilon, delta, calibration, proven = TRUE, arg = "clip") {
  if (calibration == "classic") {
    if (proven && epsilon >= 1) {
      abort(paste0("the classic Gaussian calibration is proven only for epsilon < 1 (got %s); ",
                   "use calibration = \"analytic\", valid for every epsilon."), format(epsilon),
            .arg = "calibration")
    }
    sigma <- sensitivity * sqrt(2 * (log(1.25) - log(delta))) / epsilon
  } else {
    sigma <- analytic_gaussian_sigma(sensitivity, epsilon, delta)
  }
  if (!(is.finite(sigma) && sigma > 0)) {
    abort("the noise scale for sensitivity %s, epsilon = %s, delta = %s is not a finite positive number; %s.",
          format(sensitivity), format(epsilon), format(delta),
          # (Inf: too large a sensitivity; 0: one so small that the scale underflows)
          if (arg == "clip") sprintf("rescale the data (%s `clip`)", if (isTRUE(sigma == 0)) "a larger" else "a smaller")
          else sprintf("give a %s `%s`", if (isTRUE(sigma == 0)) "larger" else "smaller", arg), .arg = arg)
  }
  sigma
}

# The exact delta of the Gaussian mechanism with noise sd `sigma` (Balle and
# Wang 2018, Theorem 8): Phi(a - b) - e^eps Phi(-a - b), computed on the log
# scale so large epsilon is safe. Where a is small (much noise: tiny epsilon)
# the two terms agree to many digits, so there it is written as
# Phi(a - b) (1 - exp(-(L - eps))) with L = log Phi(a - b) - log Phi(-a - b)
# the integral of the inverse Mills ratio over [-a - b, a - b], by
# Gauss-Legendre quadrature (h is smooth there): the subtraction L - eps is
# then of two accurate numbers. At epsilon 1e-6 and delta 1e-225 the direct
# formula's sigma had a true delta 4e-5 (relative) above the target.
gaussian_mechanism_delta <- function(sigma, sensitivity, epsilon) {
  exp(gaussian_mechanism_log_delta(sigma, sensitivity, epsilon))
}

# Its logarithm, Phi(a - b) (1 - e^z) as log Phi(a - b) + log(-expm1(z)):
# finite where delta itself is subnormal or underflows (a delta of 4e-308
# was a difference of two subnormals, and the calibration's root moved with
# their rounding). z < 0 whenever delta > 0; the most negative double where
# the rounding says 0.
gaussian_mechanism_log_delta <- function(sigma, sensitivity, epsilon) {
  a <- sensitivity / (2 * sigma)
  b <- epsilon * sigma / sensitivity
  lp <- stats::pnorm(a - b, log.p = TRUE)
  z <- if (a >= 0.25) {
    epsilon + stats::pnorm(-a - b, log.p = TRUE) - lp
  } else {
    x <- -b + a * gauss_legendre_16$nodes
    mills <- exp(stats::dnorm(x, log = TRUE) - stats::pnorm(x, log.p = TRUE))
    -(a * sum(gauss_legendre_16$weights * mills) - epsilon)
  }
  # (-Inf: delta rounds to 0; as the most negative double, which root finders
  # take without their "-Inf replaced" warning)
  if (!(z < 0)) return(-.Machine$double.xmax)
  max(lp + log(-expm1(z)), -.Machine$double.xmax)
}

# 16-point Gauss-Legendre rule on [-1, 1] (Golub-Welsch: the eigenvalues of
# the Jacobi matrix, weights from the first components of its eigenvectors).
gauss_legendre_16 <- local({
  k <- seq_len(15)
  J <- matrix(0, 16, 16)
  J[cbind(k, k + 1)] <- J[cbind(k + 1, k)] <- k / sqrt(4 * k^2 - 1)
  e <- eigen(J, symmetric = TRUE)
  list(nodes = e$values, weights = 2 * e$vectors[1, ]^2)
})

analytic_gaussian_sigma <- function(sensitivity, epsilon, delta) {
  # delta(sigma) decreases in sigma; bracket the root of the unit-sensitivity
  # problem on the log scale (sigma scales linearly with the sensitivity).
  # (on the log scale of delta too: exact down to a subnormal delta)
  log_delta <- log(delta)
  f <- function(log_s) gaussian_mechanism_log_delta(exp(log_s), 1, epsilon) - log_delta
  lo <- -5
  while (f(lo) < 0) lo <- lo - 5
  hi <- log(sqrt(2 * (log(1.25) - log(delta))) / min(epsilon, 1)) + 1
  while (f(hi) > 0) hi <- hi + 1
  root <- stats::uniroot(f, c(lo, hi), tol = 1e-13)$root
  # rounded up: the root and delta's evaluation are good to about 1e-11
  # (relative), and delta falls steeply in sigma, so this margin keeps the
  # true delta at or below the target
  sensitivity * exp(root) * (1 + 1e-9)
}

#' The exact epsilon of the Gaussian mechanism with noise-to-sensitivity
#' ratio `ratio` at `delta` (Balle and Wang 2018, Theorem 8, solved for
#' epsilon; gaussian_mechanism_delta() decreases in epsilon): the step's own
#' guarantee, which the budget's ledger records for basic composition.
#' @noRd
gaussian_mechanism_epsilon <- function(ratio, delta) {
  log_delta <- log(delta)
  f <- function(e) gaussian_mechanism_log_delta(ratio, 1, e) - log_delta
  if (f(0) <= 0) return(0)
  hi <- 1
  while (f(hi) > 0) hi <- hi * 2
  lo <- hi
  while (f(lo) <= 0) lo <- lo / 2
  # on the log scale, so the tolerance is relative (an absolute 1e-13 was 1e-7
  # of an epsilon of 1e-6); the root rounded up: never below the exact one
  exp(stats::uniroot(function(l) f(exp(l)), c(log(lo), log(hi)), tol = 1e-13)$root) * (1 + 1e-9)
}

#' The Gaussian step of a release whose earlier steps (the private column
#' bounds: exponential mechanisms, (`eps_before`, `delta_before`)-DP and
#' `rho_before`-zCDP) share one (`epsilon`, `delta`) budget with it. Two
#' accountings are valid, and the one giving less noise is used:
#'  * basic composition: the Gaussian calibrated by `calibration` at the
#'    rest, (epsilon - eps_before, delta - delta_before);
#'  * zCDP (only with the analytic calibration, the default): the release is
#'    rho-zCDP for rho = zcdp_rho(epsilon, delta), the largest rho whose
#'    conversion (Canonne, Kamath and Steinke 2020) is (epsilon, delta)-DP;
#'    zCDP composes additively, so the Gaussian gets rho - rho_before, i.e.
#'    noise-to-sensitivity ratio 1 / sqrt(2 (rho - rho_before)) (Bun and
#'    Steinke 2016, Proposition 1.6).
#' The bounds' exponential mechanisms are a small share of rho (about a tenth
#' at their default share of epsilon): their 30% of epsilon under basic
#' composition costs the Gaussian 1.4x the noise of the whole budget, under
#' zCDP about 1.12x (bench/RESULTS.md, "zCDP composition of the default").
#' Returns the `ratio`, the `composition` used, the total `rho` (zCDP) and
#' `rho_before`, and the Gaussian step's own guarantee for the ledger: the rest under basic
#' composition; under zCDP, delta - delta_before and the exact epsilon of
#' this Gaussian there (gaussian_mechanism_epsilon(), above the rest's), so
#' that every charge of the ledger is a valid guarantee on its own, and the
#' ledger's zCDP total (rho_before + rho_g at delta) is `epsilon`.
#' @noRd
composed_gaussian <- function(epsilon, delta, eps_before, delta_before, rho_before, calibration) {
  eps_rest <- epsilon - eps_before
  delta_rest <- delta - delta_before
  basic <- noise_sigma(1, eps_rest, delta_rest, calibration, proven = TRUE)
  out <- list(ratio = basic, composition = "basic", rho = NA_real_, rho_before = rho_before, epsilon = eps_rest,
              delta = delta_rest)
  if (calibration != "analytic" || !(delta > 0)) return(out)
  rho <- zcdp_rho(epsilon, delta)
  rho_g <- rho - rho_before
  if (!(rho_g > 0)) return(out)
  ratio <- 1 / sqrt(2 * rho_g)
  if (!(ratio < basic)) return(out)
  list(ratio = ratio, composition = "zCDP", rho = rho, rho_before = rho_before,
       epsilon = gaussian_mechanism_epsilon(ratio, delta_rest), delta = delta_rest)
}

#' dp_cov()'s two Gaussian steps on rows clipped to L2 bounds (the private
#' mean, then Analyze Gauss on the rows centred at it), after any private
#' choice of those bounds (exponential mechanisms, pure DP, `rho_before` =
#' their eps^2/8 each), within one (`epsilon`, `delta`) budget. As in
#' composed_gaussian(), two accountings are valid and the one giving less
#' noise to both steps is used:
#'  * basic composition: each step's analytic Gaussian at its own share,
#'    (`eps_steps`[i], `delta_steps`[i]);
#'  * zCDP (analytic calibration, delta > 0): the steps share rho(epsilon,
#'    delta) - rho_before in proportion to `weights` (split^2 and (1 -
#'    split)^2, which keeps the two noises in the ratio basic composition
#'    gives them), less a margin of 1e-6 of it so that the root-finding of
#'    each step's own calibration cannot push the total over.
#' Each step then runs as the analytic Gaussian at its own guarantee
#' (`epsilon`[i], `delta`[i]): under zCDP the exact epsilon of the planned
#' noise at delta_steps[i] (gaussian_mechanism_epsilon()), so that every
#' charge of the ledger is valid on its own, and the noise it calibrates to
#' (`ratio`) is checked to add up to at most the budget's rho.
#' @noRd
composed_gaussian_steps <- function(epsilon, delta, eps_steps, delta_steps, rho_before, weights, calibration) {
  basic <- mapply(function(e, d) noise_sigma(1, e, d, calibration, proven = TRUE), eps_steps, delta_steps)
  out <- list(ratio = basic, composition = "basic", rho = NA_real_, rho_before = rho_before,
              epsilon = eps_steps, delta = delta_steps)
  if (calibration != "analytic" || !(delta > 0) || !all(delta_steps > 0)) return(out)
  rho <- zcdp_rho(epsilon, delta)
  rho_g <- (rho - rho_before) * (1 - 1e-6)
  if (!(rho_g > 0)) return(out)
  planned <- 1 / sqrt(2 * rho_g * weights / sum(weights))
  if (!all(planned < basic)) return(out)
  eps_z <- mapply(gaussian_mechanism_epsilon, planned, delta_steps)
  ratio <- mapply(function(e, d) noise_sigma(1, e, d, "analytic", proven = TRUE), eps_z, delta_steps)
  if (!(rho_before + sum(1 / (2 * ratio^2)) <= rho) || !all(ratio < basic)) return(out)
  list(ratio = ratio, composition = "zCDP", rho = rho, rho_before = rho_before, epsilon = eps_z,
       delta = delta_steps)
}

#' How a release's private bounds and its Gaussian step compose, in words
#' (`gauss` from composed_gaussian(), or NULL: basic composition).
#' @noRd
composition_words <- function(gauss) {
  if (is.null(gauss) || gauss$composition == "basic") return("basic composition")
  sprintf(paste0("zero-concentrated composition (the bounds' rho = %s and the Gaussian's rho = %s add up to %s, ",
                 "converted to (epsilon, delta) by Canonne, Kamath and Steinke 2020)"),
          format_privacy(gauss$rho_before), format_privacy(gauss$rho - gauss$rho_before),
          format_privacy(gauss$rho))
}

#' Scale of the Laplace mechanism
#'
#' `b = sensitivity / epsilon`: Laplace(0, b) noise on a query with L1
#' sensitivity `sensitivity` gives epsilon-differential privacy.
#' @param sensitivity L1 sensitivity (> 0).
#' @param epsilon Privacy loss, in \[1e-6, 1000\].
#' @return The Laplace scale b.
#' @examples
#' laplace_scale(2, epsilon = 0.5)
#' @template ref-dwork-roth
#' @template param-dots-none
#' @export
laplace_scale <- function(sensitivity, epsilon, ...) {
  refuse_unknown_args("laplace_scale", ...)
  sensitivity <- check_sensitivity(sensitivity)
  epsilon <- check_epsilon(epsilon)
  b <- sensitivity / epsilon
  if (!is.finite(b)) {
    abort("the Laplace scale for sensitivity %s and epsilon = %s overflows; give a smaller `sensitivity`.",
          format(sensitivity), format(epsilon), .arg = "sensitivity")
  }
  # a positive sensitivity whose scale underflows to 0 would add no noise
  if (sensitivity > 0 && !(b > 0)) {
    abort("the Laplace scale for sensitivity %s and epsilon = %s underflows to 0; rescale to a larger `sensitivity`.",
          format(sensitivity), format(epsilon), .arg = "sensitivity")
  }
  refuse_subnormal_scale(b, "Laplace scale")
}

# ---- Sensitivities ----------------------------------------------------------------

#' L2 (Frobenius) sensitivity of a second-moment matrix
#'
#' For rows with L2 norm at most `clip` = B, the largest change in Frobenius
#' norm of the sum \eqn{S = \sum_i x_i x_i^T} (`n = NULL`) or of the average
#' \eqn{S / n} (`n` given) between neighbouring data sets (see Details).
#'
#' | neighbours | sum | average (n rows) |
#' |---|---|---|
#' | `"replace-one"` | \eqn{\sqrt2 B^2} | \eqn{\sqrt2 B^2/n} |
#' | `"zero-out"` | \eqn{B^2} | \eqn{B^2/n} |
#' | `"add-remove"` | \eqn{B^2} | \eqn{\sqrt2 B^2/n} |
#'
#' Worst cases: replacing \eqn{B e_1} by \eqn{B e_2} moves the sum by
#' \eqn{B^2\|e_1e_1^T - e_2e_2^T\|_F = \sqrt2 B^2}; zeroing or removing a row
#' moves it by \eqn{\|x x^T\|_F = \|x\|^2 \le B^2}. Under add/remove the
#' average also changes its divisor: removing \eqn{B e_1} from a data set whose
#' other n - 1 rows are \eqn{B e_2} moves the average by
#' \eqn{\|B^2 e_1e_1^T - B^2 e_2e_2^T\|_F / n = \sqrt2 B^2/n}, and no pair
#' moves it more. An average calibrated with its n discloses n (the noise
#' scale depends on it), which add/remove neighbours keep private: the
#' mechanisms that noise an average ([dp_threshold()], and [dp_cov()] with
#' `mechanism = "threshold"`) refuse `"add-remove"`.
#'
#' @param clip Row-norm bound B, finite, in \[1e-50, 1e50\].
#' @param neighbor `"add-remove"` (the default, as for the central mechanisms
#'   that add noise to a sum), `"replace-one"` or `"zero-out"`.
#' @param n Optional number of rows; if given, the sensitivity is that of the
#'   average.
#' @return The sensitivity.
#' @examples
#' second_moment_sensitivity(1, "replace-one", n = 200) # sqrt(2)/200
#' second_moment_sensitivity(1, "zero-out", n = 200)    # 1/200
#' second_moment_sensitivity(1, "add-remove", n = 200)  # sqrt(2)/200
#' second_moment_sensitivity(1, "add-remove")           # 1 (the sum)
#' @template ref-dwork-roth
#' @template param-dots-none
#' @export
second_moment_sensitivity <- function(clip, neighbor = "add-remove", n = NULL, ...) {
  refuse_unknown_args("second_moment_sensitivity", ...)
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  clip <- check_clip(clip)
  if (!is.finite(clip)) abort("the sensitivity is unbounded when `clip` = Inf.", .arg = "clip")
  if (!is.null(n)) n <- check_count(n, "n")
  gram_sensitivity(clip, neighbor, n)
}

# The table above, for validated arguments. `zero_row` (see "Neighbours of
# transformed rows" below) is the norm of the row the all-zero record becomes
# after the public map that precedes clipping; 0 when the map fixes the origin.
gram_sensitivity <- function(B, neighbor, n = NULL, zero_row = 0) {
  if (neighbor == "zero-out") {
    # ||v v' - w w'||_F^2 = |v|^4 + |w|^4 - 2 (v'w)^2 <= B^4 + |w|^4, attained
    # by v orthogonal to w, |v| = B (p >= 2); |w| <= B after clipping
    w <- min(zero_row, B)
    sum_sens <- sqrt(B^4 + w^4)
    return(if (is.null(n)) sum_sens else sum_sens / n)
  }
  if (is.null(n)) {
    return(if (neighbor == "replace-one") sqrt(2) * B^2 else B^2)
  }
  sqrt(2) * B^2 / n
}

# ---- Neighbours of transformed rows --------------------------------------------
#
# A mechanism often sees the records through a public map T applied before
# clipping: centring at a released mean (dp_cov()), a column of ones for the
# intercept (dp_lm()), a shift of each column to a public box. The neighbour
# relation is about records, so it must be applied before T:
#  * replace-one and add/remove: a record is replaced, added or removed, so one
#    transformed row is replaced, added or removed; any row of norm <= B can
#    appear, and the usual sensitivities hold.
#  * zero-out: the record becomes the all-zero record, which reaches the
#    mechanism as the row T(0) (clipped), not as the zero row. With w the norm
#    of that row, a Gram moves by up to sqrt(B^4 + w^4) (not B^2), and a sum of
#    rows clipped to C by up to C + w (not C). T fixes the origin (w = 0) only
#    for linear maps such as scaling.
# `zero_row` is that w, a public number (it depends on T and B only).

#' Norm of the transformed zero record after clipping to B: `t0` is T(0) (a
#' vector, NULL or non-finite entries when T(0) is unknown, which is taken as
#' the worst case B).
#' @noRd
zero_row_norm <- function(t0, B) {
  if (is.null(t0) || !all(is.finite(t0))) return(B)
  min(norm_round_up(t0), B)
}

# ---------------------------------------------------------------------------
# Sheffet, "Private approximations of the 2nd-moment matrix using existing
# techniques in linear regression" (arXiv:1507.00056): calibrations
# of Algorithms 1-5, and the shift of the scaled Analyze Gauss variant.
# Neighbours differ in one row of L2 norm <= B (the paper: replace-one; see R/wishart.R).
# ---------------------------------------------------------------------------

#' Calibrations of Sheffet's second-moment mechanisms
#'
#' The constants of Algorithms 1-5 of Sheffet, exactly as printed in
#' the algorithm boxes and Theorems 3.1, 4.1 and 5.1 (`B` is the row-norm
#' bound, `L = ln(4/delta)` or `ln(8/delta)` when half the budget goes to the
#' noisy smallest eigenvalue), listed under Details.
#'
#' * `sheffet_jl_w2()`: Algorithm 1's ridge, \eqn{w^2 = 4B^2(\sqrt{2 r \ln(4/\delta)} + \ln(4/\delta))/\epsilon}.
#' * `sheffet_jl_adaptive_w2()`: Algorithm 2's starting ridge, \eqn{w^2 = 8B^2(\sqrt{2 r_0 \ln(8/\delta)} + \ln(8/\delta))/\epsilon}.
#' * `sheffet_jl_rstar()`: Algorithm 2's `r*`, the largest integer r with
#'   \eqn{8B^2(\sqrt{2 r \ln(8/\delta)} + \ln(8/\delta))/\epsilon \le s}.
#' * `sheffet_eigen_laplace_scale()`, `sheffet_eigen_offset()`: the noisy
#'   smallest eigenvalue of Algorithms 2 and 5,
#'   \eqn{s = \max(0, \lambda_{min}(A^TA) - 2B^2\ln(2/\delta)/\epsilon + Z)},
#'   \eqn{Z \sim Lap(2B^2/\epsilon)}.
#' * `sheffet_wishart_k()`: Algorithm 3's degrees of freedom,
#'   \eqn{k = \lfloor d + 14 \cdot 2\ln(4/\delta)/\epsilon^2 \rfloor}.
#' * `sheffet_wishart_safe_shift()`: Lemma A.3's shift
#'   \eqn{B^2\max(0, \sqrt{k} - (\sqrt{d} + \sqrt{2\ln(4/\delta)}))^2}, which keeps
#'   \eqn{A^TA + W} minus it positive definite with probability >= 1 - delta/2
#'   (0 where the bracket is negative: the lemma then gives no positive bound).
#' * `sheffet_iwishart_psi()`: Algorithm 4's prior scale,
#'   \eqn{\psi = 2B^2(2\sqrt{2(n+d)\ln(4/\delta)} + 2\ln(4/\delta))/\epsilon}.
#' * `sheffet_iwishart_adaptive_psi()`: Algorithm 5's starting prior scale,
#'   \eqn{\psi = 4B^2(2\sqrt{2k_0\ln(8/\delta)} + 2\ln(8/\delta))/\epsilon}.
#' * `sheffet_iwishart_kstar()`: Algorithm 5's `k*`, the largest integer k with
#'   \eqn{4B^2(2\sqrt{2k\ln(8/\delta)} + 2\ln(8/\delta))/\epsilon \le s}.
#'
#' @param clip Row-norm bound B (> 0, finite).
#' @param r,r0 Rows of the JL projection (Algorithm 1), minimal rows (Algorithm 2).
#' @param k0 Minimal degrees of freedom (Algorithm 5).
#' @param d Number of columns of the data.
#' @param n Number of rows of the data.
#' @param k Degrees of freedom of Algorithm 3's Wishart noise.
#' @param s The noisy smallest eigenvalue of Algorithms 2 and 5 (>= 0).
#' @param epsilon,delta Privacy parameters.
#' @return A number.
#' @references Sheffet, O. Private approximations of the 2nd-moment matrix
#'   using existing techniques in linear regression. arXiv:1507.00056.
#'   Published as: Sheffet, O. (2019). Old techniques in differentially
#'   private linear regression. *Proceedings of the 30th International
#'   Conference on Algorithmic Learning Theory (ALT)*, PMLR 98, 789-827.
#' @details These are internal: the mechanisms compute them from validated arguments
#' and record the values they used in the release's `params`.
#'
#' **Where the constants are proven.** They are the main text's (Theorems
#' 3.1, 4.1 and 5.1). The appendix's proofs back them only in part of the
#' range of (epsilon, delta), and the mechanisms refuse the rest
#' (`sheffet_check_proven()`, before any charge), with L = ln(4/delta):
#' * Algorithm 1: Theorem B.1 needs \eqn{w^2 = B^2(1 + (1 + \epsilon/L) X/\epsilon)},
#'   \eqn{X = 2\sqrt{2rL} + 2L}, which is at most Theorem 3.1's
#'   \eqn{2B^2X/\epsilon} iff \eqn{\epsilon \le XL/(X + L)}.
#' * Algorithm 3: Theorem B.3's last step needs \eqn{\delta < 1/6} (the theorem
#'   states \eqn{\delta < 1/e}).
#' * Algorithm 4: Theorem B.4's \eqn{\psi = B^2X'/(\epsilon(1 - \epsilon/(2L)))},
#'   \eqn{X' = 2\sqrt{2\nu L} + 2L}, is at most Theorem 5.1's
#'   \eqn{2B^2X'/\epsilon} iff \eqn{\epsilon \le L} (and is void from
#'   \eqn{\epsilon = 2L}).
#' * Algorithms 2 and 5 run those steps at \eqn{(\epsilon/2, \delta/2)}: the
#'   same conditions there (Algorithm 2's at its smallest r, \eqn{r_0}, since
#'   \eqn{r^* \ge r_0}).
#' @examples
#' dpcov:::sheffet_wishart_k(d = 22, epsilon = 0.1, delta = exp(-9))
#' dpcov:::sheffet_jl_w2(clip = sqrt(55), r = 44, epsilon = 0.1, delta = exp(-9))
#' @keywords internal
#' @name sheffet_calibration
NULL

# The generic upper limit of delta for Sheffet's `mechanism`, checked before
# sheffet_check_proven(): 1/e as Theorems 3.1-5.1 state it, but none for
# Algorithm 3, whose own limit, 1/6, that check refuses in its words (the
# generic 1/e first sent a user from 0.5 to 0.3, refused again).
sheffet_delta_limit <- function(mechanism) if (mechanism == "wishart_noise") 1 else exp(-1)

# Refuses (epsilon, delta) where the appendix's proof does not back the main
# text's constant the mechanism uses (see "Where the constants are proven"
# above); `r` is Algorithm 1's r or Algorithm 2's r0. Public arguments only.
sheffet_check_proven <- function(mechanism, epsilon, delta, r = NULL, note = NULL) {
  half <- mechanism %in% c("jl_adaptive", "iwishart_adaptive")
  alg <- c(jl_ridge = "Algorithm 1", jl_adaptive = "Algorithm 2", wishart_noise = "Algorithm 3",
           iwishart_posterior = "Algorithm 4", iwishart_adaptive = "Algorithm 5")[[mechanism]]
  e <- if (half) epsilon / 2 else epsilon
  L <- log(4) - log(if (half) delta / 2 else delta)
  at <- if (half) sprintf(", which %s uses at (epsilon / 2, delta / 2),", alg) else ""
  what <- if (half) "epsilon / 2" else "epsilon"
  Ltext <- if (half) "ln(8 / delta)" else "ln(4 / delta)"
  # (a caller's share of its own epsilon and delta: said so, with the values)
  refuse <- function(fmt, ..., .arg) {
    msg <- sprintf(fmt, ...)
    if (!is.null(note)) {
      msg <- sub("^`(epsilon|delta)` = ([^ :]+)( is|:)", "`\\1` leaves the mechanism \\1 = \\2, which\\3", msg)
      msg <- sub(", which:", ", where", msg, fixed = TRUE)
      msg <- sub("\\.$", sprintf(" (%s: epsilon = %s, delta = %s).", note, format(epsilon), format(delta)), msg)
    }
    abort("%s", msg, .arg = .arg)
  }
  if (mechanism == "wishart_noise") {
    if (delta >= 1 / 6) {
      refuse("`delta` = %s: Sheffet's proof of Algorithm 3 (Theorem B.3) needs delta < 1/6, though Theorem 4.1 states delta < 1/e.",
            format(delta), .arg = "delta")
    }
  } else if (mechanism %in% c("iwishart_posterior", "iwishart_adaptive")) {
    if (e > L) {
      refuse("`epsilon` = %s is beyond what Sheffet's proof covers for %s: Theorem B.4 backs Theorem 5.1's prior psi%s only for %s <= %s = %s; use a smaller `epsilon` (or a smaller `delta`).",
            format(epsilon), alg, at, what, Ltext, format_privacy(L, up = FALSE), .arg = "epsilon")
    }
  } else {
    # r = Inf: r not known yet (a reader's columns), only the bound for every r, L
    X <- 2 * sqrt(2 * r * L) + 2 * L
    lim <- if (is.infinite(r)) L else X * L / (X + L)
    if (e > lim) {
      refuse("`epsilon` = %s is beyond what Sheffet's proof covers for %s with %s = %s: Theorem B.1 backs Theorem 3.1's ridge w^2%s only for %s <= X L / (X + L) = %s (X = 2 sqrt(2 r L) + 2 L, L = %s); use a smaller `epsilon` (or a smaller `delta`).",
            format(epsilon), alg, if (half) "r0" else "r", if (is.infinite(r)) "any" else format(r), at, what,
            format_privacy(lim, up = FALSE), Ltext, .arg = "epsilon")
    }
  }
  invisible()
}

#' @rdname sheffet_calibration
sheffet_jl_w2 <- function(clip, r, epsilon, delta) {
  L <- log(4) - log(delta)
  4 * clip^2 * (sqrt(2 * r * L) + L) / epsilon
}

#' @rdname sheffet_calibration
sheffet_jl_adaptive_w2 <- function(clip, r0, epsilon, delta) {
  L <- log(8) - log(delta)
  8 * clip^2 / epsilon * (sqrt(2 * r0 * L) + L)
}

#' @rdname sheffet_calibration
sheffet_jl_rstar <- function(s, clip, epsilon, delta) {
  L <- log(8) - log(delta)
  a <- s * epsilon / (8 * clip^2) - L   # need sqrt(2 r L) <= a
  if (a < 0) return(0)
  floor(a^2 / (2 * L))
}

#' @rdname sheffet_calibration
sheffet_eigen_laplace_scale <- function(clip, epsilon) 2 * clip^2 / epsilon

#' @rdname sheffet_calibration
sheffet_eigen_offset <- function(clip, epsilon, delta) 2 * clip^2 * (log(2) - log(delta)) / epsilon

#' @rdname sheffet_calibration
sheffet_wishart_k <- function(d, epsilon, delta) floor(d + 14 / epsilon^2 * 2 * (log(4) - log(delta)))

#' @rdname sheffet_calibration
sheffet_wishart_safe_shift <- function(clip, k, d, delta) {
  # Lemma A.3 bounds the smallest eigenvalue below by this bracket squared
  # only when the bracket is positive; otherwise it gives no positive bound
  clip^2 * max(0, sqrt(k) - (sqrt(d) + sqrt(2 * (log(4) - log(delta)))))^2
}

#' @rdname sheffet_calibration
sheffet_iwishart_psi <- function(clip, n, d, epsilon, delta) {
  L <- log(4) - log(delta)
  2 * clip^2 / epsilon * (2 * sqrt(2 * (n + d) * L) + 2 * L)
}

#' @rdname sheffet_calibration
sheffet_iwishart_adaptive_psi <- function(clip, k0, epsilon, delta) {
  L <- log(8) - log(delta)
  4 * clip^2 / epsilon * (2 * sqrt(2 * k0 * L) + 2 * L)
}

#' @rdname sheffet_calibration
sheffet_iwishart_kstar <- function(s, clip, epsilon, delta) {
  L <- log(8) - log(delta)
  a <- (s * epsilon / (4 * clip^2) - 2 * L) / 2   # need sqrt(2 k L) <= a
  if (a < 0) return(0)
  floor(a^2 / (2 * L))
}

#' Expected spectral norm of Analyze Gauss noise
#'
#' The shift `c = E||N||` of the paper's scaled Analyze Gauss (Sheffet,
#' Section 6): N is p x p symmetric with iid N(0, sigma^2) entries on and
#' above the diagonal. By scale equivariance `E||N|| = sigma * e_p`, and
#' `e_p` has no closed form; it is read from a table precomputed once by
#' Monte Carlo (`tools/shift-table.R` in the package sources), so a call
#' costs microseconds, is deterministic and the same on every platform,
#' and neither consumes nor alters R's random number stream. It spends no
#' privacy (it does not look at the data).
#'
#' The table: for p <= 50, `e_p` itself (p = 1 exact, \eqn{\sqrt{2/\pi}};
#' otherwise a Monte Carlo mean with relative standard error at most
#' 1.2e-4). For p > 50,
#' \deqn{e_p = 2\sqrt{p} + p^{-1/6} \sum_{k=0}^{K} c_k p^{-k/3},}{e_p = 2 sqrt(p) + p^(-1/6) sum_k c_k p^(-k/3),}
#' the known edge asymptotics of Wigner matrices with a fitted finite-p
#' correction: the largest eigenvalue and minus the smallest are each
#' \eqn{2\sqrt{p} + p^{-1/6} TW_1} in the limit and asymptotically
#' independent, so \eqn{c_0 = E\max(TW_1, TW_1') = -0.4936}{c_0 = E max(TW1, TW1') = -0.4936}
#' (computed from the Painleve II representation of the Tracy-Widom law),
#' and \eqn{c_1, \dots, c_K} are a weighted least-squares fit to a
#' high-replication Monte Carlo at p = 20, ..., 50 and at 19 grid points
#' from 60 to 2000. The correction term is smooth in p, so it interpolates
#' between grid points, and beyond p = 2000 it tends to the exact limit.
#'
#' **Accuracy.** The relative error of `e_p` is below 5e-4 for every p
#' (the documented bound, which the tests use). For p <= 50 the Monte Carlo
#' relative standard error is at most 1.2e-4 (2e5 to 1.4e7 matrices per p).
#' For p > 50 the fit (K = 2) passes a chi-square test against the 50 Monte
#' Carlo values it uses (45.7 on 48 df; relative standard error of the fitted
#' `e_p` below 2e-5), and a free fit that estimates \eqn{c_0} instead finds
#' -0.486 (se 0.042). Fresh Monte Carlo at held-out p = 55, 90, 135, 250,
#' 450, 800, 1500 and 3000 (independent seeds, relative standard errors
#' 0.9e-4 to 5.3e-4) differs from the table by at most 3.3e-4 relative and
#' by at most 2.1 standard errors; R's own generator (`rnorm()`, `eigen()`)
#' at p = 4, 30 and 120 agrees within 1.4 standard errors. Beyond p = 2000
#' an error d in the correction moves `e_p` by about
#' \eqn{d / (2 p^{2/3})}{d / (2 p^(2/3))} relative (3.2e-4 for d = 0.1 at
#' p = 2000, less beyond). For comparison, the 4000-matrix Monte Carlo that
#' computed the shift before had relative standard error about 1.2e-3 at
#' p = 22 and 1.5e-4 at p = 500, and took 2 minutes at p = 500.
#'
#' `reps` asks instead for a fresh Monte Carlo average over `reps` matrices
#' from the package's fixed internal stream (Mersenne Twister 64 with
#' Box-Muller, fixed seed; deterministic, cached per session, R's stream
#' untouched). It costs one p x p eigendecomposition per matrix (minutes
#' for `reps = 4000` at p = 500) and has relative standard error about
#' \eqn{0.6 p^{-2/3} / \sqrt{reps}}{0.6 p^(-2/3) / sqrt(reps)};
#' `reps = 4000` reproduces the constant that `analyze_gauss(post = "shift")`
#' used before the table existed. The work is limited to
#' \eqn{reps (p^3 + 5 \cdot 10^4) \le 10^{12}}{reps * (p^3 + 5e4) <= 1e12} (a few
#' minutes at most), and the Monte Carlo can be interrupted.
#'
#' @param p Dimension: a whole number from 1 to 46340 (the largest p whose
#'   p x p matrix dpcov allocates).
#' @param sigma Entry standard deviation of N (> 0, finite).
#' @param reps `NULL` (default) for the table, or a whole number >= 10 for
#'   a fresh Monte Carlo over that many matrices (slow; see Details).
#' @return `E||N||`, a number.
#' @references Tracy, C. A. and Widom, H. (1996). On orthogonal and
#'   symplectic matrix ensembles. *Communications in Mathematical Physics*
#'   177, 727-754.
#' @examples
#' analyze_gauss_shift(22, sigma = 1) # 8.76, a little below 2 * sqrt(22) = 9.38
#' analyze_gauss_shift(500, sigma = 2) # fast at any p
#' @template ref-sheffet
#' @template param-dots-none
#' @export
analyze_gauss_shift <- function(p, sigma, reps = NULL, ...) {
  refuse_unknown_args("analyze_gauss_shift", ...)
  p <- check_count(p, "p", max = .shift_pmax)
  sigma <- check_number(sigma, "sigma", lower = 0, upper = .Machine$double.xmax)
  # (the shift is about 2 sqrt(p) sigma: a sigma near the largest double overflows)
  finite_shift <- function(v) {
    if (!is.finite(v)) abort("`sigma` = %s gives a shift beyond the largest double at p = %s; rescale.", format(sigma),
                             format(p), .arg = "sigma")
    v
  }
  if (is.null(reps)) return(finite_shift(sigma * shift_table_e(p)))
  reps <- check_count(reps, "reps", min = 10, max = 1e9)
  # one p x p eigendecomposition per draw: about reps * p^3 operations
  if (reps * (p^3 + 5e4) > 1e12) {
    abort("`reps` = %s at p = %s is too much work (reps * (p^3 + 5e4) must be at most 1e12); use the table (reps = NULL) or fewer reps.",
          format(reps), format(p), .arg = "reps")
  }
  key <- paste(p, reps)
  e <- .shift_cache[[key]]
  if (is.null(e)) {
    e <- expected_sym_gaussian_norm_cpp(as.integer(p), as.integer(reps))[["mean"]]
    assign(key, e, envir = .shift_cache)
  }
  finite_shift(sigma * e)
}

# e_p = E||N|| / sigma from the table below, for a validated whole p.
shift_table_e <- function(p) {
  if (p <= length(.shift_small)) return(.shift_small[[p]])
  x <- p^(-1 / 3)
  2 * sqrt(p) + sum(.shift_coef * x^(seq_along(.shift_coef) - 1L)) * p^(-1 / 6)
}

.shift_pmax <- 46340  # floor(sqrt(dp_limits$cells)): the largest p x p matrix dpcov allocates
.shift_cache <- new.env(parent = emptyenv())

# <shift-table>
# Generated by tools/shift-table.R; do not edit by hand.
# e_p = E||N|| / sigma for p = 1..50 (Monte Carlo, relative se <= 0.00012; p = 1 exact).
.shift_small <- c(
  0.797884561, 1.64186577, 2.35208638, 2.95869001, 3.48857634, 3.96487883,
  4.39857006, 4.79825009, 5.17329402, 5.52503588, 5.85602628, 6.17256507,
  6.47525419, 6.76511882, 7.04350255, 7.31239579, 7.56976567, 7.82187565,
  8.06652299, 8.30148708, 8.53450452, 8.75953381, 8.97775586, 9.19317640,
  9.40335253, 9.61077018, 9.80967466, 10.0072706, 10.2012359, 10.3939420,
  10.5777345, 10.7638288, 10.9440231, 11.1221470, 11.2965567, 11.4689601,
  11.6391035, 11.8076638, 11.9722387, 12.1370458, 12.2956134, 12.4562878,
  12.6119421, 12.7698206, 12.9223533, 13.0744638, 13.2238492, 13.3726809,
  13.5197321, 13.6642116
)
# p > 50: e_p = 2 sqrt(p) + p^(-1/6) sum_k c_k p^(-k/3), k = 0..2, where
# c_0 = E max(TW1, TW1') (the p -> Inf limit) and c_1.. are a weighted
# least-squares fit to the Monte Carlo at p = 20..2000 (chi2 = 45.7 on 48 df).
.shift_coef <- c(
  -0.4936400753, -1.653558420, 0.3338625953
)
# </shift-table>

#' Noise scales of the thresholding releases
#'
#' The Gaussian noise of Wang and Xu's and the modified DP / LDP thresholding.
#' In the central model the averaged second moment \eqn{\frac1n\sum x_i x_i^T}
#' has sensitivity `gram_sensitivity(B, neighbor, n)` and gets noise of sd `s`.
#' In the local model every record adds noise of sd `sigma` calibrated to the
#' sensitivity of its own \eqn{x x^T}, and the average of the n reports
#' carries noise of sd `s = sigma / sqrt(n)`. With the classic calibration and
#' B = 1 this gives the papers' formulas: modified DP (replace-one)
#' \eqn{s^2 = 4\log(1.25/\delta)/(n\epsilon)^2}; Wang and Xu DP (zero-out)
#' \eqn{s^2 = 2\log(1.25/\delta)/(n\epsilon)^2}; LDP (both papers, zero-out per
#' record) \eqn{\sigma^2 = 2\log(1.25/\delta)/\epsilon^2}. `proven = FALSE`
#' (clip = Inf, no guarantee) allows the classic calibration at any epsilon.
#' @noRd
threshold_noise <- function(model, neighbor, B, n, epsilon, delta, calibration, proven = TRUE, zero_row = 0) {
  if (model == "central") {
    s <- noise_sigma(gram_sensitivity(B, neighbor, n, zero_row), epsilon, delta, calibration, proven)
    list(s = s, sigma_record = NA_real_)
  } else {
    sigma <- noise_sigma(gram_sensitivity(B, neighbor), epsilon, delta, calibration, proven)
    list(s = sigma / sqrt(n), sigma_record = sigma)
  }
}

#' The threshold `c sqrt(log p / n) + k s sqrt(log p)` of DP / LDP
#' thresholding, k = 4 in both papers. `noise_sd` is s, the sd of the noise on
#' the released average; the modified LDP algorithm as printed uses the
#' per-record sigma there instead (pass it as `noise_sd`).
#' @noRd
threshold_level <- function(constant, n, p, noise_sd, multiplier = 4) {
  constant * sqrt(log(p) / n) + multiplier * noise_sd * sqrt(log(p))
}

# ---- Compression (Zhou, Ligett and Wasserman) ---------------------------------

# Constants of their Lemma B.1: C1 = 4e / sqrt(6 pi) ~ 2.5044 and C2 ~ 7.6885.
# The paper prints C2 = sqrt(8e), which is 4.663; its stated value 7.6885 is
# sqrt(8) e, the constant of the cited lemma, so we use sqrt(8) e.
zlw_constants <- function() c(C1 = 4 * exp(1) / sqrt(6 * pi), C2 = sqrt(8) * exp(1))

#' Truncation threshold and minimum m of compression
#'
#' Procedure 4.1 of Zhou, Ligett and Wasserman keeps a compressed output
#' \eqn{C} only if \eqn{\max_{jk} |(C^T C/m)_{jk} - \Sigma_1(j,k)| \le
#' \sqrt{2 (C_1 + C_2)} \sqrt{\ln(2np)/m} + \Delta_{max}}, with
#' \eqn{C_1 = 4e/\sqrt{6\pi} \approx 2.504} and \eqn{C_2 = \sqrt{8}\,e \approx
#' 7.689} (their Lemma B.1, which prints \eqn{\sqrt{8e}}; that is 4.66, not
#' the stated 7.6885, so we take \eqn{\sqrt 8 e}, which matches the number). Their Lemma 4.4 bounds the discarded probability
#' by \eqn{1/n^2} when the columns have squared norm n and
#' \eqn{m \ge 2 (C_1 + C_2) \ln(2np)}; `compression_m_min()` returns the
#' smallest such integer m.
#'
#' @param n,p Rows and columns of the data.
#' @param m Rows of the compressed data (may be a vector).
#' @param delta_max The class parameter \eqn{\Delta_{max}} (>= 0): a bound on
#'   \eqn{\max_{jk} |\Sigma_i(j,k) - \Sigma_1(j,k)|} over the databases to be
#'   protected.
#' @return `compression_threshold()`: the threshold(s);
#'   `compression_m_min()`: an integer.
#' @template ref-zhou
#' @examples
#' compression_m_min(n = 10000, p = 10)
#' compression_threshold(n = 10000, p = 10, m = c(500, 1000), delta_max = 0.01)
#' @template param-dots-none
#' @export
compression_threshold <- function(n, p, m, delta_max, ...) {
  refuse_unknown_args("compression_threshold", ...)
  n <- check_count(n, "n")
  p <- check_count(p, "p")
  m <- check_counts(m, "m", min = 1)
  delta_max <- check_number(delta_max, "delta_max", lower = 0, upper = delta_max_limit,
                            lower_open = FALSE, upper_open = FALSE)
  k <- zlw_constants()
  sqrt(2 * (k[["C1"]] + k[["C2"]])) * sqrt(log(2 * n * p) / m) + delta_max
}

#' @rdname compression_threshold
#' @export
compression_m_min <- function(n, p, ...) {
  refuse_unknown_args("compression_m_min", ...)
  n <- check_count(n, "n")
  p <- check_count(p, "p")
  k <- zlw_constants()
  as.integer(ceiling(2 * (k[["C1"]] + k[["C2"]]) * log(2 * n * p)))
}

# ---- The exponential and geometric mechanisms (private clipping bound) -----------

#' The exponential mechanism over an interval (Smith 2011), on the log scale:
#' the values, clamped to [lower, upper], cut [log lower, log upper] into
#' n + 1 intervals with k = 0..n values at or below their points; interval k
#' has utility -|k - q n| and weight width_k exp(epsilon u_k / (2 sensitivity)).
#' Returns the interval ends `z` (length n + 2) and the log-weights (n + 1).
#' @noRd
quantile_intervals <- function(values, quantile, lower, upper, epsilon, sensitivity = 1) {
  z <- c(log(lower), sort(log(pmin(pmax(values, lower), upper))), log(upper))
  n <- length(values)
  u <- -abs(seq.int(0, n) - quantile * n)
  list(z = z, log_weight = log(diff(z)) + epsilon * u / (2 * sensitivity))
}

#' The exponential mechanism over the intervals of a transformed axis with a
#' data-free base measure (Smith 2011; dp_column_bounds()): `z` are the n + 2
#' sorted interval ends (the axis' two data-free ends and the n transformed
#' values), `utility` the n + 1 intervals' utilities. Interval i is chosen with
#' probability proportional to mu_i exp(epsilon u_i / (2 sensitivity)), mu_i
#' its mass under the base measure exp(-|s| / decay) ds (Lebesgue when decay
#' is Inf), and the point is drawn from the base measure within it. Any
#' data-free base measure keeps the mechanism epsilon-DP: only the utilities
#' depend on the data. Returns the point (on the transformed axis).
#'
#' `atom`, if given, adds one point to the base measure: a list with `at`
#' (the point, data-free), `log_mass` (its data-free weight) and `utility`
#' (which must move by at most `sensitivity` between neighbours, like the
#' intervals'); it is chosen with probability proportional to exp(log_mass +
#' epsilon utility / (2 sensitivity)) against the intervals, and returned as
#' is.
#' @noRd
interval_exp_mech <- function(z, utility, epsilon, sensitivity, decay, atom = NULL) {
  a <- z[-length(z)]
  b <- z[-1L]
  lw <- log_base_mass(a, b, decay) + epsilon * utility / (2 * sensitivity)
  if (!is.null(atom)) lw <- c(lw, atom$log_mass + epsilon * atom$utility / (2 * sensitivity))
  note_draw()
  k <- which.max(lw + gumbel_noise(length(lw)))
  if (k > length(a)) return(atom$at)
  base_draw(a[k], b[k], decay)
}

#' The exponential mechanism over a finite set of candidates with utilities
#' `utility` (sensitivity `sensitivity`): candidate k with probability
#' proportional to exp(epsilon u_k / (2 sensitivity)) times a data-free
#' base weight exp(`log_mass`), by the Gumbel-max trick from R's RNG.
#' epsilon-DP and epsilon-bounded-range, like interval_exp_mech(). Used with
#' bin counts (sensitivity 1 under every notion: one row changes two counts by
#' one, or one count by one) and with tail_bin_utility().
#' @noRd
bin_exp_mech <- function(utility, epsilon, sensitivity, log_mass = 0) {
  note_draw()
  which.max(log_mass + epsilon * utility / (2 * sensitivity) + gumbel_noise(length(utility)))
}

#' Utility of the coarse bins of dp_column_bounds()'s tail choice: bin k
#' spans the points between two edges of a data-free grid, where the rows
#' beyond a point (above it for the upper bound, below for the lower) run
#' between `beyond[k]` and `beyond[k + 1]`, the counts at the bin's edges;
#' its utility is minus the distance from the target `m` to that range (0 if
#' some point of the bin has m rows beyond it). Sensitivity 1 under every
#' notion, like quantile_utility_sensitivity()'s: each edge count moves by at
#' most 1 (by I in \{0, 1\} when a row is added, when m = min(m0, a n)
#' moves by at most a <= 1/2 the same way), so each of c_lo - m and m - c_hi
#' moves by at most 1, and so does max(0, c_lo - m, m - c_hi).
#' @noRd
tail_bin_utility <- function(beyond, m) {
  k <- length(beyond) - 1L
  a <- beyond[-(k + 1L)]
  b <- beyond[-1L]
  -pmax(0, pmin(a, b) - m, m - pmax(a, b))
}

#' log of the integral of exp(-|s| / decay) over [a, b] (vectorised), in a
#' form without cancellation far from 0; log(b - a) for decay = Inf.
#' @noRd
log_base_mass <- function(a, b, decay) {
  if (!is.finite(decay)) return(log(b - a))
  w <- b - a
  out <- log(decay) + log(-expm1(-w / decay))
  pos <- a >= 0
  neg <- b <= 0
  out[pos] <- out[pos] - a[pos] / decay
  out[neg] <- out[neg] + b[neg] / decay
  mid <- !pos & !neg
  # (2 - e^{a/d} - e^{-b/d} as a sum of two positive terms: written as the
  # difference it lost every digit on an interval narrower than 1e-16 of d
  # across 0, whose mass came out up to e^0.68 too large, or 0)
  out[mid] <- log(decay) + log(-expm1(a[mid] / decay) - expm1(-b[mid] / decay))
  out
}

#' A draw from the base measure exp(-|s| / decay) restricted to [a, b], by
#' inverting its distribution function (uniform for decay = Inf), from R's
#' RNG: across 0 one runif() for the side, then one fine_uniform().
#' @noRd
base_draw <- function(a, b, decay) {
  if (!is.finite(decay) || !(b > a)) return(a + stats::runif(1L) * (b - a))
  if (a < 0 && b > 0) {
    # across 0: the side by its share of the mass (d (1 - e^{a/d}) on [a, 0],
    # d (1 - e^{-b/d}) on [0, b]), then the point on that side
    left <- -expm1(a / decay)
    right <- -expm1(-b / decay)
    if (stats::runif(1L) * (left + right) < left) b <- 0 else a <- 0
  }
  # on one side of 0 the measure decays away from it: the point from a
  # uniform fine near 0 at the far end (t = 1 - F for a >= 0, t = F for
  # b <= 0, F the distribution function from a), so the far tail is not cut
  # at 22 decays by a 32-bit uniform
  t <- fine_uniform(1L)
  w <- b - a
  m <- log(exp(-w / decay) + t * -expm1(-w / decay))
  if (a >= 0) a - decay * m else b + decay * m
}

#' zCDP of an epsilon-DP exponential mechanism: it is epsilon-bounded-range,
#' hence (epsilon^2 / 8)-zCDP (Cesar and Rogers 2021, Lemma 3.2 with Durfee
#' and Rogers' bounded range).
#' @noRd
em_zcdp_rho <- function(epsilon) epsilon^2 / 8

#' Sensitivity of the quantile utility of [dp_clip_bound()],
#' \eqn{u(b) = -|c(b) - q n|} with \eqn{c(b) = \#\{i : \|x_i\| \le b\}}:
#' replace-one changes c(b) by at most 1 and leaves n fixed; zero-out likewise
#' (the zero row has norm 0 <= b); add/remove changes c(b) by I in \{0, 1\}
#' and q n by q, so c(b) - q n by I - q, at most max(q, 1 - q) <= 1. We use 1
#' for all three.
#' @noRd
quantile_utility_sensitivity <- function(neighbor) 1

#' The noisy count of dp_column_bounds()'s mechanism where n is private
#' (add/remove): the exponential mechanism on the integers with utility
#' \eqn{-|c - n|} (sensitivity 1 under add/remove; n is public under the other
#' notions, which never draw it), \eqn{P(c) \propto \exp(-\epsilon_q |c - n| / 2)}:
#' n plus two-sided geometric noise with \eqn{\alpha = e^{-\epsilon_q/2}}.
#' Like every choice of the bounds it is \eqn{\epsilon_q}-DP and
#' \eqn{\epsilon_q}-bounded-range, hence \eqn{\epsilon_q^2/8}-zCDP: one more
#' choice of their budget (column_bounds_epsilon(noisy_count = TRUE)).
#' @noRd
count_exp_mech <- function(n, eps_q) n + rgeometric2(2 * quantile_utility_sensitivity("add-remove"), eps_q)

#' Two-sided geometric mechanism (Ghosh, Roughgarden and Sundararajan 2012)
#' for an integer count of sensitivity `sensitivity`: noise Z with
#' \eqn{P(Z = k) \propto \alpha^{|k|}}, \eqn{\alpha = \exp(-\epsilon/\Delta)},
#' is epsilon-DP. Sampled as the difference of two iid geometric variables
#' with success probability \eqn{1 - \alpha} (from R's RNG, by inversion).
#' @noRd
geometric_alpha <- function(sensitivity, epsilon) exp(-epsilon / sensitivity)

rgeometric2 <- function(sensitivity, epsilon) {
  note_draw()
  # by inversion, floor(E / -log(alpha)) for E exponential, with no upper
  # limit and no lumps (exp_fine()): rgeom() goes through exp_rand(), whose 32-bit
  # uniforms end its tail at about 22 / (1 - alpha), and any fixed end t
  # stops the support at t / rate, where the neighbours' ratio stops being
  # bounded: at rate >= t the noise would always be 0
  rate <- epsilon / sensitivity  # -log(alpha)
  g <- floor(exp_fine(2L) / rate)
  g[1L] - g[2L]
}

#' `k` exponential(1) draws fine everywhere, for the geometric count: -log
#' of refined_uniform() (30 log(2) per level descended; dpcov's C++
#' exp_unbounded_from() draws that law, for the continuous noises and the
#' chi-squares), the last draw of each, u in [2^-30, 1), placed by one more
#' runif() inside its 2^-32 cell [u, u + 2^-32) (Mersenne-Twister's uniforms
#' are its multiples, and those cells tile [2^-30, 1) at every level). A
#' single draw just above 2^-30 has a relative spacing of 1/4, so -log(u)
#' took lumps about 0.2 apart near 20.8 (and near 41.6 after one descent),
#' and floor(E / rate) at a small rate (0.001: dp_clip_bound() at epsilon
#' 0.01) put whole runs of integers at probability 0 between them: a ratio
#' of neighbouring counts far beyond e^epsilon, on events of probability
#' about 1e-9 (1e-19 after a descent). The extra draws come after all of the
#' descent's.
#' @noRd
exp_fine <- function(k) {
  r <- refined_uniform(k)
  u <- r$u + stats::runif(k) * 2^-32
  r$level * (30 * log(2)) - log(u)
}

#' `k` uniforms from R's runif(), each refined without limit near 0: where a
#' draw falls in the lowest cell [0, 2^-30) (probability 2^-30 under every
#' RNGkind(), see fine_uniform()), the point lies uniformly inside it, so the
#' next draw places it 30 bits further down, again and again (the draws of
#' each round after all of the round before). Returned as the level (the
#' number of cells descended) and the last draw `u`, in [2^-30, 1): the
#' uniform is u * 2^(-30 level). fine_uniform() stops after one level.
#' @noRd
refined_uniform <- function(k) {
  u <- stats::runif(k)
  level <- numeric(k)
  low <- which(u < 2^-30)
  while (length(low)) {
    level[low] <- level[low] + 1
    u[low] <- stats::runif(length(low))
    low <- low[u[low] < 2^-30]
  }
  list(u = u, level = level)
}

#' `k` uniforms on (0, 1) fine near 0: R's runif() draws, and for those that
#' fall in the lowest cell [0, 2^-30) (probability 2^-30 under every
#' RNGkind(): Mersenne-Twister's uniforms are multiples of 2^-32,
#' Knuth-TAOCP's of 2^-30) a second draw for the point in it, after all of
#' the first. One runif() takes at most 2^32 values, so -log(-log(U)) of one
#' draw lies in [-3.13, 22.18] (Gumbel-max over 32-bit uniforms): a candidate
#' more than 25.3 behind the best in log-weight could never be chosen while
#' under a neighbour, 25.3 - epsilon behind, it could, and a pure-DP claim
#' would hold only with a small delta (Mironov 2012 on floating-point
#' samplers). The value is at least 2^-63 under Mersenne-Twister (2^-61
#' under Knuth-TAOCP): the Gumbel's range would reach 43.7 (42.3), and an
#' exponential's tail as far, which still breaks a pure-DP claim once the
#' choice's epsilon nears that range: the Gumbel and geometric noise refine
#' without limit (refined_uniform()). One level is kept for the point drawn
#' inside a chosen interval (base_draw(): from the public base measure once
#' the interval is chosen; its ends are data points, and the grid of R's
#' uniforms leaves a sliver of about 2^-32 of the width at an end
#' unreachable, the floating-point porosity the privacy-guarantees vignette
#' describes, about 2e-10 per choice).
#' (A second draw for every value, a cell from the first and the point from
#' the second, cost the default dp_cov() 13%.)
#' @noRd
fine_uniform <- function(k) {
  v <- stats::runif(k)
  low <- which(v < 2^-30)
  if (length(low)) v[low] <- stats::runif(length(low)) * 2^-30
  v
}

#' `k` draws of N(0, sd^2) for mechanism noise drawn in R (the noisy means,
#' the local reports): dpcov::draw_norm() in inst/include/dpcov/rng.h, which
#' is rnorm()'s draw under the default normal kind (so a plain-R reference
#' under the same seed matches, until a draw falls beyond 7 sd: its tail
#' draw takes further uniforms) except beyond 7 sd, where the draw comes from
#' the normal's exact tail (rnorm() never exceeds 8.21 sd, and that
#' truncation would add Pr(Z > 8.21 - Delta/sigma) to delta), and which does
#' not depend on RNGkind()'s normal kind.
#' @noRd
gaussian_noise <- function(k, sd) sd * standard_normals_cpp(k)

#' `k` standard Gumbel draws for the Gumbel-max trick, with no upper limit:
#' -log(-log(U)) with -log(U) = -log1p(-V) for V = 1 - U refined without
#' limit near 0 (refined_uniform()), where the Gumbel's upper tail lies (V =
#' 1, probability about 2^-54, gives -Inf: that candidate is not chosen).
#' Beyond 33 levels V would leave the normal doubles, and -log(-log1p(-V)) =
#' -log(V) to within V / 2. An upper end would break the pure-DP claim at
#' large epsilon: a candidate behind the best by more than the Gumbel's
#' range could never win, while under a neighbour, epsilon / 2 nearer (the
#' log-weights of a utility of sensitivity 1), it could, with probability
#' about e^-(range - epsilon / 2) (fine_uniform()'s range is 46.8: 3.5e-10
#' at epsilon 50, near 1 from 94).
#' @noRd
gumbel_noise <- function(k) {
  r <- refined_uniform(k)
  deep <- r$level > 33
  v <- r$u * 2^(-30 * pmin(r$level, 33))
  ifelse(deep, r$level * (30 * log(2)) - log(r$u), -log(-log1p(-v)))
}

# ---- The private mean of dp_cov() -------------------------------------------------

#' L2 sensitivity of dp_cov()'s mean step
#'
#' The mean step releases the column sums \eqn{\sum_i c_i x_i} of the raw rows
#' clipped to norm C = `clip_mean` (\eqn{c_i = \min(1, C/\|x_i\|)}) with
#' Gaussian noise. Neighbours move the sums by at most
#' * `"replace-one"`: \eqn{2C} (\eqn{\|x - x'\| \le 2C}); n is public;
#' * `"zero-out"`: \eqn{C}; n is public;
#' * `"add-remove"`: n is private, so the step releases the vector
#'   \eqn{(\sum_i c_i x_i, C n)}, the sums and the count scaled by C, with one
#'   noise sd. Adding or removing a row moves it by
#'   \eqn{\sqrt{\|c x\|^2 + C^2} \le \sqrt2 C}. The noisy count is the last
#'   coordinate divided by C (noise sd sigma / C).
#' @noRd
mean_step_sensitivity <- function(clip_mean, neighbor, zero_row = 0) {
  switch(neighbor,
         "replace-one" = 2 * clip_mean,
         # the zeroed record enters as its transformed row (norm <= zero_row)
         "zero-out" = clip_mean + min(zero_row, clip_mean),
         "add-remove" = sqrt(2) * clip_mean)
}

#' The noise sd of the mean step (each coordinate of the released vector).
#' The released mean \eqn{\hat\mu = \tilde s / \hat n} then differs from the
#' clipped rows' mean by about \eqn{N(0, \sigma^2/n^2)} per coordinate.
#' @noRd
mean_step_sigma <- function(clip_mean, neighbor, epsilon, delta, calibration = "analytic", zero_row = 0) {
  noise_sigma(mean_step_sensitivity(clip_mean, neighbor, zero_row), epsilon, delta, calibration, proven = TRUE)
}

# What dp_cov()'s guarantee says about n: public under replace-one and
# zero-out; under add/remove released only as a noisy count from `count_from`
# (a second mechanism whose noise uses n, thresholding, refuses add/remove).
dp_cov_n_text <- function(neighbor, n_public, count_from = "the mean step's share") {
  if (neighbor != "add-remove") return("n is public (neighbouring data sets have the same size)")
  if (n_public) stop("internal error: an add/remove release cannot disclose n", call. = FALSE)
  sprintf("n is not released (a noisy count is, from %s)", count_from)
}

#' The guarantee of dp_cov()'s two steps on clipped rows: their (epsilon,
#' delta) added by basic composition (Dwork and Roth 2014, Theorem 3.16), or
#' with `gauss` (composed_gaussian_steps(), zCDP) the call's (`epsilon`,
#' `delta`) by zero-concentrated composition, each step's own guarantee
#' still stated.
#' @noRd
dp_cov_guarantee_text <- function(eps_mean, delta_mean, eps_second, delta_second, neighbor,
                                  clip_mean, clip, n_public, eps_bounds = 0, one_pass = FALSE, gauss = NULL,
                                  epsilon = NULL, delta = NULL) {
  notion <- neighbor_words(neighbor)
  n_txt <- dp_cov_n_text(neighbor, n_public)
  bounds_txt <- if (eps_bounds > 0) {
    sprintf(", after choosing the clipping bound(s) privately (%s-DP in all)", format_privacy(eps_bounds))
  } else ""
  second_txt <- if (one_pass) {
    "of the same clipped rows, uncentred ((%s, %s)-DP; the same bound %s)"
  } else {
    "of the rows centred at that released mean ((%s, %s)-DP; centred rows clipped to L2 norm <= %s)"
  }
  if (!is.null(gauss) && gauss$composition == "zCDP") {
    # composed_gaussian_steps(): the steps' rho add up to at most rho(epsilon, delta)
    rho_g <- 1 / (2 * gauss$ratio^2)
    how <- sprintf(paste0("zero-concentrated composition (%sthe Gaussian steps' rho = %s and %s: %s in all, ",
                          "at most rho = %s, converted to (epsilon, delta) by Canonne, Kamath and Steinke 2020)"),
                   if (eps_bounds > 0) sprintf("the private bounds' rho = %s (epsilon^2/8 per exponential mechanism), ",
                                               format_privacy(gauss$rho_before)) else "",
                   format_privacy(rho_g[1]), format_privacy(rho_g[2]),
                   format_privacy(gauss$rho_before + sum(rho_g)), format_privacy(gauss$rho))
    total <- c(epsilon, delta)
  } else {
    how <- "basic composition"
    total <- c(eps_mean + eps_second + eps_bounds, delta_mean + delta_second)
  }
  sprintf(paste0("(%s, %s)-differential privacy by %s of a private mean ",
                 "((%s, %s)-DP; raw rows clipped to L2 norm <= %s) and a private second moment ",
                 second_txt, "%s, %s; %s."),
          format_privacy(total[1]), format_privacy(total[2]), how,
          format_privacy(eps_mean), format_privacy(delta_mean), format_privacy(clip_mean),
          format_privacy(eps_second), format_privacy(delta_second), format_privacy(clip), bounds_txt, notion, n_txt)
}

# ---- Neighbour notions in the budget ledger -------------------------------------

#' A charge's guarantee restated under the budget's neighbour notion
#'
#' Every charge holds under one notion (`from`); a budget accounts under one
#' (`to`). `from = "any"` marks a mechanism private under all three at once
#' (a private quantile, whose utility moves by at most 1 under each; Sheffet's
#' Algorithms 1, 2, 3 and 5, proven for any replacement of a row of norm <= B,
#' the zero row included, so also for add/remove). The rules:
#'
#' * same notion, or `"any"`: unchanged.
#' * `"add-remove, zero-out"` (notion_no_count()) to either of the two:
#'   unchanged.
#' * replace-one to zero-out: unchanged (replacing a record by the all-zero
#'   record is one replacement).
#' * zero-out or add/remove to replace-one, and add/remove to zero-out: the
#'   budget's neighbours are two of the charge's steps apart (replace x by 0,
#'   then 0 by x'; remove x, then add x' or 0), so by group privacy for k = 2
#'   an (epsilon, delta)-DP charge is (2 epsilon, (1 + e^epsilon) delta)-DP
#'   (Dwork and Roth 2014, the proof of Theorem 2.2 with delta), and a
#'   rho-zCDP charge is 4 rho-zCDP (Bun and Steinke 2016, Proposition 1.9).
#' * replace-one or zero-out to add/remove: no guarantee follows (those
#'   releases use or disclose n, which add/remove keeps private): `NULL`, and
#'   the budget refuses the charge.
#' @noRd
convert_guarantee <- function(epsilon, delta, rho, from, to) {
  if (from == "any" || from == to || (from == "replace-one" && to == "zero-out") ||
      (from == "add-remove, zero-out" && to != "replace-one")) {
    return(list(epsilon = epsilon, delta = delta, rho = rho))
  }
  if (to == "add-remove") return(NULL)
  # (0 * Inf is NaN: a pure-DP step stays pure at any epsilon)
  list(epsilon = 2 * epsilon, delta = if (delta == 0) 0 else delta * (1 + exp(epsilon)), rho = 4 * rho)
}

# The notions a charge may be recorded under.
charge_neighbors <- c(dp_neighbors, "any", "add-remove, zero-out")

#' The notion an add/remove charge records when it holds under zero-out too,
#' at the same cost: a statistic that sees the rows only through a sum of
#' terms that vanish at the zero record (x x', with nothing counted and n
#' never used) cannot tell a zeroed row from a removed one, so zero-out
#' neighbours (x against 0) are add/remove neighbours (x against nothing);
#' `zero_row` is the norm of the zero record after the public map (0 when the
#' map fixes the origin), and the calibration must be the same under both
#' (gram_sensitivity() with zero_row 0). Otherwise the notion as given.
#' @noRd
notion_no_count <- function(neighbor, zero_row = 0) {
  if (identical(neighbor, "add-remove") && isTRUE(zero_row == 0) &&
      gram_sensitivity(1, "zero-out") == gram_sensitivity(1, "add-remove")) "add-remove, zero-out" else neighbor
}

# ---- Public per-column bounds (the box map, R/box.R) -----------------------------
#
# With public bounds [l_j, u_j] every value is clamped to them and the rows are
# mapped to a unit box (a public map, row by row). The sensitivities are the
# usual ones on the mapped rows, with the row-norm bounds the box implies:
#  * centred box z in [-1/2, 1/2]^p: |z| <= sqrt(p)/2, the bound of the mean
#    step (mean_step_sensitivity() with clip_mean = sqrt(p)/2); after centring
#    at a released mean mu (clamped into the box) |z_j - mu_j| <= 1/2 + |mu_j|,
#    so |z - mu| <= box_centred_bound(mu) (gram_sensitivity() with that B);
#  * uncentred box |z_j| <= 1: |z| <= sqrt(p) (box_uncentred_bound()).
# The centred box moves the zero record (x = 0 becomes the public row
# box_zero_row(), then box_zero_row() - mu after centring), so zero-out uses
# that row's norm (the zero_row of mean_step_sensitivity() and
# gram_sensitivity()); the uncentred map is linear and fixes the origin
# unless a range excludes 0 (then the clamped zero record's box row counts).

#' A bound computed in floating point from p terms (a norm, a sum of
#' squares), rounded up by (p + 8) 2^-52 relative: above the exact value the
#' rows can reach (a corner of the box has norm sqrt(p) / 2 exactly, and
#' sqrt() may round below it), so the noise calibrated to it covers them. The
#' twin of inner_clip(), which keeps clipped rows below a bound.
#' @noRd
bound_round_up <- function(b, p) b * (1 + (p + 8) * .Machine$double.eps)

#' The Euclidean norm of `v`, rounded up (bound_round_up()).
#' @noRd
norm_round_up <- function(v) bound_round_up(sqrt(sum(v^2)), length(v))

#' Row-norm bound of rows in the uncentred box [-1, 1]^p.
#' @noRd
box_uncentred_bound <- function(p) bound_round_up(sqrt(p), p)

#' The clamping clause of a guarantee: the public per-column bounds replace
#' "rows clipped to L2 norm <= B".
#' @noRd
box_clamp_text <- function(centred, weighted = FALSE) {
  if (weighted) {
    return(paste0("values clamped to the public per-column bounds (params$bounds) and mapped to the box weighted by ",
                  "the square roots of the widths (g_j (x - midpoint) / width, in [-g_j/2, g_j/2], g_j = sqrt(width_j / ",
                  "the largest width), params$box_weights), a public map applied row by row"))
  }
  sprintf(paste0("values clamped to the public per-column bounds (params$bounds) and mapped to the unit box ",
                 "(%s), a public map applied row by row"),
          if (centred) "(x - midpoint) / width, in [-1/2, 1/2]" else "x / max(|lower|, |upper|), in [-1, 1]")
}

#' A box release's labels (its mechanism's name and its guarantee's clamping
#' clause) for bounds that are not simply public: `source` "private" (chosen
#' by dp_column_bounds()'s mechanism in a first step) or "tightened" (public
#' bounds tightened privately in a first step). The second step treats them
#' as given, which is what its guarantee is for; the labels say where they
#' came from.
#' @noRd
box_relabel_source <- function(rel, source) {
  words <- switch(source, private = "per-column bounds chosen privately",
                  partial = "per-column bounds, public for some columns and chosen privately for the others",
                  tightened = "public per-column bounds tightened privately")
  rel$mechanism <- sub("public per-column bounds", words, rel$mechanism, fixed = TRUE)
  rel$guarantee <- sub("clamped to the public per-column bounds (params$bounds)",
                       sprintf("clamped to the %s in the first step (params$bounds)", words), rel$guarantee, fixed = TRUE)
  rel
}

#' The guarantee of dp_cov() with public bounds.
#' @noRd
dp_cov_box_guarantee_text <- function(eps_mean, delta_mean, eps_second, delta_second, neighbor, C, B, n_public) {
  n_txt <- dp_cov_n_text(neighbor, n_public)
  second_txt <- if (neighbor == "zero-out") {
    "; the zeroed record enters both steps as its box row (the box shift and the centring move it), which the noise covers"
  } else ""
  sprintf(paste0("(%s, %s)-differential privacy by basic composition of a private mean ((%s, %s)-DP; box rows of ",
                 "L2 norm <= %s) and a private second moment of the box rows centred at it ((%s, %s)-DP; ",
                 "L2 norm <= %s)%s; %s; %s; %s."),
          format_privacy(eps_mean + eps_second), format_privacy(delta_mean + delta_second), format_privacy(eps_mean), format_privacy(delta_mean),
          format_privacy(C), format_privacy(eps_second), format_privacy(delta_second), format_privacy(B), second_txt,
          box_clamp_text(TRUE), neighbor_words(neighbor), n_txt)
}

#' A guarantee text whose "rows clipped to L2 norm <= B" clause is replaced by
#' the clamping to the public bounds (the box rows' norm bound kept).
#' @noRd
box_guarantee_text <- function(text, centred) {
  sub("rows clipped to L2 norm <= ([^;]*)", paste0(box_clamp_text(centred), "; box rows of L2 norm <= \\1"), text)
}

# ---- dp_cov() on the box: the mean and the Gram as one Gaussian mechanism ---------

#' Joint calibration of dp_cov()'s box path (Analyze Gauss): three blocks
#' released by one Gaussian mechanism, each with its own noise sd,
#'  * the column sums of the box rows (under add/remove with the count scaled
#'    by C), sd `sigma_mean` per coordinate;
#'  * the diagonal of their Gram, sd `sigma_diag` per entry;
#'  * the strict upper triangle of the Gram, sd `sigma_offdiag` per entry.
#' For noise sds sigma_b, the mechanism is the unit-noise Gaussian mechanism
#' on the stacked, rescaled vector (s / sigma_mean, diag(G) / sigma_diag,
#' offdiag(G) / sigma_offdiag), whose L2 sensitivity is at most
#' sqrt(sum_b (Delta_b / sigma_b)^2) when block b moves by at most Delta_b
#' (a sup of a sum is at most the sum of the sups). The unit-noise Gaussian
#' mechanism is (epsilon, delta)-DP for L2 sensitivity up to mu_tot = 1 /
#' noise_sigma(1, epsilon, delta, calibration), or 1 / `ratio` when the
#' caller composed it with earlier steps (composed_gaussian()) (the analytic calibration,
#' Balle and Wang 2018, Theorem 8, depends only on Delta / sigma; the classic
#' one is linear in it). Block b gets the share s_b of mu_tot^2: sigma_b =
#' Delta_b / (sqrt(s_b) mu_tot), so the shares add up to exactly mu_tot^2:
#' `share` to the mean, of the rest `diag_share` to the diagonal.
#'
#' The block sensitivities on the centred box (every coordinate of a box row
#' in [-1/2, 1/2], C = sqrt(p)/2 the norm bound; the zero record's box row z0
#' also inside the box; on a weighted box, coordinate j in [-g_j/2, g_j/2],
#' C = |g|/2 and the diagonal's bound sum_j g_j^4 / 16, the rest as stated):
#'  * sums: mean_step_sensitivity(C, neighbor, |z0|);
#'  * diagonal: |diag(v v' - w w')|^2 = sum_j (v_j^2 - w_j^2)^2 <= p / 16 for
#'    every notion (each v_j^2, w_j^2 in [0, 1/4]; w = 0 under add/remove,
#'    w = z0 under zero-out);
#'  * strict upper triangle: half the off-diagonal part of the Frobenius
#'    norm, so at most F / sqrt(2), F = gram_sensitivity(C, neighbor, |z0|);
#'    under add/remove (w = 0) the diagonal's own share of |v|^4 is taken
#'    off: (|v|^4 - sum_j v_j^4) / 2 <= C^4 (1 - 1/p) / 2.
#' The Frobenius calibration of the whole Gram (the previous one) gives every
#' entry noise F / sigma; the diagonal moves by only sqrt(p)/4, about
#' 1/sqrt(p) of F, so releasing it as its own block costs the off-diagonal
#' little and gives the variances (the largest entries of a covariance and
#' what every correlation is divided by) much less noise.
#' @noRd
box_joint_sigmas <- function(p, neighbor, share, epsilon, delta, calibration, zero_row = 0,
                             diag_share = box_diag_share, ratio = NULL, weights = NULL) {
  # `ratio`: the unit-noise mechanism's sigma when the caller composed it
  # with earlier steps (composed_gaussian()); else calibrated at (epsilon, delta)
  if (is.null(ratio)) ratio <- noise_sigma(1, epsilon, delta, calibration, proven = TRUE)
  mu_tot <- 1 / ratio
  # a weighted box (box_noise_weights(): coordinate j in [-g_j/2, g_j/2]): the
  # same bounds with |g| / 2 for the norm and sqrt(sum g_j^4) / 4 for the
  # diagonal (each v_j^2, w_j^2 in [0, g_j^2 / 4]); g = 1 is the unit box
  g <- if (is.null(weights)) rep(1, p) else weights
  C <- norm_round_up(g) / 2
  sens_mean <- mean_step_sensitivity(C, neighbor, zero_row)
  sens_diag <- bound_round_up(sqrt(sum(g^4)) / 4, p)
  sens_offdiag <- bound_round_up(if (neighbor == "add-remove") {
    # |offdiag(v v')|^2 = (|v|^4 - sum v_j^4) / 2 <= |v|^4 (1 - 1/p) / 2 (sum v_j^4 >= |v|^4 / p)
    C^2 * sqrt((1 - 1 / p) / 2)
  } else {
    gram_sensitivity(C, neighbor, zero_row = zero_row) / sqrt(2)
  }, p)
  if (p == 1L) diag_share <- 1  # no off-diagonal
  s_diag <- (1 - share) * diag_share
  s_off <- (1 - share) * (1 - diag_share)
  list(sigma_mean = sens_mean / (sqrt(share) * mu_tot), sigma_diag = sens_diag / (sqrt(s_diag) * mu_tot),
       sigma_offdiag = if (p > 1L) sens_offdiag / (sqrt(s_off) * mu_tot) else 0,
       sens_mean = sens_mean, sens_diag = sens_diag, sens_offdiag = sens_offdiag, mu_tot = mu_tot, C = C,
       share = share, diag_share = diag_share)
}

#' The Gram's noise of the joint calibration: a symmetric p x p matrix, one
#' standard normal per entry of the upper triangle (column by column, as
#' symmetric_gaussian_cpp() draws), the diagonal scaled by `sd_diag` and the
#' off-diagonal by `sd_offdiag`. The release (dp_cov_box_joint()) and the
#' bootstrap's redraw (lm_moments_cov()) draw it here, alike.
#' @noRd
symmetric_gaussian_blocks <- function(p, sd_offdiag, sd_diag) {
  Z <- symmetric_gaussian_cpp(p, 1)
  E <- Z * sd_offdiag
  diag(E) <- diag(Z) * sd_diag
  E
}

# The diagonal's share of the Gram's part of the joint calibration (see
# box_joint_sigmas(); chosen in bench/box-joint.R on bench/peers.R's data).
box_diag_share <- 1 / 3

#' The guarantee of dp_cov() on the box with the joint Gaussian calibration.
#' @noRd
dp_cov_box_joint_guarantee_text <- function(epsilon, delta, neighbor, C, share, n_public,
                                            diag_share = box_diag_share, weighted = FALSE) {
  n_txt <- dp_cov_n_text(neighbor, n_public, "the same mechanism")
  zero_txt <- if (neighbor == "zero-out") {
    "; the zeroed record enters as its box row (the box shift moves it), which the noise covers"
  } else ""
  sprintf(paste0("(%s, %s)-differential privacy: the column sums%s, the diagonal and the off-diagonal of the ",
                 "uncentred Gram of the box rows (L2 norm <= %s) released by one Gaussian mechanism on the three ",
                 "stacked blocks, each block's noise calibrated to its sensitivity (shares of the squared ",
                 "sensitivity-to-noise ratio: mean %s, diagonal %s, off-diagonal %s)%s; %s; %s; %s."),
          format_privacy(epsilon), format_privacy(delta), if (neighbor == "add-remove") " (with the count)" else "",
          format_privacy(C), sprintf("%.7g", share), sprintf("%.4g", (1 - share) * diag_share),
          sprintf("%.4g", (1 - share) * (1 - diag_share)), zero_txt, box_clamp_text(TRUE, weighted),
          neighbor_words(neighbor), n_txt)
}

#' Per-column bounds from a [dp_column_bounds()] release, given as `bounds`:
#' they were computed on data, most likely the data of the release that uses
#' them, which is then private only together with them. Returns their
#' guarantee (`epsilon`, `delta`, `neighbor`), or NULL for public bounds.
#' Refuses, before anything is charged or read, bounds released under a
#' notion that implies no guarantee under the release's (`neighbor`; NULL:
#' a mechanism's own notion, never add/remove).
#' @noRd
bounds_release_guarantee <- function(bounds, neighbor) {
  if (!inherits(bounds, "dp_column_bounds")) return(NULL)
  g <- list(epsilon = bounds$epsilon, delta = bounds$delta, neighbor = bounds$neighbor,
            capped = isTRUE(bounds$capped),
            # released with the bounds: the diagnostics judge them as the default's own
            range = bounds$range, center = bounds$center, scale = bounds$scale,
            clamped_share = bounds$clamped_share)
  ok <- is_num1(g$epsilon) && is.finite(g$epsilon) && g$epsilon > 0 && is_num1(g$delta) && g$delta >= 0 &&
    g$delta < 1 && is_string(g$neighbor) && g$neighbor %in% dp_neighbors
  if (!isTRUE(ok)) {
    abort("`bounds`: this dp_column_bounds object does not state its guarantee (`epsilon` > 0, `delta` in [0, 1), `neighbor`); use the object dp_column_bounds() returned.",
          .arg = "bounds")
  }
  # a release made in this session states at least the guarantee it was made
  # with: an edited one stating less (a smaller epsilon) would have the
  # ledger charge, and the guarantee state, less than was spent (one stating
  # more is charged as it states: conservative)
  made <- if (is_string(bounds$release_id)) get0(bounds$release_id, envir = bounds_releases_made, inherits = FALSE)
  if (!is.null(made) && !(g$epsilon >= made$epsilon && g$delta >= made$delta &&
                          identical(made$neighbor, g$neighbor))) {
    abort(paste0("`bounds`: this dp_column_bounds object states (epsilon = %s, delta = %s, %s), not the guarantee it ",
                 "was released with in this session (epsilon = %s, delta = %s, %s); use the object dp_column_bounds() returned."),
          format(g$epsilon), format(g$delta), g$neighbor, format(made$epsilon), format(made$delta), made$neighbor,
          .arg = "bounds")
  }
  # what a budget charges for them where it has not yet (given_release_step())
  g$rho <- column_bounds_release_rho(bounds)
  g$release_id <- if (is_string(bounds$release_id)) bounds$release_id
  # under add/remove its utilities move by at most 1 under every notion (as
  # the ledger records it: column_bounds_notion())
  g$neighbor <- column_bounds_notion(g$neighbor)
  if (identical(neighbor, "add-remove") && !g$neighbor %in% c("add-remove", "any")) {
    abort(paste0("`bounds` were released by dp_column_bounds() under %s, which implies no guarantee ",
                 "under add/remove (the release's `neighbor`); nothing was charged. Choose them with ",
                 "neighbor = \"add-remove\", or make this release under \"%s\"."),
          neighbor_words(g$neighbor), g$neighbor, .arg = "bounds")
  }
  g
}

#' The zCDP rho of a dp_column_bounds() release `b` (its guarantee stated
#' and checked): the one dp_column_bounds() recorded when this R session
#' made it (remember_bounds_release()), when the object still states that
#' guarantee; NA otherwise (an object made in another session, by hand or
#' edited: its rho could not be checked against the columns it ran on, so
#' the ledger treats it as a step without a recorded rho: within its release
#' its epsilon adds by basic composition, and a zCDP budget charges a pure
#' one epsilon^2 / 2 and refuses one with a delta, which hold whatever it
#' ran).
#' @noRd
column_bounds_release_rho <- function(b) {
  made <- if (is_string(b$release_id)) get0(b$release_id, envir = bounds_releases_made, inherits = FALSE)
  same <- !is.null(made) && identical(made$epsilon, b$epsilon) && identical(made$delta, b$delta) &&
    identical(made$rho, b$rho) && identical(made$neighbor, b$neighbor)
  if (same) made$rho else NA_real_
}

# The guarantees of the dp_column_bounds() releases made in this R session,
# by release id (public numbers only): what column_bounds_release_rho()
# trusts.
bounds_releases_made <- new.env(parent = emptyenv())

remember_bounds_release <- function(b) {
  assign(b$release_id, list(epsilon = b$epsilon, delta = b$delta, rho = b$rho, neighbor = b$neighbor),
         envir = bounds_releases_made)
  invisible(b)
}

#' The release `rel`, made with the bounds of a dp_column_bounds() release
#' whose guarantee is `g` (bounds_release_guarantee()): its (epsilon, delta)
#' become the total of the two (compose_guarantees()), counted as if both
#' were of the same data (bounds of other data only make this conservative).
#' @noRd
compose_bounds_guarantee <- function(rel, g) {
  if (is.null(g)) return(rel)
  # bounds_source keeps how the box was made (public, or tightened); where
  # the bounds came from is bounds_guarantee
  rel$params$bounds_guarantee <- g
  rel <- compose_guarantees(rel, g, "the per-column bounds it was given, a dp_column_bounds() release counted as if of the same data")
  rel$guarantee <- gsub("public per-column bounds", "per-column bounds", rel$guarantee, fixed = TRUE)
  rel$mechanism <- gsub("public per-column bounds", "per-column bounds from a dp_column_bounds() release",
                        rel$mechanism, fixed = TRUE)
  rel
}

#' dp_as_cov()'s uncentred release `rel`, centred at the mean of the dp_cov()
#' release `centre`: the estimate depends on both, so its guarantee is their
#' total (compose_guarantees()); none when the mean's release has none.
#' @noRd
compose_center_guarantee <- function(rel, centre) {
  if (!release_has_guarantee(rel)) return(rel)
  if (!release_has_guarantee(centre)) {
    return(void_guarantee(rel, "centred at the mean of a release without a formal guarantee"))
  }
  g <- list(epsilon = centre$epsilon, delta = centre$delta, neighbor = centre$neighbor)
  rel$params$center_guarantee <- g
  compose_guarantees(rel, g, "the dp_cov() release whose private mean centres it")
}

#' The release `rel` together with another release `what` of guarantee `g`
#' (`epsilon`, `delta`, `neighbor`) on which it depends: `rel`'s (epsilon,
#' delta) become their total by basic composition, `g` first restated under
#' `rel`'s notion (convert_guarantee()), and the text says so before `rel`'s
#' own. No guarantee follows when `g`'s notion implies none under `rel`'s or
#' the deltas reach 1.
#' @noRd
compose_guarantees <- function(rel, g, what) {
  if (!release_has_guarantee(rel)) return(rel)  # states NONE already; nothing to add up
  gb <- convert_guarantee(g$epsilon, g$delta, NA_real_, g$neighbor, rel$neighbor)
  if (is.null(gb)) {
    return(void_guarantee(rel, sprintf("it depends on %s, under %s, which implies no guarantee under %s", what,
                                       neighbor_words(g$neighbor), neighbor_words(rel$neighbor))))
  }
  eps <- rel$epsilon + gb$epsilon
  delta <- rel$delta + gb$delta
  if (!(delta < 1)) {
    # (restated under rel's notion, g's own delta can reach 1: add/remove's
    # (epsilon, delta) is (2 epsilon, (1 + e^epsilon) delta) under replace-one)
    return(void_guarantee(rel, sprintf("it depends on %s, and their deltas%s add up to 1 or more", what,
                                       if (identical(g$neighbor, rel$neighbor)) "" else
                                         sprintf(" (the one under %s restated under %s)", neighbor_words(g$neighbor),
                                                 neighbor_words(rel$neighbor)))))
  }
  rel$params$epsilon_release <- rel$epsilon
  rel$params$delta_release <- rel$delta
  rel$guarantee <- sprintf(paste0(
    "(%s, %s)-differential privacy in all (%s), by basic composition of this release with %s ",
    "((%s, %s)-DP under %s%s); this release alone: %s"),
    format_privacy(eps), format_privacy(delta), neighbor_words(rel$neighbor), what,
    format_privacy(g$epsilon), format_privacy(g$delta), neighbor_words(g$neighbor),
    if (g$neighbor %in% c(rel$neighbor, "any")) "" else sprintf(", restated as (%s, %s) under %s", format_privacy(gb$epsilon),
                                                     format_privacy(gb$delta), neighbor_words(rel$neighbor)),
    rel$guarantee)
  rel$epsilon <- eps
  rel$delta <- delta
  rel
}
