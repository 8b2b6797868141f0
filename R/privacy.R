# Every noise calibration in dpcov lives in this file.

#' Noise scale of the Gaussian mechanism
#'
#' The standard deviation of Gaussian noise that makes a query with L2
#' sensitivity `sensitivity` (epsilon, delta)-differentially private.
#'
#' * `"classic"`: \eqn{\sigma = \Delta \sqrt{2 \log(1.25/\delta)} / \epsilon}
#'   (Dwork and Roth 2014, Theorem A.1). Proven only for `epsilon < 1`; for
#'   larger epsilon a warning says so.
#' * `"analytic"`: the smallest sigma for which the Gaussian mechanism is
#'   (epsilon, delta)-DP (Balle and Wang 2018, Theorem 8): the root of
#'   \eqn{\Phi(\Delta/(2\sigma) - \epsilon\sigma/\Delta) - e^\epsilon
#'   \Phi(-\Delta/(2\sigma) - \epsilon\sigma/\Delta) = \delta}. Valid for
#'   every epsilon > 0 and never larger than the classic value.
#'
#' @param sensitivity L2 sensitivity of the query (> 0).
#' @param epsilon Privacy loss, > 0.
#' @param delta Failure probability, in (0, 1).
#' @param calibration `"classic"` or `"analytic"`.
#' @return The noise standard deviation.
#' @references Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian
#'   mechanism for differential privacy: analytical calibration and optimal
#'   denoising. ICML.
#' @examples
#' gaussian_sigma(1, epsilon = 0.5, delta = 1e-5)
#' gaussian_sigma(1, epsilon = 0.5, delta = 1e-5, calibration = "analytic")
#' gaussian_sigma(1, epsilon = 4, delta = 1e-5, calibration = "analytic")
#' @export
gaussian_sigma <- function(sensitivity, epsilon, delta,
                           calibration = c("classic", "analytic")) {
  calibration <- check_choice(calibration, c("classic", "analytic"), "calibration")
  check_number(sensitivity, "sensitivity", lower = 0)
  check_epsilon(epsilon)
  check_delta(delta)
  if (calibration == "classic") {
    if (epsilon >= 1) {
      warning("the classic Gaussian calibration is proven only for epsilon < 1; ",
              "use calibration = \"analytic\" for epsilon = ", format(epsilon), ".",
              call. = FALSE)
    }
    return(sensitivity * sqrt(2 * log(1.25 / delta)) / epsilon)
  }
  analytic_gaussian_sigma(sensitivity, epsilon, delta)
}

# The exact delta of the Gaussian mechanism with noise sd `sigma` (Balle and
# Wang 2018, Theorem 8), computed on the log scale so large epsilon is safe.
gaussian_mechanism_delta <- function(sigma, sensitivity, epsilon) {
  a <- sensitivity / (2 * sigma)
  b <- epsilon * sigma / sensitivity
  stats::pnorm(a - b) - exp(epsilon + stats::pnorm(-a - b, log.p = TRUE))
}

analytic_gaussian_sigma <- function(sensitivity, epsilon, delta) {
  # delta(sigma) decreases in sigma; bracket the root on the log scale.
  f <- function(log_s) gaussian_mechanism_delta(exp(log_s), 1, epsilon) - delta
  lo <- -5
  while (f(lo) < 0) lo <- lo - 5
  hi <- log(sqrt(2 * log(1.25 / delta)) / min(epsilon, 1)) + 1
  while (f(hi) > 0) hi <- hi + 1
  root <- stats::uniroot(f, c(lo, hi), tol = 1e-13)$root
  sensitivity * exp(root)
}

#' Scale of the Laplace mechanism
#'
#' `b = sensitivity / epsilon`: Laplace(0, b) noise on a query with L1
#' sensitivity `sensitivity` gives epsilon-differential privacy.
#' @param sensitivity L1 sensitivity (> 0).
#' @param epsilon Privacy loss, > 0.
#' @return The Laplace scale b.
#' @examples
#' laplace_scale(2, epsilon = 0.5)
#' @export
laplace_scale <- function(sensitivity, epsilon) {
  check_number(sensitivity, "sensitivity", lower = 0)
  check_epsilon(epsilon)
  sensitivity / epsilon
}

