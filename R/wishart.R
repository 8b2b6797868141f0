# Sheffet's second-moment mechanisms (Algorithms 1-5). All take the data
# first (matrix, data frame, second_moment() statistics or a chunk reader),
# clip rows to L2 norm B, and release a positive (semi)definite matrix.
# Sheffet's neighbours differ in one row (replace-one). His proofs allow any
# replacement of norm <= B, the zero row included, and Algorithms 1, 2, 3 and
# 5 see the data only through A'A, where a zeroed row is a removed one: so
# they are also private under add/remove, with n never used or released.
# Fast paths (default) draw the Wishart matrices by Bartlett in O(d^3);
# method = "explicit" builds them literally, to validate the fast paths.

#' JL projection with a privacy ridge (Sheffet, Algorithm 1)
#'
#' Appends \eqn{w I_d} to the row-clipped data A, projects with an
#' \eqn{r \times (n+d)} matrix R of iid N(0, 1), and releases
#' \eqn{M = (RA')^T(RA')/r}, an unbiased estimate of \eqn{A^TA + w^2 I}
#' (so regressions from it are ridge regressions with penalty \eqn{w^2}),
#' with \eqn{w^2 = 4B^2(\sqrt{2r\ln(4/\delta)} + \ln(4/\delta))/\epsilon}
#' (Theorem 3.1; internal `dpcov:::sheffet_jl_w2()`, see [sheffet_calibration]).
#'
#' `method = "bartlett"` (default) uses that \eqn{M \sim W_d(A^TA + w^2 I, r)/r}
#' exactly and draws it by the Bartlett decomposition in \eqn{O(d^3)}, from the
#' clipped Gram matrix alone. `method = "explicit"` forms \eqn{RA'} literally,
#' drawing R in column blocks so it is never held in memory (\eqn{O(rnd)}
#' time; needs the data matrix).
#'
#' @param x Data: a numeric matrix or data frame (n x d), a [second_moment()]
#'   object, or a chunk reader function (see [second_moment()]).
#'   `method = "explicit"` needs the data matrix.
#' @param epsilon Privacy loss, > 0. Values beyond those for which Sheffet's
#'   appendix proves the main text's constant (about ln(4/delta) and below;
#'   see `?sheffet_calibration`) are refused.
#' @param delta In (0, 1/e) (Theorem 3.1).
#' @param clip Row-norm bound B: rows longer than B are shrunk to length B.
#'   `Inf` (no clipping) voids the guarantee; then give `sigma_clip_inf`.
#' @param r Rows of the projection, an integer > d (default `2 d`). Public:
#'   it is released (`params$r`) and must not be derived from the data (from
#'   n, say), since the release is add/remove private with n not released.
#' @param method `"bartlett"` (exact fast path) or `"explicit"` (literal).
#' @param sigma_clip_inf With `clip = Inf` only: the bound B to calibrate the
#'   noise as if it held (experiments; no guarantee). Data so far beyond it
#'   that the release's arithmetic overflows (the adaptive algorithms' r* and
#'   k* grow as the square of the data's scale over B) are refused with a
#'   `dpcov_data_error`.
#' @inheritParams analyze_gauss
#' @return A `dp_release` of class `dp_second_moment`; `params` holds `w2`
#'   (the ridge \eqn{w^2}), `r` and `method`.
#' @template ref-sheffet
#' @seealso [jl_adaptive()], [dp_regression()].
#' @examples
#' x <- cbind(matrix(rnorm(80000), 20000, 4), 1)
#' jl_ridge(x, epsilon = 0.5, delta = 1e-4, clip = 3, r = 1000)
#' @template param-bounds-uncentred
#' @template param-dots-none
#' @export
jl_ridge <- function(x, epsilon, delta, clip, r = NULL,
                     method = "bartlett", sigma_clip_inf = NULL, budget = NULL,
                     lower = NULL, upper = NULL, bounds = NULL, ...) {
  refuse_unknown_args("jl_ridge", ...)
  if (missing(x)) abort_missing("x")
  call <- match.call()
  if (!is.null(lower) || !is.null(upper) || !is.null(bounds) || is_box_suffstat(x)) {
    return(box_uncentred_call(sys.function(), environment(), call, "jl_ridge"))
  }
  method <- check_choice(method, c("bartlett", "explicit"), "method")
  if (!is.null(r)) r <- check_count(r, "r", min = 2, max = 1e12)
  inp <- sheffet_input(x, clip, epsilon, delta, method, sigma_clip_inf,
                       "Algorithm 1 (JL ridge)", budget, "jl_ridge", r_given = r, shape_check = function(inp) {
                         d <- inp$s$p
                         r <- check_count(if (is.null(r)) 2 * d else r, "r", min = d + 1, max = 1e12)
                         sheffet_check_proven("jl_ridge", inp$epsilon, inp$delta, r)
                         check_explicit_size(inp, r, "r")
                       })
  epsilon <- inp$epsilon
  delta <- inp$delta
  d <- inp$s$p
  r <- inp$shape
  w2 <- sheffet_jl_w2(inp$B, r, epsilon, delta)
  M <- jl_draw(inp, w2, r)
  sheffet_release(M, inp, "JL projection with privacy ridge (Sheffet, Algorithm 1)",
                  epsilon, delta, call,
                  params = list(w2 = w2, r = r, method = method, noise_clip = inp$B),
                  scale = "sum + ridge", ridge = w2)  # E M = A'A + w^2 I
}

