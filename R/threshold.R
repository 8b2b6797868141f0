# Sparse covariance by noisy hard thresholding: Wang and Xu's DP / LDP
# thresholding and the modified versions, in the central and the local model,
# with the threshold constant tuned by cross-validation (Gram downdating), on a
# public sample, or fixed.

#' Sparse covariance under (local) differential privacy by thresholding
#'
#' Releases a sparse, positive semi-definite estimate of the second-moment
#' matrix \eqn{\Sigma = E[x x^T]} (the covariance for centred data), as
#' described under Details.
#'
#' 1. noise: the averaged second moment \eqn{\frac1n \sum_i x_i x_i^T} of the
#'    rows (clipped to norm `clip` = B) plus a symmetric Gaussian matrix. In
#'    the central model the noise is added once, with sd `s` calibrated to
#'    the sensitivity of the average; in the local model every record adds
#'    its own noise of sd `sigma` to \eqn{x_i x_i^T} ([ldp_perturb()]) and
#'    the server averages ([ldp_aggregate()]), so `s = sigma / sqrt(n)`.
#' 2. hard thresholding: entries with \eqn{|a_{ij}| \le t} are set to 0, where
#'    \eqn{t = c\sqrt{\log p / n} + 4 s \sqrt{\log p}};
#' 3. projection onto the PSD cone by clipping negative eigenvalues at 0.
#'
#' **Variants and neighbour notions.** `"wang_xu"` (Wang and Xu 2019,
#' Algorithms 1-2) prints the central noise
#' \eqn{s^2 = 2\log(1.25/\delta)/(n\epsilon)^2} (B = 1): sensitivity \eqn{B^2/n}
#' of the average, which holds for *zero-out* neighbours (one row replaced by
#' the all-zero row, n public), so that is its default `neighbor`. (The paper
#' states its neighbours as data sets differing in one entry, replace-one,
#' for which \eqn{B^2/n} is short by \eqn{\sqrt2}; use `neighbor =
#' "replace-one"` for that notion, which calibrates to \eqn{\sqrt2 B^2/n}.
#' The sensitivities need rows of norm at most B, which the clip enforces;
#' the modified paper assumes moments of the data, not bounded rows. Under
#' add/remove the released n and noise scale would disclose n, so
#' `"add-remove"` is refused; see [second_moment_sensitivity()].) `"modified"` (the
#' modified Algorithms 1-2) uses replace-one neighbours, sensitivity
#' \eqn{\sqrt2 B^2/n}, so \eqn{s^2 = 4\log(1.25/\delta)B^4/(n\epsilon)^2}.
#' In every central release n is public (it sets the noise scale and the
#' threshold). In the local model both papers print the per-record
#' \eqn{\sigma^2 = 2\log(1.25/\delta)/\epsilon^2}, which is the zero-out
#' calibration (a record against the all-zero record); local differential
#' privacy compares any two values of a record, whose \eqn{x x^T} differ by
#' up to \eqn{\sqrt2 B^2}, so the default here is `neighbor = "replace-one"`
#' and the papers' value needs `neighbor = "zero-out"`. The modified LDP
#' algorithm prints its threshold's noise term as \eqn{4\sigma\sqrt{\log p}}
#' with the per-record sigma (no \eqn{1/\sqrt n}); at n = 200 that exceeds
#' every entry and the release is the zero matrix. Its proof works with the
#' averaged noise, sd \eqn{\sigma/\sqrt n}, which is the default
#' (`ldp_threshold = "averaged"`); `"printed"` gives the formula as printed.
#' With the averaged form the two variants coincide in the local model
#' (same noise, same threshold) except for the tuned constant.
#'
#' **Tuning the constant c** (`tune`):
#' * `"theory"` (default): \eqn{c = \sqrt2 B^2}, from Hoeffding's inequality
#'   for the \eqn{p(p+1)/2} entries of the average of rows of norm at most B
#'   (each entry of \eqn{x x^T} lies in an interval of length \eqn{B^2}, so
#'   every sampling deviation is below \eqn{c\sqrt{\log p/n}} with
#'   probability at least \eqn{1 - (p+1)/p^3}); data-free, spends nothing,
#'   conservative.
#' * a data matrix (or `threshold_tune("public", public = )`): K-fold
#'   cross-validation on a public or held-out sample that is not part of `x`.
#'   That it is not is your claim: the package does not compare it with `x`,
#'   since the answer would itself disclose whether a record is in `x`.
#' * a number (or `threshold_tune("fixed", constant = )`): that constant.
#' * `"cv"`: K-fold cross-validation on `x` itself (K = 10), see
#'   [threshold_cv()], as the papers do. It looks at the private data without
#'   spending privacy budget, so the release records `tuning$private = FALSE`,
#'   [has_guarantee()] is `FALSE` and print warns. Ask for it explicitly.
#'
#' @param x A data matrix or numeric data frame (rows are records); in the
#'   central model also a [second_moment()] object or a chunk reader; in the
#'   local model also the output of [ldp_aggregate()] (then `epsilon`,
#'   `delta`, `clip`, `neighbor` and `calibration` come from it).
#' @param epsilon,delta Privacy parameters.
#' @param clip Row-norm bound B; rows are shrunk to norm at most B (taken
#'   from `x` when it is a [second_moment()] object, as by every mechanism). `Inf`
#'   (the papers' simulations) voids the guarantee; then the noise is
#'   calibrated as if rows had norm at most `sigma_clip_inf`.
#' @param variant `"modified"` or `"wang_xu"`.
#' @param model `"central"` or `"local"`.
#' @param tune How to choose the threshold constant: `"theory"` (default),
#'   a number, a public data matrix, `"cv"` (not private), a
#'   [threshold_tune()] object, or a [threshold_cv()] result (its chosen
#'   constant; not private). A number is taken as public (data-free),
#'   unless it carries [threshold_cv()]'s mark of a value computed from the
#'   data; a copy of that value without the mark (`as.numeric()`, `c()`,
#'   typed in) is taken as public, and the release's guarantee then leaves
#'   out what the tuning revealed.
#' @param neighbor `NULL` (the variant's default, see Details),
#'   `"replace-one"` or `"zero-out"` (n is public: the noise scale and the
#'   threshold use it; `"add-remove"` is refused).
#' @param ldp_threshold Modified LDP only: `"averaged"` or `"printed"`.
#' @param keep_diagonal Never threshold the diagonal (the papers threshold
#'   every entry, so the default is `FALSE`).
#' @param calibration `"analytic"` (default) or `"classic"` (the papers';
#'   epsilon < 1 only unless `clip = Inf`), see [gaussian_sigma()].
#' @param sigma_clip_inf With `clip = Inf`, the row-norm bound the noise is
#'   calibrated for (the papers take 1).
#' @param method Local model with a data matrix: `"aggregate"` draws the
#'   averaged noise directly (one p x p draw, the same distribution);
#'   `"explicit"` perturbs every record and averages.
#' @param noise_multiplier The k in the threshold's noise term
#'   \eqn{k s \sqrt{\log p}}; 4 in both papers. With `noise_multiplier = 0`
#'   and `tune = "cv"` the whole threshold level is cross-validated (an
#'   exploration of how much the fixed noise term costs; not in the papers).
#' @param budget A [dp_budget()] to charge before the data is read, or `NULL`.
#'   The charge is that of the Gaussian noise (central: the averaged second
#'   moment; local model: the per-record reports). An [ldp_aggregate()] is
#'   not charged again where every batch of it was charged to the budget in
#'   [ldp_perturb()] (their rows are disjoint, so those charges cover it), or
#'   where the budget charged the aggregate before: thresholding it is
#'   post-processing of reports already released. Any other budget (one
#'   that did not charge some batch, or a batch without a `release_id`) is
#'   charged the reports' guarantee, once per aggregate (so its ledger holds
#'   the guarantee the release states; reports hold under replace-one or
#'   zero-out, so an add/remove budget refuses them), and records the
#'   aggregate and its verified batches as charged. The batches' ids
#'   (`params$report_ids`) count only on an aggregate made by
#'   [ldp_aggregate()] in this R session and not edited since, and each only
#'   for a batch verified there: its reports still those [ldp_perturb()]
#'   made under that id in this session (a batch edited, with rows added, or
#'   carrying another batch's id counts as not charged, and so does one made
#'   in another session); an aggregate made in another session is charged
#'   once per budget, and an edited one every time. A release tuned on the
#'   private data (`tune = "cv"`, or a grid or constant from
#'   [threshold_cv()]) has no guarantee, so it refuses a budget with a
#'   `dpcov_budget_error`, as `clip = Inf` does. See [analyze_gauss()].
#' @return A `dp_release` of class `c("dp_threshold", "dp_release")`; its
#'   `estimate` (also `as.matrix()`) is the p x p thresholded PSD estimate.
#'   `params` holds the noise sds, the threshold and the constant. With
#'   `tune = "cv"` the class is `c("dp_threshold", "dp_nonprivate",
#'   "dp_release")`: the cross-validated constant is a noiseless statistic of
#'   `x`, and print says so.
#' @template ref-wangxu
#' @seealso [threshold_cv()], [ldp_perturb()], [ldp_aggregate()].
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(20000 * 10), 20000, 10) / 4
#' r <- dp_threshold(x, epsilon = 0.5, delta = 1e-3, clip = 1)
#' r
#' # cross-validated constant (not private: recorded and printed as such)
#' dp_threshold(x, epsilon = 0.5, delta = 1e-3, clip = 1, variant = "wang_xu",
#'              tune = "cv")$params$constant
#' @template param-bounds-uncentred
#' @template param-dots-none
#' @export
dp_threshold <- function(x, epsilon, delta, clip, variant = "modified",
                         model = "central", tune = "theory", neighbor = NULL,
                         ldp_threshold = "averaged", keep_diagonal = FALSE,
                         calibration = "analytic", sigma_clip_inf = NULL,
                         method = "aggregate", noise_multiplier = 4, budget = NULL,
                         lower = NULL, upper = NULL, bounds = NULL, ...) {
  refuse_unknown_args("dp_threshold", ...)
  if (missing(x)) abort_missing("x")
  if (inherits(x, "ldp_reports") || (is.list(x) && !is.data.frame(x) && length(x) &&
                                      all(vapply(x, inherits, TRUE, "ldp_reports")))) {
    abort(paste0("`x` holds ldp_perturb() reports: combine the batches with ldp_aggregate() and ",
                 "threshold the aggregate (dp_threshold(ldp_aggregate(...)))."), .arg = "x")
  }
  bounds_given <- c(lower = !is.null(lower), upper = !is.null(upper), bounds = !is.null(bounds))
  if (inherits(x, "dp_ldp_aggregate") && any(bounds_given)) {
    a <- names(bounds_given)[bounds_given][1L]
    abort("`%s`: per-column bounds do not apply to an aggregate of local reports (each record was clipped by its owner before it was perturbed).",
          a, .arg = a)
  }
  # an aggregate of reports is a local-model release: the model follows from it
  if (inherits(x, "dp_ldp_aggregate") && missing(model)) model <- "local"
  call <- match.call()
  variant <- check_choice(variant, c("modified", "wang_xu"), "variant")
  model <- check_choice(model, c("central", "local"), "model")
  # an argument that does not apply is refused, not ignored
  if (!missing(ldp_threshold)) refuse_ldp_threshold(variant, model)
  if (!missing(method) && model != "local") {
    abort("`method` applies to the local model only (how each record's report is drawn); the central model has one noise draw.",
          .arg = "method")
  }
  calibration_given <- !missing(calibration)
  tune_spec <- as_threshold_tune(tune)
  # a constant tuned on the private data leaves the release without a
  # guarantee: nothing for a budget to account (as for clip = Inf)
  if (!is.null(budget) && (tune_spec$method == "cv" || !is.null(tune_spec$nonprivate))) {
    abort_budget(paste0("`budget` cannot be charged for a release tuned on the private data (%s): it has no ",
                        "(epsilon, delta) guarantee to account; nothing was charged and the data was not read. ",
                        "Tune with \"theory\", a fixed constant or a public sample, or leave `budget` = NULL."),
                 if (tune_spec$method == "cv") "`tune` = \"cv\"" else tune_spec$nonprivate)
  }
  if (!is.null(lower) || !is.null(upper) || !is.null(bounds) || is_box_suffstat(x)) {
    return(box_uncentred_call(sys.function(), environment(), call))
  }
  ldp_threshold <- check_choice(ldp_threshold, c("averaged", "printed"), "ldp_threshold")
  calibration <- check_choice(calibration, c("analytic", "classic"), "calibration")
  method <- check_choice(method, c("aggregate", "explicit"), "method")
  check_flag(keep_diagonal, "keep_diagonal")
  noise_multiplier <- check_number(noise_multiplier, "noise_multiplier", lower = 0, upper = 1e6,
                                   lower_open = FALSE, upper_open = FALSE)
  tune <- tune_spec

  if (inherits(x, "dp_ldp_aggregate")) {
    # the aggregate fixes the noise: arguments about calibrating it or reading
    # data have no meaning here, and are refused rather than ignored
    if (calibration_given && !identical(calibration, x$params$calibration)) {
      abort("`calibration` differs from the one the reports were perturbed with (%s).",
            format(x$params$calibration), .arg = "calibration")
    }
    if (!is.null(sigma_clip_inf)) abort("`sigma_clip_inf` does not apply to an aggregate of reports.", .arg = "sigma_clip_inf")
    if (method != "aggregate") {
      abort("`method` = \"%s\" does not apply to an aggregate of reports (it is how records are read).", method,
            .arg = "method")
    }
    return(threshold_aggregate(x, variant, model, tune, ldp_threshold, keep_diagonal, call,
                               if (missing(epsilon)) NULL else epsilon,
                               if (missing(delta)) NULL else delta, noise_multiplier,
                               if (missing(clip)) NULL else clip, neighbor, budget))
  }
  epsilon <- check_epsilon(epsilon)
  delta <- check_delta(delta)
  # statistics carry their clip, as for every other mechanism; a `clip` given
  # with them must agree (as_suffstat())
  clip_arg <- if (missing(clip)) NULL else clip
  clip <- budget_clip(x, clip_arg)
  neighbor <- threshold_neighbor(neighbor, variant, model)
  B <- noise_clip(clip, sigma_clip_inf)
  # sigma / sensitivity is fixed by (epsilon, delta, calibration), in both
  # models and whatever n is
  if (tune$method == "cv" && (!is.matrix(x) && !is.data.frame(x))) {
    abort("`tune = \"cv\"` needs the data matrix `x`; with sufficient statistics or a reader use a public sample, a fixed constant or \"theory\".")
  }
  if (model == "local" && !(is.matrix(x) || is.data.frame(x) || (is.numeric(x) && is.null(dim(x))))) {
    abort("the local model needs the records `x` as a matrix (each is perturbed by its owner), or an `ldp_aggregate()` result.")
  }
  # the width an input's shape makes public (a matrix's columns, statistics'
  # p, a package reader's schema): what follows from it is refused before the
  # charge (after it, a reader's pass has begun and the charge stands)
  p_public <- input_width(x)
  if (!is.na(p_public)) check_threshold_shape(p_public, tune)
  charge <- budget_charge(budget, threshold_mechanism_name(variant, model), epsilon, delta,
                          sigma_ratio = noise_sigma(1, epsilon, delta, calibration), clip = clip,
                          neighbor = neighbor)
  X <- NULL
  # a failure on the input's shape withdraws the charge (nothing is released)
  with_refund(budget, charge, {
    if (is.matrix(x) || is.data.frame(x) || (is.numeric(x) && is.null(dim(x)))) X <- check_threshold_data(x)
    # clip = Inf: data whose squares overflow get analyze_gauss()'s refusal
    # (a dpcov_data_error from the Gram's check), not the eigensolver's
    # failure on an infinite average, in either model and before tuning
    if (!is.null(X) && !is.finite(clip)) second_moment(X, clip)
    s <- if (is.null(X)) as_suffstat(x, if (inherits(x, "dp_suffstat")) clip_arg else clip, min_rows = 2L) else NULL
    n <- if (is.null(X)) s$n else nrow(X)
    p <- if (is.null(X)) s$p else ncol(X)
    # what follows from the shapes (public) is refused here too, charge
    # withdrawn (a width known only once read: another reader's)
    check_threshold_shape(p, tune)
    if (model == "local" && method == "explicit") check_explicit_reports(n, p)
  })
  zero_row <- suffstat_zero_row(s, neighbor)
  cal <- function(m) threshold_noise_terms(variant, model, neighbor, B, m, epsilon, delta,
                                           calibration, ldp_threshold, noise_multiplier,
                                           proven = is.finite(clip), zero_row = zero_row)

  tuned <- resolve_threshold_constant(tune, X, p, n, cal, clip, B, keep_diagonal)
  noise <- cal(n)

  avg <- threshold_noisy_average(X, s, clip, noise, model, method)
  t <- threshold_level(tuned$constant, n, p, noise$t_noise, noise$multiplier)
  finish_threshold(avg, t, keep_diagonal, colnames_of(x, X, s), variant, model, epsilon, delta,
                   neighbor, clip, n, p, noise, B, calibration, ldp_threshold, tuned,
                   method = if (model == "local") method else NULL, call = call, charge = charge)
}