#' L2 (Frobenius) sensitivity of a second-moment matrix
#'
#' For rows with norm at most `clip` = B, one row changes
#' \eqn{A^T A = \sum_i x_i x_i^T} by at most `B^2` in Frobenius norm when a
#' row is added or removed, and by at most `sqrt(2) B^2` when a row is
#' replaced (the worst case is two orthogonal rows of norm B). With
#' `n` given, the sensitivity is that of the averaged matrix `A^T A / n`.
#'
#' @param clip Row-norm bound B (> 0, finite).
#' @param neighbor `"replace-one"` or `"add-remove"`.
#' @param n Optional number of rows; if given, the matrix is divided by `n`.
#' @return The sensitivity.
#' @examples
#' second_moment_sensitivity(1, "replace-one", n = 200) # sqrt(2)/200
#' second_moment_sensitivity(1, "add-remove", n = 200)  # 1/200
#' @export
second_moment_sensitivity <- function(clip, neighbor = c("replace-one", "add-remove"),
                                      n = NULL) {
  neighbor <- check_choice(neighbor, c("replace-one", "add-remove"), "neighbor")
  check_clip(clip)
  if (!is.finite(clip)) abort("the sensitivity is unbounded when `clip` = Inf.")
  s <- if (neighbor == "replace-one") sqrt(2) * clip^2 else clip^2
  if (!is.null(n)) {
    check_count(n, "n")
    s <- s / n
  }
  s
}

# ---------------------------------------------------------------------------
# Sheffet, "Private approximations of the 2nd-moment matrix using existing
# techniques in linear regression" (arXiv:1507.00056): calibrations
# of Algorithms 1-5, and the shift of the scaled Analyze Gauss variant.
# Neighbours are add/remove one row of L2 norm <= B throughout.
# ---------------------------------------------------------------------------

#' Calibrations of Sheffet's second-moment mechanisms
#'
#' The constants of Algorithms 1-5 of Sheffet, exactly as printed in
#' the algorithm boxes and Theorems 3.1, 4.1 and 5.1 (`B` is the row-norm
#' bound, `L = ln(4/delta)` or `ln(8/delta)` when half the budget goes to the
#' noisy smallest eigenvalue):
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
#'   \eqn{B^2(\sqrt{k} - (\sqrt{d} + \sqrt{2\ln(4/\delta)}))^2}, which keeps
#'   \eqn{A^TA + W} minus it positive definite with probability >= 1 - delta/2.
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
#' @examples
#' sheffet_wishart_k(d = 22, epsilon = 0.1, delta = exp(-9))
#' sheffet_jl_w2(clip = sqrt(55), r = 44, epsilon = 0.1, delta = exp(-9))
#' @name sheffet_calibration
NULL

#' @rdname sheffet_calibration
#' @export
sheffet_jl_w2 <- function(clip, r, epsilon, delta) {
  L <- log(4 / delta)
  4 * clip^2 * (sqrt(2 * r * L) + L) / epsilon
}

#' @rdname sheffet_calibration
#' @export
sheffet_jl_adaptive_w2 <- function(clip, r0, epsilon, delta) {
  L <- log(8 / delta)
  8 * clip^2 / epsilon * (sqrt(2 * r0 * L) + L)
}

#' @rdname sheffet_calibration
#' @export
sheffet_jl_rstar <- function(s, clip, epsilon, delta) {
  L <- log(8 / delta)
  a <- s * epsilon / (8 * clip^2) - L   # need sqrt(2 r L) <= a
  if (a < 0) return(0)
  floor(a^2 / (2 * L))
}

#' @rdname sheffet_calibration
#' @export
sheffet_eigen_laplace_scale <- function(clip, epsilon) 2 * clip^2 / epsilon

#' @rdname sheffet_calibration
#' @export
sheffet_eigen_offset <- function(clip, epsilon, delta) 2 * clip^2 * log(2 / delta) / epsilon

#' @rdname sheffet_calibration
#' @export
sheffet_wishart_k <- function(d, epsilon, delta) floor(d + 14 / epsilon^2 * 2 * log(4 / delta))

#' @rdname sheffet_calibration
#' @export
sheffet_wishart_safe_shift <- function(clip, k, d, delta) {
  clip^2 * (sqrt(k) - (sqrt(d) + sqrt(2 * log(4 / delta))))^2
}

#' @rdname sheffet_calibration
#' @export
sheffet_iwishart_psi <- function(clip, n, d, epsilon, delta) {
  L <- log(4 / delta)
  2 * clip^2 / epsilon * (2 * sqrt(2 * (n + d) * L) + 2 * L)
}

#' @rdname sheffet_calibration
#' @export
sheffet_iwishart_adaptive_psi <- function(clip, k0, epsilon, delta) {
  L <- log(8 / delta)
  4 * clip^2 / epsilon * (2 * sqrt(2 * k0 * L) + 2 * L)
}