#' JL projection with a ridge adapted to the smallest eigenvalue (Sheffet, Algorithm 2)
#'
#' Spends half the budget on a Laplace-noised smallest eigenvalue of
#' \eqn{A^TA}, \eqn{s = \max(0, \lambda_{min} - 2B^2\ln(2/\delta)/\epsilon + Z)},
#' \eqn{Z \sim Lap(2B^2/\epsilon)}, and lowers the ridge of Algorithm 1 to
#' \eqn{w^2 = \max(0, w_0^2 - s)} with
#' \eqn{w_0^2 = 8B^2(\sqrt{2r_0\ln(8/\delta)} + \ln(8/\delta))/\epsilon}.
#' If \eqn{w^2 > 0} it releases \eqn{(RA')^T(RA')/r_0} with R of size
#' \eqn{r_0 \times (n+d)}; if the data's own spread already suffices
#' (\eqn{w = 0}) it projects A itself with the largest number of rows
#' \eqn{r^*} the privacy analysis allows (internal `dpcov:::sheffet_jl_rstar()`, see [sheffet_calibration]) and releases
#' \eqn{(RA)^T(RA)/r^*}. The noisy eigenvalue `s` is itself private and is
#' reported in `params`.
#'
#' @inheritParams jl_ridge
#' @param delta In (0, 1/e).
#' @param r0 Minimal number of projection rows, an integer > d (default `2 d`).
#'   Public and not derived from the data (n included), as `r` of
#'   [jl_ridge()]: it is released (`params$r0`).
#' @return A `dp_release` of class `dp_second_moment`; `params` holds `s`,
#'   `w2`, `r` (the rows used: `r0` or `r*`) and `branch` (`"ridge"` or `"rstar"`).
#' @inherit jl_ridge references
#' @examples
#' x <- cbind(matrix(rnorm(80000), 20000, 4), 1)
#' jl_adaptive(x, epsilon = 0.5, delta = 1e-4, clip = 3)
#' @template param-bounds-uncentred
#' @template param-dots-none
#' @export
jl_adaptive <- function(x, epsilon, delta, clip, r0 = NULL,
                        method = "bartlett", sigma_clip_inf = NULL, budget = NULL,
                        lower = NULL, upper = NULL, bounds = NULL, ...) {
  refuse_unknown_args("jl_adaptive", ...)
  if (missing(x)) abort_missing("x")
  call <- match.call()
  if (!is.null(lower) || !is.null(upper) || !is.null(bounds) || is_box_suffstat(x)) {
    return(box_uncentred_call(sys.function(), environment(), call, "jl_adaptive"))
  }
  method <- check_choice(method, c("bartlett", "explicit"), "method")
  if (!is.null(r0)) r0 <- check_count(r0, "r0", min = 2, max = 1e12)
  inp <- sheffet_input(x, clip, epsilon, delta, method, sigma_clip_inf,
                       "Algorithm 2 (adaptive JL)", budget, "jl_adaptive", r_given = r0, shape_check = function(inp) {
                         d <- inp$s$p
                         r0 <- check_count(if (is.null(r0)) 2 * d else r0, "r0", min = d + 1, max = 1e12)
                         # r* >= r0 in the other branch: the bound at r0 covers both
                         sheffet_check_proven("jl_adaptive", inp$epsilon, inp$delta, r0)
                         check_explicit_size(inp, r0, "r0")
                       })
  epsilon <- inp$epsilon
  delta <- inp$delta
  d <- inp$s$p
  r0 <- inp$shape
  s <- noisy_min_eigen(inp$s$gram, inp$B, epsilon, delta)
  w2 <- max(0, sheffet_jl_adaptive_w2(inp$B, r0, epsilon, delta) - s)
  if (w2 > 0) {
    branch <- "ridge"
    r <- r0
  } else {
    branch <- "rstar"
    # (r* >= r0 whenever w2 = 0, but floor() could land one below it; as
    # iwishart_adaptive() takes max(k0, k*), so r never falls under r0 > d)
    r <- max(r0, sheffet_jl_rstar(s, inp$B, epsilon, delta))
    # r* grows with the (private) s. Data too large for it (reachable with
    # clip = Inf only, where nothing is guaranteed) are refused first, before
    # any size is quoted; the explicit projection is refused past what it can
    # compute, a decision on the released s only
    check_jl_range(inp, w2, r, "Algorithm 2", "r* (which grows as the square of the smallest eigenvalue of A'A over sigma_clip_inf^2)")
    check_explicit_size(inp, r, "r* (from the private smallest eigenvalue)", charged = TRUE)
  }
  M <- jl_draw(inp, w2, r)
  sheffet_release(M, inp, "JL projection, ridge from a private smallest eigenvalue (Sheffet, Algorithm 2)",
                  epsilon, delta, call,
                  params = list(s = s, w2 = w2, r = r, r0 = r0, branch = branch,
                                method = method, noise_clip = inp$B),
                  scale = if (w2 > 0) "sum + ridge" else "sum", ridge = w2)
}