# Step 1: the noisy average. Central, and local by default: the exact
# average plus one symmetric Gaussian matrix of entry sd s (in the local
# model the average of n per-record noises of sd sigma is exactly that, with
# s = sigma / sqrt(n)). Local "explicit": every record perturbed.
threshold_noisy_average <- function(X, s, clip, noise, model, method) {
  n <- if (is.null(X)) s$n else nrow(X)
  if (model == "local" && method == "explicit") {
    check_explicit_reports(n, ncol(X))
    return(ldp_report_sum_cpp(X, clip, noise$sigma_record) / n)
  }
  gram <- if (is.null(X)) s$gram else clipped_gram_cpp(X, clip)$gram
  gram / n + symmetric_gaussian_cpp(ncol(gram), noise$s)
}

# What dp_threshold()'s width p decides: p >= 2, the p x p matrices'
# size, and a public tuning sample of the same width.
check_threshold_shape <- function(p, tune) {
  if (p < 2) abort_threshold_p(p)
  if (tune$method == "public" && ncol(tune$public) != p) {
    abort("`tune`: the public sample has %d columns, `x` has %d.", ncol(tune$public), as.integer(p), .arg = "tune")
  }
  check_cells(p^2, "the second-moment matrix", "x")
  # the cross-validations hold one p x p Gram per fold (threshold_cv()'s check)
  if (tune$method %in% c("cv", "public")) check_cells(tune$folds * p^2, "the fold Gram matrices", "tune")
}

# ldp_threshold, given, applies to the modified variant's local model only.
refuse_ldp_threshold <- function(variant, model) {
  if (!(model == "local" && variant == "modified")) {
    abort("`ldp_threshold` applies to the modified variant in the local model only; here (variant \"%s\", model \"%s\") the threshold is set otherwise.",
          variant, model, .arg = "ldp_threshold")
  }
}

# The local model's explicit reports draw n p(p + 1) / 2 normals: refused
# beyond 5e9 (the aggregate method draws the same distribution at once).
check_explicit_reports <- function(n, p) {
  draws <- n * p * (p + 1) / 2
  if (draws > 5e9) {
    abort("`method` = \"explicit\" would draw n p(p+1)/2 = %s normals, more than 5e9; use method = \"aggregate\", which draws the same distribution.",
          format(draws, big.mark = ",", decimal.mark = ".", scientific = FALSE), .arg = "method")
  }
  invisible(draws)
}

# The thresholding estimator's post-processing, in one place (dp_threshold()
# and dp_lm()'s bootstrap redraws): hard threshold at t, then the projection
# to the PSD cone. Returns psd_project()'s list and the fraction zeroed.
threshold_project <- function(M, t, keep_diagonal) {
  thr <- hard_threshold_cpp(M, t, keep_diagonal)
  # the variances thresholded to 0: the projection can fill them back from a
  # surviving covariance (an indefinite 2 x 2 block), which then says
  # nothing of them either
  c(psd_project(thr), list(zero_fraction = mean(thr == 0), zero_variances = which(diag(thr) == 0)))
}

# Shared tail of dp_threshold(): threshold, project, wrap.
finish_threshold <- function(avg, t, keep_diagonal, nm, variant, model, epsilon, delta, neighbor,
                             clip, n, p, noise, B, calibration, ldp_threshold, tuned, method, call,
                             charge = NULL) {
  proj <- threshold_project(avg, t, keep_diagonal)
  zero_frac <- proj$zero_fraction
  est <- proj$matrix
  dimnames(est) <- if (is.null(nm)) NULL else list(nm, nm)
  params <- list(variant = variant, model = model, noise_sd = noise$s,
                 sigma_record = noise$sigma_record, threshold = t, constant = tuned$constant,
                 thresholded_fraction = zero_frac, thresholded_variances = proj$zero_variances,
                 negative_eigenvalues = proj$n_negative,
                 noise_clip = B, calibration = calibration, keep_diagonal = keep_diagonal,
                 noise_multiplier = noise$multiplier)
  params$budget_charge <- charge
  if (model == "local") {
    params$ldp_threshold <- if (variant == "modified") ldp_threshold else "averaged"
    if (!is.null(method)) params$method <- method
  }
  # n is public in every thresholding release: it sets the noise scale and
  # the threshold (and is fixed by replace-one and zero-out neighbours)
  rel <- new_dp_release(est, "threshold", threshold_mechanism_name(variant, model), epsilon, delta,
                        neighbor, clip, n, p, n_public = TRUE, scale = "average", centred = FALSE,
                        params = params, tuning = tuned$record,
                        call = call, local = model == "local")
  # a constant cross-validated on the private data is a noiseless statistic
  # of it (a grid point scaled by the largest clipped diagonal entry), and so
  # are the threshold and the tuning text that hold it
  if (isFALSE(tuned$record$private)) class(rel) <- c(class(rel)[1], "dp_nonprivate", class(rel)[-1])
  rel
}

threshold_mechanism_name <- function(variant, model) {
  paste0(if (variant == "modified") "Modified " else "Wang & Xu ",
         if (model == "central") "DP-thresholding (Algorithm 1)" else "LDP-thresholding (Algorithm 2)")
}

threshold_neighbor <- function(neighbor, variant, model) {
  if (is.null(neighbor)) {
    return(if (model == "central" && variant == "wang_xu") "zero-out" else "replace-one")
  }
  if (model == "local") {
    if (identical(neighbor, "add-remove")) {
      abort("`neighbor` = \"add-remove\" has no meaning for one record's report; the papers' local noise is the \"zero-out\" calibration (a record against the all-zero record).")
    }
    return(check_choice(neighbor, c("replace-one", "zero-out"), "neighbor"))
  }
  check_threshold_notion(check_choice(neighbor, dp_neighbors, "neighbor"))
}