#' @rdname sheffet_calibration
#' @export
sheffet_iwishart_kstar <- function(s, clip, epsilon, delta) {
  L <- log(8 / delta)
  a <- (s * epsilon / (4 * clip^2) - 2 * L) / 2   # need sqrt(2 k L) <= a
  if (a < 0) return(0)
  floor(a^2 / (2 * L))
}

#' Expected spectral norm of Analyze Gauss noise
#'
#' The shift `c = E||N||` of the paper's scaled Analyze Gauss (Sheffet,
#' Section 6): N is p x p symmetric with iid N(0, sigma^2) entries on and
#' above the diagonal. `E||N||` has no closed form; by scale equivariance it
#' is `sigma * e_p`, and `e_p` is computed once per p by averaging the
#' spectral norm over `reps` matrices from a fixed internal stream
#' (Mersenne Twister 64 with Box-Muller, seed fixed), so the constant is
#' deterministic, identical on every platform, and does not consume or
#' alter R's random number stream. It spends no privacy (it does not look
#' at the data). For large p it approaches `2 sigma sqrt(p)`.
#'
#' @param p Dimension.
#' @param sigma Entry standard deviation of N.
#' @param reps Matrices averaged (Monte Carlo standard error about
#'   `0.1 sigma / sqrt(reps)` in practice).
#' @return `E||N||`.
#' @examples
#' analyze_gauss_shift(22, sigma = 1) # about 2 * sqrt(22) = 9.4, a little below
#' @export
analyze_gauss_shift <- function(p, sigma, reps = 4000) {
  check_count(p, "p")
  check_number(sigma, "sigma", lower = 0)
  check_count(reps, "reps", min = 10)
  key <- paste(p, reps)
  e <- .shift_cache[[key]]
  if (is.null(e)) {
    e <- expected_sym_gaussian_norm_cpp(as.integer(p), as.integer(reps))
    assign(key, e, envir = .shift_cache)
  }
  sigma * e
}

.shift_cache <- new.env(parent = emptyenv())

#' Noise scales of the thresholding releases
#'
#' The Gaussian noise of Wang and Xu's and the modified DP / LDP thresholding.
#' In the central model the averaged second moment \eqn{\frac1n\sum x_i x_i^T}
#' has sensitivity `second_moment_sensitivity(B, neighbor, n)` and gets noise
#' of sd `s` from [gaussian_sigma()]. In the local model every record adds
#' noise of sd `sigma` calibrated to the sensitivity of its own
#' \eqn{x x^T}, and the average of the n reports carries noise of sd
#' `s = sigma / sqrt(n)`. With the classic calibration and B = 1 this gives
#' the papers' formulas: modified DP (replace-one) \eqn{s^2 = 4\log(1.25/\delta)/(n\epsilon)^2};
#' Wang and Xu DP (add/remove) \eqn{s^2 = 2\log(1.25/\delta)/(n\epsilon)^2};
#' LDP (both papers, add/remove per record) \eqn{\sigma^2 = 2\log(1.25/\delta)/\epsilon^2}.
#' @noRd
threshold_noise <- function(model, neighbor, B, n, epsilon, delta, calibration) {
  if (model == "central") {
    s <- gaussian_sigma(second_moment_sensitivity(B, neighbor, n), epsilon, delta, calibration)
    list(s = s, sigma_record = NA_real_)
  } else {
    sigma <- gaussian_sigma(second_moment_sensitivity(B, neighbor), epsilon, delta, calibration)
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
#' @references Zhou, S., Ligett, K. and Wasserman, L. (2009). Differential
#'   privacy with compression. ISIT. (Full version arXiv:0901.1365.)
#' @examples
#' compression_m_min(n = 10000, p = 10)
#' compression_threshold(n = 10000, p = 10, m = c(500, 1000), delta_max = 0.01)
#' @export
compression_threshold <- function(n, p, m, delta_max) {
  check_count(n, "n")
  check_count(p, "p")
  if (!is.numeric(m) || !length(m) || anyNA(m) || any(m < 1) || any(m != round(m))) {
    abort("`m` must be whole number(s) >= 1.")
  }
  check_number(delta_max, "delta_max", lower = 0, lower_open = FALSE)
  k <- zlw_constants()
  sqrt(2 * (k[["C1"]] + k[["C2"]])) * sqrt(log(2 * n * p) / m) + delta_max
}

#' @rdname compression_threshold
#' @export
compression_m_min <- function(n, p) {
  check_count(n, "n")
  check_count(p, "p")
  k <- zlw_constants()
  as.integer(ceiling(2 * (k[["C1"]] + k[["C2"]]) * log(2 * n * p)))
}