#' Additive Wishart noise (Sheffet, Algorithm 3)
#'
#' Releases \eqn{A^TA + W} with \eqn{W \sim W_d(B^2 I, k)},
#' \eqn{k = \lfloor d + 28\ln(4/\delta)/\epsilon^2 \rfloor} (internal `dpcov:::sheffet_wishart_k()`, see [sheffet_calibration]),
#' i.e. the Gram matrix of the data with k random rows from
#' \eqn{N(0, B^2 I)} appended (Theorem 4.1: needs \eqn{\epsilon \in (0,1)},
#' \eqn{\delta \in (0, 1/e)}; its proof, Theorem B.3, needs \eqn{\delta < 1/6},
#' which is enforced). The output is positive definite.
#'
#' With `shift = TRUE` the output is post-processed as in the paper's
#' Section 4.1: subtract the noise mean \eqn{kB^2 I} when the result stays
#' positive definite, else the smaller shift of Lemma A.3,
#' \eqn{B^2(\sqrt{k} - \sqrt{d} - \sqrt{2\ln(4/\delta)})^2 I}
#' (internal `dpcov:::sheffet_wishart_safe_shift()`, see [sheffet_calibration]). Post-processing costs no privacy.
#'
#' `method = "bartlett"` draws W by the Bartlett decomposition (\eqn{O(d^3)});
#' `"explicit"` sums k outer products literally (\eqn{O(k d^2)}, k is about
#' \eqn{10^5} at \eqn{\epsilon = 0.05}).
#'
#' @inheritParams jl_ridge
#' @param x Data: a numeric matrix or data frame (n x d), a [second_moment()]
#'   object, or a chunk reader function (see [second_moment()]). The noise
#'   needs the clipped Gram matrix only, so `method = "explicit"` takes any
#'   of them.
#' @param epsilon In (0, 1).
#' @param delta In (0, 1/6): Theorem 4.1 states (0, 1/e), but the last step
#'   of its proof (Theorem B.3) needs delta < 1/6.
#' @param shift Subtract the expected (or the safe) shift? See Details.
#' @return A `dp_release` of class `dp_second_moment`; `params` holds `k`,
#'   and with `shift = TRUE` the `shift` subtracted and `shift_type`
#'   (`"expected"` or `"safe"`).
#' @inherit jl_ridge references
#' @examples
#' x <- cbind(matrix(rnorm(80000), 20000, 4), 1)
#' wishart_noise(x, epsilon = 0.5, delta = 1e-4, clip = 3, shift = TRUE)
#' @template param-bounds-uncentred
#' @template param-dots-none
#' @export
wishart_noise <- function(x, epsilon, delta, clip, shift = FALSE,
                          method = "bartlett", sigma_clip_inf = NULL, budget = NULL,
                          lower = NULL, upper = NULL, bounds = NULL, ...) {
  refuse_unknown_args("wishart_noise", ...)
  if (missing(x)) abort_missing("x")
  call <- match.call()
  if (!is.null(lower) || !is.null(upper) || !is.null(bounds) || is_box_suffstat(x)) {
    return(box_uncentred_call(sys.function(), environment(), call, "wishart_noise"))
  }
  method <- check_choice(method, c("bartlett", "explicit"), "method")
  check_flag(shift, "shift")
  epsilon <- check_epsilon(epsilon, 1, "Algorithm 3 (additive Wishart noise)")
  inp <- sheffet_input(x, clip, epsilon, delta, "bartlett", sigma_clip_inf,
                       "Algorithm 3 (additive Wishart noise)", budget, "wishart_noise", shape_check = function(inp) {
                         k <- sheffet_wishart_k(inp$s$p, epsilon, inp$delta)
                         # past 2^53 the floor is not exact (k could land a few below it)
                         if (!(k <= 2^53)) {
                           abort("`epsilon` = %s with `delta` = %s gives Algorithm 3 k = %s degrees of freedom, beyond 2^53, where doubles no longer count whole numbers exactly; use a larger `epsilon` or `delta`.",
                                 format(epsilon), format(inp$delta), format(k, digits = 4), .arg = "epsilon")
                         }
                         if (method == "explicit" && k * inp$s$p > explicit_limit) {
                           abort("`method` = \"explicit\" would sum k = %s outer products (k grows as 1/epsilon^2); use method = \"bartlett\", which draws the same distribution.",
                                 format(k, big.mark = ",", decimal.mark = "."), .arg = "method")
                         }
                         k
                       })
  delta <- inp$delta
  d <- inp$s$p
  B <- inp$B
  k <- inp$shape
  W <- if (method == "bartlett") {
    wishart_factor_draw_cpp(diag(B, d), k, TRUE)
  } else {
    wishart_outer_sum_cpp(d, k, B)
  }
  M <- inp$s$gram + W
  params <- list(k = k, method = method, noise_clip = B)
  if (shift) {
    expected <- k * B^2
    if (is_pd(M - diag(expected, d))) {
      params$shift <- expected
      params$shift_type <- "expected"
    } else {
      params$shift <- sheffet_wishart_safe_shift(B, k, d, delta)
      params$shift_type <- "safe"
    }
    M <- M - diag(params$shift, d)
  }
  mech <- paste0("Additive Wishart noise (Sheffet, Algorithm 3)", if (shift) ", shifted" else "")
  # E M = A'A + (k B^2 - shift) I: the expected shift leaves A'A
  ridge <- k * B^2 - if (shift) params$shift else 0
  sheffet_release(M, inp, mech, epsilon, delta, call, params = params,
                  scale = if (ridge > 0) "sum + ridge" else "sum", ridge = max(0, ridge))
}