# Central thresholding adds noise to the average and sets its threshold with
# n: both disclose n, which add/remove neighbours keep private, so no
# add/remove guarantee holds (and n-public "add/remove" is no notion at all).
check_threshold_notion <- function(neighbor) {
  if (neighbor == "add-remove") {
    abort(paste0("`neighbor` = \"add-remove\" is not available for thresholding: its noise scale and its threshold ",
                 "use n, which add/remove neighbours keep private. Use \"replace-one\" (noise for sensitivity ",
                 "sqrt(2) B^2 / n) or \"zero-out\"."), .arg = "neighbor")
  }
  neighbor
}

# Noise sds at sample size m, and the noise term of the threshold.
threshold_noise_terms <- function(variant, model, neighbor, B, m, epsilon, delta,
                                  calibration, ldp_threshold, multiplier = 4, proven = TRUE, zero_row = 0) {
  nz <- threshold_noise(model, neighbor, B, m, epsilon, delta, calibration, proven, zero_row)
  nz$multiplier <- multiplier
  nz$t_noise <- if (model == "local" && variant == "modified" && ldp_threshold == "printed") {
    nz$sigma_record
  } else nz$s
  nz
}

# Constant or zero columns are valid data (their covariance entries are
# simply 0): refusing them would make the release fail or succeed on the
# private values.
check_threshold_data <- function(x, arg = "x") {
  X <- check_data_matrix(x, arg, min_rows = 2L)
  if (ncol(X) < 2L) abort_threshold_p(ncol(X), sprintf("`%s`", arg), arg)
  X
}

colnames_of <- function(x, X, s) {
  if (!is.null(X)) return(colnames(X))
  if (!is.null(s)) return(s$colnames)
  NULL
}

# --- tuning -------------------------------------------------------------------

#' How to tune the threshold constant
#'
#' A tuning specification for [dp_threshold()]'s `tune` argument.
#'
#' @param method `"cv"` (K-fold cross-validation on the private data; not
#'   private), `"public"` (the same cross-validation on a public or held-out
#'   sample `public`), `"fixed"` (the number `constant`) or `"theory"`
#'   (\eqn{c = \sqrt2 B^2}, see [dp_threshold()]).
#' @param folds Number of folds K (>= 2), for `"cv"` and `"public"`.
#' @param grid For `"cv"` and `"public"`: candidate constants; `NULL` for 50
#'   values from 0 to the constant that thresholds every entry away.
#'   `public`, `constant`, `grid`, `folds` and `noise` given to a method that
#'   does not use them are refused.
#' @param public For `"public"`: a data matrix with the same columns as `x`,
#'   public or held out, and independent of `x` (not checked: comparing it
#'   with `x` would disclose membership). With per-column bounds it is mapped
#'   to the box by the same public map as `x`.
#' @param constant For `"fixed"`: the constant c (>= 0).
#' @param noise For `"cv"` and `"public"`: add the mechanism's noise to each
#'   training fold (so the constant is chosen for the noisy matrix it will
#'   threshold). With `"cv"` the folds get the noise, and the threshold the
#'   noise term, of a release on the fold's rows; with `"public"` those of the
#'   release itself (at the private data's n, whatever the public sample's
#'   size), while the constant's term \eqn{c\sqrt{\log p/n}} uses the fold's
#'   size in both.
#' @return An object of class `threshold_tune`.
#' @examples
#' threshold_tune("cv", folds = 5)
#' threshold_tune("fixed", constant = 2)
#' @template ref-wangxu
#' @template param-dots-none
#' @export
threshold_tune <- function(method = "theory", folds = 10,
                           grid = NULL, public = NULL, constant = NULL, noise = TRUE, ...) {
  refuse_unknown_args("threshold_tune", ...)
  given_cv <- c(folds = !missing(folds), noise = !missing(noise))  # (before they are reassigned)
  method <- check_choice(method, c("theory", "fixed", "public", "cv"), "method")
  folds <- check_count(folds, "folds", min = 2, max = 1e6)
  check_flag(noise, "noise")
  # a grid or constant computed from private data (threshold_cv() marks them)
  # makes any release tuned with it non-private, whatever the method says
  nonprivate <- c(nonprivate_source(grid), nonprivate_source(constant))[1]
  if (!is.null(grid)) {
    grid <- check_numeric_vector(grid, "grid", lower = 0)
    if (length(grid) > 1e6) abort("`grid` has %d candidates; at most 1e6 are allowed.", length(grid))
    grid <- sort(unique(grid))
  }
  # an argument the method does not use is refused, not dropped (a `public`
  # sample given with method "cv" tuned on the private data instead)
  no_cv <- method %in% c("theory", "fixed")
  unused <- c(public = !is.null(public) && method != "public", constant = !is.null(constant) && method != "fixed",
              grid = !is.null(grid) && no_cv, folds = given_cv[["folds"]] && no_cv, noise = given_cv[["noise"]] && no_cv)
  if (any(unused)) {
    a <- names(unused)[unused][1L]
    abort("`%s` is not used by method \"%s\" (%s); drop it, or choose the method that uses it.", a, method,
          switch(a, public = "only method \"public\" tunes on a public sample",
                 constant = "only method \"fixed\" takes a constant",
                 "only the cross-validations, \"cv\" and \"public\", use folds, a grid and fold noise"), .arg = a)
  }
  if (method == "public") {
    if (is.null(public)) abort("`public` (a public or held-out data matrix) is required for method \"public\".", .arg = "public")
    public <- check_threshold_data(public, "public")
    # its shape is public: refused here, before any release charges a budget
    if (nrow(public) < folds) {
      abort("`public`: %d-fold cross-validation needs at least %d rows; the public sample has %d.",
            as.integer(folds), as.integer(folds), nrow(public), .arg = "public")
    }
  }
  if (method == "fixed") {
    if (is.null(constant)) abort("`constant` is required for method \"fixed\".")
    constant <- check_number(constant, "constant", lower = 0, lower_open = FALSE)
  }
  structure(list(method = method, folds = folds, grid = grid, public = public,
                 constant = constant, noise = noise, nonprivate = nonprivate), class = "threshold_tune")
}

#' @export
print.threshold_tune <- function(x, ...) {
  x <- as_threshold_tune(x, "x")
  cat("<threshold_tune>", switch(x$method,
    cv = sprintf("%d-fold cross-validation on the private data (not private)", as.integer(x$folds)),
    public = sprintf("%d-fold cross-validation on a public sample of %d rows", as.integer(x$folds), nrow(x$public)),
    fixed = sprintf("fixed constant c = %s", format(x$constant)),
    theory = "theory default c = sqrt(2) * B^2"),
    if (!is.null(x$nonprivate)) sprintf("\n  NOT private: %s", x$nonprivate), "\n")
  invisible(x)
}

as_threshold_tune <- function(tune, arg = "tune") {
  if (missing(tune)) abort_missing(arg)
  if (inherits(tune, "threshold_tune")) {
    # a hand-made object is input like any other: rebuild it through the checks
    if (!is.list(tune)) abort("`%s` is not a valid threshold_tune object.", arg, .arg = arg)
    # (folds and noise only for the methods that use them: threshold_tune()
    # refuses them for "fixed" and "theory", whose objects store the defaults)
    cv_args <- if (is_string(tune$method) && tune$method %in% c("cv", "public")) {
      list(folds = if (is.null(tune$folds)) 10 else tune$folds, noise = if (is.null(tune$noise)) TRUE else tune$noise)
    } else {
      # other values there are settings the method would not use: passed on, and refused
      c(if (!is.null(tune$folds) && !isTRUE(all.equal(tune$folds, 10))) list(folds = tune$folds),
        if (!is.null(tune$noise) && !isTRUE(tune$noise)) list(noise = tune$noise))
    }
    out <- with_arg(do.call(threshold_tune, c(list(tune$method, grid = tune$grid, public = tune$public,
                                                   constant = tune$constant), cv_args)),
                    arg, "a threshold_tune object")
    # the mark survives a rebuild (a hand-made object cannot drop it by omission only);
    # a mark that is not a string was dropped, and the release read as private
    if (!is.null(tune$nonprivate) && !is_string(tune$nonprivate)) {
      abort("`%s` is not a valid threshold_tune object: its `nonprivate` mark must be NULL or one string (why the constant is not private).",
            arg, .arg = arg)
    }
    if (is.null(out$nonprivate) && is_string(tune$nonprivate)) out$nonprivate <- tune$nonprivate
    return(out)
  }
  if (!identical(arg, "tune")) abort("`%s` must be a threshold_tune object.", arg, .arg = arg)
  # a threshold_cv() result: its chosen constant, non-private whatever its
  # marks say (it was chosen on data without noise)
  if (inherits(tune, "threshold_cv")) {
    k <- if (is.list(tune)) tune$constant
    if (!(is.numeric(k) && length(k) == 1L && is.null(dim(k)))) abort("`tune` is not a valid threshold_cv object: it needs one `constant`.")
    why <- nonprivate_source(k) %||% "the constant was chosen by threshold_cv() on data without privacy noise"
    return(with_arg(threshold_tune("fixed", constant = mark_nonprivate(as.vector(k), why)), "tune", "a threshold_cv() constant"))
  }
  if (is.null(tune)) abort("`tune` must be \"theory\", a number, a public data matrix, \"cv\", or threshold_tune(), not NULL.")
  if (is.character(tune) && length(tune) == 1L) {
    if (tune %in% c("cv", "theory")) return(threshold_tune(tune))
    abort("`tune` must be \"cv\", \"theory\", a number, a public data matrix, or threshold_tune(); got \"%s\".", tune)
  }
  if (is.numeric(tune) && length(tune) == 1L && is.null(dim(tune))) {
    return(with_arg(threshold_tune("fixed", constant = tune), "tune", "a fixed constant"))
  }
  if (is.matrix(tune) || is.data.frame(tune)) {
    return(with_arg(threshold_tune("public", public = tune), "tune", "a public sample"))
  }
  abort("`tune` must be \"cv\", \"theory\", a number, a public data matrix, or threshold_tune().")
}

resolve_threshold_constant <- function(tune, X, p, n, cal, clip, B, keep_diagonal) {
  out <- resolve_threshold_constant_(tune, X, p, n, cal, clip, B, keep_diagonal)
  # a value computed from the private data (marked by mark_nonprivate()) makes
  # the release non-private. Whether a "public" sample holds rows of `x` is
  # NOT checked: the answer would be an un-noised, uncharged membership test
  # of any record the caller puts in the sample; the sample's independence
  # from `x` is the caller's claim (documented in ?threshold_tune)
  why <- tune$nonprivate
  if (!is.null(why)) {
    out$record$private <- FALSE
    # (a marked constant was not "chosen without the data")
    out$record$detail <- sprintf("%s; NOT private: %s", sub(" chosen without the data$", "", out$record$detail), why)
  }
  out$constant <- as.vector(out$constant)
  out$record$value <- as.vector(out$record$value)
  out
}