#' Inverse-Wishart posterior sample (Sheffet, Algorithm 4)
#'
#' Releases one draw \eqn{M \sim W_d^{-1}(A^TA + \psi I, n + d)}, the posterior
#' of a Gaussian second-moment matrix under an inverse-Wishart prior with
#' scale \eqn{\psi I}, where
#' \eqn{\psi = 2B^2(2\sqrt{2(n+d)\ln(4/\delta)} + 2\ln(4/\delta))/\epsilon}
#' (internal `dpcov:::sheffet_iwishart_psi()`, see [sheffet_calibration]; Theorem 5.1). The prior and the degrees of
#' freedom use the number of rows n, so the guarantee is the paper's:
#' replace-one neighbours (same n), and n is public. The draw is by Bartlett, without inverting
#' any matrix. M estimates the covariance \eqn{A^TA/n} up to scale; regression
#' coefficients from it ([dp_regression()]) are scale free.
#'
#' @inheritParams jl_ridge
#' @param x Data: a numeric matrix or data frame (n x d), a [second_moment()]
#'   object, or a chunk reader function (see [second_moment()]).
#' @param delta In (0, 1/e).
#' @return A `dp_release` of class `dp_second_moment`; `params` holds `psi`
#'   and `df`.
#' @inherit jl_ridge references
#' @examples
#' x <- cbind(matrix(rnorm(80000), 20000, 4), 1)
#' iwishart_posterior(x, epsilon = 0.5, delta = 1e-4, clip = 3)
#' @template param-bounds-uncentred
#' @template param-dots-none
#' @export
iwishart_posterior <- function(x, epsilon, delta, clip, sigma_clip_inf = NULL, budget = NULL,
                               lower = NULL, upper = NULL, bounds = NULL, ...) {
  refuse_unknown_args("iwishart_posterior", ...)
  if (missing(x)) abort_missing("x")
  call <- match.call()
  if (!is.null(lower) || !is.null(upper) || !is.null(bounds) || is_box_suffstat(x)) {
    return(box_uncentred_call(sys.function(), environment(), call, "iwishart_posterior"))
  }
  inp <- sheffet_input(x, clip, epsilon, delta, "bartlett", sigma_clip_inf,
                       "Algorithm 4 (inverse-Wishart posterior)", budget, "iwishart_posterior")
  epsilon <- inp$epsilon
  delta <- inp$delta
  d <- inp$s$p
  n <- inp$s$n
  psi <- sheffet_iwishart_psi(inp$B, n, d, epsilon, delta)
  M <- iwishart_from_gram(inp$s$gram + diag(psi, d), n + d)
  # psi and the degrees of freedom use n: the paper's replace-one guarantee
  # (same n) is the one that holds
  sheffet_release(M, inp, "Inverse-Wishart posterior sample (Sheffet, Algorithm 4)",
                  epsilon, delta, call, params = list(psi = psi, df = n + d, noise_clip = inp$B),
                  scale = "posterior sample", ridge = psi)
}

#' Inverse-Wishart sample with degrees of freedom from the data (Sheffet, Algorithm 5)
#'
#' Spends half the budget on the Laplace-noised smallest eigenvalue s of
#' \eqn{A^TA} (as in [jl_adaptive()]) and lowers the prior scale
#' \eqn{\psi_0 = 4B^2(2\sqrt{2k_0\ln(8/\delta)} + 2\ln(8/\delta))/\epsilon} to
#' \eqn{\psi = \max(0, \psi_0 - s)}. If \eqn{\psi > 0} it releases
#' \eqn{M \sim W_d^{-1}(A^TA + \psi I, k_0)}; otherwise
#' \eqn{M \sim W_d^{-1}(A^TA, k^*)} with the largest \eqn{k^*} the analysis
#' allows (internal `dpcov:::sheffet_iwishart_kstar()`, see [sheffet_calibration]). (The paper's box tests `if w > 0`;
#' it means \eqn{\psi > 0}, the only quantity it defines.)
#'
#' @inheritParams jl_ridge
#' @param x Data: a numeric matrix or data frame (n x d), a [second_moment()]
#'   object, or a chunk reader function (see [second_moment()]).
#' @param delta In (0, 1/e).
#' @param k0 Minimal degrees of freedom, an integer >= d (default `2 d`).
#'   It must be public and must not be derived from the data, n included:
#'   the release is add/remove private with n not released, but k0 is
#'   released (`params$k0`, and the degrees of freedom `params$df` of the
#'   prior branch). The paper's Section 5.1 also uses `k0 = n + d`, which
#'   presumes n public (neighbours that replace a row); this function has no
#'   such variant, and with `k0 = n + d` its release would state n exactly
#'   and its output distribution would depend on n, so it would not be
#'   add/remove private. Use a public constant (`2 d`, or a public bound).
#' @return A `dp_release` of class `dp_second_moment`; `params` holds `s`,
#'   `psi`, `df` and `branch`: `"prior"` or `"kstar"`, or `"prior (A'A
#'   singular)"` when the private `s` reaches the k* branch although the
#'   data's A'A is singular (the Laplace draw exceeded its tail bound, an
#'   event of probability below delta / 4 that the guarantee's delta
#'   covers), where the prior's ridge `psi0` and df `k0` keep the release
#'   defined instead of failing on the data.
#' @inherit jl_ridge references
#' @examples
#' x <- cbind(matrix(rnorm(80000), 20000, 4), 1)
#' iwishart_adaptive(x, epsilon = 0.5, delta = 1e-4, clip = 3)
#' @template param-bounds-uncentred
#' @template param-dots-none
#' @export
iwishart_adaptive <- function(x, epsilon, delta, clip, k0 = NULL, sigma_clip_inf = NULL,
                              budget = NULL, lower = NULL, upper = NULL, bounds = NULL, ...) {
  refuse_unknown_args("iwishart_adaptive", ...)
  if (missing(x)) abort_missing("x")
  call <- match.call()
  if (!is.null(lower) || !is.null(upper) || !is.null(bounds) || is_box_suffstat(x)) {
    return(box_uncentred_call(sys.function(), environment(), call, "iwishart_adaptive"))
  }
  if (!is.null(k0)) k0 <- check_count(k0, "k0", min = 1, max = 1e15)
  inp <- sheffet_input(x, clip, epsilon, delta, "bartlett", sigma_clip_inf,
                       "Algorithm 5 (adaptive inverse-Wishart)", budget, "iwishart_adaptive", shape_check = function(inp) {
                         d <- inp$s$p
                         check_count(if (is.null(k0)) 2 * d else k0, "k0", min = d, max = 1e15)
                       })
  epsilon <- inp$epsilon
  delta <- inp$delta
  d <- inp$s$p
  k0 <- inp$shape
  s <- noisy_min_eigen(inp$s$gram, inp$B, epsilon, delta)
  br <- iwishart_adaptive_branch(s, is_pd(inp$s$gram), inp$B, k0, epsilon, delta)
  psi <- br$psi
  df <- br$df
  branch <- br$branch
  # k* grows as the square of s / B^2: with clip = Inf (B = sigma_clip_inf)
  # data far beyond B overflow it, refused before the draw (a decision on the
  # released s; a finite clip keeps s <= n B^2 and k* far from it)
  if (!is.finite(df)) abort_sheffet_range("Algorithm 5", "the degrees of freedom k* (which grow as the square of the smallest eigenvalue of A'A over sigma_clip_inf^2) overflow")
  M <- iwishart_from_gram(inp$s$gram + diag(psi, d), df)
  sheffet_release(M, inp, "Inverse-Wishart sample, prior from a private smallest eigenvalue (Sheffet, Algorithm 5)",
                  epsilon, delta, call,
                  params = list(s = s, psi = psi, df = df, k0 = k0, branch = branch,
                                noise_clip = inp$B),
                  scale = "posterior sample", ridge = psi)
}