resolve_threshold_constant_ <- function(tune, X, p, n, cal, clip, B, keep_diagonal) {
  switch(tune$method,
    fixed = list(constant = tune$constant,
                 record = tuning_record("fixed constant", private = TRUE,
                                        detail = sprintf("c = %s chosen without the data", format(tune$constant)),
                                        value = tune$constant)),
    theory = list(constant = sqrt(2) * B^2,
                  record = tuning_record("theory default", private = TRUE,
                                         detail = sprintf("c = sqrt(2) B^2 = %s (Hoeffding bound for rows of norm <= %s)",
                                                          format(sqrt(2) * B^2, digits = 4), format(B)),
                                         value = sqrt(2) * B^2)),
    cv = {
      if (n < tune$folds) abort("%d-fold cross-validation needs at least %d rows; `x` has %d.",
                                as.integer(tune$folds), as.integer(tune$folds), as.integer(n))
      cv <- run_threshold_cv(X, tune$folds, tune$grid, clip, cal, keep_diagonal, tune$noise, TRUE)
      list(constant = cv$constant,
           record = tuning_record(sprintf("%d-fold cross-validation", as.integer(tune$folds)),
                                  private = FALSE,
                                  detail = sprintf("c = %s chosen on the private data, Frobenius loss against held-out second moments",
                                                   format(cv$constant, digits = 4)),
                                  value = cv$constant))
    },
    public = {
      P <- tune$public
      if (ncol(P) != p) abort("`tune`: the public sample has %d columns, `x` has %d.", ncol(P), as.integer(p), .arg = "tune")
      if (nrow(P) < tune$folds) abort("`tune`: %d-fold cross-validation needs at least %d rows; the public sample has %d.",
                                      as.integer(tune$folds), as.integer(tune$folds), nrow(P), .arg = "tune")
      # the folds get the release's noise and noise term (at the private n):
      # at the public sample's size every candidate zeroed every entry of a
      # release on many more rows; the constant's term keeps the fold's size
      cv <- run_threshold_cv(P, tune$folds, tune$grid, clip, cal, keep_diagonal, tune$noise, TRUE, noise_at = n)
      list(constant = cv$constant,
           record = tuning_record("public-sample cross-validation", private = TRUE,
                                  detail = sprintf("c = %s chosen by %d-fold CV on a public sample of %d rows",
                                                   format(cv$constant, digits = 4), as.integer(tune$folds), nrow(P)),
                                  value = cv$constant))
    })
}

# The CV engine: folds, candidate thresholds per fold, C++ losses.
run_threshold_cv <- function(X, K, grid, clip, cal, keep_diagonal, noise, downdate, noise_at = NULL) {
  n <- nrow(X)
  p <- ncol(X)
  note_draw()
  fold <- sample(rep_len(seq_len(K) - 1L, n))
  n_train <- n - tabulate(fold + 1L, K)
  if (is.null(grid)) {
    # from no thresholding beyond the noise term to zeroing every entry:
    # |a_ij| <= max_k a_kk for a second moment, so O(n p) suffices
    top <- max(colSums(clipped_rows(X, clip)^2)) / n
    grid <- seq(0, 1.1 * top / sqrt(log(p) / max(n_train)), length.out = 50L)
  }
  terms <- if (is.null(noise_at)) lapply(n_train, cal) else rep(list(cal(noise_at)), K)
  thresholds <- vapply(seq_len(K), function(k) threshold_level(grid, n_train[k], p, terms[[k]]$t_noise,
                                                                       terms[[k]]$multiplier),
                       numeric(length(grid)))
  thresholds <- matrix(thresholds, ncol = K)
  sd <- if (noise) vapply(terms, function(z) z$s, numeric(1)) else rep(0, K)
  loss <- cv_threshold_cpp(X, fold, K, clip, thresholds, sd, keep_diagonal, downdate)
  # the losses sum squared second-moment entries: with clip = Inf data whose
  # squares fit can still overflow them (about 1e77 and up), and which.min()
  # would then skip the NaNs and pick a constant that zeroes everything
  if (!all(is.finite(loss))) {
    abort("the cross-validation losses of `x` (squared entries of its second moment) overflow; rescale the data or give a finite `clip`.",
          .arg = "x", .class = "dpcov_data_error")
  }
  list(constant = grid[which.min(loss)], grid = grid, loss = loss / K, fold = fold)
}

#' Cross-validate the threshold constant
#'
#' K-fold cross-validation (Bickel and Levina 2008; Cai and Liu 2011) of the
#' constant c in the threshold \eqn{c\sqrt{\log p/n} + 4s\sqrt{\log p}}: for
#' each fold, the training rows' average second moment plus the mechanism's
#' noise (at the training size) is thresholded at every candidate and
#' compared, in squared Frobenius norm, with the held-out rows' average
#' second moment. All held-out Grams come from one pass over the data, each
#' training Gram is the total minus the held-out Gram
#' (`method = "downdate"`), and all candidates of a fold cost \eqn{O(p^2)}
#' together for an evenly spaced grid (\eqn{O(p^2 \log m)} otherwise);
#' `method = "naive"` recomputes every training Gram and thresholds once per
#' candidate (for validation). The PSD projection is not part of the loss
#' (it would cost \eqn{O(p^3)} per candidate).
#'
#' The simulated noise (one symmetric matrix per fold, the same for every
#' candidate of that fold) is drawn by Marsaglia's polar method from R's
#' uniform generator: exactly normal, reproducible under [set.seed()], about
#' 1.8 times faster than R's default normal generator, but not the stream
#' [rnorm()] would give. Noise in a release always comes from R's normal
#' generator.
#'
#' The result is **not private**: it is computed from the data without the
#' release's guarantee.
#'
#' @inheritParams dp_threshold
#' @param x A data matrix (rows are records).
#' @param clip Row-norm bound B; rows are shrunk to norm at most B. `Inf`
#'   (the papers' simulations) voids the guarantee; then the noise is
#'   calibrated as if rows had norm at most `sigma_clip_inf`.
#' @param folds Number of folds K.
#' @param grid Candidate constants (see [threshold_tune()]).
#' @param noise Add the mechanism's noise to the training matrices.
#' @param method `"downdate"` or `"naive"`.
#' @param noise_multiplier The k in the threshold's noise term
#'   \eqn{k s \sqrt{\log p}}; 4 in both papers. With 0 the whole threshold
#'   level is cross-validated (an exploration of how much the fixed noise
#'   term costs; not in the papers).
#' @return An object of class `threshold_cv`: `constant` (the chosen c),
#'   `grid`, `loss` (mean over folds), `folds`, `n`, `p`, `method`.
#'   `constant` and `grid` carry an attribute marking them as computed from
#'   the data, which [dp_threshold()] reads to label a release tuned with
#'   them non-private. A copy loses the mark (a number typed in, or
#'   `as.numeric()`, `c()`, `[`), and a release tuned with the copy states
#'   the noise's guarantee although its tuning looked at the data without
#'   noise: pass `constant` itself, unmodified.
#' @examples
#' set.seed(2)
#' x <- matrix(rnorm(300 * 8), 300, 8) / 3
#' cv <- threshold_cv(x, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 5)
#' cv$constant
#' @template ref-wangxu
#' @template param-dots-none
#' @export
threshold_cv <- function(x, epsilon, delta, clip, variant = "modified",
                         model = "central", folds = 10, grid = NULL,
                         neighbor = NULL, ldp_threshold = "averaged",
                         keep_diagonal = FALSE, calibration = "analytic",
                         sigma_clip_inf = NULL, noise = TRUE, method = "downdate",
                         noise_multiplier = 4, ...) {
  refuse_unknown_args("threshold_cv", ...)
  if (missing(x)) abort_missing("x")
  variant <- check_choice(variant, c("modified", "wang_xu"), "variant")
  model <- check_choice(model, c("central", "local"), "model")
  if (!missing(ldp_threshold)) refuse_ldp_threshold(variant, model)
  ldp_threshold <- check_choice(ldp_threshold, c("averaged", "printed"), "ldp_threshold")
  calibration <- check_choice(calibration, c("analytic", "classic"), "calibration")
  method <- check_choice(method, c("downdate", "naive"), "method")
  check_flag(keep_diagonal, "keep_diagonal")
  epsilon <- check_epsilon(epsilon)
  delta <- check_delta(delta)
  clip <- check_clip(clip)
  noise_multiplier <- check_number(noise_multiplier, "noise_multiplier", lower = 0, upper = 1e6,
                                   lower_open = FALSE, upper_open = FALSE)
  tune <- threshold_tune("cv", folds = folds, grid = grid, noise = noise)
  folds <- tune$folds
  refuse_summary_source(x, "threshold_cv()", "the rows, to split them into folds",
                        "pass the data matrix, or give dp_threshold() a fixed constant, \"theory\" or a public sample as `tune`.")
  X <- check_threshold_data(x)
  if (!is.finite(clip)) second_moment(X, clip)  # squares that overflow: refused as by dp_threshold()
  if (nrow(X) < folds) abort("%d-fold cross-validation needs at least %d rows; `x` has %d.",
                             as.integer(folds), as.integer(folds), nrow(X), .arg = "folds")
  check_release_width(X)
  check_cells(folds * ncol(X)^2, "the fold Gram matrices", "folds")
  neighbor <- threshold_neighbor(neighbor, variant, model)
  B <- noise_clip(clip, sigma_clip_inf)
  cal <- function(m) threshold_noise_terms(variant, model, neighbor, B, m, epsilon, delta,
                                           calibration, ldp_threshold, noise_multiplier,
                                           proven = is.finite(clip))
  cv <- run_threshold_cv(X, folds, tune$grid, clip, cal, keep_diagonal, noise, method == "downdate")
  # the constant, and the default grid (scaled by the data's largest entry),
  # are noiseless statistics of x: marked, so a release tuned with them says so
  why <- "computed by threshold_cv() from the private data without noise"
  as_nonprivate(list(constant = mark_nonprivate(cv$constant, why),
                     grid = if (is.null(grid)) mark_nonprivate(cv$grid, why) else cv$grid,
                     loss = cv$loss, folds = folds, n = nrow(X), p = ncol(X), method = method),
                "threshold_cv")
}

#' @export
print.threshold_cv <- function(x, ...) {
  check_threshold_cv(x)
  nonprivate_banner(x, "a tuning curve computed from the data without noise")
  cat(sprintf("<threshold_cv> %d-fold cross-validation (%s), n = %d, p = %d\n",
              as.integer(x$folds), x$method, as.integer(x$n), as.integer(x$p)))
  cat(sprintf("Chosen constant c = %s (mean held-out Frobenius^2 loss %s) among %d candidates\n",
              format(x$constant, digits = 4), format(min(x$loss), digits = 4), length(x$grid)))
  cat("NOT private: computed from the data without noise on the choice; its grid\n",
      "reveals the largest diagonal entry of the clipped second moment.\n",
      "dp_threshold(tune = x$constant) labels its release non-private; a copy of the\n",
      "constant (typed in, as.numeric(), c()) loses that mark, not the leak.\n", sep = "")
  invisible(x)
}

# A CV result given as input (hand-made ones included).
check_threshold_cv <- function(x, arg = "x") {
  check_object(x, "threshold_cv", list(
    constant = is_num1, grid = is_finite_num, loss = is_finite_num, folds = function(v) is_whole1(v, 2),
    n = function(v) is_whole1(v, 1), p = function(v) is_whole1(v, 1), method = is_string), arg)
  if (length(x$grid) != length(x$loss)) {
    abort("`%s` is not a valid threshold_cv object: `grid` and `loss` differ in length.", arg, .arg = arg)
  }
  invisible(x)
}