# ---- internals --------------------------------------------------------------

#' Algorithm 5's branch from the private smallest eigenvalue `s` (public by
#' now): the prior's ridge psi and df k0, or no ridge and df k*.
#' @noRd
iwishart_adaptive_branch <- function(s, gram_pd, B, k0, epsilon, delta) {
  psi0 <- sheffet_iwishart_adaptive_psi(B, k0, epsilon, delta)
  if (psi0 - s > 0) return(list(branch = "prior", psi = psi0 - s, df = k0))
  if (gram_pd) {
    # s >= psi0 gives k* >= k0 exactly; max() keeps floor()'s rounding at s
    # near psi0 from dropping df below k0. A finite k* is capped at 2^53
    # (check_release()'s limit, where the noise's variance is read exactly):
    # fewer degrees of freedom keep sqrt(2 k L) <= a, the guarantee's condition,
    # and k0 <= 1e15 stays below it (an infinite k* is refused by the caller)
    k <- sheffet_iwishart_kstar(s, B, epsilon, delta)
    if (is.finite(k)) k <- min(k, 2^53)
    return(list(branch = "kstar", psi = 0, df = max(k0, k)))
  }
  # s >= psi0 although A'A is singular: the Laplace draw exceeded psi0 + 2B^2
  # ln(2/delta)/epsilon, an event of probability < delta/4 that the
  # guarantee's delta already covers. The prior branch keeps the release
  # defined instead of failing on the data.
  list(branch = "prior (A'A singular)", psi = psi0, df = k0)
}