#' Plot the cross-validation curve
#'
#' Mean held-out squared Frobenius loss against the threshold constant, with
#' the chosen constant marked.
#' @param x A `threshold_cv` object.
#' @param ... Passed to [graphics::plot()], overriding the defaults (`xlab`,
#'   `ylab`, `type`).
#' @return `x`, invisibly.
#' @examples
#' set.seed(2)
#' x <- matrix(rnorm(300 * 8), 300, 8) / 3
#' plot(threshold_cv(x, epsilon = 0.5, delta = 1e-3, clip = 1, folds = 5))
#' @export
plot.threshold_cv <- function(x, ...) {
  check_threshold_cv(x)
  graphics_call(graphics::plot, list(x$grid, x$loss),
                list(type = "l", xlab = "threshold constant c", ylab = "mean held-out Frobenius^2 loss"), list(...))
  graphics::abline(v = x$constant, lty = 2)
  invisible(x)
}

# --- local model: client and server -------------------------------------------

#' Local model: perturb records on the client side
#'
#' Each record (row) `x` is clipped to norm at most `clip` and reports the
#' upper triangle (diagonal included) of \eqn{x x^T + R}, where \eqn{R} is
#' symmetric with iid \eqn{N(0, \sigma^2)} entries on and above the
#' diagonal, sigma calibrated by [gaussian_sigma()] to the sensitivity of
#' \eqn{x x^T} (`neighbor = "replace-one"`: any two values of a record,
#' \eqn{\sqrt2 B^2}; `"zero-out"`: a record against the all-zero record,
#' \eqn{B^2}, the papers' \eqn{\sigma^2 = 2\log(1.25/\delta)/\epsilon^2}
#' for B = 1 with the classic calibration). Each report is (epsilon,
#' delta)-locally differentially private on its own. Reports take
#' \eqn{n p(p+1)/2} numbers in memory; for simulations [dp_threshold()] with
#' `model = "local"` draws their average directly.
#'
#' @param x One record (numeric vector; its names, if any, name the
#'   columns) or a matrix whose rows are records.
#' @param epsilon,delta Privacy parameters.
#' @param clip Row-norm bound B (finite).
#' @param neighbor `"replace-one"` (default) or `"zero-out"`.
#' @param calibration `"analytic"` (default) or `"classic"` (epsilon < 1).
#' @param budget A [dp_budget()] to charge (one Gaussian charge for the
#'   reports, before `x` is read), or `NULL`. This is where local reports are
#'   charged: [dp_threshold()] on their [ldp_aggregate()] is post-processing
#'   and charges nothing to a budget that charged every one of its batches
#'   here, as made (to one that did not, or if a batch was edited since, it
#'   charges the reports' guarantee once).
#' @return An object of class `ldp_reports`: `reports` (n x p(p+1)/2, one
#'   row per record, the packed upper triangle by columns), `p`, `sigma`,
#'   the privacy settings (`epsilon`, `delta`, `clip`, `neighbor`,
#'   `calibration`), `colnames` (the columns' names, or `NULL`), `release_id`
#'   (names the batch for budgets, with its reports as made, which this R
#'   session records; see [dp_budget()]) and, when a `budget`
#'   was charged, `budget_charge` (its ledger row).
#' @examples
#' set.seed(3)
#' rep1 <- ldp_perturb(c(0.3, -0.2, 0.5), epsilon = 0.5, delta = 1e-3, clip = 1)
#' rep2 <- ldp_perturb(c(0.1, 0.4, -0.1), epsilon = 0.5, delta = 1e-3, clip = 1)
#' agg <- ldp_aggregate(rep1, rep2)  # two reports: mostly noise, and it says so
#' as.matrix(agg)
#' @template ref-wangxu
#' @template param-dots-none
#' @export
ldp_perturb <- function(x, epsilon, delta, clip, neighbor = "replace-one",
                        calibration = "analytic", budget = NULL, ...) {
  refuse_unknown_args("ldp_perturb", ...)
  set <- ldp_settings(epsilon, delta, clip, neighbor, calibration)
  # the records are evaluated before the charge: no code of the caller's runs
  # between the charge and the mechanism
  if (missing(x)) abort_missing("x")
  force(x)
  check_release_width(if (is.numeric(x) && is.null(dim(x)) && !is.object(x)) matrix(x, nrow = 1L) else x)
  charge <- budget_charge(budget, "LDP reports (per-record Gaussian)", set$epsilon, set$delta,
                          sigma_ratio = set$sigma / gram_sensitivity(set$clip, set$neighbor),
                          neighbor = set$neighbor)
  # a refusal of the input's kind or shape withdraws the charge; one of its
  # values (missing or non-finite: a dpcov_data_error) keeps it, as in every
  # central mechanism
  X <- with_refund(budget, charge, {
    refuse_summary_source(x, "ldp_perturb()", "the records themselves: in the local model each record is perturbed by its owner, before any aggregation",
                          "pass the matrix of records (a reader's blocks one at a time, combined with ldp_aggregate()).")
    # one record: its names are the columns' names
    if (is.numeric(x) && is.null(dim(x)) && !is.object(x)) x <- matrix(x, nrow = 1L, dimnames = list(NULL, names(x)))
    X <- check_data_matrix(x)
    check_cells(nrow(X) * ncol(X) * (ncol(X) + 1) / 2, "the reports", "x")
    X
  })
  p <- ncol(X)
  X <- clipped_rows(X, set$clip)
  ij <- which(upper.tri(diag(p), diag = TRUE), arr.ind = TRUE)
  note_draw()
  reports <- X[, ij[, 1L], drop = FALSE] * X[, ij[, 2L], drop = FALSE] +
    matrix(gaussian_noise(nrow(X) * nrow(ij), set$sigma), nrow(X))
  out <- structure(c(list(reports = unname(reports), p = p), set, list(colnames = colnames(X))),
                   class = "ldp_reports")
  out$budget_charge <- charge
  # names the batch for budgets: thresholding an aggregate of it on a budget
  # that has not charged it charges it then (threshold_aggregate())
  out$release_id <- new_release_id()
  # the id is a field anyone can edit: a budget trusts it only on reports
  # still those made under it (ldp_aggregate())
  assign(out$release_id, ldp_fingerprint(out$reports), envir = ldp_batches_made)
  register_charged_release(budget, out$release_id, charge)
  out
}

# The settings of the local model, validated, with the per-record sigma they
# imply; `cache` (an environment), when given, keeps the sigmas computed, so
# that a server with many batches calibrates each distinct setting once.
ldp_settings <- function(epsilon, delta, clip, neighbor, calibration, cache = NULL) {
  if (identical(neighbor, "add-remove")) {
    abort("`neighbor` = \"add-remove\" has no meaning for one record's report; the papers' local noise is the \"zero-out\" calibration (a record against the all-zero record).")
  }
  neighbor <- check_choice(neighbor, c("replace-one", "zero-out"), "neighbor")
  calibration <- check_choice(calibration, c("analytic", "classic"), "calibration")
  epsilon <- check_epsilon(epsilon)
  delta <- check_delta(delta)
  clip <- check_clip(clip)
  if (!is.finite(clip)) abort("`clip` must be finite in the local model: the noise needs a bound on every record.")
  key <- sprintf("%a %a %a %s %s", epsilon, delta, clip, neighbor, calibration)
  sigma <- if (!is.null(cache)) cache[[key]]
  if (is.null(sigma)) {
    sigma <- noise_sigma(gram_sensitivity(clip, neighbor), epsilon, delta, calibration)
    if (!is.null(cache)) cache[[key]] <- sigma
  }
  list(sigma = sigma, epsilon = epsilon, delta = delta, clip = clip, neighbor = neighbor,
       calibration = calibration)
}

#' @export
print.ldp_reports <- function(x, ...) {
  r <- check_ldp_reports(x)  # a checked copy; x itself is returned as given
  cat(sprintf("<ldp_reports> %d report(s) of a %d x %d second moment, noise sd %s per entry\n",
              nrow(r$reports), as.integer(r$p), as.integer(r$p), format(r$sigma, digits = 4)))
  cat(sprintf("Each is (%s, %s)-locally differentially private (%s), clip = %s.\n",
              format_privacy(r$epsilon), format_privacy(r$delta), r$neighbor, format_privacy(r$clip)))
  invisible(x)
}

# A batch of reports as received: settings valid and consistent with the
# sigma they declare, reports a numeric matrix of the right width, column
# names (if any) that name each column once, as ldp_perturb() requires of
# the records. With `fail = FALSE` returns the reason (a string) instead of
# failing, so that the server can drop the batch. `cache`: ldp_settings().
check_ldp_reports <- function(r, fail = TRUE, cache = NULL) {
  reason <- NULL
  keys <- c("reports", "p", "sigma", "epsilon", "delta", "clip", "neighbor", "calibration")
  if (!is.list(r) || !all(keys %in% names(r))) {
    reason <- "it is not an ldp_reports object from ldp_perturb()"
  } else {
    set <- tryCatch(ldp_settings(r$epsilon, r$delta, r$clip, r$neighbor, r$calibration, cache),
                    dpcov_error = function(e) conditionMessage(e))
    if (is.character(set)) {
      reason <- paste("its settings are invalid:", set)
    } else if (!is_number(r$sigma) || !isTRUE(abs(r$sigma - set$sigma) <= 1e-9 * set$sigma)) {
      reason <- "its noise sd does not match its privacy settings"
    } else if (!is_number(r$p) || r$p < 1 || r$p != round(r$p) || r$p > 1e5) {
      reason <- "its dimension p is not a whole number"
    } else if (!is.matrix(r$reports) || !is.numeric(r$reports) || is.object(r$reports) ||
               ncol(r$reports) != r$p * (r$p + 1) / 2) {
      reason <- "its reports are not a numeric matrix with p(p+1)/2 columns"
    } else if (!nrow(r$reports)) {
      # ldp_perturb() makes no empty batch; one costs its sender nothing and
      # would make the server build sums of its claimed size
      reason <- "it holds no reports"
    } else if (!is.null(r$colnames) && (!is.character(r$colnames) || !is.null(dim(r$colnames)) ||
                                        is.object(r$colnames) || length(r$colnames) != r$p)) {
      reason <- "its column names do not match p"
    } else if (!is.null(r$colnames) && !names_identify(r$colnames)) {
      # the batches' columns are matched by name: a name missing, empty or
      # repeated identifies no column (ldp_perturb() refuses such records)
      reason <- "its column names do not name each column once (a name is missing, empty or repeated)"
    }
  }
  if (!is.null(reason)) {
    if (fail) abort("`x` is not a valid ldp_reports object: %s.", reason)
    return(reason)
  }
  r$settings <- set
  r
}

#' Local model: aggregate the reports on the server side
#'
#' Averages the perturbed second moments sent by the clients
#' ([ldp_perturb()]). The average is a private release (post-processing of
#' locally private reports) with noise of sd `sigma / sqrt(n)` per entry;
#' pass it to [dp_threshold()] to threshold it.
#'
#' The server is robust to faulty or malicious clients: a batch whose
#' settings differ from the server's (`epsilon`, `delta`, `clip`, `neighbor`,
#' `calibration`, given together; when none is given, every valid batch
#' must have been made with the same settings, or the call is refused),
#' whose declared
#' noise does not match them, or whose shape or column names are wrong (a
#' name missing, empty or repeated) is dropped whole, and so is a batch
#' given again (resubmitted, read back from a file, or the same object
#' passed twice): one whose reports repeat, in order, those of an earlier
#' batch, or one that carries the `release_id` of an earlier batch
#' ([ldp_perturb()] names each batch; a copy keeps the name, while a file
#' may change the last digits of the reports) and whose reports all repeat
#' that batch's (a part of it given after it) or match them in order within
#' \eqn{10^{-9}\sigma}. Batches that share a `release_id` but not their
#' reports (one edited, a part given before the whole, or a batch made with
#' another's id) are refused, naming `...`: the id alone cannot say which
#' to keep. A report with a missing, infinite or
#' impossible value (an entry farther from \eqn{[-B^2, B^2]} than an
#' honest report's noise reaches with probability \eqn{10^{-12}}) is
#' dropped, and a report repeated (in any batch) is counted once: one whose
#' entries all agree within a tolerance \eqn{\tau} with those of an
#' earlier report kept. Honest reports are continuous Gaussian draws whose
#' m = p(p+1)/2 entries differ by about \eqn{\sigma}, so two of N agree
#' within \eqn{\tau} by chance with probability below
#' \eqn{N^2 (\tau/\sigma)^m / 2}; \eqn{\tau} is \eqn{10^{-9}\sigma}
#' where that is below \eqn{10^{-8}} (for p >= 2, up to \eqn{10^8}
#' reports), and \eqn{\sigma (10^{-8}/N^2)^{1/m}} otherwise. Reports
#' rounded by hand lose that argument: at p >= 2 a few may then meet by
#' chance (the warning counts them). With one entry per report (p = 1)
#' reports are not matched one by one at all (honest reports rounded to two
#' decimals met by the thousand): a batch given again is found by its
#' `release_id`, or, with at least 20 reports, by its reports matching an
#' earlier batch's in order; a shorter copy without its id, and reports
#' repeated by hand inside or across batches, are counted again. Reports crafted to chain within \eqn{\tau} of one another in
#' every entry without repeating (no honest client sends them; they made
#' the search quadratic) are refused, naming `...`. The counts
#' (integers) are returned in `params$dropped_batches` and
#' `params$dropped_reports`, with a warning. The rule looks only at the
#' (already private) reports, so it costs no privacy.
#'
#' @param ... `ldp_reports` objects (or one list of them). Batches with
#'   column names (from the records' names) are matched by name: one whose
#'   columns are the first batch's in another order is put in the first
#'   batch's order; batches naming different variables, or named batches
#'   mixed with unnamed ones, are an error. Unnamed batches are added by
#'   position.
#' @param epsilon,delta,clip,neighbor,calibration The settings the server
#'   asked its clients to use (recommended): all five, or none (`NULL`:
#'   the settings the valid batches share; batches made with different
#'   settings are then refused, since no batch may decide for the others).
#' @return A `dp_release` of class `c("dp_ldp_aggregate", "dp_release")`
#'   whose `estimate` is the averaged noisy p x p second moment;
#'   `params$report_ids` holds the kept batches' `release_id`s (`NA` for a
#'   batch without one; a budget trusts one only where the batch's reports
#'   are those [ldp_perturb()] made under it in this R session),
#'   `params$batches` their number and
#'   `params$release_id` the aggregate's own id, which names it for budgets
#'   (see [dp_threshold()]'s `budget`).
#' @examples
#' set.seed(4)
#' x <- matrix(rnorm(50000 * 3), 50000, 3) / 3
#' reports <- ldp_perturb(x, epsilon = 2, delta = 1e-3, clip = 1)
#' # the server states the settings it asked its clients to use (at epsilon
#' # 2 per client the print grades the 50,000 reports "ok"; at 0.5 they
#' # would be mostly noise, and the print would say so)
#' ldp_aggregate(reports, epsilon = 2, delta = 1e-3, clip = 1, neighbor = "replace-one",
#'               calibration = "analytic")
#' @template ref-wangxu
#' @export
ldp_aggregate <- function(..., epsilon = NULL, delta = NULL, clip = NULL, neighbor = NULL,
                          calibration = NULL) {
  parts <- list(...)
  if (length(parts) == 1L && is.list(parts[[1L]]) && !inherits(parts[[1L]], "ldp_reports")) {
    parts <- parts[[1L]]
  }
  if (!length(parts)) abort("no reports given in `...`.", .arg = "...")
  if (!all(vapply(parts, inherits, logical(1), "ldp_reports"))) {
    abort("every argument in `...` must be an `ldp_reports` object from ldp_perturb().", .arg = "...")
  }
  # (each distinct setting calibrated once, however many batches share it)
  checked <- lapply(parts, check_ldp_reports, fail = FALSE, cache = new.env(parent = emptyenv()))
  valid <- !vapply(checked, is.character, logical(1))
  given <- list(epsilon = epsilon, delta = delta, clip = clip, neighbor = neighbor, calibration = calibration)
  settings_fields <- names(given)
  if (all(vapply(given, is.null, logical(1)))) {
    if (!any(valid)) abort("no valid batch of reports in `...`: %s.", checked[[1L]], .arg = "...")
    # no guessing: a batch cannot impose its settings on the others (the
    # first batch used to decide, and a vote by reports counts rows a client
    # makes up at no cost); batches that disagree need the server's settings
    kinds <- unique(lapply(checked[valid], function(r) r$settings[settings_fields]))
    if (length(kinds) > 1L) {
      abort(paste0("the batches in `...` were made with different settings (%d kinds); give the settings the server ",
                   "asked its clients to use (`epsilon`, `delta`, `clip`, `neighbor`, `calibration`), and the batches ",
                   "made otherwise are dropped."), length(kinds), .arg = "...")
    }
    set <- checked[[which(valid)[1L]]]$settings
  } else {
    if (any(vapply(given, is.null, logical(1)))) {
      abort("give all of `epsilon`, `delta`, `clip`, `neighbor` and `calibration`, or none of them.", .arg = "epsilon")
    }
    set <- ldp_settings(epsilon, delta, clip, neighbor, calibration)
  }
  same <- function(r) identical(r$settings[settings_fields], set[settings_fields])
  keep <- valid
  keep[valid] <- vapply(checked[valid], same, logical(1))
  malformed <- sum(!valid)
  off_settings <- sum(valid & !keep)
  if (!any(keep)) abort("no batch of reports in `...` matches the server's settings.", .arg = "...")
  # the number of columns: the batches must agree. A vote by reports (the
  # most reports' p) was taken by reports a client makes up at no cost
  # (distinct rows of noise are free), and the first batch deciding let one
  # faulty client drop every honest report
  ps <- vapply(checked[keep], function(r) as.double(r$p), numeric(1))
  if (length(unique(ps)) > 1L) {
    counts <- table(ps)
    abort(paste0("the batches matching the settings have different numbers of columns (%s); the server cannot tell ",
                 "which is its survey's, so none is guessed: aggregate the batches of one survey at a time."),
          paste(sprintf("p = %s in %d batch(es)", names(counts), as.integer(counts)), collapse = ", "), .arg = "...")
  }
  p <- ps[1L]
  # a batch given again is counted once. ldp_perturb() names each batch: a
  # copy keeps its name where a file may change its last digits; batches
  # sharing a release id are one batch only if their reports say so (below)
  ids <- vapply(parts, function(r) if (is_string(r$release_id)) r$release_id else NA_character_, character(1))
  ids[!release_id_form(ids)] <- NA_character_
  kept <- which(keep)
  checked <- checked[keep]
  ids <- ids[keep]
  # the batches' reports as given (before any column reordering), for
  # verify_ldp_batches()
  given_reports <- lapply(checked, `[[`, "reports")
  checked <- ldp_align_columns(checked)
  # an honest entry is x_i x_j (in [-B^2, B^2]) plus N(0, sigma^2)
  m <- p * (p + 1) / 2
  bound <- set$clip^2 + stats::qnorm(1e-12 / (2 * m), lower.tail = FALSE) * set$sigma
  ok <- lapply(checked, function(r) {
    o <- rowSums(!is.finite(r$reports) | abs(r$reports) > bound) == 0
    o & !is.na(o)
  })
  reps <- Map(function(r, o) if (all(o)) r$reports else r$reports[o, , drop = FALSE], checked, ok)
  nv <- vapply(reps, nrow, integer(1))
  # a report that agrees with an earlier one kept (in any batch) is counted
  # once: honest reports differ by about sigma in each of their m entries, a
  # copy (read back from a file or not) by far less than 1e-9 sigma. Two of N
  # honest reports agree within tol in every entry with probability below
  # N^2 (tol / sigma)^m / 2, so tol is 1e-9 sigma where that bound is below
  # 1e-8 (from m = 3 on, p >= 2, up to 1e8 reports), and smaller as N grows
  # otherwise. With one entry per report (p = 1) reports are not matched one
  # by one at all: 1e6 honest reports met within 1e-9 sigma hundreds of
  # times by chance, and reports rounded to two decimals (ordinary
  # post-processing) lost 97% of themselves as "repeats", biasing the
  # estimate; batches given again are still found, by id or in order
  tol <- set$sigma * min(1e-9, (1e-8 / max(1, sum(nv))^2)^(1 / m))
  dup <- if (m > 1L) ldp_repeated_reports(reps, tol) else list(repeated = logical(sum(nv)), pivot = seq_len(sum(nv)))
  # (each batch's reports' positions among all of them)
  rows_of <- split(seq_len(sum(nv)), factor(rep.int(seq_along(nv), nv), levels = seq_along(nv)))
  # a batch whose reports all repeat, in order, an earlier batch's is that
  # batch given again, without its name
  again <- if (m > 1L) ldp_repeated_batches(ok, rows_of, dup) else ldp_copied_batches_p1(reps, ok, 1e-9 * set$sigma)
  # one carrying an earlier batch's id is that batch given again when its
  # reports all repeat the earlier's (any of them: a part given after the
  # whole), or match them in order within 1e-9 sigma (a copy read back from
  # a file, where p = 1 leaves the tolerance above at exact equality). The
  # id alone decided: a one-report batch carrying an honest batch's id got
  # the honest batch dropped, and a part given first the whole
  for (b in which(duplicated(ids, incomparables = NA))) {
    f <- match(ids[b], ids)
    rows <- rows_of[[b]]
    same <- all(dup$repeated[rows]) && all(dup$pivot[rows] %in% dup$pivot[rows_of[[f]]])
    if (!same && identical(ok[[b]], ok[[f]]) && nv[b] == nv[f]) {
      same <- all(abs(reps[[b]] - reps[[f]]) <= 1e-9 * set$sigma)
    }
    if (!same) {
      abort(paste0("batches %d and %d in `...` carry the same release_id but different reports: one was edited, split or ",
                   "made with another's id (give each batch whole, once; a copy of a batch is counted once)."),
            kept[f], kept[b], .arg = "...")
    }
    again[b] <- TRUE
  }
  repeated <- sum(again)
  dropped_batches <- malformed + off_settings + repeated
  total <- numeric(m)
  n <- 0
  dropped_reports <- 0L
  for (b in which(!again)) {
    new <- !dup$repeated[rows_of[[b]]]
    dropped_reports <- dropped_reports + sum(!ok[[b]]) + sum(!new)
    total <- total + colSums(if (all(new)) reps[[b]] else reps[[b]][new, , drop = FALSE])
    n <- n + sum(new)
  }
  # the kept batches' ids, for a budget that thresholds the aggregate (NA: a
  # batch without one, made by hand), and which of them are verified: still
  # the reports ldp_perturb() made under that id in this session
  report_ids <- unname(ids[!again])
  verified <- verify_ldp_batches(report_ids, given_reports[!again])
  checked <- checked[!again]
  if (n == 0) abort("every report in `...` was dropped (missing, infinite or impossible values).", .arg = "...")
  if (dropped_batches + dropped_reports > 0) {
    warn("ldp_aggregate(): dropped %d batch(es) (%d malformed, %d not matching the settings, %d given twice) and %d report(s) with missing, infinite or impossible values or repeated.",
         as.integer(dropped_batches), as.integer(malformed), as.integer(off_settings), as.integer(repeated),
         as.integer(dropped_reports))
  }
  avg <- matrix(0, p, p)
  avg[upper.tri(avg, diag = TRUE)] <- total / n
  avg[lower.tri(avg)] <- t(avg)[lower.tri(avg)]
  nm <- checked[[1L]]$colnames
  if (!is.null(nm)) dimnames(avg) <- list(nm, nm)
  rel <- new_dp_release(avg, "ldp_aggregate", "LDP aggregate of perturbed second moments",
                        set$epsilon, set$delta, set$neighbor, set$clip, n, p, n_public = TRUE,
                        scale = "average", centred = FALSE,
                        params = list(sigma_record = set$sigma, noise_sd = set$sigma / sqrt(n),
                                      calibration = set$calibration, dropped_batches = dropped_batches,
                                      dropped_reports = dropped_reports, report_ids = report_ids,
                                      batches = length(report_ids), release_id = new_release_id()),
                        call = NULL, local = TRUE)
  remember_ldp_aggregate(rel, made_here = TRUE, verified = verified)
  rel
}