# Validates the shared arguments and resolves the data. The explicit JL path
# projects the data itself, so it keeps the (clipped inside C++) data matrix.
# `shape_check(d)` validates arguments that depend on the dimension d (r >= d
# + 1, ...): before the charge for a package reader (its schema); for data
# or statistics after it, and a failure withdraws it; for a reader function
# d is known only once it is read, and the charge then stands (its pass began).
sheffet_input <- function(x, clip, epsilon, delta, method, sigma_clip_inf, what, budget, mechanism,
                          shape_check = function(d) NULL, r_given = NULL) {
  # the charge's notion and the release's, from the one table (sheffet_notions)
  neighbor <- sheffet_notions[[mechanism]]
  epsilon <- check_epsilon(epsilon, method = what)
  delta <- check_delta(delta, sheffet_delta_limit(mechanism), what)
  # the JL algorithms' check needs r: here, before any charge or read, with r
  # given or with the bound for every r (the default 2d waits for the data's
  # columns: a plain reader's are known only once it is read), and again in
  # their shape checks
  sheffet_check_proven(mechanism, epsilon, delta, if (is.null(r_given)) Inf else r_given)
  if (missing(clip)) clip <- NULL
  # one non-Gaussian (epsilon, delta) charge, before the data is read; the
  # adaptive algorithms' internal split (Laplace + Wishart) is inside it
  # a package reader's columns are known before it is read: its shape checks come before the charge
  cols <- reader_columns(x)
  if (!is.null(cols)) shape_check(list(s = list(p = length(cols), n = NA_real_), method = method, delta = delta,
                                       epsilon = epsilon, n_public = FALSE))
  # the clip to calibrate to is an argument (or a suffstat's field): refused
  # before the charge and before the data is read
  clip_arg <- budget_clip(x, clip)
  noise_clip(clip_arg, sigma_clip_inf)
  check_release_width(x)
  charge <- budget_charge(budget, paste("Sheffet", what), epsilon, delta, clip = clip_arg,
                          neighbor = neighbor)
  with_refund(budget, charge, {
    X <- NULL
    if (method == "explicit") {
      if (inherits(x, "dp_suffstat") || is.function(x)) {
        abort("method = \"explicit\" projects the data itself: pass the data matrix, not sufficient statistics or a reader.", .arg = "method")
      }
      if (is.null(clip)) abort("`clip` (the row-norm bound B) is required; use Inf for none.")
      # n is private unless the notion is replace-one (Algorithm 4): no rows is data too, as on the Bartlett path
      X <- check_data_matrix(x, min_rows = if (neighbor == "replace-one") 1L else 0L)
      s <- second_moment(X, clip)
    } else {
      s <- as_suffstat(x, clip)
    }
    if (neighbor == "replace-one" && s$n < 1) abort_public_rows()
    B <- noise_clip(s$clip, sigma_clip_inf)
    inp <- list(s = s, B = B, X = X, method = method, epsilon = epsilon, delta = delta, charge = charge,
                n_public = neighbor == "replace-one", neighbor = sheffet_release_notion(mechanism))
    inp$shape <- shape_check(inp)
    inp
  })
}

# The literal paths cost O(rows x n x d) or O(k d^2): refuse sizes that would
# run for hours (a shape-and-argument decision, never one on the data). Under
# add/remove n is private, so only the public part, rows x d x d, is checked
# there: a refusal that depended on n would answer "is n above t?" for free
# (the refusal is refunded), for a t the caller sets through `r`.
explicit_limit <- 1e10
# `charged`: a size from a released quantity (r*), refused after the draw,
# whose charge stands (dpcov_data_error, as with_refund() marks such refusals).
check_explicit_size <- function(inp, r, what, charged = FALSE) {
  if (inp$method != "explicit") return(invisible(r))
  n <- if (isTRUE(inp$n_public)) inp$s$n else 0
  # the projection itself is r x d whatever n is
  if (r * inp$s$p > dp_limits$cells || r * (n + inp$s$p) * inp$s$p > explicit_limit) {
    abort("`method` = \"explicit\" would draw a %s x %s projection; use method = \"bartlett\", which draws the same distribution (%s = %s).",
          format(r), if (isTRUE(inp$n_public)) format(n + inp$s$p) else "(n + d)", what, format(r), .arg = "method",
          .class = if (charged) "dpcov_data_error")
  }
  invisible(r)
}

# M = W_d(G + w2 I, r) / r, by Bartlett or by the literal projection.
jl_draw <- function(inp, w2, r) {
  d <- inp$s$p
  check_jl_range(inp, w2, r, "the JL projection", sprintf("r = %s", format(r)))
  if (inp$method == "explicit") {
    return(jl_project_gram_cpp(inp$X, inp$s$clip, sqrt(w2), r) / r)
  }
  wishart_from_gram(inp$s$gram + diag(w2, d), r) / r
}