# Thresholding needs p >= 2 columns: the one refusal, whatever holds the
# columns (`what`, the words for it).
abort_threshold_p <- function(p, what = "`x`", arg = NULL) {
  abort("thresholding needs p >= 2 columns (the threshold grows with log p); %s has %d.", what, as.integer(p),
        .arg = arg)
}

# The reports (the rows of the matrices `mats`, taken in order as one
# sequence) that repeat an earlier report kept: all their entries within
# `tol` of its. Returns `repeated` (TRUE where a report repeats one) and
# `pivot` (the position of the report kept that it repeats; its own where it
# is kept). Reports are split into groups that hold every pair within `tol`
# (sorted on one column, cut where neighbours are farther apart than `tol`;
# a pair within `tol` is never cut apart): the earliest report of a group has
# no earlier one within `tol` (it would be in its group), so it is kept, and
# those of its group within `tol` of it are its repeats; the rest are split
# again on the next column. Every pass settles at least one report of each
# group, and honest reports (which differ by about sigma) are settled by the
# first: about n log n, against the pairwise comparisons (quadratic in the
# number of batches) this replaces. Reports crafted to chain within `tol` in
# every column, so that no column cuts their group, settle one a pass
# (quadratic: 2000 such reports of 55 entries took 12 s); honest ones need
# at most about m column sorts in all (copies of one report are cut by no
# column), so the sorts are capped at m + 30 and reports needing more are
# refused, naming `...` (they cannot be honest).
ldp_repeated_reports <- function(mats, tol) {
  sizes <- vapply(mats, nrow, integer(1))
  N <- sum(sizes)
  repeated <- logical(N)
  pivot <- seq_len(N)
  if (N < 2L) return(list(repeated = repeated, pivot = pivot))
  m <- ncol(mats[[1L]])
  first <- cumsum(c(1L, sizes))[seq_along(mats)]
  # the reports at positions `idx` (column `j` only, when given)
  at <- function(idx, j = NULL) {
    cols <- if (is.null(j)) seq_len(m) else j
    if (length(mats) == 1L) return(mats[[1L]][idx, cols, drop = FALSE])
    b <- findInterval(idx, first)
    out <- matrix(0, length(idx), length(cols))
    for (s in split(seq_along(idx), b)) {
      k <- b[s[1L]]
      out[s, ] <- mats[[k]][idx[s] - first[k] + 1L, cols, drop = FALSE]
    }
    out
  }
  active <- seq_len(N)
  group <- integer(N)
  j <- 0L
  sorts <- 0L
  while (length(active)) {
    # split on the next column, and on the ones after it while none cuts a
    # group (a column many reports share)
    groups <- length(unique(group))
    for (step in seq_len(m)) {
      sorts <- sorts + 1L
      if (sorts > m + 30L) {
        abort(paste0("the reports in `...` hold %d that chain within the repeat tolerance (%s) in every entry without ",
                     "repeating one another: honest reports differ by about their noise sd, so these were made up; ",
                     "drop the batches that hold them."),
              length(active), format(tol, digits = 3), .arg = "...")
      }
      j <- j %% m + 1L
      v <- if (length(active) == N) unlist(lapply(mats, function(M) M[, j]), use.names = FALSE)[active] else
        as.vector(at(active, j))
      o <- order(group, v)
      active <- active[o]
      v <- v[o]
      k <- length(active)
      group <- cumsum(c(TRUE, group[o][-1L] != group[o][-k] | v[-1L] - v[-k] > tol))
      if (group[k] > groups) break
    }
    multi <- tabulate(group)[group] > 1L
    active <- active[multi]
    group <- group[multi]
    if (!length(active)) break
    o <- order(group, active)
    active <- active[o]
    group <- group[o]
    lead <- c(TRUE, group[-1L] != group[-length(group)])
    piv <- active[lead][cumsum(lead)]
    # (compared in chunks of about 4e6 entries)
    near <- logical(length(active))
    for (s in split(seq_along(active), ceiling(seq_along(active) / max(1, floor(4e6 / m))))) {
      near[s] <- rowSums(abs(at(active[s]) - at(piv[s])) > tol) == 0
    }
    hit <- near & !lead
    repeated[active[hit]] <- TRUE
    pivot[active[hit]] <- piv[hit]
    active <- active[!near]
    group <- group[!near]
    # (a report left alone in its group is settled: kept)
    multi <- tabulate(group)[group] > 1L
    active <- active[multi]
    group <- group[multi]
  }
  list(repeated = repeated, pivot = pivot)
}

# Batches (their valid rows `ok`, the positions `rows_of` of their valid
# reports in `dup`, ldp_repeated_reports()) that repeat an earlier batch:
# the same number of reports, each (valid) one a repeat of the same report
# kept as the earlier batch's report in its place, and invalid ones in the
# same places. Compared by a key per batch, in time linear in the reports.
# With one entry per report (p = 1), where reports are not matched one by
# one: a batch of at least 20 reports that matches an earlier batch's in
# order, within `tol` (1e-9 sigma: a copy read back from a file), is that
# batch given again. Honest batches never agree in 20 reports, even rounded
# to a coarse grid; shorter ones are found by their release_id only.
ldp_copied_batches_p1 <- function(reps, ok, tol) {
  again <- logical(length(reps))
  nv <- vapply(reps, nrow, integer(1))
  seen <- new.env(hash = TRUE, parent = emptyenv())
  for (b in which(nv >= 20L)) {
    key <- paste(nv[b], paste(signif(reps[[b]][1:3, 1L], 6), collapse = " "))
    for (f in get0(key, envir = seen, inherits = FALSE)) {
      if (identical(ok[[b]], ok[[f]]) && all(abs(reps[[b]] - reps[[f]]) <= tol)) {
        again[b] <- TRUE
        break
      }
    }
    if (!again[b]) assign(key, c(get0(key, envir = seen, inherits = FALSE), b), envir = seen)
  }
  again
}

ldp_repeated_batches <- function(ok, rows_of, dup) {
  all_repeats <- vapply(seq_along(ok), function(b) length(rows_of[[b]]) > 0L && all(dup$repeated[rows_of[[b]]]),
                        logical(1))
  if (!any(all_repeats)) return(logical(length(ok)))
  sizes <- lengths(ok)
  key <- rep(NA_character_, length(ok))
  for (b in which(sizes %in% sizes[all_repeats] & lengths(rows_of) > 0L)) {
    k <- rep("-", sizes[b])
    k[ok[[b]]] <- dup$pivot[rows_of[[b]]]
    key[b] <- paste(k, collapse = " ")
  }
  all_repeats & duplicated(key, incomparables = NA)
}

# Batches are added entry by entry, so their columns must be the same
# variables in the same order: named batches are put in the first batch's
# order by name. Names that differ as sets, or named batches mixed with
# unnamed ones, are refused rather than dropped: unlike the settings, which
# the server can state, nothing tells which batch holds the wrong variables,
# and adding them by position would be a silent wrong answer. (Names that
# cannot identify the columns, missing, empty or repeated, make a batch
# malformed: check_ldp_reports().)
ldp_align_columns <- function(checked) {
  nms <- lapply(checked, `[[`, "colnames")
  named <- !vapply(nms, is.null, logical(1))
  if (!any(named)) return(checked)
  if (!all(named)) {
    abort("the batches in `...` mix reports with column names and reports without: name the columns of every batch (they are matched by name), or of none (matched by position).",
          .arg = "...")
  }
  ref <- nms[[1L]]
  p <- checked[[1L]]$p
  ij <- which(upper.tri(diag(p), diag = TRUE), arr.ind = TRUE)
  for (b in seq_along(checked)[-1L]) {
    nm <- nms[[b]]
    if (identical(nm, ref)) next
    if (!setequal(nm, ref)) {
      abort("batch %d in `...` has the columns %s, batch 1 has %s: the batches must report the same variables (matched by name; names must be distinct and non-empty).",
            b, paste(nm, collapse = ", "), paste(ref, collapse = ", "), .arg = "...")
    }
    # entry (k, l) of the first batch's order is entry (o[k], o[l]) of this
    # batch's, at its packed upper-triangle position
    o <- match(ref, nm)
    lo <- pmin(o[ij[, 1L]], o[ij[, 2L]])
    hi <- pmax(o[ij[, 1L]], o[ij[, 2L]])
    checked[[b]]$reports <- checked[[b]]$reports[, hi * (hi - 1) / 2 + lo, drop = FALSE]
    checked[[b]]$colnames <- ref
  }
  checked
}