# One W_d(S, df) draw for a PSD S: its Cholesky factor, or a symmetric square
# root when S is singular (the w = 0 branch with rank-deficient data).
wishart_from_gram <- function(S, df) {
  R <- tryCatch(chol(S), error = function(e) NULL)
  F <- if (is.null(R)) psd_sqrt_cpp(S) else t(R)  # compression's square root
  wishart_factor_draw_cpp(F, df, TRUE)
}

# The JL draw's diagonal is (G_jj + w2) chi^2_r before the division by r
# (Bartlett and the literal projection alike): past double precision the
# release would hold Inf or NaN. Only clip = Inf reaches this (a finite clip
# bounds G_jj <= n B^2 and r* by (n epsilon)^2), with data far beyond
# sigma_clip_inf: refused as data, keeping the charge, before the draw.
check_jl_range <- function(inp, w2, r, what, size) {
  top <- max(diag(inp$s$gram)) + w2
  # a diagonal entry is (G_jj + w2) chi^2_r: its quantile at 1e-15 (not r, its
  # mean, which about one draw in 140 at r = 3 exceeded fourfold) so that
  # whether the draw fits does not depend on the draw
  if (!is.finite(r) || !(top * stats::qchisq(1e-15, r, lower.tail = FALSE) <= .Machine$double.xmax / 4)) {
    abort_sheffet_range(what, sprintf("%s times the Gram's entries exceeds double precision", size))
  }
  invisible(r)
}

abort_sheffet_range <- function(what, why) {
  abort("the squared row norms of `x` are too large for %s with `clip` = Inf: %s; rescale the data or give a finite `clip`.",
        what, why, .arg = "x", .class = "dpcov_data_error")
}

# Callers add a positive ridge (or checked that A'A is PD); a ridge too small
# to survive rounding is raised to a relative floor, growing tenfold until the
# sampler's Cholesky succeeds, rather than letting the release fail on the
# data. A PSD S passes long before the last step (1e-4 of its largest diagonal).
iwishart_from_gram <- function(S, df) {
  floor <- 1e-12 * max(1, abs(diag(S)))
  step <- 0L
  while (!is_pd(S)) {
    # (check_suffstat() refuses an indefinite Gram: unreachable from input)
    if (step > 8L) abort("The inverse-Wishart scale is not positive semi-definite.", .class = "dpcov_internal_error")
    S <- S + diag(floor * 10^step, nrow(S))
    step <- step + 1L
  }
  # df > d here (n + d, k0 >= d, k*), so a draw fails with probability
  # below 1e-150; refused rather than released if it ever does
  checked_iwishart_draws(riwishart_cpp(1L, df, S, FALSE, TRUE), df, nrow(S), "the degrees of freedom")[, , 1]
}

# One criterion for "positive definite" everywhere: the samplers' own (LLT).
# (Both take any numeric matrix: a hand-made release may store its estimate
# as integer, which the C++ maps only as double.)
is_pd <- function(S) is_pd_cpp(as_double_matrix(S))

# The PSD projection (negative eigenvalues set to 0) of a symmetric matrix.
psd_project <- function(A) psd_project_cpp(as_double_matrix(A))

as_double_matrix <- function(A) {
  if (!is.double(A)) storage.mode(A) <- "double"
  A
}

lambda_min <- function(S) min(eigen(S, symmetric = TRUE, only.values = TRUE)$values)

# Algorithms 2 and 5: s = max(0, lambda_min(A'A) - 2B^2 ln(2/delta)/eps + Lap(2B^2/eps)).
noisy_min_eigen <- function(G, B, epsilon, delta) {
  z <- laplace_draw_cpp(sheffet_eigen_laplace_scale(B, epsilon))
  max(0, lambda_min(G) - sheffet_eigen_offset(B, epsilon, delta) + z)
}

# Add/remove (n not released) for the algorithms that never use n;
# replace-one (n public) for Algorithm 4, which does.
sheffet_release <- function(M, inp, mechanism, epsilon, delta, call, params, scale, ridge) {
  neighbor <- inp$neighbor
  M <- symmetric_part(M)
  dimnames(M) <- dimnames(inp$s$gram)
  params$budget_charge <- inp$charge
  new_dp_release(M, "second_moment", mechanism, epsilon, delta, neighbor,
                 inp$s$clip, inp$s$n, inp$s$p, n_public = neighbor != "add-remove",
                 scale = scale, centred = FALSE, ridge = ridge, params = params,
                 call = call)
}