# Threshold a server-side aggregate: the noise is already in it. The
# aggregate is input like any other (it may be hand-made): its settings are
# re-validated and must match any the caller gives. Thresholding it is
# post-processing of reports already released: a `budget` that charged every
# one of its batches in ldp_perturb() (their rows are disjoint, so those
# charges cover the aggregate), or the aggregate itself before, is charged
# nothing; any other is charged the reports' guarantee, once, as a budget is
# charged bounds it has not (given_release_step()).
threshold_aggregate <- function(agg, variant, model, tune, ldp_threshold, keep_diagonal, call,
                                epsilon, delta, noise_multiplier, clip, neighbor, budget = NULL) {
  if (model != "local") {
    abort("`x` is an `ldp_aggregate()` result, a local-model release: model = \"central\" does not apply (leave `model` out, or give \"local\").",
          .arg = "model")
  }
  # settings given are arguments first: one of the wrong type is refused as
  # such, not said to differ from the reports'
  given <- list(epsilon = if (!is.null(epsilon)) check_epsilon(epsilon),
                delta = if (!is.null(delta)) check_delta(delta),
                clip = if (!is.null(clip)) check_clip(clip),
                neighbor = if (!is.null(neighbor)) check_choice(neighbor, dp_neighbors, "neighbor"))
  check_release(agg, "x", square = TRUE)
  if (!(agg$p >= 2)) abort_threshold_p(agg$p, "the aggregate `x`")
  if (!is.null(budget)) check_budget(budget)
  if (is.na(agg$n) || !is.list(agg$params)) abort("`x` is not a valid ldp_aggregate: it needs n and params.")
  set <- tryCatch(ldp_settings(agg$epsilon, agg$delta, agg$clip, agg$neighbor, agg$params$calibration),
                  dpcov_error = function(e) abort("`x` is not a valid ldp_aggregate: %s", conditionMessage(e)))
  # a hand-made or relabelled object is input like any other: only what
  # ldp_aggregate() makes is an aggregate (its guarantee, scale and noise
  # as its settings give them), never a release without a local guarantee
  genuine <- !inherits(agg, "dp_nonprivate") && release_has_guarantee(agg) && identical(agg$scale, "average") &&
    isFALSE(agg$centred) && isTRUE(agg$n_public) && all(agg$ridge == 0) &&
    is_num1(agg$params$sigma_record) && isTRUE(all.equal(agg$params$sigma_record, set$sigma)) &&
    is_num1(agg$params$noise_sd) && isTRUE(all.equal(agg$params$noise_sd, set$sigma / sqrt(agg$n))) &&
    identical(agg$guarantee, dp_guarantee_text(set$epsilon, set$delta, set$neighbor, set$clip, TRUE, local = TRUE))
  if (!genuine) {
    abort("`x` is not an ldp_aggregate() result: its guarantee, scale or noise are not those its settings give (a relabelled or edited release is not an aggregate of local reports).",
          .arg = "x")
  }
  # the ids a budget reads (charge_aggregate_reports()): those of the batches
  # ldp_perturb() named, one per batch kept, and the aggregate's own
  if (!aggregate_ids_valid(agg$params)) {
    abort("`x` is not an ldp_aggregate() result: `params$report_ids` must hold one release id per batch kept (`params$batches` of them; 32 hexadecimal digits, or NA for a batch made by hand; none repeated) and `params$release_id`, when present, the aggregate's own.",
          .arg = "x")
  }
  for (g in names(given)) {
    v <- given[[g]]
    if (!is.null(v) && !identical(v, set[[g]]) && !isTRUE(all.equal(v, set[[g]]))) {
      abort("`%s` differs from the value the reports were perturbed with (%s).", g, format(set[[g]]), .arg = g)
    }
  }
  if (tune$method %in% c("cv")) {
    abort("the server holds only the aggregate, so it cannot cross-validate on the records; use a public sample, a fixed constant or \"theory\" for `tune`.", .arg = "tune")
  }
  n <- agg$n
  p <- agg$p
  B <- set$clip
  cal <- function(m) threshold_noise_terms(variant, "local", set$neighbor, B, m, set$epsilon,
                                           set$delta, set$calibration, ldp_threshold,
                                           noise_multiplier)
  tuned <- resolve_threshold_constant(tune, NULL, p, n, cal, B, B, keep_diagonal)
  noise <- cal(n)
  t <- threshold_level(tuned$constant, n, p, noise$t_noise, noise$multiplier)
  nm <- rownames(agg$estimate)
  est <- agg$estimate
  storage.mode(est) <- "double"
  # (the aggregate is a release: charged once the call can no longer fail)
  charge <- charge_aggregate_reports(budget, agg, set)
  rel <- finish_threshold(est, t, keep_diagonal, nm, variant, "local", set$epsilon, set$delta,
                          set$neighbor, B, n, p, noise, B, set$calibration, ldp_threshold, tuned,
                          method = "client reports", call = call)
  if (!is.null(charge)) rel$params$budget_charge <- charge
  rel
}

# Which strings have the form of a release id as new_release_id() makes them
# (ldp_perturb() batches, aggregates): 32 hexadecimal digits.
release_id_form <- function(v) !is.na(v) & grepl("^[0-9a-f]{32}$", v)
is_release_id <- function(v) is_string(v) && release_id_form(v)

# An aggregate's ids (its `params`) of the form ldp_aggregate() gives them:
# `report_ids` a character vector, one per batch kept (`batches`, when
# recorded), each a release id or NA, none repeated (batches sharing an id
# are one batch); `release_id`, when present, a release id.
aggregate_ids_valid <- function(params) {
  ids <- params$report_ids
  k <- params$batches
  is.character(ids) && is.null(dim(ids)) && !is.object(ids) && length(ids) >= 1L &&
    all(is.na(ids) | release_id_form(ids)) && !anyDuplicated(ids[!is.na(ids)]) &&
    (is.null(k) || is_whole1(k, 1) && k == length(ids)) &&
    (is.null(params$release_id) || is_release_id(params$release_id))
}

# The aggregates of this R session, by release id: what each was made with
# (a fingerprint of its batches' ids, n, and one of its estimate; public
# numbers only), whether ldp_aggregate() made it here (`made_here`) or a
# budget first charged it here (made in another session, or by hand), and
# which of its batches were verified (verify_ldp_batches(): TRUE for all,
# FALSE for none, or their positions). The ids an object carries are fields
# anyone can edit: a budget trusts them only on an object that is still what
# was recorded under its id. (The ids themselves are not kept: 1.2 MB an
# aggregate of 1e5 batches, for the session.)
ldp_aggregates_made <- new.env(parent = emptyenv())

# The batches ldp_perturb() made in this R session, by release id: a
# fingerprint of each one's reports (ldp_fingerprint()).
ldp_batches_made <- new.env(parent = emptyenv())

# (with the session's secret weights: public ones let an edited estimate
# with the same sums pass as the aggregate made, and skip its charge)
aggregate_fingerprint <- function(est) ldp_fingerprint(as.matrix(est))

# A fingerprint of a numeric matrix: its shape and two sums of its entries
# weighted by row and column, with weights drawn once a session from the
# system's entropy source (random_token_cpp(): R's RNG untouched), so that
# no one outside the session can make other numbers with the same
# fingerprint. Identical numbers give identical sums (the same operations in
# the same order); a row added, dropped or moved, or an entry changed by more
# than the sums' rounding, changes them (a change below it, about 1e-16 of
# the sums, can pass: a budget then trusts numbers that equal the recorded
# ones to that rounding).
ldp_fingerprint <- function(M) {
  k <- ldp_batches_made[[".key"]]  # (not a release id: never a batch's name)
  if (is.null(k)) {
    tok <- paste0(random_token_cpp(), random_token_cpp())
    k <- strtoi(substring(tok, seq(1, 57, by = 7), seq(7, 63, by = 7)), 16L) / 2^28
    assign(".key", k, envir = ldp_batches_made)
  }
  n <- nrow(M)
  m <- ncol(M)
  u <- (seq_len(n) * k[1L] + k[2L]) %% 1 + 0.5
  v <- (seq_len(m) * k[3L] + k[4L]) %% 1 + 0.5
  w <- (seq_len(m) * k[5L] + k[6L]) %% 1 + 0.5
  if (!is.double(M)) storage.mode(M) <- "double"
  c(n, m, sum(.colSums(M, n, m) * v), sum(.colSums(M * u, n, m) * w))
}

# A fingerprint of a vector of release ids (NA where a batch has none): each
# id's 32 hexadecimal digits as five whole numbers.
ids_fingerprint <- function(ids) {
  d <- vapply(0:4, function(c) {
    x <- strtoi(substr(ids, 7L * c + 1L, min(7L * c + 7L, 32L)), 16L)
    x[is.na(x)] <- -1
    as.double(x)
  }, numeric(length(ids)))
  ldp_fingerprint(matrix(d, length(ids), 5L))
}

# Which batches (their ids `ids`, their reports as given `reports`) are what
# ldp_perturb() made under their ids in this session: the reports' fingerprint
# is the one recorded under the id. Only such a batch's id tells a budget
# whether it charged the batch (charge_aggregate_reports()): an uncharged
# batch given a charged one's id, or a charged batch with rows added, was
# thresholded without a charge. TRUE for all, FALSE for none, or the
# positions of those verified.
verify_ldp_batches <- function(ids, reports) {
  ok <- vapply(seq_along(ids), function(b) {
    fp <- if (!is.na(ids[b])) get0(ids[b], envir = ldp_batches_made, inherits = FALSE)
    !is.null(fp) && identical(fp, ldp_fingerprint(reports[[b]]))
  }, logical(1))
  if (all(ok)) TRUE else if (!any(ok)) FALSE else which(ok)
}

remember_ldp_aggregate <- function(agg, made_here, verified = FALSE) {
  assign(agg$params$release_id, list(ids = ids_fingerprint(unname(agg$params$report_ids)), n = agg$n,
                                     fingerprint = aggregate_fingerprint(agg$estimate), made_here = made_here,
                                     verified = verified),
         envir = ldp_aggregates_made)
  invisible(agg)
}

# The charge of an aggregate's reports (`agg`, its settings `set`) to
# `budget`: the reports' guarantee, once, unless the budget charged the
# aggregate before, or every one of its batches (in ldp_perturb(): their
# rows are disjoint, so those charges cover it). The batches' ids are
# trusted only on an aggregate ldp_aggregate() made in this session and
# unedited since (an edited list of ids would otherwise make any aggregate
# free), and only for the batches it verified (verify_ldp_batches(): an
# uncharged batch carrying a charged one's id, or a charged batch with
# another's rows added, was free); an id it could not verify (a batch made
# in another session, or by hand, or edited) counts as not charged, so such
# an aggregate is charged, once. Its own id is trusted on one recorded
# under it. The charge is recorded for the verified batches and for the
# aggregate, under a name of its own (so that an aggregate's id field
# cannot mark a batch charged). NULL when nothing is charged.
charge_aggregate_reports <- function(budget, agg, set) {
  if (is.null(budget)) return(NULL)
  acc <- check_budget(budget)
  charged <- function(id) release_charged(acc, id, set$epsilon, set$delta)
  own <- agg$params$release_id
  ids <- unname(agg$params$report_ids)
  made <- if (is_release_id(own)) get0(own, envir = ldp_aggregates_made, inherits = FALSE)
  as_made <- !is.null(made) && identical(made$ids, ids_fingerprint(ids)) && identical(made$n, agg$n) &&
    identical(made$fingerprint, aggregate_fingerprint(agg$estimate))
  key <- if (is_release_id(own)) paste0("ldp_aggregate:", own)
  if (as_made && charged(key)) return(NULL)
  v <- if (as_made && made$made_here) made$verified else FALSE
  batch_ids <- if (isTRUE(v)) ids else if (isFALSE(v)) character(0) else ids[v]
  if (isTRUE(v) && all(releases_charged(acc, batch_ids, set$epsilon, set$delta))) return(NULL)
  charge <- budget_charge(budget, "LDP reports given to dp_threshold() as an aggregate (not charged to this budget before)",
                          set$epsilon, set$delta, sigma_ratio = set$sigma / gram_sensitivity(set$clip, set$neighbor),
                          neighbor = set$neighbor)
  # an aggregate made elsewhere is recorded under its id as it is now, so
  # that this budget charges it once
  if (is.null(made) && !is.null(key)) remember_ldp_aggregate(agg, made_here = FALSE)
  if (is.null(made) || as_made) {
    register_charged_release(budget, c(key, batch_ids), charge)
  }
  charge
}
