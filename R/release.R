# The result of every private release: class c("dp_<family>", "dp_release").

#' Construct a private release object
#'
#' Internal constructor used by every mechanism. It holds only the released
#' (noisy) estimate and metadata: never the input, its Gram matrix, or any
#' other statistic computed from the data without noise. `n` is stored only
#' when `n_public` (the neighbour notion fixes it, or the release treats it as
#' public); otherwise it is `NA`. `call` is cleaned by [release_call()].
#' `components` (e.g. dp_cov()'s private `center`) follow the estimate.
#' The release gets `diagnostics` ([release_diagnostics()], from the released
#' fields only) and warns (class `dpcov_noise_warning`) when it is mostly noise.
#' `scale` (one of [dp_scales]) and `centred` say what the estimate
#' estimates; they are required so that no family can forget them. `ridge` is
#' the public w in "sum + ridge" (E = A'A + w I) and "posterior sample"
#' (E = (A'A + w I) / (df - d - 1)), 0 otherwise; one per column (w I read
#' as diag(w)) for a release on a box of public bounds, mapped back.
#' @noRd
new_dp_release <- function(estimate, family, mechanism, epsilon, delta, neighbor, clip, n, p,
                           n_public, scale, centred, ridge = 0, params = list(),
                           tuning = tuning_record("none"), guarantee = NULL, call = NULL,
                           local = FALSE, components = list()) {
  neighbor <- check_choice(neighbor, dp_neighbors, "neighbor")
  scale <- check_choice(scale, dp_scales, "scale")
  centred <- check_flag(centred, "centred")
  # where n is public it is a shape, released: at least one row (mechanisms
  # refuse this before their data is read, and so refund their charge; this is the net)
  if (n_public && !(n >= 1)) abort_public_rows()
  if (is.null(guarantee)) {
    guarantee <- dp_guarantee_text(epsilon, delta, neighbor, clip, n_public, local)
  }
  if (isFALSE(tuning$private) && is.finite(clip)) {
    guarantee <- paste0("NONE: a tuning choice looked at the private data without spending ",
                        "privacy budget (noise calibrated as for: ", guarantee, ")")
  }
  rel <- structure(
    c(list(estimate = estimate), components,
      list(mechanism = mechanism, epsilon = epsilon,
           delta = delta, neighbor = neighbor, n_public = n_public, clip = clip,
           n = if (n_public) as.double(n) else NA_real_, p = as.double(p),
           scale = scale, centred = centred, ridge = as.double(ridge), params = params, tuning = tuning,
           guarantee = guarantee, call = release_call(call))),
    class = c(paste0("dp_", family), "dp_release")
  )
  finish_diagnostics(rel)
}

#' What a release estimates
#'
#' Every [dp_release] records in `scale` what its `estimate` estimates, in
#' `centred` whether the rows were centred (at a private mean) before the
#' second moment was taken, and in `ridge` a public number some scales need.
#' Write A for the n x p data with each row clipped to the release's `clip`
#' (after centring when `centred`), so \eqn{A^TA = \sum_i a_i a_i^T}; the
#' scales are listed under Details.
#'
#' | `scale` | the estimate estimates | families |
#' |---|---|---|
#' | `"sum"` | \eqn{A^TA} (not divided by n) | [analyze_gauss()]; [wishart_noise()] with the expected shift; [jl_adaptive()] when its ridge is 0 |
#' | `"sum + ridge"` | \eqn{A^TA + w I}, w = `ridge` (public) | [jl_ridge()], [jl_adaptive()] (w = \eqn{w^2}); [wishart_noise()] without shift (w = \eqn{kB^2}) or with the safe shift; [analyze_gauss()] with `post = "shift"` when a shift was added |
#' | `"average"` | \eqn{A^TA / n} | [dp_threshold()], [ldp_aggregate()] |
#' | `"posterior sample"` | one draw \eqn{M \sim W^{-1}(A^TA + w I, df)}, \eqn{E M = (A^TA + w I)/(df - p - 1)} where df > p + 1 (not finite otherwise, and conversions refuse), w = `ridge`, df = `params$df` | [iwishart_posterior()] (df = n + p, so \eqn{E M = (A^TA + \psi I)/(n - 1)}), [iwishart_adaptive()] |
#'
#' On a box of public bounds (`lower`, `upper`, `bounds`) these releases are
#' the mechanism's output mapped back, \eqn{S M S}, and `ridge` holds one
#' number per column, \eqn{w s_j^2}: \eqn{w I} above reads
#' \eqn{\mathrm{diag}(w_1, \dots, w_p)}.
#' | `"covariance"` | the covariance of the rows, centred at a private mean; divisor in `params$divisor` | [dp_cov()] |
#' | `"correlation"` | the correlation matrix | [dp_cov()] with `type = "correlation"` |
#' | `"compressed rows"` | not a matrix of second moments: m rows \eqn{\Phi X} of the column-normalised data (of the data in its units with `normalize = FALSE`), \eqn{E[C^TC/m] = X^TX/n} in those units (not for a draw truncated toward a public `reference`: see [dp_compress()]) | [dp_compress()] |
#'
#' Projections to the PSD cone ([dp_threshold()], `post = "psd"`, [dp_cov()])
#' and thresholding bias the estimate, but do not change what it estimates.
#' [dp_as_cov()] converts a release to a covariance or a correlation where
#' that is possible without the data.
#' @name dp_scales
#' @seealso [dp_as_cov()], [dp_release].
NULL

dp_scales <- c("sum", "sum + ridge", "average", "posterior sample", "covariance", "correlation",
               "compressed rows")

#' The "Estimates:" line of print(): what the estimate estimates, in words.
#' @noRd
estimates_text <- function(x) {
  ridge <- if (is.null(x$ridge)) 0 else x$ridge
  rows <- if (isTRUE(x$centred)) "the rows centred at a private mean and clipped" else "the clipped rows (uncentred)"
  switch(x$scale,
    "sum" = sprintf("A'A, the sum of outer products of %s; not divided by n", rows),
    "sum + ridge" = if (length(ridge) > 1L) {
      sprintf("A'A + diag(w) with public w = (%s): the sum of outer products of %s plus a ridge (one per column)",
              paste(format(ridge, digits = 4), collapse = ", "), rows)
    } else {
      sprintf("A'A + w I with public w = %s: the sum of outer products of %s plus a ridge",
              format(ridge, digits = 4), rows)
    },
    "average" = sprintf("A'A / n, the average outer product of %s", rows),
    "posterior sample" = {
      many <- length(ridge) > 1L
      wI <- if (many) "diag(w)" else "w I"
      df <- x$params$df
      mean_text <- if (is_num1(df) && df > x$p + 1) sprintf("E M = (A'A + %s) / (df - p - 1)", wI) else
        "df <= p + 1, so E M is not finite"
      sprintf("one posterior draw M ~ W^-1(A'A + %s, df) for %s, w = %s, df = %s; %s", wI, rows,
              if (many) paste0("(", paste(format(ridge, digits = 4), collapse = ", "), ")") else format(ridge, digits = 4),
              format(df), mean_text)
    },
    "covariance" = sprintf("the covariance matrix, centred at a private mean (released in `center`), divisor %s",
                           if (is.null(x$params$divisor)) "n" else x$params$divisor),
    "correlation" = "the correlation matrix, centred at a private mean (released in `center`)",
    "compressed rows" = {
      # a draw truncated toward a public reference is conditioned toward it
      if (truncated_to_public_reference(x)) return(compressed_rows_text(x))
      s <- x$params$affine_sd
      aff <- is_num1(s) && s > 0
      delta <- if (aff) " + Delta" else ""
      plus <- if (aff) " + s^2 I" else ""
      why <- if (aff) sprintf("; s = %s is the affine noise's sd, which compressed_cov() removes", format(s, digits = 4)) else ""
      if (isFALSE(x$params$normalize)) {
        sprintf("not a second-moment matrix: m compressed rows Phi X%s of the data, in its units (E C'C / m = X'X / n%s%s)",
                delta, plus, why)
      } else {
        sprintf("not a second-moment matrix: m compressed rows Phi X%s of the column-normalised data (E C'C / m = X'X / n%s in normalised units%s)",
                delta, plus, why)
      }
    })
}

#' The call to store in a returned object: the function's name, the data
#' argument `x` only as the symbol (or `pkg::name`) the caller wrote, and other
#' arguments only as code (symbols, plain scalars and calls made of them). Any
#' value the call holds instead of code (e.g. a data matrix put there by
#' `do.call()`) becomes the symbol `<value>` (`<data>` for `x`).
#' @noRd
release_call <- function(call, data_args = "x") {
  if (is.null(call)) return(NULL)
  is_code <- function(e) {
    if (is.symbol(e)) return(TRUE)
    if (is.atomic(e)) return(length(e) == 1L && is.null(attributes(e)))
    if (is.call(e)) return(all(vapply(as.list(e), function(a) missing(a) || is_code(a), logical(1))))
    FALSE
  }
  is_name <- function(e) is.symbol(e) || is.call(e) && length(e) == 3L &&
    (identical(e[[1L]], quote(`::`)) || identical(e[[1L]], quote(`:::`))) &&
    is.symbol(e[[2L]]) && is.symbol(e[[3L]])
  fun <- call[[1L]]
  if (!is_name(fun)) fun <- as.symbol("<function>")
  args <- as.list(call)[-1L]
  nm <- names(args)
  if (is.null(nm)) nm <- rep("", length(args))
  for (i in seq_along(args)) {
    a <- args[[i]]
    if (nm[i] %in% data_args) {
      if (!is_name(a)) args[[i]] <- as.symbol("<data>")
    } else if (!is_code(a)) {
      args[[i]] <- as.symbol("<value>")
    }
  }
  as.call(c(list(fun), args))
}

# update() re-runs the stored call, which must be code: arguments that were
# values (do.call(), data built inside the call) are stored as placeholders
# (release_call()), and re-running them failed with R's unclassed "object
# '<value>' not found".
check_stored_call <- function(object) {
  # (a reader is a function and a pooled covariance a matrix: no `$call`)
  call <- if (is.list(object)) stats::getCall(object)
  held <- intersect(c("<data>", "<value>", "<function>"), all.names(call))
  if (!is.call(call) || length(held)) {
    abort(paste0("`object` cannot be updated: its stored call %s, so it cannot run again (a result keeps no ",
                 "data, and arguments given as values, by do.call() or built inside the call, are not kept); ",
                 "call the function again with them (spending its budget again, as update() would)."),
          if (!is.call(call)) "is missing" else paste0("holds ", paste(held, collapse = " and "), " in place of arguments"),
          .arg = "object")
  }
  invisible(call)
}

# A release that another function made from a release keeps the call of the
# release it came from: run again, that call makes the source, not the object
# (dp_as_cov()'s conversion came back unconverted, spending the source's
# budget again), or another class (the release inside a dp_lm() fit holds the
# fit's call and came back a fit). Refused before anything runs or is charged.
refuse_rebuilt_update <- function(object) {
  if (!inherits(object, "dp_release") || !is.list(object)) return(invisible())
  call <- stats::getCall(object)
  fun <- if (is.call(call)) call[[1L]]
  if (is.call(fun) && length(fun) == 3L) fun <- fun[[3L]]  # dpcov::dp_lm
  if (identical(fun, quote(dp_lm))) {
    abort(paste0("`object` cannot be updated: it is the release inside a dp_lm() fit and holds the fit's call, which ",
                 "would make a fit again, not a release; update the fit (update(fit, ...)) and take its `release`."),
          .arg = "object")
  }
  from <- object$params$converted_from
  if (!is.null(from)) {
    abort(paste0("`object` cannot be updated: dp_as_cov() converted it from a release of scale \"%s\", whose stored ",
                 "call it keeps, so update() would make that release again, unconverted (spending its budget ",
                 "again); update the source release and convert it again with dp_as_cov()."),
          if (is_string(from)) from else "?", .arg = "object")
  }
  invisible()
}

# The update() method of every class of the package (update.dp_release,
# .dp_lm, .dp_pca, .qda_plugin and the others below are this function): the
# call checked (check_stored_call(): one missing, as for a budget, is
# refused), then NextMethod(), stats' default, re-runs it in the caller's frame.
update_stored_call <- function(object, ..., evaluate = TRUE) {
  check_flag(evaluate, "evaluate")
  refuse_rebuilt_update(object)
  call <- check_stored_call(object)
  # update()'s `formula.` (named, or the first unnamed argument) changes the
  # call's `formula`: a call without one (a release, compressed_lm()) has
  # nothing it could change, and R would say only "invalid formula"
  dots <- match.call(expand.dots = FALSE)$...
  nm <- names(dots) %||% rep("", length(dots))
  has_formula <- "formula." %in% nm || any(!nzchar(nm))
  if (has_formula && is.null(call$formula)) {
    abort("`formula.`: this %s was made by a call without a formula, so update() cannot change one; change its arguments by name (update(x, epsilon = 2)).",
          class(object)[1], .arg = "formula.")
  }
  NextMethod()
}

#' How a tuning parameter was chosen. `private` is TRUE when the choice spent
#' no privacy on, or did not look at, the private data.
#' @noRd
tuning_record <- function(method, private = TRUE, detail = NULL, value = NULL) {
  list(method = method, private = private, detail = detail, value = value)
}

#' Mark a returned object as intentionally non-private (a tuning curve, a
#' study, exact statistics): class `dp_nonprivate` is added, and its print
#' method says so.
#' @noRd
as_nonprivate <- function(x, class) {
  class(x) <- unique(c(class, "dp_nonprivate", class(x)))
  x
}

#' Validate a `dp_release` given as input (a hand-made object of the class is
#' input like any other): the fields every method reads, with their types.
#' @noRd
check_release <- function(x, arg = "x", square = FALSE) {
  if (missing(x)) abort_missing(arg)
  if (!inherits(x, "dp_release") || !is.list(x)) abort("`%s` must be a dp_release object.", arg, .arg = arg)
  # every family but compression releases a square (second-moment) matrix
  square <- square || !inherits(x, "dp_compress")
  bad <- function(what) abort("`%s` is not a valid dp_release: %s.", arg, what, .arg = arg)
  need <- c("estimate", "mechanism", "epsilon", "delta", "neighbor", "clip", "n", "p", "scale",
            "centred", "params", "tuning")
  miss <- setdiff(need, names(x))
  if (length(miss)) bad(paste("missing", paste(miss, collapse = ", ")))
  est <- x$estimate
  if (!is.matrix(est) || !is.numeric(est) || is.object(est) || !length(est)) bad("`estimate` must be a non-empty numeric matrix")
  if (anyNA(est) || !all(is.finite(range(est)))) bad("`estimate` contains NA, NaN or infinite values")
  if (!is.character(x$mechanism) || length(x$mechanism) != 1L) bad("`mechanism` must be one string")
  for (f in c("epsilon", "delta")) {
    v <- x[[f]]
    if (!is_num1(v, na_ok = TRUE) || !is.na(v) && !(v > 0)) bad(sprintf("`%s` must be one positive number or NA", f))
  }
  # (a delta of 1 or more guarantees nothing; an infinite epsilon neither)
  if (!is.na(x$delta) && !(x$delta < 1)) bad("`delta` must be below 1")
  if (!is.na(x$epsilon) && !is.finite(x$epsilon)) bad("`epsilon` must be finite")
  if (!is.character(x$neighbor) || length(x$neighbor) != 1L || !x$neighbor %in% dp_neighbors) bad("unknown `neighbor`")
  if (!is_number(x$clip) || !(x$clip > 0)) bad("`clip` must be one positive number or Inf")
  if (!is_num1(x$n, na_ok = TRUE) || !is.na(x$n) && !(x$n >= 1 && x$n <= 2^53 && x$n == round(x$n))) bad("`n` must be a whole number (at most 2^53) or NA")
  if (!is.null(x$n_public) && !is_flag(x$n_public)) bad("`n_public` must be TRUE or FALSE")
  # an add/remove guarantee holds only where n is not released
  if (x$neighbor == "add-remove" && (!is.na(x$n) || isTRUE(x$n_public))) {
    bad("an add/remove release does not release n: `n` must be NA and `n_public` FALSE")
  }
  # and the other notions do (neighbours have the same, public, size)
  if (x$neighbor != "add-remove" && (is.na(x$n) || isFALSE(x$n_public))) {
    bad(sprintf("a %s release releases n: `n` must be a number and `n_public` TRUE", x$neighbor))
  }
  if (!is_number(x$p) || x$p != ncol(est)) bad("`p` must equal the number of columns of `estimate`")
  if (!is.list(x$params) || !is.list(x$tuning)) bad("`params` and `tuning` must be lists")
  # only FALSE voids the guarantee (release_has_guarantee()): a "no" or an NA would read as a private tuning
  if (!is.null(x$tuning$private) && !is_flag(x$tuning$private)) bad("`tuning$private` must be NULL, TRUE or FALSE")
  if (!is_string(x$scale) || !x$scale %in% dp_scales) {
    bad(paste0("`scale` must be one of ", paste0('"', dp_scales, '"', collapse = ", ")))
  }
  if (!is_flag(x$centred)) bad("`centred` must be TRUE or FALSE")
  # the private mean (dp_cov()): dp_lm() and dp_as_cov() rebuild n mu mu'
  # from it, so its squares times any n (at most 2^53) must stay finite
  mu <- x$center
  if (!is.null(mu) && !(is.numeric(mu) && !is.object(mu) && is.null(dim(mu)) && length(mu) == ncol(est) &&
                        all(is.finite(mu)) && max(abs(mu)) <= sqrt(.Machine$double.xmax / 2^53))) {
    bad("`center` must be one finite number per column, of a size whose squares times n stay finite")
  }
  # the methods pick columns by name (dp_lm(), dp_regression(), predict()):
  # a name must identify one column, and the mean's names be the estimate's
  cn <- colnames(est)
  named <- cn[!is.na(cn) & nzchar(cn)]
  if (anyDuplicated(named)) bad("the column names of `estimate` must be unique")
  if (square && !is.null(rownames(est)) && !is.null(cn) && !identical(rownames(est), cn)) {
    bad("the row and column names of `estimate` must be the same")
  }
  if (!is.null(mu) && !same_names(names(mu), cn)) bad("the names of `center` must be those of the columns of `estimate`")
  if (!is_string(x$guarantee)) bad("`guarantee` must be one string")
  # one public ridge, or one per column (a release on a box of public bounds, mapped back)
  if (!is.null(x$ridge) && !(is_finite_num(x$ridge) && is.null(dim(x$ridge)) && length(x$ridge) %in% c(1L, ncol(est)) &&
                               all(x$ridge >= 0))) {
    bad("`ridge` must be one number >= 0, or one per column")
  }
  if (!is.null(x$ridge) && any(x$ridge != 0) && !x$scale %in% ridge_scales) {
    bad(sprintf("`ridge` must be 0 on scale \"%s\" (only \"sum + ridge\" and \"posterior sample\" carry one)", x$scale))
  }
  if ((x$scale == "compressed rows") != inherits(x, "dp_compress")) bad("compression releases, and only they, hold compressed rows (`scale` \"compressed rows\")")
  if (inherits(x, "dp_compress")) {
    # C'C / m, the subspace bound and the units read these: rows removed by
    # hand would keep the bound of the m drawn; a "no" would read as TRUE
    m <- x$params[["m"]]
    if (!(is_whole1(m, 1) && m == nrow(est))) bad("`params$m` must be the number of compressed rows (rows of `estimate`)")
    if (!is_flag(x$params$normalize)) bad("`params$normalize` must be TRUE or FALSE")
  }
  # a correlation has unit variances and entries in [-1, 1] (cov_to_cor())
  if (x$scale == "correlation" && nrow(est) == ncol(est) &&
      !(max(abs(diag(est) - 1)) <= 1e-8 && max(abs(est)) <= 1 + 1e-8)) {
    bad("a correlation's `estimate` must have 1 on its diagonal and entries in [-1, 1]")
  }
  if (x$scale == "posterior sample" && is.null(x$params$df)) bad("a posterior sample needs its degrees of freedom `params$df`")
  # the degrees of freedom of a posterior draw (and of its conversion): whole
  # (n + p, k0 or k*), and at most n's limit plus p, where the noise's
  # variance formula reads them exactly (1e307 overflowed it to NaN, and
  # 1e200 to a noise of 0)
  df <- x$params$df
  if (!is.null(df) && !(is_whole1(df, 1) && df <= 2^53 + x$p)) {
    bad("`params$df` must be a whole number of degrees of freedom, at least 1 and at most 2^53 + p")
  }
  # the text states a guarantee ("(epsilon, delta)-differential privacy ...")
  # exactly when the fields support one (has_guarantee()); a release edited
  # by hand must not print one it lacks
  if (release_has_guarantee(x) != grepl("^[(0-9]", x$guarantee)) {
    bad("its `guarantee` text does not agree with its fields (see has_guarantee())")
  }
  check_release_params(x, bad)
  if (square) {
    if (nrow(est) != ncol(est)) abort("`%s` must be a release of a square matrix; its estimate is %d x %d.", arg, nrow(est), ncol(est), .arg = arg)
    if (max(abs(est - t(est))) > 1e-8 * max(1, max(abs(est)))) abort("`%s` has a non-symmetric estimate.", arg, .arg = arg)
  }
  invisible(x)
}

#' The structured fields of a release's `params` that the methods read
#' (print, the diagnostics, dp_lm()'s redraw): of their types, and the box's
#' scale consistent with its bounds and weights, where a hand-made release
#' could otherwise understate its noise (a weighted box read as the unit
#' box) or stop with an unclassed error. `bad` raises check_release()'s error.
#' @noRd
check_release_params <- function(x, bad) {
  pr <- x$params
  # (params$column_bounds, read field by field, is ignored when malformed)
  for (f in c("bounds_guarantee", "covariance_diagnostics", "second_moment")) {
    v <- pr[[f]]
    if (!is.null(v) && !(is.list(v) && !is.data.frame(v))) bad(sprintf("`params$%s` must be a list", f))
  }
  # (params$public_bounds, which only words read, is taken as unreadable when malformed)
  b <- pr[["bounds"]]
  if (!is.null(b) && !(is.data.frame(b) && is.numeric(b$lower) && is.numeric(b$upper) && !is.object(b$lower) &&
                       !is.object(b$upper))) {
    bad("`params$bounds` must be a data frame with numeric columns `lower` and `upper`")
  }
  # (infinite ends are read as no bound by the diagnostics)
  if (!is.null(b) && !(nrow(b) > 0L && !anyNA(b$lower) && !anyNA(b$upper) && all(b$lower < b$upper))) {
    bad("`params$bounds` must hold bounds with lower < upper")
  }
  for (f in c("box_scale", "box_weights")) {
    v <- pr[[f]]
    if (!is.null(v) && !(is_finite_num(v) && is.null(dim(v)) && length(v) == x$p && all(v > 0))) {
      bad(sprintf("`params$%s` must be one positive number per column", f))
    }
  }
  g <- pr$box_weights
  if (!is.null(g) && any(g > 1)) bad("`params$box_weights` must lie in (0, 1]")
  # (what dp_as_cov() records for the diagnostics)
  if (!is.null(pr$source_level) && !(is_string(pr$source_level) && pr$source_level %in% c("ok", "noisy", "mostly noise"))) {
    bad("`params$source_level` must be \"ok\", \"noisy\" or \"mostly noise\"")
  }
  if (!is.null(pr$center_numbers) && !is_flag(pr$center_numbers)) bad("`params$center_numbers` must be TRUE or FALSE")
  for (kd in list(pr$keep_diagonal, pr$second_moment$keep_diagonal)) {
    if (!is.null(kd) && !is_flag(kd)) bad("`params$keep_diagonal` must be TRUE or FALSE")
  }
  oc <- pr$ones_column
  if (!is.null(oc) && !(is_num1(oc) && oc == round(oc) && oc >= 1 && oc <= ncol(x$estimate))) {
    bad("`params$ones_column` must be NULL or the index of a column of the estimate")
  }
  # the noise scales and sizes the diagnostics read: a negative or non-numeric
  # one would be read as a smaller noise (or none) than the release has
  # (and those of the second step dp_cov() keeps in params$second_moment);
  # and the thresholded variances they report
  noise_fields <- c("sigma", "sigma_mean", "sigma_second", "sigma_second_diag", "sigma_diag", "noise_sd",
                    "noise_clip", "clip_mean", "k", "w2", "r", "psi", "df", "correlation_noise_sd", "correlation_bound_sd",
                    "center_noise_sd", "source_noise_sd", "threshold")
  for (where in list(list(pr, "params$"), list(pr$second_moment, "params$second_moment$"))) {
    for (f in noise_fields) {
      v <- where[[1L]][[f]]
      if (!is.null(v) && !(is.numeric(v) && !is.object(v) && length(v) >= 1L && all(is.na(v) | v >= 0) &&
                             !any(is.nan(v)))) {
        bad(sprintf("`%s%s` must be numbers >= 0", where[[2L]], f))
      }
    }
    # a Gaussian noise scale of 0 adds no noise: no (epsilon, delta)
    # guarantee can hold, and the diagnostics would read the release as exact
    # (an off-diagonal scale beside its own diagonal one is 0 at p = 1: it
    # has no entries)
    if (release_has_guarantee(x)) {
      for (f in c("sigma", "sigma_diag", "sigma_mean", "sigma_second", "sigma_second_diag", "noise_sd")) {
        v <- where[[1L]][[f]]
        off_only <- f %in% c("sigma", "sigma_second") && !is.null(where[[1L]][[paste0(f, "_diag")]])
        if (is.numeric(v) && any(v == 0, na.rm = TRUE) && !(off_only && x$p == 1)) {
          bad(sprintf("`%s%s` is 0 (no noise), which no (epsilon, delta) guarantee allows", where[[2L]], f))
        }
      }
    }
    tv <- where[[1L]]$thresholded_variances
    if (!is.null(tv) && !(is.numeric(tv) && !is.object(tv) && is.null(dim(tv)) && !anyNA(tv) && all(tv == round(tv)) &&
                            all(tv >= 1 & tv <= x$p) && !anyDuplicated(tv))) {
      bad(sprintf("`%sthresholded_variances` must be distinct column indices", where[[2L]]))
    }
  }
  # a release with a guarantee carries the noise scales its family's noise
  # formula reads (release_noise_sd()), finite and > 0: NA, or none at all,
  # made its noise untold and the release was graded "ok" (a release
  # without a guarantee may carry NA)
  if (release_has_guarantee(x)) {
    scales <- release_noise_scales(x)
    if (is.character(scales)) bad(scales)
    # (a ridge or prior may be 0: attribute `zero_ok`)
    zero_ok <- attr(scales, "zero_ok")
    for (f in names(scales)) {
      v <- scales[[f]]
      if (!(is_num1(v) && (v > 0 || f %in% zero_ok && v == 0))) {
        bad(sprintf("`%s`, which sets its noise, must be one finite number %s where the release states a guarantee", f,
                    if (f %in% zero_ok) ">= 0" else "> 0"))
      }
    }
  }
  # the centred box of dp_cov()'s joint mechanism: its scale is the widths
  # over the weights (the equal box's, where none are recorded: 1)
  if (isTRUE(pr$joint_calibration) && isTRUE(x$centred) && !is.null(b) && nrow(b) == x$p && is.null(pr$box_shift)) {
    if (!is.null(g) && is.null(pr$box_scale)) bad("a weighted box (`params$box_weights`) needs its `params$box_scale`")
    if (!is.null(pr$box_scale)) {
      want <- (b$upper - b$lower) / (if (is.null(g)) 1 else g)
      if (any(abs(pr$box_scale - want) > 1e-8 * want)) {
        bad("`params$box_scale` must be the bounds' widths over the box's weights (`params$box_weights`, 1 where none)")
      }
    }
  }
  invisible(x)
}

#' The noise scales a release's noise formula reads (release_noise_sd(),
#' cov_gram_noise_sd(), mean_noise_sd()), by family, named by where they are
#' (`params$sigma`, ...): the family is told by the class and the
#' mechanism's name, not by which fields are present, so that a field removed
#' by hand is missed, not read as another family's. A string when the
#' family's noise cannot be told (refused by check_release_params()); none
#' for a family the package does not make (a hand-made class).
#' @noRd
release_noise_scales <- function(x) {
  pr <- x$params
  pick <- function(where, fields, prefix) stats::setNames(lapply(fields, function(f) where[[f]]), paste0(prefix, fields))
  if (inherits(x, "dp_cov")) {
    # the mean step's noise (the count's too) and the second step's, by its mechanism
    second <- list(analyze_gauss = "sigma", threshold = "noise_sd", wishart = c("k", "noise_clip"))
    mech <- pr$second_mechanism
    if (!is_string(mech) || !mech %in% names(second) || !is.list(pr$second_moment)) {
      return("its `params$second_mechanism` (one of \"analyze_gauss\", \"threshold\", \"wishart\") and `params$second_moment` must say how its second step added noise")
    }
    sm <- pr$second_moment
    # (the joint box mechanism's diagonal block has its own scale; its
    # off-diagonal one is 0 at p = 1, where there are no off-diagonal entries)
    fields <- c(second[[mech]], if (mech == "analyze_gauss" && !is.null(sm$sigma_diag)) "sigma_diag")
    out <- c(pick(pr, "sigma_mean", "params$"), pick(sm, fields, "params$second_moment$"))
    return(structure(out, zero_ok = if ("sigma_diag" %in% fields && x$p == 1) "params$second_moment$sigma"))
  }
  # (a thresholded release's threshold sets which entries carry noise)
  if (inherits(x, "dp_threshold")) return(structure(pick(pr, c("noise_sd", "threshold"), "params$"), zero_ok = "params$threshold"))
  if (inherits(x, "dp_ldp_aggregate")) return(pick(pr, "noise_sd", "params$"))
  if (!inherits(x, "dp_second_moment")) return(list())
  # (the JL ridge w^2 and the inverse-Wishart prior psi may be 0: the noise is the projection's, the draw's)
  fields <- switch(second_moment_family(x), analyze_gauss = "sigma", wishart = c("k", "noise_clip"),
                   jl = c("r", "w2"), iwishart = c("df", "psi"), NULL)
  if (is.null(fields)) return("its `mechanism` is not one of the package's second-moment mechanisms, so its noise cannot be told")
  structure(pick(pr, fields, "params$"), zero_ok = c("params$w2", "params$psi"))
}

# A second-moment release's mechanism, from its name (never from which
# noise fields it holds: an Analyze Gauss release given psi and df by hand
# was read as an inverse-Wishart draw, "ok" where it was mostly noise).
second_moment_family <- function(x) {
  mech <- if (is_string(x$mechanism)) x$mechanism else ""
  if (startsWith(mech, "Analyze Gauss")) "analyze_gauss" else
    if (startsWith(mech, "Additive Wishart noise")) "wishart" else
    if (startsWith(mech, "JL projection")) "jl" else
    if (startsWith(mech, "Inverse-Wishart")) "iwishart" else ""
}

#' Has a release a formal privacy guarantee?
#'
#' @param x A `dp_release`.
#' @return `TRUE` when the rows were clipped (finite `clip`), every tuning
#'   choice spent no private information outside the stated budget, and no
#'   step (e.g. centring by exact means, compression's distributional privacy)
#'   voided the guarantee. The guarantee is (epsilon, delta)-DP for the
#'   neighbour notion in `x$neighbor`; `x$n_public` says whether the number
#'   of rows n is public (always under `"replace-one"` and `"zero-out"`,
#'   where neighbours have the same size; never under `"add-remove"`: those
#'   releases do not release n, and `x$n` is `NA`). `x$guarantee` states it in
#'   words. `NA` when the release was centred at a mean given as numbers
#'   ([dp_as_cov()]), whose cost it cannot know: its own guarantee holds, and
#'   the total adds that of the release the numbers came from (none holds
#'   when they are exact means). `FALSE` otherwise.
#' @examples
#' r <- analyze_gauss(matrix(rnorm(20000), 5000, 4), epsilon = 0.5, delta = 1e-5, clip = 2)
#' has_guarantee(r)
#' r$guarantee
#' @template param-dots-none
#' @export
has_guarantee <- function(x, ...) {
  refuse_unknown_args("has_guarantee", ...)
  check_release(x)
  check_guarantee_numbers(x)
  release_guarantee_state(x)
}

# What a user is told of a release's guarantee: TRUE, FALSE, or NA where it
# was centred at a mean given as numbers (dp_as_cov()), whose cost is not
# known (a release's mean, or the exact colMeans()). release_has_guarantee()
# stays TRUE there: the release's own noise is calibrated to its guarantee,
# which the text states and the checks of its noise read.
release_guarantee_state <- function(x) {
  if (!release_has_guarantee(x)) return(FALSE)
  if (isTRUE(x$params$center_numbers)) return(NA)
  TRUE
}

# The words print() and summary() add below such a release's guarantee.
center_numbers_note <- paste0(
  "centred at a mean given as numbers (dp_as_cov()), whose privacy cost this release cannot know: the guarantee ",
  "above is the release's alone, and the total adds that of the release the numbers came from (exact means, ",
  "colMeans(), leave no guarantee at all); has_guarantee() is NA. Pass the dp_cov() release itself as `center` to ",
  "have the total stated.")

# A finished release's guarantee text states its `epsilon`, `delta` and
# `neighbor` (an edited epsilon was composed by dp_as_cov() while the text
# kept the old one; an edited notion was read as the text's). Checked where a
# release's guarantee is read as input (every method that reads or shows it,
# and the functions that take a release), not in check_release(): the
# objects a release is built through carry a step's text until the end.
check_guarantee_numbers <- function(x, arg = "x") {
  g_text <- if (is_string(x$guarantee)) regmatches(x$guarantee, regexec("^\\(([^,()]+), ([^,()]+)\\)-(local )?differential privacy", x$guarantee))[[1]]
  if (length(g_text) >= 3L && !is.na(x$epsilon) && !is.na(x$delta)) {
    te <- suppressWarnings(as.numeric(g_text[2]))
    td <- suppressWarnings(as.numeric(g_text[3]))
    if (!(isTRUE(abs(te - x$epsilon) <= 1e-5 * x$epsilon) && isTRUE(abs(td - x$delta) <= 1e-5 * x$delta))) {
      abort("`%s` is not a valid dp_release: its `guarantee` text states another (epsilon, delta) than its `epsilon` and `delta` fields.",
            arg, .arg = arg)
    }
  }
  # (a text stating no guarantee, "NONE: ..." or compression's, names none to check)
  if (length(g_text) >= 3L && is_string(x$neighbor)) {
    stated <- guarantee_notion(x$guarantee)
    if (is.null(stated) || !(stated %in% c(x$neighbor, "any") ||
                              stated == "add-remove, zero-out" && x$neighbor %in% c("add-remove", "zero-out"))) {
      abort("`%s` is not a valid dp_release: its `guarantee` text %s, not its `neighbor` (\"%s\").", arg,
            if (is.null(stated)) "names no neighbour notion" else sprintf("states its guarantee under %s", neighbor_words(stated)),
            x$neighbor, .arg = arg)
    }
  }
  invisible(x)
}

# The neighbour notion a guarantee text states for the release: the last
# notion it names, since each composition puts the release's own text last
# (a composed text names its parts' notions before it: "(3, 5e-06)-DP in all
# (replace-one-row neighbours), by basic composition of this release with a
# release ((1, 1e-06)-DP under add/remove-one-row neighbours, restated ...);
# this release alone: ..., replace-one-row neighbours; ..."), and the notion
# of its total ("in all (...)") must be the same. NULL where none is named
# or the two disagree.
guarantee_notion <- function(text) {
  notions <- c("add-remove, zero-out", "any", dp_neighbors)
  words <- c(stats::setNames(notions, vapply(notions, neighbor_words, "")),
             stats::setNames(c("replace-one", "zero-out"), vapply(c("replace-one", "zero-out"), local_neighbor_words, "")))
  # longest first: "add/remove-one-row and zero-out neighbours" holds "zero-out neighbours"
  words <- words[order(-nchar(names(words)))]
  pattern <- paste(gsub("([][()/.*+?^$|{}\\\\])", "\\\\\\1", names(words)), collapse = "|")
  found <- regmatches(text, gregexpr(pattern, text, perl = TRUE))[[1L]]
  if (!length(found)) return(NULL)
  last <- unname(words[found[length(found)]])
  total <- regmatches(text, regexec(paste0("^\\([^()]*\\)-differential privacy in all \\((", pattern, ")\\)"), text, perl = TRUE))[[1L]]
  if (length(total) >= 2L && !identical(unname(words[total[2L]]), last)) return(NULL)
  last
}

release_has_guarantee <- function(x) {
  isTRUE(is.finite(x$clip)) && !isFALSE(x$tuning$private) &&
    !isTRUE(x$params$no_formal_guarantee) && !is.na(x$epsilon) && !is.na(x$delta)
}

#' Mark a release as having no formal guarantee (e.g. its input was centred
#' with exact, non-private means) and say why in its guarantee text.
#' @noRd
void_guarantee <- function(release, reason) {
  release$params$no_formal_guarantee <- TRUE
  if (startsWith(release$guarantee, "NONE: ")) {
    # already void (e.g. clip = Inf): add the reason, do not nest
    release$guarantee <- paste0("NONE: ", reason, "; and ", substring(release$guarantee, 7L))
  } else {
    release$guarantee <- paste0("NONE: ", reason, " (noise calibrated as for: ", release$guarantee, ")")
  }
  release
}

#' Methods for private releases
#'
#' Every mechanism returns an object of class `c("dp_<family>", "dp_release")`
#' with components `estimate` (the released matrix or compressed data),
#' `mechanism`, `epsilon`, `delta`, `neighbor`, `clip`, `n`, `n_public`
#' (whether n is released: every notion but add/remove), `p`, `scale`,
#' `centred` and `ridge` (what the estimate estimates, see [dp_scales]), `params`
#' (what the mechanism used: noise scale, threshold, degrees of freedom, ...),
#' `tuning` (how tuning parameters were chosen and whether that choice was
#' private), `guarantee` (the privacy statement in words), `call`, and
#' `diagnostics` (how much of the estimate is noise, from released
#' quantities only: see [release_diagnostics()]). `print` shows the
#' diagnostics and, when the release is noisy or mostly noise, says so in
#' plain words before the guarantee.
#'
#' @param x,object A `dp_release`.
#' @param evaluate `update()`: run the stored call again with the changes (a new
#'   release, spending its budget again; a call stored with placeholders for
#'   values is refused), or return it (`FALSE`).
#' @param digits Significant digits to print.
#' @param ... Unused.
#' @return `print` returns `x` invisibly; `summary` a `summary.dp_release`
#'   list; `as.matrix` the released estimate; `nobs` the number of rows n
#'   where the release makes it public (`n_public`: every neighbour notion
#'   but add/remove, and compressed data). Under add/remove neighbours n is
#'   private and not released, so `nobs` is a classed error rather than a
#'   number: a private estimate, where the release made one, is the noisy
#'   count `params$n_noisy` (e.g. [dp_cov()]).
#' @name dp_release
#' @examples
#' r <- analyze_gauss(matrix(rnorm(20000), 5000, 4), epsilon = 0.5, delta = 1e-5, clip = 2)
#' r
#' summary(r)
#' as.matrix(r)[1:2, 1:2]
NULL

#' @rdname dp_release
#' @export
update.dp_release <- update_stored_call

# (the other classes' update() methods, here because the function they are
# is defined in this file, which R sources after pca.R, qda.R and regression.R)

#' @rdname dp_lm-methods
#' @export
update.dp_lm <- update_stored_call

#' @rdname dp_pca_methods
#' @export
update.dp_pca <- update_stored_call

#' @rdname predict.qda_plugin
#' @param evaluate `update()`: fit again with the changes, or return the call
#'   (`FALSE`); a call stored with placeholders for values is refused.
#' @export
update.qda_plugin <- update_stored_call

#' `update()` of the package's other results
#'
#' Results that store their call (private bounds from [dp_clip_bound()] and
#' [dp_column_bounds()]) run it again with the changes, in the caller's
#' frame, as [update.dp_release()] does: a private result spends its budget
#' again. Results that store no call (studies, budgets, tuning curves,
#' readers, sufficient statistics, diagnostics, local reports, summaries) and calls stored with
#' placeholders for values (made by [do.call()], or with an argument built
#' inside the call: a result keeps no data) are refused with a classed error,
#' where R's default method gave an unclassed one or looked for an object
#' named `<data>`.
#' @param object A result of the package.
#' @param ... Changes to the call, as in [stats::update()].
#' @param evaluate Run the changed call (`TRUE`), or return it (`FALSE`).
#' @return The new result, or the call when `evaluate = FALSE`.
#' @name update-results
#' @examples
#' x <- matrix(rnorm(400), 100, 4)
#' b <- dp_clip_bound(x, epsilon = 0.5)
#' update(b, epsilon = 1)
#' # a result made by do.call() keeps no data in its call, and is refused:
#' b2 <- do.call(dp_clip_bound, list(x, epsilon = 0.5))
#' try(update(b2, epsilon = 1))
NULL

# (one method for every class a user can hold; update.default's unclassed
# "need an object with call component" and its lookup of `<data>` otherwise)
#' @rdname update-results
#' @export
update.dp_bound <- update_stored_call
#' @rdname update-results
#' @export
update.dp_column_bounds <- update_stored_call
#' @rdname update-results
#' @export
update.dp_study <- update_stored_call
#' @rdname update-results
#' @export
update.threshold_cv <- update_stored_call
#' @rdname update-results
#' @export
update.threshold_tune <- update_stored_call
#' @rdname update-results
#' @export
update.dp_budget <- update_stored_call
#' @rdname update-results
#' @export
update.dp_suffstat <- update_stored_call
#' @rdname update-results
#' @export
update.pooled_cov <- update_stored_call
#' @rdname update-results
#' @export
update.compressed_cov <- update_stored_call
#' @rdname update-results
#' @export
update.combo_data <- update_stored_call
#' @rdname update-results
#' @export
update.combo_features <- update_stored_call
#' @rdname update-results
#' @export
update.ldp_reports <- update_stored_call
#' @rdname update-results
#' @export
update.dp_coefficients <- update_stored_call
#' @rdname update-results
#' @export
update.dp_reader <- update_stored_call
#' @rdname update-results
#' @export
update.dp_diagnostics <- update_stored_call
#' @rdname update-results
#' @export
update.compression_alpha <- update_stored_call
#' @rdname update-results
#' @export
update.study_summary <- update_stored_call
#' @rdname update-results
#' @method update summary.dp_release
#' @export
update.summary.dp_release <- update_stored_call
#' @rdname update-results
#' @method update summary.dp_lm
#' @export
update.summary.dp_lm <- update_stored_call
#' @rdname update-results
#' @method update summary.dp_pca
#' @export
update.summary.dp_pca <- update_stored_call

#' @rdname dp_release
#' @export
print.dp_release <- function(x, digits = 4, ...) {
  check_release(x)
  check_guarantee_numbers(x)
  digits <- check_digits(digits)
  cat_wrapped(sprintf("<%s>", class(x)[1]), x$mechanism)
  # recomputed from the released fields (the stored copy may predate a conversion)
  d <- diagnose_release(x)
  print_noise_warnings(d)
  cat_wrapped("Guarantee:", x$guarantee)
  if (is.na(release_guarantee_state(x))) cat_wrapped("  Total privacy loss NOT KNOWN:", center_numbers_note)
  cat_wrapped("Estimates:", estimates_text(x))
  cat_wrapped(sprintf("Data: %s, p = %s column%s", n_text(x), format(x$p), if (identical(as.numeric(x$p), 1)) "" else "s"))
  print_diagnostics(d)
  # scalars, and the ledger rows a release of several steps was charged to
  param_names <- names(x$params) %||% rep("", length(x$params))
  shown <- x$params[vapply(seq_along(x$params), function(i) {
    v <- x$params[[i]]
    is.atomic(v) && (length(v) == 1L || identical(param_names[i], "budget_charge") && is.numeric(v) && length(v) %in% 2:20)
  }, logical(1))]
  if (length(shown)) {
    # budget figures (epsilon_*, delta_*, rho_*) as the guarantee states them, never rounded down
    budget_field <- grepl("^(epsilon|delta|rho)(_|$)", names(shown))
    vals <- vapply(seq_along(shown), function(i) {
      v <- shown[[i]]
      if (length(v) > 1L) sprintf("c(%s)", paste(v, collapse = ", "))
      else if (!is.numeric(v)) as.character(v) else if (budget_field[i]) format_privacy(v) else format(v, digits = digits)
    }, character(1))
    names(vals) <- names(shown)
    cat_wrapped("Parameters:", paste(names(vals), vals, sep = " = ", collapse = ", "))
  }
  print_tuning(x$tuning)
  est <- x$estimate
  if (is.matrix(est)) {
    cat(sprintf("Estimate: %d x %d matrix", nrow(est), ncol(est)))
    if (nrow(est) == ncol(est) && isSymmetric(unname(est))) {
      ev <- eigen(est, symmetric = TRUE, only.values = TRUE)$values
      cat(sprintf(", eigenvalues in [%s, %s]", format(min(ev), digits = digits),
                  format(max(ev), digits = digits)))
    }
    cat("\n")
    k <- min(nrow(est), ncol(est), 5L)
    print(signif(est[seq_len(min(nrow(est), 5L)), seq_len(min(ncol(est), 5L)), drop = FALSE], digits))
    if (nrow(est) > k || ncol(est) > k) cat("...\n")
  }
  invisible(x)
}

#' Prints `label` and `text` on one logical line, wrapped to the console
#' width with continuation lines indented; each "\n"-separated line of the
#' text keeps its own leading indentation.
#' @noRd
cat_wrapped <- function(label, text = NULL, exdent = 2L) {
  width <- max(10L, as.integer(getOption("width", 80L)) - 1L)
  for (l in strsplit(paste(c(label, text), collapse = " "), "\n", fixed = TRUE)[[1L]]) {
    lead <- nchar(l) - nchar(sub("^ +", "", l))
    cat(strwrap(l, width = width, indent = lead, exdent = lead + exdent), sep = "\n")
  }
  invisible()
}

n_text <- function(x) {
  if (is.na(x$n)) "n not released (private under add/remove neighbours)" else sprintf("n = %s row%s", format(x$n), if (identical(as.numeric(x$n), 1)) "" else "s")
}

print_tuning <- function(tuning) {
  if (is.null(tuning) || identical(tuning$method, "none")) return(invisible())
  cat_wrapped("Tuning:", c(tuning$method, if (!is.null(tuning$detail)) c("-", tuning$detail)))
  if (isFALSE(tuning$private)) {
    cat_wrapped("  WARNING: tuning looked at the private data without spending privacy budget;",
                "the stated guarantee does not cover that choice.")
  }
  invisible()
}

#' @rdname dp_release
#' @export
summary.dp_release <- function(object, ...) {
  check_release(object, "object")
  check_guarantee_numbers(object, "object")
  check_method_dots(...)
  est <- object$estimate
  state <- release_guarantee_state(object)
  # (centred at numbers of unknown cost: no total to state, as glance())
  out <- list(mechanism = object$mechanism, guarantee = object$guarantee,
              has_guarantee = state, n = object$n, p = object$p,
              epsilon = if (is.na(state)) NA_real_ else object$epsilon,
              delta = if (is.na(state)) NA_real_ else object$delta, tuning = object$tuning,
              diagnostics = diagnose_release(object), nonprivate = inherits(object, "dp_nonprivate"))
  if (is.matrix(est) && nrow(est) == ncol(est) && isSymmetric(unname(est))) {
    ev <- eigen(est, symmetric = TRUE, only.values = TRUE)$values
    out$eigenvalues <- ev
    # numerically: the smallest eigenvalue above the rounding of the largest
    out$positive_definite <- min(ev) > length(ev) * .Machine$double.eps * max(abs(ev))
    out$zero_fraction <- mean(est == 0)
  }
  structure(out, class = "summary.dp_release")
}

#' @export
print.summary.dp_release <- function(x, digits = 4, ...) {
  check_object(x, "summary.dp_release", list(
    mechanism = is_string, guarantee = is_string, n = function(v) is_num1(v, na_ok = TRUE),
    p = function(v) is_whole1(v, 1), epsilon = function(v) is_num1(v, na_ok = TRUE),
    delta = function(v) is_num1(v, na_ok = TRUE), tuning = function(v) is.null(v) || is.list(v),
    # (an eigenvalue beyond the largest double, of a finite matrix near it, is Inf)
    eigenvalues = function(v) is.null(v) || (is.numeric(v) && !is.object(v) && length(v) && !anyNA(v)),
    positive_definite = function(v) is.null(v) || is_flag(v),
    zero_fraction = function(v) is.null(v) || is_num1(v),
    has_guarantee = function(v) is.null(v) || is.logical(v) && length(v) == 1L && is.null(dim(v))))
  digits <- check_digits(digits)
  # a release of class dp_nonprivate (compression, a tuning on the data), or
  # one without a formal guarantee (clip = Inf), is no private release, as
  # its print says first; one centred at numbers has no known total
  state <- x$has_guarantee
  cat(if (isTRUE(x$nonprivate)) "NOT a private release:" else if (isTRUE(state)) "Private release:" else
        if (identical(state, NA)) "Release of unknown total privacy loss:" else
          "NOT a private release (no formal guarantee):", x$mechanism, "\n")
  diagnosed <- inherits(x$diagnostics, "dp_diagnostics")
  if (diagnosed) print_noise_warnings(x$diagnostics)
  cat_wrapped("Guarantee:", x$guarantee)
  unknown <- identical(state, NA) && !isTRUE(x$nonprivate)
  if (unknown) cat_wrapped("  Total privacy loss NOT KNOWN:", center_numbers_note)
  cat(sprintf("%s, p = %s, %s\n", n_text(x), format(x$p),
              if (unknown) "total epsilon and delta not known" else
                sprintf("epsilon = %s, delta = %s", format_privacy(x$epsilon), format_privacy(x$delta))))
  if (diagnosed) print_diagnostics(x$diagnostics)
  if (!is.null(x$eigenvalues)) {
    cat(sprintf("Eigenvalues: min %s, max %s; positive definite: %s; zero entries: %.1f%%\n",
                format(min(x$eigenvalues), digits = digits),
                format(max(x$eigenvalues), digits = digits),
                x$positive_definite, 100 * x$zero_fraction))
  }
  print_tuning(x$tuning)
  invisible(x)
}

#' @rdname dp_release
#' @export
as.matrix.dp_release <- function(x, ...) {
  check_release(x)
  check_method_dots(...)
  x$estimate
}

#' @rdname dp_release
#' @param use.fallback `nobs()`: as in [stats::nobs()]; accepted and ignored.
#' @export
nobs.dp_release <- function(object, use.fallback = FALSE, ...) {
  check_release(object, "object")
  check_flag(use.fallback, "use.fallback")
  check_method_dots(...)
  if (isTRUE(object$n_public) && is_num1(object$n)) return(object$n)
  # under add/remove n is private: no noisy count is handed out as if it were n
  where <- if (is_num1(object$params$n_noisy)) {
    "a private estimate (a noisy count) is in `object$params$n_noisy`"
  } else {
    "this release holds no estimate of it"
  }
  abort("`object`: n is private under %s neighbours and not released, so nobs() has no value; %s.",
        if (is_string(object$neighbor)) object$neighbor else "its", where, .arg = "object")
}

#' Matrices and tables from the package's other objects
#'
#' `as.matrix()` of a [dp_column_bounds()] result is its bounds, a p x 2
#' matrix with columns `lower` and `upper` (rows named by column where the
#' bounds are). The package's other list-based objects are not matrices:
#' `as.matrix()` would build a matrix of list cells, so it refuses them with a
#' classed error (`dpcov_error`, `arg` `"x"`) that says where the matrix is:
#' a [dp_pca()]'s loadings are `x$rotation` (scores: [predict()]), a
#' [dp_lm()]'s coefficients [coef()] and [vcov()], a [dp_clip_bound()]'s bound
#' [as.double()], a [threshold_cv()]'s curve `x$grid` and `x$loss`, a
#' [qda_plugin()]'s `x$means` and `x$cov`, an [ldp_perturb()]'s reports
#' `x$reports`. A [second_moment()] object is
#' refused too: its Gram matrix is the exact, non-private statistic of the
#' data (`x$gram`, for your own use), and a generic conversion that reads
#' like one of a release is not the way to hand it out.
#'
#' `as.data.frame()` of a [threshold_cv()] result is its curve: columns
#' `constant`, `loss` and `chosen` (the row of the chosen constant), still
#' labelled non-private. Of a [qda_plugin()], [second_moment()],
#' [dp_clip_bound()] or [ldp_perturb()] result it is refused in the same way.
#' @param x An object of the package.
#' @param ... Unused.
#' @return `as.matrix.dp_column_bounds`: a numeric matrix;
#'   `as.data.frame.threshold_cv`: a data frame (class `dp_nonprivate` too);
#'   the others do not return.
#' @examples
#' set.seed(1)
#' b <- dp_column_bounds(matrix(rexp(30000), 10000, 3), epsilon = 2, delta = 1e-6)
#' as.matrix(b)
#' @name dpcov_as_matrix
NULL

#' @rdname dpcov_as_matrix
#' @export
as.matrix.dp_column_bounds <- function(x, ...) {
  check_column_bounds(x)
  check_method_dots(...)
  b <- x$bounds
  out <- cbind(lower = b$lower, upper = b$upper)
  # a data frame's automatic row names are not column names
  if (is.character(attr(b, "row.names"))) rownames(out) <- rownames(b)
  out
}

# The refusal of as.matrix() for a list-based object, saying where its matrix is.
refuse_as_matrix <- function(x, what, where) {
  abort("`x` is %s, not a matrix: as.matrix() would give a matrix of list cells; %s.", what, where, .arg = "x")
}

#' @rdname dpcov_as_matrix
#' @export
as.matrix.dp_pca <- function(x, ...) {
  refuse_as_matrix(x, "a dp_pca", "its loadings are `x$rotation`, and scores of data you hold come from predict(x, newdata)")
}

#' @rdname dpcov_as_matrix
#' @export
as.matrix.dp_lm <- function(x, ...) {
  refuse_as_matrix(x, "a dp_lm fit", "use coef(x) and vcov(x) (or tidy(x) for a table)")
}

#' @rdname dpcov_as_matrix
#' @export
as.matrix.dp_suffstat <- function(x, ...) {
  refuse_as_matrix(x, "a second_moment() object (exact statistics of the data, NOT private)",
                   "to release them privately give it to dp_cov() or a mechanism; the exact Gram matrix, for your own use only, is `x$gram`")
}

#' @rdname dpcov_as_matrix
#' @export
as.matrix.qda_plugin <- function(x, ...) {
  refuse_as_matrix(x, "a qda_plugin classifier", "its class means are `x$means` and its covariance `x$cov`")
}

#' @rdname dpcov_as_matrix
#' @export
as.matrix.threshold_cv <- function(x, ...) {
  refuse_as_matrix(x, "a threshold_cv tuning curve", "its curve is `x$grid` with `x$loss`")
}

#' @rdname dpcov_as_matrix
#' @export
as.matrix.dp_bound <- function(x, ...) {
  refuse_as_matrix(x, "a dp_bound", "the bound is as.double(x)")
}

#' @rdname dpcov_as_matrix
#' @export
as.matrix.ldp_reports <- function(x, ...) {
  refuse_as_matrix(x, "an ldp_reports object", ldp_reports_where)
}

ldp_reports_where <- "its reports are `x$reports` (a row per record), and ldp_aggregate(x) their estimate"

# The refusal of as.data.frame() for a list-based object, saying where its
# numbers are (R's own refusal is unclassed and says nothing of them).
refuse_as_data_frame <- function(x, what, where) {
  abort("`x` is %s, not a table: as.data.frame() is not defined for it; %s.", what, where, .arg = "x")
}

#' @rdname dpcov_as_matrix
#' @param row.names,optional As in [base::as.data.frame()].
#' @export
as.data.frame.threshold_cv <- function(x, row.names = NULL, optional = FALSE, ...) {
  check_threshold_cv(x)
  out <- data_frame_args(data.frame(constant = as.vector(x$grid), loss = as.vector(x$loss),
                                    chosen = as.vector(x$grid) == as.vector(x$constant)), row.names, optional, ...)
  # the curve was computed from the data without noise: it keeps the label
  class(out) <- c("dp_nonprivate", class(out))
  out
}

#' @rdname dpcov_as_matrix
#' @export
as.data.frame.qda_plugin <- function(x, row.names = NULL, optional = FALSE, ...) {
  refuse_as_data_frame(x, "a qda_plugin classifier", "its class means are `x$means` and its covariance `x$cov`")
}

#' @rdname dpcov_as_matrix
#' @export
as.data.frame.dp_suffstat <- function(x, row.names = NULL, optional = FALSE, ...) {
  refuse_as_data_frame(x, "a second_moment() object (exact statistics of the data, NOT private)",
                       "to release them privately give it to dp_cov() or a mechanism")
}

#' @rdname dpcov_as_matrix
#' @export
as.data.frame.dp_bound <- function(x, row.names = NULL, optional = FALSE, ...) {
  refuse_as_data_frame(x, "a dp_bound", "the bound is as.double(x)")
}

#' @rdname dpcov_as_matrix
#' @export
as.data.frame.ldp_reports <- function(x, row.names = NULL, optional = FALSE, ...) {
  refuse_as_data_frame(x, "an ldp_reports object", ldp_reports_where)
}

#' Objects that are not private releases
#'
#' Tuning curves ([threshold_cv()]), exact sufficient statistics
#' ([second_moment()]), studies and accounting tables carry class
#' `dp_nonprivate`: they are computed from data without privacy noise (or
#' from simulated data) and must not be published as if they were private.
#' Their print methods say so first.
#' @param x An object of class `dp_nonprivate`.
#' @param ... Passed to the next print method.
#' @return `x`, invisibly.
#' @examples
#' second_moment(matrix(rnorm(20), 10, 2))
#' @export
print.dp_nonprivate <- function(x, ...) {
  why <- attr(x, "nonprivate_why", exact = TRUE)
  nonprivate_banner(x, if (inherits(x, "dp_release")) release_nonprivate_why(x) else if (is_string(why)) why)
  # a labelled matrix prints as the matrix (its labels are said above)
  if (is.matrix(x) && !is.list(x) && !inherits(x, "dp_release")) {
    print(matrix(unclass(x), nrow(x), ncol(x), dimnames = dimnames(x)), ...)
    return(invisible(x))
  }
  NextMethod()
  invisible(x)
}

#' The first line every non-private object prints (print methods of classes
#' that also carry `dp_nonprivate` call it themselves).
#' @noRd
nonprivate_banner <- function(x, why = NULL) {
  cls <- setdiff(class(x), "dp_nonprivate")[1]
  if (is.na(cls)) cls <- "dp_nonprivate"
  # (what holds of every such object: the noise, if any, carries no guarantee)
  if (is.null(why)) why <- "computed from the data without a formal privacy guarantee"
  cat_wrapped(sprintf("<%s> NOT a private release: %s.", cls, why))
  invisible()
}

#' Plot a release, or turn it into a long table
#'
#' `plot` draws a square release as a heat map of its estimate (row 1 at the
#' top) with a colour scale symmetric about 0 beside it, and compressed rows
#' ([dp_compress()]) as a scatterplot matrix of (at most) their first five
#' columns. `as.data.frame` and `tidy` give the released values in long
#' format: one row per entry, columns `row`, `col` and `estimate` (names
#' where the estimate has them, else indices). `glance` gives one row about
#' the release: `mechanism`, `epsilon`, `delta`, `neighbor`, `n` (`NA` where
#' it is not released), `p`, `private` ([has_guarantee()]; `NA`, with
#' `epsilon` and `delta`, for a [dp_as_cov()] conversion centred at a mean
#' given as numbers, whose cost is not known) and `level`, the grade of
#' [release_diagnostics()]. All read only released quantities.
#' @param x A [dp_release].
#' @param main Title (`NULL` for the release's class and scale).
#' @param row.names,optional As in [base::as.data.frame()]: `row.names`
#'   one distinct name per row of the table (else a classed error), `optional`
#'   `TRUE` or `FALSE` (the column names are syntactic already).
#' @param ... `plot`: passed to [graphics::image()] or [graphics::pairs()],
#'   overriding the defaults (for the heat map `col` is its palette, kept
#'   symmetric about 0);
#'   `as.data.frame`: nothing (an argument it does not take is an error).
#' @return `plot`: `x`, invisibly. `as.data.frame`, `tidy`, `glance`: a data
#'   frame (of class `dp_nonprivate` too where the release is).
#' @seealso [dp_release], [dp_pca()].
#' @examples
#' set.seed(1)
#' r <- analyze_gauss(matrix(rnorm(20000), 5000, 4), epsilon = 1, delta = 1e-5, clip = 3)
#' plot(r)
#' head(as.data.frame(r))
#' glance(r)
#' @name dp_release_plot
NULL

# A graphics call whose defaults the user's `...` override: named twice, R
# fails with its unclassed "formal argument matched by multiple actual
# arguments" (plot(r, col = ), plot(cv, xlab = )). `args`: what the call needs.
graphics_call <- function(fun, args, defaults, dots) {
  do.call(fun, c(args, utils::modifyList(defaults, check_graphics_dots(dots))))
}

# (modifyList() drops unnamed entries: refused, not ignored)
check_graphics_dots <- function(dots) {
  if (length(dots) && (is.null(names(dots)) || any(!nzchar(names(dots))))) {
    abort("graphical parameters in `...` must be named (as col = \"red\").", .arg = "...")
  }
  dots
}

#' @rdname dp_release_plot
#' @export
plot.dp_release <- function(x, main = NULL, ...) {
  check_release(x)
  check_guarantee_numbers(x)
  if (!is.null(main) && !is_string(main)) abort("`main` must be NULL or one string.", .arg = "main")
  est <- x$estimate
  if (is.null(main)) main <- sprintf("<%s> release: %s", class(x)[1], x$scale)
  p <- ncol(est)
  cols <- release_colnames(x)
  if (inherits(x, "dp_compress")) {
    k <- min(p, 5L)
    C <- est[, seq_len(k), drop = FALSE]
    colnames(C) <- cols[seq_len(k)]
    if (k == 1L) {
      graphics_call(graphics::hist, list(C[, 1]), list(main = main, xlab = cols[1], col = "grey80"), list(...))
    } else {
      graphics_call(graphics::pairs, list(C), list(main = main, pch = 20, cex = 0.5,
                                                   col = grDevices::adjustcolor("black", 0.5)), list(...))
    }
    return(invisible(x))
  }
  lim <- max(abs(est))
  if (!(lim > 0)) lim <- 1
  dots <- list(...)
  # a palette of the user's (`col`) keeps the scale symmetric about 0: one
  # break more than its colours; `breaks` is the scale's own
  pal <- if (!is.null(dots$col)) dots$col else grDevices::hcl.colors(21L, "Blue-Red 3")
  if (!is.character(pal) && !is.numeric(pal) || !length(pal) || anyNA(pal)) {
    abort("`col` must be a vector of colours (the heat map's palette).", .arg = "col")
  }
  if (!is.null(dots$breaks)) abort("`breaks`: the heat map's scale is symmetric about 0, with one break more than the colours of `col`.", .arg = "breaks")
  # (image() sets its own plot type: R's error would be "matched by multiple actual arguments")
  if (!is.null(dots$type)) abort("`type`: the release's matrix is drawn as a heat map, which has no plot type.", .arg = "type")
  dots$col <- NULL
  nb <- length(pal)
  breaks <- seq(-lim, lim, length.out = nb + 1L)
  op <- graphics::par(mar = c(5, 5, 3, 7))
  on.exit(graphics::par(op))
  graphics_call(graphics::image, list(seq_len(p), seq_len(p), t(est)[, p:1, drop = FALSE], breaks = breaks, col = pal),
                list(axes = FALSE, xlab = "", ylab = "", main = main), dots)
  lab_at <- if (p <= 25) seq_len(p) else unique(round(seq(1, p, length.out = 10)))
  graphics::axis(1, at = lab_at, labels = cols[lab_at], las = 2, cex.axis = 0.75)
  graphics::axis(2, at = p + 1 - lab_at, labels = cols[lab_at], las = 1, cex.axis = 0.75)
  graphics::box()
  # the colour scale, in the right margin
  u <- graphics::par("usr")
  w <- diff(u[1:2])
  x0 <- u[2] + 0.04 * w
  x1 <- x0 + 0.05 * w
  ys <- seq(u[3], u[4], length.out = nb + 1L)
  graphics::rect(x0, ys[-(nb + 1L)], x1, ys[-1L], col = pal, border = NA, xpd = TRUE)
  graphics::rect(x0, u[3], x1, u[4], border = "grey40", xpd = TRUE)
  ticks <- pretty(c(-lim, lim), n = 5)
  ticks <- ticks[abs(ticks) <= lim]
  yt <- u[3] + (ticks + lim) / (2 * lim) * diff(u[3:4])
  graphics::segments(x1, yt, x1 + 0.015 * w, yt, xpd = TRUE)
  graphics::text(x1 + 0.02 * w, yt, axis_labels(ticks), pos = 4, cex = 0.7, xpd = TRUE, offset = 0.1)
  invisible(x)
}

#' @rdname dp_release_plot
#' @export
as.data.frame.dp_release <- function(x, row.names = NULL, optional = FALSE, ...) {
  check_release(x)
  check_guarantee_numbers(x)
  est <- x$estimate
  rn <- rownames(est)
  cn <- colnames(est)
  rows <- if (is.null(rn)) seq_len(nrow(est)) else rn
  cols <- if (is.null(cn)) seq_len(ncol(est)) else cn
  out <- data.frame(row = rep(rows, times = ncol(est)), col = rep(cols, each = nrow(est)),
                    estimate = as.vector(est), stringsAsFactors = FALSE)
  label_as_release(data_frame_args(out, row.names, optional, ...), x)
}

#' @rdname dp_release_plot
#' @export
tidy.dp_release <- function(x, ...) {
  check_method_dots(...)
  as.data.frame.dp_release(x)
}

#' The arguments of as.data.frame(), read as base reads them, for every table
#' the package's methods give: `row.names` NULL or one distinct name per row
#' of `out` (set on it), `optional` TRUE or FALSE (the tables' column names
#' are syntactic already: nothing to do), and nothing else in `...`, refused
#' with a classed error rather than ignored (`stringsAsFactors`, which
#' data.frame() passes on, is allowed: the tables keep their text as text).
#' @noRd
data_frame_args <- function(out, row.names, optional, ...) {
  dots <- list(...)
  nm <- names(dots) %||% rep("", length(dots))
  do.call(check_method_dots, dots[nm != "stringsAsFactors"])
  check_flag(optional, "optional")
  if (is.null(row.names)) return(out)
  if (!(is.character(row.names) || is.numeric(row.names)) || is.object(row.names) || !is.null(dim(row.names)) ||
      length(row.names) != nrow(out) || anyNA(row.names) || anyDuplicated(row.names)) {
    abort("`row.names` must be NULL or %d distinct names, one per row of the table (as in base::as.data.frame()).",
          nrow(out), .arg = "row.names")
  }
  row.names(out) <- row.names
  out
}

#' Why a release is not private, in the words its own print uses (NULL when
#' it has a guarantee): compression's distributional privacy, a tuning choice
#' made without noise, or a release without a formal guarantee (clip = Inf).
#' @noRd
release_nonprivate_why <- function(x) {
  if (inherits(x, "dp_compress")) return(compression_nonprivate_why)
  if (inherits(x, "dp_nonprivate")) return("a tuning choice in the release was computed from the data without privacy noise")
  if (!release_has_guarantee(x)) return("values of a release without a formal guarantee (see its Guarantee)")
  if (is.na(release_guarantee_state(x))) return(paste0("values of ", centred_numbers_words))
  NULL
}

# A release whose total cost is not known (release_guarantee_state() NA), in
# the words dp_pca() and the labels use.
centred_numbers_words <- paste0("a release centred at a mean given as numbers (dp_as_cov()), whose privacy cost ",
                                "is not known: its total privacy loss is not known")

#' A table made from a release (tidy(), glance()) carries its label: class
#' `dp_nonprivate` and the reason, which print.dp_nonprivate() says first.
#' @noRd
label_as_release <- function(out, x) {
  why <- release_nonprivate_why(x)
  if (is.null(why)) return(out)
  attr(out, "nonprivate_why") <- why
  class(out) <- unique(c("dp_nonprivate", class(out)))
  out
}

#' @rdname dp_release_plot
#' @export
glance.dp_release <- function(x, ...) {
  check_release(x)
  check_guarantee_numbers(x)
  check_method_dots(...)
  # centred at a mean given as numbers (dp_as_cov()): their cost is not known
  # here (a release's mean, or the exact colMeans()), so neither is the total (NA)
  private <- release_guarantee_state(x)
  out <- data.frame(mechanism = x$mechanism, epsilon = if (isTRUE(private)) x$epsilon else NA_real_,
                    delta = if (isTRUE(private)) x$delta else NA_real_, neighbor = x$neighbor, n = as.double(x$n),
                    p = as.integer(x$p), private = private,
                    level = diagnose_release(x)$level,
                    stringsAsFactors = FALSE)
  label_as_release(out, x)
}

#' Mark a number or vector computed from private data without noise (a
#' cross-validated constant, a data-scaled grid): the attribute
#' `dp_nonprivate` says where it came from, and a release tuned with it is
#' labelled non-private (nonprivate_source() reads the mark).
#' @noRd
mark_nonprivate <- function(v, why) {
  attr(v, "dp_nonprivate") <- why
  v
}

nonprivate_source <- function(v) {
  why <- attr(v, "dp_nonprivate", exact = TRUE)
  if (is_string(why)) why else NULL
}

# ---- Diagnostics: how much of a release is noise ----------------------------------

#' How much of a release is noise
#'
#' Every [dp_release] carries `diagnostics`, computed by
#' `release_diagnostics()` from the released quantities and the public
#' parameters **only** (the estimate, the released mean and noisy count,
#' `params`): no further look at the data, so no privacy cost. `print()` shows
#' them, and warns in plain words when the release is dominated by noise. A
#' release whose level is `"mostly noise"` also raises one R warning of class
#' `dpcov_noise_warning` when it is made (catch it with
#' `withCallingHandlers(..., dpcov_noise_warning = ...)` or
#' [suppressWarnings()]), or turn it off for a session with
#' `options(dpcov.noise_warning = FALSE)` (simulations that release at small
#' n on purpose; the package's own tests do); a [dp_lm()] fit raises it once
#' for the fit, and a [dp_cov()] release once for both its steps.
#'
#' **What is computed.** The noise the mechanism added has a known
#' distribution (its scale is in `params`): for Gaussian symmetric noise of
#' entry sd s on a sum, \eqn{E\|N\|_F^2 = p^2 s^2}{E ||N||_F^2 = p^2 s^2}; Wishart noise
#' \eqn{W_p(B^2 I, k)}, \eqn{k p (p + 1) B^4}; the JL and inverse-Wishart
#' draws, their variance at the released matrix (plug-in); thresholded
#' averages, s per entry kept (the zeroed entries carry no noise); [dp_cov()],
#' the second step's noise divided by the (noisy) n plus the centring error
#' \eqn{d d^T} of the private mean (d of sd \eqn{\sigma_m / \hat n} per column,
#' times the box width when public bounds were given).
#'
#' * `noise_frobenius`: the expected Frobenius norm of that noise, on the
#'   scale of the estimate;
#' * `signal_frobenius`: one-sided, \eqn{\max(0, \|E\|_F - \textrm{noise} - \textrm{sd}(\|N\|_F))}{max(0, ||E||_F - noise - sd(||N||_F))},
#'   E the released estimate (less the public ridge): what the released norm
#'   holds beyond the noise's, with a margin (a few large noisy entries make the
#'   noise's norm far from sure; from one draw, \eqn{\|E\|_F^2 -
#'   \textrm{noise}^2}{||E||_F^2 - noise^2} passed noise that inflated a large
#'   entry as signal); 0 when the release is all noise, or zero;
#' * `noise_to_signal`: their ratio (`Inf` when the signal is 0; `NA` when no
#'   entry carries noise, every entry thresholded to 0, which is said as
#'   such); being one-sided it overstates the relative error somewhat where
#'   the noise is a large part of the estimate;
#' * `variance_noise`: per column, the noise sd of the diagonal entry against
#'   the released entry less its noise: its value less the PSD
#'   projection's lift of it (`params$psd_shift`, where recorded) less its
#'   noise sd (`Inf` when that is <= 0): judged against the noisy value
#'   itself, noise that inflated a variance made it look fine; a column whose
#'   own scale is far smaller than the others' drowns even when the Frobenius
#'   ratio is fine;
#' * `n_noisy`, `n_noise_sd`, `n_relative_noise`: the released noisy count
#'   ([dp_cov()] under add/remove neighbours), its noise sd and their ratio;
#' * `mean_noise_sd`, `mean_noise`: per column, the sd of the noise on the
#'   released private mean, and its ratio to the released sd of the column (a
#'   mean uncertain by more than the spread centres the rows far from their
#'   mean, and the clipping that follows destroys the covariance);
#' * `outside_bounds`: the columns whose released mean lies outside the
#'   release's bounds (`params$bounds`: public, or chosen privately, as
#'   `params$bounds_source` says), or, on [dp_cov()]'s box, was clamped to
#'   their edge (`params$box_center` at -1/2 or 1/2): impossible without
#'   noise, pure noise; or, where the mean's noise sd is under 2% of the
#'   bounds' range, its mean lies within a few noise sds of that edge: the
#'   column's values lie mostly at or beyond it and were clamped (public
#'   bounds narrower than the data), or a skewed column's mean lies that
#'   close to its edge; its message says both;
#' * `at_bounds`: on a covariance (or correlation) with bounds (public, private
#'   or tightened), per column, the released sd (one-sided, as above) over
#'   twice the largest sd any data within the bounds can have at the released
#'   mean, \eqn{\sqrt{(\mu - l)(u - \mu)}}{sqrt((mu - l)(u - mu))} (the
#'   Bhatia-Davis inequality; the mean taken its noise sd towards the
#'   middle, so noise does not raise it): the sd over the width for a mean
#'   midway, at most 1/2 wherever the mean lies, reached only by two values
#'   at the ends; from 0.4 on most of the column sits at its bounds, clamped
#'   (the bounds narrower than the data), two-valued, or in two groups near
#'   its ends (from 0.45 on, only clamping or two values). So a 0/1 column
#'   with few ones reads near 1/2, as a balanced one does, where its sd is a
#'   small part of the width (2% ones clamped to a tightened upper bound: sd
#'   0.13 of the width). Columns two-valued by the data's schema (logical
#'   columns, a factor's or a comparison's dummies in [dp_lm()]) whose bounds
#'   are their coding \eqn{[0, 1]} are left out (`params$coded_columns`),
#'   whoever gave the bounds;
#' * `clip_fill`: without bounds, with a finite row-norm `clip` and a public n
#'   or a noisy count, the released mean squared row norm (one-sided) over
#'   \eqn{clip^2}{clip^2}: at most 1, and from 0.8 on nearly every row was
#'   clipped (`NA` where it cannot be told); of the centred rows where
#'   `clip` bounds them (dp_cov()'s second step), of the rows (the released
#'   mean's square added) on dp_cov()'s one pass over statistics, where rows
#'   just inside the clip fill it too, so it is said from 0.95 there;
#' * `mean_clip_fill`, `mean_clip_excess`: on a covariance without bounds
#'   (and the correlation scaled from it), with a finite `clip_mean` on two
#'   passes, the released mean's distance from 0 over
#'   `clip_mean` (at most 1, reached when every row was clipped in the mean
#'   step, all on one side), and the rows' mean squared norm (the released
#'   mean's square plus the variances) over `clip_mean^2` (at most 1 when no
#'   row was clipped there); both one-sided, less three noise sds.
#'   The fill from 0.8 with the excess from 1.05 says the rows were clipped in
#'   the mean step: the mean is shrunk toward 0 and the covariance centred at
#'   it inflated by an amount the release does not show (`"noisy"`; with the
#'   fill from 0.9 `"mostly noise"`); rows all near one norm below
#'   `clip_mean` fill it without the excess. `NA` where they cannot be told;
#' * `noise_lost`: TRUE when every entry's noise sd is below an eighth of its
#'   rounding step (relative `.Machine$double.eps / 8`), so the noise was
#'   rounded away and the estimate is the exact statistic (noise calibrated far
#'   below the data's scale, as `sigma_clip_inf` with `clip = Inf` can be);
#'   entries thresholded to 0 carry no noise and are not judged (`FALSE`
#'   when every entry was);
#'   graded `"mostly noise"`, the grade of a release not to be used as it
#'   stands, and said in words;
#' * `correlation_noise`: for a covariance or a correlation, the median over
#'   pairs of the off-diagonal entries' noise sd on the correlation scale
#'   (over \eqn{\sqrt{c_{ii} c_{jj}}}{sqrt(c_ii c_jj)}, the variances less
#'   their noise): above 0.1 `"noisy"`, above 0.25 `"mostly noise"`. The
#'   Frobenius ratio is that of the largest entries, so it can pass while
#'   every correlation is noise (quakes' depth against the rest);
#' * `one_value`: for per-column bounds chosen privately, the columns whose
#'   bounds are narrower than 1.5 times their private spread
#'   (`params$column_bounds$scale`, the median absolute deviation the
#'   mechanism chose): bounds that hold most of a column span several spreads,
#'   so these closed on a value most rows share (a 0/1 column with few ones, a
#'   mostly-zero amount) and clamp the other rows; `"mostly noise"`;
#' * `at_range`: for per-column bounds chosen privately (the default's,
#'   `params$column_bounds`, or a [dp_column_bounds()] release given as
#'   `bounds`, `params$bounds_guarantee`; the same fields), the columns with a
#'   bound at the end of the range the bounds were searched in
#'   (`params$column_bounds$range`, \eqn{\pm}1e6 by default): rows beyond
#'   it, if any, are clamped to it; `"noisy"`. `beyond_range`: those of them
#'   whose private median (`params$column_bounds$center`) lies within one
#'   private spread of that end or outside the column's bounds, so the data's
#'   bulk lies beyond it (or, with
#'   `bounds_capped`, n epsilon was too small to place the bounds);
#'   `"mostly noise"`;
#' * `long_tail`: for per-column bounds chosen privately (as for `at_range`),
#'   the columns whose bounds are lopsided about the private median
#'   (`params$column_bounds$center`), one k > 4 times as far from it as
#'   the other, where the bounds target at least 0.5% of the rows beyond each
#'   end (`params$column_bounds$clamped_share`) or that share times k^2 is
#'   at least 1: normal data put the bounds about equally far, a long tail
#'   (exponential, lognormal, populations, incomes) much further on one side,
#'   and there the few clamped rows can hold much of the variance; `"noisy"`;
#' * `bound_inside`: for per-column bounds chosen privately, the columns with
#'   a bound within 0.75 of their private spread of their private median
#'   (bounds that hold a column lie some spreads out: 1.4 below the median
#'   for exponential data, 3 or more for normal data), which may clamp a
#'   large share of the rows (two groups, a gap); `"noisy"`;
#' * `bounds_capped`: for per-column bounds chosen privately
#'   (`params$bounds_source` `"private"`), whether their first stage was
#'   capped at the quartiles (its target of rows beyond each bound,
#'   `params$column_bounds$first_rows`, at least a quarter of the public n or
#'   of the noisy count): n epsilon was too small to find the tails, and the
#'   bounds clamp much of every column (`NA` for other releases);
#' * `level`: `"ok"`, `"noisy"` or `"mostly noise"`, the worst over the
#'   checks, `messages`: the plain-words reasons, and `message_levels`: the
#'   grade of each message (the noise warning raises the first `"mostly
#'   noise"` one).
#'
#' **Thresholds** (fixed in the package): a ratio above 0.5 is
#' `"noisy"`, above 1 `"mostly noise"` (noise/signal, the per-column
#' variance and mean ratios); the count's relative noise above 0.1 is
#' `"noisy"` (the divisor of an average is off by 10 percent), above 0.5 or a
#' count below 2 `"mostly noise"`; `at_bounds` from 0.4, `clip_fill` from
#' 0.8 (0.95 on one pass), and the mean step's clipping (`mean_clip_fill`,
#' above) `"noisy"` (the estimate is of clamped or clipped rows, biased, and a
#' genuinely two-valued column also fills its bounds; on bounds chosen or
#' tightened from the data, where from 0.45, or from 0.4 with capped bounds,
#' it means clamping, `"mostly noise"`: on tightened bounds only for the
#' columns one of whose public bounds the tightening moved inside, since a
#' column at public bounds it kept may be a 0/1 column; on bounds chosen
#' privately judged by the sd over the width, the value for a mean midway,
#' since their refinement puts a 0/1 column's bounds a little beyond its
#' values as often as inside them);
#' capped private bounds (`bounds_capped`) `"noisy"` (a risk: the
#' refinement often finds the tails all the same); a mean outside its bounds is `"mostly
#' noise"`, and so is a
#' variance that thresholding set to exactly 0 (named first, for what it
#' is; without `keep_diagonal`). A threshold that set every off-diagonal
#' entry to 0 (p >= 2) is `"noisy"`: the release says only that no
#' covariance exceeds the threshold t, and cannot tell a diagonal covariance
#' from one of entries below t; one that set some of them to 0 says how many
#' (with t and t over the noise sd) without grading it. A covariance with a
#' variance <= 0 (a [dp_as_cov()] conversion keeps its matrix as computed) is
#' `"noisy"`. In a study (`bench/diagnostics-study.R`, results in
#' `bench/RESULTS.md`: [analyze_gauss()] with an oracle clip and the default
#' [dp_cov()], on Gaussian and penguin-like data, n from 50 to 20000,
#' epsilon from 0.1 to 4, 512 releases) the noise/signal ratio of
#' [analyze_gauss()] tracked the realised relative Frobenius error, a little
#' above it as a one-sided ratio should be (median error/ratio 0.83,
#' quartiles 0.56 and 1.00); the 166 releases with a relative Frobenius
#' error above 1 were all `"mostly noise"`; the 143 releases with every
#' error (Frobenius and each variance) below 0.25 were all `"ok"`. On the
#' penguin-like data (one column in grams, others in millimetres) some
#' variance was off by more than 100 percent in 185 of the 256 releases,
#' each of them flagged, though the Frobenius error was often small: the
#' per-column checks catch what the Frobenius ratio misses. On diamonds
#' (10,000 rows, bounds at the data's range, epsilon 0.3, replace-one) 163
#' of 200 releases had some variance above 3 times the truth; judged against
#' the noisy values 7 of them were `"ok"`, one-sided none.
#'
#' Compressed rows ([dp_compress()]) are m x p rows, not a second-moment
#' matrix: they have no noise norm (`NA`) and no diagonal of variances, so
#' the noise, variance, clipping and thresholding checks do not apply to
#' them (`NA`, `NULL`). A correlation ([dp_cov()] with `type =
#' "correlation"`, [dp_as_cov()]) has no scale to judge the noise on: the
#' noise norm and the per-column variance and mean checks are those of the
#' noisy covariance it scales (post-processing of it), kept in
#' `params$covariance_diagnostics`; a variable whose variance is within its
#' noise has correlations of noise, and the release says so.
#'
#' @param x A [dp_release] (for `print`, a `dp_diagnostics` list).
#' @param ... `release_diagnostics()`: nothing (an argument it does not take
#'   is an error: a misspelt name is refused, not ignored); `print`: unused.
#' @return A list of class `dp_diagnostics` with the components above;
#'   `print` shows its "Diagnostics:" line and the plain-words warnings, and
#'   returns it invisibly.
#' @seealso [dp_release], [dp_lm()] (whose fits carry diagnostics too).
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(20000), 5000, 4)
#' r <- analyze_gauss(x, epsilon = 1, delta = 1e-5, clip = 3)
#' r$diagnostics$level
#' # 50 rows at epsilon = 0.2: mostly noise, and the release says so
#' small <- suppressWarnings(analyze_gauss(x[1:50, ], epsilon = 0.2, delta = 1e-5, clip = 3))
#' small$diagnostics
#' # the same from the release alone
#' release_diagnostics(r)$noise_to_signal
#' @export
release_diagnostics <- function(x, ...) {
  refuse_unknown_args("release_diagnostics", ...)
  check_release(x)
  check_guarantee_numbers(x)
  diagnose_release(x)
}

# release_diagnostics() of a release checked by check_release(): also of the
# objects a release is built through (finish_diagnostics()), whose guarantee
# text is a step's until the end.
diagnose_release <- function(x) {
  est <- x$estimate
  p <- ncol(est)
  pr <- x$params
  cols <- release_colnames(x)
  out <- list(noise_frobenius = NA_real_, signal_frobenius = NA_real_, noise_to_signal = NA_real_,
              variance_noise = NULL, n_noisy = NA_real_, n_noise_sd = NA_real_, n_relative_noise = NA_real_,
              mean_noise_sd = NULL, mean_noise = NULL, outside_bounds = character(0),
              at_bounds = NULL, clip_fill = NA_real_, mean_clip_fill = NA_real_, mean_clip_excess = NA_real_,
              bounds_capped = NA,
              correlation_noise = NA_real_,
              noise_lost = NA)
  th <- dp_diagnostic_thresholds
  sd <- release_noise_sd(x)
  if (!is.null(sd)) {
    ridge <- ridge_on_scale(x)
    E <- est - diag(ridge, p)
    # (an sd that is not a number, from a hand-made release, is no noise told:
    # read as unbounded, never as 0)
    sd[is.na(sd)] <- Inf
    noise <- sqrt(sum(sd^2))
    # one-sided: the signal is what the released norm holds beyond the
    # noise's (its expected norm plus the sd of that norm: a few large
    # entries make the noise's norm far from sure); Var ||N||^2 for N
    # symmetric with independent entries is 2 sum_k s_kk^4 + 8 sum_k<l s_kl^4.
    # A noise beyond the largest double (an infinite sd) leaves no signal told
    # (fourth powers taken relative to the largest sd: they overflow from 1e77)
    norm_sd <- if (is.finite(noise) && noise > 0) {
      top <- max(sd)
      s4 <- (sd / top)^4
      min(noise, top^2 * sqrt(2 * sum(diag(s4)) + 4 * max(0, sum(s4) - sum(diag(s4)))) / (2 * noise))
    } else 0
    signal <- if (is.finite(noise)) max(0, sqrt(sum(E^2)) - noise - th$lower_sd * norm_sd) else 0
    out$noise_frobenius <- noise
    out$signal_frobenius <- signal
    # no entry carries noise only when thresholding zeroed them all: a zero
    # matrix of bias, said as such (diagnostics_level()), not a ratio
    out$noise_to_signal <- if (noise > 0) ratio_or_inf(noise, signal) else NA_real_
    # noise below an eighth of the rounding step of every entry it was added
    # to is rounded away: the estimate is the exact statistic (sigma_clip_inf
    # far below the data's scale with clip = Inf, say). Entries thresholded
    # to 0 (sd 0) had their noise removed with them, not rounded away
    noisy <- sd > 0
    out$noise_lost <- any(noisy) && all(sd[noisy] <= .Machine$double.eps / 8 * abs(est[noisy]))
    # each variance's noise sd against its released value less its noise:
    # the value (less the PSD projection's lift of it, params$psd_shift) less
    # its noise sd. Against the value itself, noise that inflated a
    # variance made it look fine (a variance of 1,478 for a true 1.08, noise
    # sd 596, had ratio 0.4).
    lower <- diag(E) - psd_lift(x) - th$lower_sd * diag(sd)
    out$variance_noise <- stats::setNames(mapply(ratio_or_inf, diag(sd), lower), cols)
    # the off-diagonal entries on the correlation scale (noise sd over
    # sqrt(c_ii c_jj), the variances less their noise): the Frobenius ratio
    # is one large variance's (quakes' depth), and the variance checks pass,
    # while every correlation can be noise
    if (x$scale == "covariance" && p > 1L) {
      v <- sqrt(pmax(0, lower))
      out$correlation_noise <- median_correlation_noise(sd / tcrossprod(v))
    }
  }
  if (x$scale == "correlation") {
    out <- correlation_checks(out, pr$covariance_diagnostics, p, cols)
    cs <- pr$correlation_noise_sd
    if (is.matrix(cs) && is.numeric(cs) && !is.object(cs) && identical(dim(cs), c(p, p)) && p > 1L) {
      out$correlation_noise <- median_correlation_noise(cs)
    }
  }
  n_hat <- release_n_hat(x)
  if (is_num1(pr$n_noisy)) {
    out$n_noisy <- pr$n_noisy
    out$n_noise_sd <- count_noise_sd(x)
    out$n_relative_noise <- if (pr$n_noisy > 0) out$n_noise_sd / pr$n_noisy else Inf
  }
  center <- x$center
  if (is.numeric(center) && length(center) == p) {
    msd <- mean_noise_sd(x, n_hat)
    if (!is.null(msd) && x$scale == "covariance") {
      out$mean_noise_sd <- stats::setNames(msd, cols)
      out$mean_noise <- stats::setNames(mapply(ratio_or_inf, msd, sqrt(pmax(0, diag(est)))), cols)
    }
    b <- release_bounds(x)
    if (!is.null(b)) {
      tol <- bounds_tolerance(b$lower, b$upper)
      bad <- !(center >= b$lower - tol & center <= b$upper + tol)
      # on the box the noisy mean was clamped into the bounds before release
      # (params$box_center, in [-1/2, 1/2]): at their edge, the noise pushed it out
      bad <- bad | box_mean_clamped(x)
      out$outside_bounds <- cols[bad]
    }
  }
  out <- clamp_checks(out, x, sd, n_hat, cols)
  # bounds chosen privately whose first stage was capped at the quartiles (n
  # epsilon too small for its target): read from the public n or the noisy count
  cb <- pr$column_bounds
  if (identical(pr$bounds_source, "private") && is.list(cb) && is_num1(cb$first_rows) && is_num1(n_hat)) {
    level <- if (is_num1(cb$max_level)) cb$max_level else column_bounds_defaults$max_level
    out$bounds_capped <- column_bounds_capped(cb$first_rows, n_hat, level)
  }
  # bounds given as a dp_column_bounds() release: its own (released) flag
  if (isTRUE(pr$bounds_guarantee$capped)) out$bounds_capped <- TRUE
  out$at_range <- range_end_columns(x, cols)
  out$beyond_range <- beyond_range_columns(x, cols, out$at_range)
  out$one_value <- setdiff(one_value_columns(x, cols), out$at_range)
  out$long_tail <- setdiff(long_tail_columns(x, cols), c(out$at_range, out$one_value))
  out$bound_inside <- setdiff(bound_inside_columns(x, cols), c(out$at_range, out$one_value, out$long_tail))
  diagnostics_level(out, x, cols)
}

# The mean step's clipping, from released quantities, on a covariance
# without bounds with a finite clip_mean C (`v`: the variances, one-sided):
# the mean of rows clipped at C lies within C of 0, and near it only when
# the rows lie near the sphere of radius C on one side; and rows no longer
# than C have a mean squared norm ||mu||^2 + tr(Sigma) of at most C^2. Both
# at once (the released mean at 0.8 C or more, and its square plus the
# released variances beyond C^2) say rows were clipped there and the mean is
# of the clipped rows: shrunk toward 0, and the covariance, centred at it,
# inflated by the shift (data of mean 50 and sd 1 under C = 40: variances
# near 700); rows all near one norm below C show the first and not the
# second. `mean_clip_fill` is the mean's norm over C, `mean_clip_excess` the
# mean squared norm over C^2, both one-sided with a margin of z = 3 noise
# sds (`raw`: the variances less the PSD lift and ridge; `dsd` their noise
# sds): rows exactly at C (unit rows under C = 1) have an excess of exactly
# 1, which a margin of one sd let noise push over it in 3-8% of releases.
mean_clip_check <- function(out, x, raw, dsd, n_hat) {
  C <- x$params$clip_mean
  z <- dp_diagnostic_thresholds$mean_clip[["z"]]
  m <- released_mean_norm(x, n_hat, z)
  if (!is_num1(C) || !is.finite(C) || C <= 0 || is.na(m)) return(out)
  out$mean_clip_fill <- m / C
  out$mean_clip_excess <- (m^2 + sum(pmax(0, raw - z * dsd))) / C^2
  out
}

# The released mean's distance from 0, one-sided (less its noise's likely
# norm: the norm of the noise vector plus z of its largest sd); NA without
# a mean or its noise.
released_mean_norm <- function(x, n_hat, z = dpcov_lower_sd()) {
  center <- x$center
  if (!is.numeric(center) || is.object(center) || length(center) != x$p || !all(is.finite(center))) return(NA_real_)
  msd <- mean_noise_sd(x, n_hat)
  if (is.null(msd) || !all(is.finite(msd))) return(NA_real_)
  max(0, sqrt(sum(center^2)) - sqrt(sum(msd^2)) - z * max(msd))
}

# dp_cov()'s one pass over statistics: `clip` bounds the rows themselves
# (uncentred), read by clip_fill with the mean's square.
clip_one_pass <- function(x) isTRUE(x$params$passes == 1) && identical(x$scale, "covariance")

# Nearly every row clipped (clip_fill): from 0.8; on one pass from 0.95,
# where rows just inside the clip also fill it.
clip_fill_hit <- function(d, x) {
  th <- dp_diagnostic_thresholds
  isTRUE(d$clip_fill >= if (clip_one_pass(x)) th$clip_fill_one_pass else th$clip_fill)
}

# The mean step's clipping (mean_clip_check()), as a grade: 0 where it is
# not said; said where the mean is near the clip and the mean squared norm
# beyond it, "noisy" (1), and "mostly noise" (2) where the mean sits at the
# clip (the shift's size is not in the release: the mean at the clip itself
# leaves any size possible, graded as a release not to use as it stands).
mean_step_grade <- function(d) {
  th <- dp_diagnostic_thresholds$mean_clip
  if (!(isTRUE(d$mean_clip_fill >= th[["fill"]]) && isTRUE(d$mean_clip_excess >= th[["excess"]]))) return(0L)
  if (d$mean_clip_fill >= th[["mostly_fill"]]) 2L else 1L
}

# Clamping and clipping, from released quantities: on a covariance with
# bounds (public, private or tightened), each column's released sd over its
# bounds' width (at most 1/2, for two values at the ends; from 0.4 on most of
# the column sits at its bounds); without bounds, a finite row-norm clip, the
# released mean squared row norm over clip^2 (at most 1: near it, nearly
# every row was clipped). Both one-sided: the released values less the PSD
# projection's lift and their noise sd, so noise alone does not raise them.
clamp_checks <- function(out, x, sd, n_hat, cols) {
  pr <- x$params
  # logical columns bounded by their coding (params$coded_columns) sit at
  # their bounds by design
  uncoded <- function(ab) if (is.character(pr$coded_columns)) ab[!names(ab) %in% pr$coded_columns] else ab
  p <- x$p
  E <- x$estimate
  # compressed rows (m x p) are no second-moment matrix: no diagonal to read
  if (x$scale == "compressed rows") return(out)
  if (x$scale == "correlation") {
    ab <- pr$covariance_diagnostics$at_bounds
    if (is.numeric(ab) && !is.object(ab) && length(ab) == p && !anyNA(ab)) out$at_bounds <- uncoded(stats::setNames(ab, cols))
    return(out)
  }
  lift <- psd_lift(x)
  dsd <- if (is.null(sd)) rep(0, p) else diag(sd)
  ridge <- ridge_on_scale(x)
  v <- pmax(0, diag(E) - ridge - lift - dpcov_lower_sd() * dsd)
  b <- release_bounds(x)
  # one pass (statistics of the rows clipped once, uncentred): `clip` bounds
  # the rows themselves, and the mean squared row norm adds the mean's square
  one_pass <- clip_one_pass(x)
  if (is.null(b) && is.null(pr$box_scale) && x$scale == "covariance" && !one_pass) {
    out <- mean_clip_check(out, x, diag(E) - ridge - lift, dsd, n_hat)
  }
  if (!is.null(b) && x$scale == "covariance") {
    out$at_bounds <- uncoded(stats::setNames(bounds_fill(v, x, b, n_hat), cols))
  } else if (is.null(b) && is.null(pr$box_scale) && is_num1(x$clip) && is.finite(x$clip) && x$clip > 0 &&
             is_num1(n_hat <- fill_rows(x, n_hat)) && n_hat > 0) {
    # the trace per row: a sum over n, a posterior draw rescaled to the sum
    per_row <- switch(x$scale, covariance = 1, average = 1, sum = , "sum + ridge" = 1 / n_hat,
                      "posterior sample" = if (is_num1(pr$df) && pr$df > p + 1) (pr$df - p - 1) / n_hat else NA_real_,
                      NA_real_)
    if (!is.na(per_row)) {
      tr <- sum(diag(E) - ridge - lift) - dpcov_lower_sd() * sqrt(sum(dsd^2))
      if (one_pass) tr <- max(0, tr) + released_mean_norm(x, n_hat)^2
      out$clip_fill <- max(0, tr * per_row) / x$clip^2
    }
  }
  out
}

# What a fill of the clip from 0.8 says. Counted over the ones column's
# entry (fill_rows()), which clipping shrinks, a fill above 1 is rows
# clipped, not necessarily nearly all of them.
clip_fill_message <- function(d, x) {
  fmt <- function(v) format(signif(v, 2), big.mark = ",", decimal.mark = ".", scientific = abs(v) >= 1e7)
  by_ones <- is.na(release_n_hat(x)) && is_num1(x$params$ones_column)
  if (by_ones) {
    return(sprintf(paste0("many rows were clipped: the released mean squared row norm, counted over the released entry ",
                          "of the column of ones (which the clip shrinks too), is %s%% of clip^2 = %s, so the estimate ",
                          "is of rows shrunk toward 0, biased, and that count of the rows is short of n; give a larger ",
                          "`clip` or public bounds (lower/upper)."), fmt(100 * d$clip_fill), fmt(x$clip^2)))
  }
  sprintf(paste0("nearly every row was clipped: the released mean squared row norm is %s%% of clip^2 = %s ",
                 "(its most), so the estimate is of the rows shrunk to the clip, biased toward 0; give a larger ",
                 "`clip` or public bounds (lower/upper)."), fmt(100 * min(1, d$clip_fill)), fmt(x$clip^2))
}

# The rows the fill of the clip is judged over: n (public or a noisy count),
# else the released entry of the ones column (ones_entry()). It counts
# sum s_i^2 (s_i the clip's shrink factors), short of n by the clipping, so
# the fill it gives exceeds 1 where rows were clipped: add/remove fits on a
# clip that shrank 43% of the rows were graded "ok" with no count.
fill_rows <- function(x, n_hat) {
  if (is_num1(n_hat) && n_hat > 0) return(n_hat)
  ones <- ones_entry(x)
  if (is_num1(ones) && ones > 0) ones else NA_real_
}

# The released entry of a release's column of ones (dp_lm()'s design
# [1, x, y], `params$ones_column`) on the sum's scale (JL's ridge removed, a
# posterior draw rescaled): its private count of the rows; NA without one.
ones_entry <- function(x) {
  j <- x$params$ones_column
  if (!is_num1(j)) return(NA_real_)
  tryCatch(release_sum(x, NA_real_)[j, j], error = function(e) NA_real_)
}

# The number of rows behind a release's bounds' labels (the clamped share,
# the capped first stage): public, the noisy count (Analyze Gauss), or the
# ones entry (the Gram mechanisms in dp_lm(); it was read with JL's ridge,
# and the tightened bounds' share with no count at all, 1 row).
released_rows <- function(x) {
  if (!is.na(x$n)) return(x$n)
  if (is_num1(x$params$n_noisy)) return(x$params$n_noisy)
  ones_entry(x)
}

# Each column's released sd (one-sided, `v` its variance) over twice the
# most any data within its bounds can have at its released mean: by the
# Bhatia-Davis inequality a variance is at most (mean - lower)(upper - mean),
# reached only by two values at the ends. Where the mean lies midway that is
# sd / width, as before; off-centre it reads higher, so a column sitting at
# both bounds reads 1/2 wherever its mean lies (a 0/1 column with 2% ones
# whose ones a tightened upper bound clamped to 0.48 read 0.13 against the
# width, graded "ok", its slope 3.3 times the truth). One-sided too: the mean
# is taken its noise sd (lower_sd of them) towards the middle, so noise on
# the mean does not raise it; without a mean or its noise, or with the mean
# at or beyond a bound (said by the mean's own check), sd / width.
bounds_fill <- function(v, x, b, n_hat) {
  sqrt(v) / (b$upper - b$lower) / bounds_mid_share(x, b, n_hat)
}

# Per column, twice the largest sd data within the bounds can have at the
# released mean (one-sided, as in bounds_fill()) over the width: 1 for a mean
# midway (or unknown, or at or beyond a bound), below 1 off-centre.
bounds_mid_share <- function(x, b, n_hat = release_n_hat(x)) {
  w <- b$upper - b$lower
  m <- x$center
  msd <- mean_noise_sd(x, n_hat)
  one <- rep(1, length(w))
  if (!is.numeric(m) || is.object(m) || length(m) != x$p || is.null(msd) || length(msd) != x$p) return(one)
  m <- as.numeric(m)
  k <- dpcov_lower_sd() * msd
  mid <- (b$lower + b$upper) / 2
  at <- pmin(pmax(mid, m - k), m + k)
  share <- 2 * sqrt(pmax(0, (at - b$lower) * (b$upper - at))) / w
  ok <- is.finite(share) & share > 0 & m > b$lower & m < b$upper
  ifelse(ok, pmin(1, share), 1)
}

dpcov_lower_sd <- function() dp_diagnostic_thresholds$lower_sd

# The scales whose estimate carries a public ridge (`ridge`; 0 on the others).
ridge_scales <- c("sum + ridge", "posterior sample")

# A release's public ridge on its estimate's scale (0 where its scale carries
# none): a posterior draw estimates (A'A + w I) / (df - p - 1).
ridge_on_scale <- function(x) {
  ridge <- if (is_finite_num(x$ridge) && x$scale %in% ridge_scales) x$ridge else 0
  if (x$scale != "posterior sample") return(ridge)
  df <- x$params$df
  if (is_num1(df) && df > x$p + 1) ridge / (df - x$p - 1) else 0
}

# How much the PSD projection raised each released variance (params$psd_shift,
# where recorded; else 0).
psd_lift <- function(x) {
  s <- x$params$psd_shift
  if (is_finite_num(s) && length(s) == x$p) pmax(0, s) else rep(0, x$p)
}

# The median over pairs of the off-diagonal correlation-scale noise sds (NaN,
# a variance within its noise: Inf).
median_correlation_noise <- function(cs) {
  off <- cs[upper.tri(cs)]
  off[!is.finite(off) | is.na(off)] <- Inf
  stats::median(off)
}

# A correlation's noise checks: those of the noisy covariance it scales,
# kept by dp_cov() and dp_as_cov() in params$covariance_diagnostics (values
# of the wrong shape, as a hand-made release may hold, are left out).
correlation_checks <- function(out, cd, p, cols) {
  if (!is.list(cd)) return(out)
  num <- function(v, len) is.numeric(v) && !is.object(v) && length(v) == len && !anyNA(v) && all(v >= 0)
  for (f in c("noise_frobenius", "signal_frobenius", "noise_to_signal", "mean_clip_fill", "mean_clip_excess")) {
    if (num(cd[[f]], 1L)) out[[f]] <- cd[[f]]
  }
  for (f in c("variance_noise", "mean_noise_sd", "mean_noise")) {
    if (num(cd[[f]], p)) out[[f]] <- stats::setNames(as.numeric(cd[[f]]), cols)
  }
  out
}

#' @rdname release_diagnostics
#' @export
print.dp_diagnostics <- function(x, ...) {
  check_object(x, "dp_diagnostics", list(
    level = function(v) is_string(v) && v %in% c("ok", "noisy", "mostly noise"), messages = is.character,
    noise_to_signal = function(v) is.numeric(v) && length(v) == 1L && is.null(dim(v)) && !is.object(v) && !isTRUE(v < 0)))
  print_diagnostics(x)
  print_noise_warnings(x)
  invisible(x)
}

#' The thresholds of [release_diagnostics()] (documented there).
#' @noRd
dp_diagnostic_thresholds <- list(ratio = c(noisy = 0.5, mostly = 1), count = c(noisy = 0.1, mostly = 0.5),
                                 clipped = c(noisy = 0.1, mostly = 0.5), lower_sd = 1, at_bounds = 0.4,
                                 at_bounds_clamped = 0.45,
                                 clip_fill = 0.8,
                                 # a thresholded release: the correlation a zeroed pair can hold
                                 threshold_hidden = 0.5,
                                 clip_fill_one_pass = 0.95,
                                 mean_clip = c(fill = 0.8, excess = 1.05, mostly_fill = 0.9, z = 3),
                                 correlation = c(noisy = 0.1, mostly = 0.25),
                                 piled_mean_sd = 0.02)

# Why a private mean lies outside its bounds, per column: noise small
# against the range (sd under th$piled_mean_sd of it) cannot carry the mean
# past an edge from inside, so the mean of the clamped values is at that
# edge and the column was clamped to it (public bounds narrower than the
# data were said to be "dominated by noise", with the advice to narrow
# them); otherwise the noise did. `mean_sd`: the means' noise sds (NULL or
# NA: unknown, the noise), `width`: the bounds' ranges, `at_edge`: the mean
# was clamped to the edge (on the box); a mean beyond its bounds by a margin
# was not made from these bounds' clamped values (a hand-made release).
outside_bounds_cause <- function(mean_sd, width, at_edge) {
  piled <- is.numeric(mean_sd) & !is.na(mean_sd) & mean_sd <= dp_diagnostic_thresholds$piled_mean_sd * width
  if (!length(piled)) piled <- rep(FALSE, length(width))
  piled <- piled & at_edge
  piled[is.na(piled)] <- FALSE
  # (small noise puts the true mean within a few noise sds of the edge, not
  # beyond it: a skewed column inside generous bounds, poptotal in [0, 1e7]
  # with its mean 1.2 sds from 0, was said to lie beyond it and be clamped)
  ifelse(piled, paste0(": its noise (sd under 2% of that range) puts its mean within a few noise sds of that edge, so ",
                       "either the column's values lie mostly at or beyond that edge and were clamped to it (its ",
                       "variance and covariances then lost to the clamping, not to noise; bounds that cover the data ",
                       "keep them), or its mean lies that close to the edge (a skewed column inside wide bounds) and ",
                       "the noise carried it across"),
         ": the release is dominated by noise")
}

# Per column of a release on the box, whether its noisy mean was clamped to
# the box's edge before release (params$box_center at -1/2 or 1/2); FALSE
# for every column of a release not on the box.
box_mean_clamped <- function(x) {
  bc <- x$params$box_center
  p <- ncol(x$estimate)
  if (is_finite_num(bc) && length(bc) == p) abs(bc) >= release_box_weights(x) / 2 else rep(FALSE, p)
}

# The weights of a release's weighted box (params$box_weights, dp_cov(box_weights
# = "frobenius")), 1 for the unit box; a malformed field of a hand-made
# release is refused, as a malformed box scale is.
release_box_weights <- function(x) {
  g <- x$params$box_weights
  if (is.null(g)) return(rep(1, x$p))
  if (!is_finite_num(g) || length(g) != x$p || any(g <= 0) || any(g > 1)) {
    abort("`x`: its `params$box_weights` is malformed (one weight in (0, 1] per column).", .arg = "x")
  }
  g
}

ratio_or_inf <- function(num, den) if (is.na(num) || is.na(den)) NA_real_ else if (den > 0) num / den else Inf

# The level of every check, the worst, and the plain-words messages.
diagnostics_level <- function(out, x, cols) {
  th <- dp_diagnostic_thresholds
  grade <- function(v, t) if (is.na(v)) 0L else if (v > t[["mostly"]]) 2L else if (v > t[["noisy"]]) 1L else 0L
  fmt <- function(v) format(signif(v, 2), big.mark = ",", decimal.mark = ".", scientific = abs(v) >= 1e7)
  lv <- 0L
  msgs <- character(0)
  grades <- integer(0)
  # each message with its grade: the noise warning raises one of the worst
  say <- function(m, g) {
    msgs <<- c(msgs, m)
    grades <<- c(grades, rep.int(as.integer(g), length(m)))
  }
  cor <- identical(x$scale, "correlation")
  # variances a thresholding set to exactly 0 (the released matrix shows it):
  # said first, for what it is; the noise and centring messages of those
  # columns, which follow from it, are left out
  pr <- x$params
  # (compressed rows' params$threshold is the truncation's, and their matrix
  # has no diagonal of variances: a zero column is no thresholded variance)
  thresholded <- (identical(pr$second_mechanism, "threshold") || is_num1(pr$threshold)) &&
    !isTRUE(pr$keep_diagonal) && !isTRUE(pr$second_moment$keep_diagonal) &&
    !identical(x$scale, "compressed rows")
  # (those thresholded before the PSD projection, which may have filled
  # them back in from a surviving covariance; and any it left at 0)
  zero_var <- if (thresholded && is.matrix(x$estimate)) {
    cols[sort(union(c(pr$thresholded_variances, pr$second_moment$thresholded_variances), which(diag(x$estimate) == 0)))]
  } else character(0)
  if (length(zero_var)) {
    w <- col_words(zero_var)
    # what moved a zeroed variance off 0, told apart: a conversion's centring
    # (dp_as_cov() subtracts the mean's square: the threshold's matrix is the
    # estimate plus it) or the PSD projection (from a surviving covariance).
    # (A correlation's diagonal is 1 whatever its variance became: no moving is read off it.)
    j <- match(zero_var, cols)
    now <- diag(x$estimate)[j]
    centred_at <- threshold_centring(x)
    before <- if (is.null(centred_at)) now else now + centred_at[j]^2
    filled <- !cor & before != 0
    moved <- !cor & now != before
    pronoun <- function(k) if (sum(k) > 1L) "them" else if (length(zero_var) > 1L) "one" else "it"
    say(sprintf(paste0("the variance%s of %s %s thresholded to 0 (below the threshold on the release's scale)%s%s: ",
                       "the release says nothing about %s. Thresholding suits sparse matrices whose variances ",
                       "are of one size; keep the diagonal (dp_threshold(keep_diagonal = TRUE)) or use Analyze Gauss."),
                w$s, col_list(zero_var), w$was,
                if (any(filled)) sprintf(", and the PSD projection filled %s in from a surviving covariance", pronoun(filled)) else "",
                if (any(moved)) sprintf(", and the centring at the given mean subtracted its square from %s", pronoun(moved)) else "",
                w$it), 2L)
    lv <- 2L
  }
  # entries the threshold set to 0 (released quantities only: the threshold,
  # the noise sd and the estimate): an estimate that reads any covariance
  # below t as 0 is accurate only for a sparse covariance. Graded by the
  # largest correlation a zeroed pair can hold (t over the pair's released
  # sds' product), not by how many entries survived: "every entry zeroed"
  # called a diagonal truth at 27 noise sds noisy, and one surviving entry
  # made a release that had zeroed correlations of 0.6 "ok"
  # (a release thresholded to 0 everywhere, variances too, is said above, once)
  tz <- if (length(zero_var) < length(cols)) threshold_zeroed(x)
  if (!is.null(tz) && tz$zeroed > 0L) {
    where <- sprintf("|entry| below t = %s%s, about %s noise sds", fmt(tz$t), tz$scale_words, fmt(tz$t / tz$sd))
    if (tz$hidden >= th$threshold_hidden) {
      say(sprintf(paste0("%d of %d off-diagonal entries were set to 0 by the threshold (%s), which for some of ",
                         "those pairs is a correlation of %s: correlations that large read as 0, so the release ",
                         "cannot tell them from none. More budget or rows lower t."),
                  tz$zeroed, tz$pairs, where, fmt(tz$hidden)), 1L)
      lv <- max(lv, 1L)
    } else {
      say(sprintf(paste0("%d of %d off-diagonal entries were set to 0 by the threshold (%s): the estimate reads any ",
                         "covariance below t as 0, which is accurate only if the covariance is sparse."),
                  tz$zeroed, tz$pairs, where), 0L)
    }
  }
  # a covariance with a variance <= 0 (a conversion keeps the matrix as
  # computed, no silent projection): no covariance has one
  # (a variance the threshold zeroed is said above, for what it is, also
  # when a centring then took it below 0)
  if (identical(x$scale, "covariance")) {
    dg <- diag(x$estimate)
    nonpos <- setdiff(cols[!(dg > 0)], zero_var)
    if (length(nonpos)) {
      w <- col_words(nonpos)
      say(sprintf(paste0("the variance%s of %s came out <= 0: the noise (or the centring) exceeds the variance; the ",
                         "matrix is kept as computed (not a covariance as it stands: project it to the PSD cone to use ",
                         "it as one), and more budget or rows make it smaller."), w$s, col_list(nonpos)), 1L)
      lv <- max(lv, 1L)
    }
  }
  if (length(out$one_value)) {
    # a point mass: the private bounds close on it and clamp the other rows
    w <- col_words(out$one_value)
    say(sprintf(paste0("the private bounds of %s are narrower than 1.5 times %s private spread: they closed on a value ",
                       "most rows share (a 0/1 column with few ones, a column that is mostly 0), or n * epsilon ",
                       "was too small to find %s spread, and clamp the other ",
                       "rows, so %s variance%s and covariances estimate those of the clamped data, possibly far below ",
                       "the truth; give public bounds (lower/upper) for %s."),
                col_list(out$one_value), w$its, w$its, w$its, w$s, w$it), 2L)
    lv <- 2L
  }
  if (length(out$at_range)) {
    rng <- format(signif(private_bounds_facts(x)$range, 3))
    # (with bounds given for other columns, a dp_column_bounds() release for
    # these alone cannot be given beside them: public bounds can)
    range_advice <- if (partial_bounds_release(x)) "give public bounds for them in lower/upper" else
      "give public bounds (lower/upper), or choose bounds with dp_column_bounds(range = ) and give them as `bounds`"
    far <- out$beyond_range
    near <- setdiff(out$at_range, far)
    if (length(far)) {
      w <- col_words(far)
      say(sprintf(paste0("the private bounds of %s reached the end of the range they were searched in (+/- %s), ",
                         "with the private median within a spread of it: %s, and every row there is clamped to ",
                         "it, so %s variance%s and covariances can be far off; %s."),
                  col_list(far), rng,
                  if (isTRUE(out$bounds_capped)) "n * epsilon was too small to place them, or the data lie beyond it" else
                    "the data lie beyond it", w$its, w$s, range_advice), 2L)
      lv <- 2L
    }
    if (length(near)) {
      say(sprintf(paste0("a private bound of %s reached the end of the range %s searched in (+/- %s): rows ",
                         "beyond it, if any, are clamped to it; if the data can exceed it, %s."),
                  col_list(near), col_words(near)$it_was, rng, range_advice), 1L)
      lv <- max(lv, 1L)
    }
  }
  if (length(out$long_tail)) {
    w <- col_words(out$long_tail)
    say(sprintf(paste0("the private bounds of %s are lopsided about %s private median (one more than %d times as ",
                       "far from it as the other): a long tail, or bounds the noise placed badly; the rows clamped ",
                       "beyond them (about %s%% at each end, more where a bound fell inside the data) can hold much ",
                       "of %s variance, so %s variance%s and covariances may be well below the truth; give public ",
                       "bounds (lower/upper) or more epsilon."),
                col_list(out$long_tail), w$its, as.integer(long_tail_asymmetry),
                format(signif(100 * private_bounds_facts(x)$clamped_share, 2)),
                w$its, w$its, w$s), 1L)
    lv <- max(lv, 1L)
  }
  if (length(out$bound_inside)) {
    w <- col_words(out$bound_inside)
    many <- length(out$bound_inside) > 1L
    say(sprintf(paste0("a private bound of %s%s lies within %s of its private spread of its private median, where ",
                       "bounds that hold a column lie some spreads out: it may clamp a large share of the rows ",
                       "(a column with two groups or a gap, or a bound the noise placed badly), so %s variance%s ",
                       "and covariances may be well below the truth; give public bounds (lower/upper) or more ",
                       "epsilon."),
                if (many) "each of " else "", col_list(out$bound_inside), format(bound_inside_spreads), w$its, w$s), 1L)
    lv <- max(lv, 1L)
  }
  if (isTRUE(out$bounds_capped)) {
    # the variances of such bounds are of the clamped data, however small
    # their noise: said before the noise messages
    given <- is.list(x$params$bounds_guarantee)
    partial <- partial_bounds_release(x)
    say(paste0(if (partial) "the bounds of the columns without public bounds were chosen privately" else
                 "the per-column bounds were chosen privately ",
               if (partial) "" else if (given) "(the dp_column_bounds() release given as `bounds`)" else "(no bounds given)",
               " with too little n * epsilon to find ",
               "the tails: they target the quartiles of every ", if (partial) "such ", "column or beyond, may miss the data, and can clamp a ",
               "quarter of a column's rows at each end or more, so the spreads are under-estimated (a column that is ",
               "mostly one value can get a variance near 0) and the release can be far off; give public bounds ",
               "(lower/upper) or more epsilon", if (given) " to dp_column_bounds()", "."), 1L)
    # "noisy", not "mostly noise": the refinement often finds the tails all
    # the same (n = 400, epsilon 4: relative error 0.22 with every release
    # capped), so a risk, said in words, not a verdict that warns
    lv <- max(lv, 1L)
  }
  if (isTRUE(out$noise_lost)) {
    say(paste0("the noise is below the rounding step of every released entry, so it was rounded away: the ",
               "estimate is the exact statistic, not a private one; calibrate the noise to the data's scale."), 2L)
    lv <- 2L
  }
  # a conversion whose noise the released quantities do not tell (a JL or
  # posterior release without its source's noise sd, a centring release
  # whose mean noise is not told) is not "ok" by default: at least "noisy",
  # and as noisy as the release it came from
  src_level <- match(pr$source_level, c("ok", "noisy", "mostly noise")) - 1L
  if (is.na(out$noise_to_signal) && is_string(pr$converted_from) && pr$converted_from != "covariance" &&
      length(src_level) == 1L && !is.na(src_level)) {
    g0 <- max(1L, src_level)
    # (each cause in its own words: a thresholded average that kept no entry
    # carries no noise to judge by, whatever its source)
    cause <- if (is.numeric(pr$center_noise_sd) && anyNA(pr$center_noise_sd)) {
      "its centring mean's noise is not known"
    } else if (isTRUE(out$noise_frobenius == 0)) {
      "the threshold set every entry of the release it came from to 0, so no entry carries noise to judge it by"
    } else if (identical(pr$converted_from, "posterior sample")) {
      "a posterior sample's noise is not a fixed calibration, and the source's noise sd was not kept"
    } else if (identical(pr$converted_from, "sum + ridge") && is_num1(pr$w2)) {
      "a JL release's noise is a plug-in of the matrix before conversion, which was not kept"
    } else "the noise of the release it came from is not recorded in it"
    say(sprintf(paste0("the noise of this conversion cannot be told from released quantities (%s); the release it ",
                       "was converted from was graded \"%s\"."), cause, pr$source_level), g0)
    lv <- max(lv, g0)
  }
  if (isTRUE(pr$center_numbers)) {
    say(paste0("centred at a mean given as numbers, counted as exact: if they are a release's (a dp_cov() center), ",
               "pass that release as `center` to have their noise counted here."), 0L)
  }
  g <- grade(out$noise_to_signal, th$ratio)
  if (g > 0L) {
    say(sprintf("at this n and epsilon the %s is %s (noise/signal = %s); %s.",
                if (cor) "covariance behind the correlations" else "estimate",
                if (g == 2L) "mostly noise" else "noisy", fmt(out$noise_to_signal), noise_advice(x)), g)
  }
  lv <- max(lv, g)
  if (length(out$outside_bounds)) {
    b <- release_bounds(x)
    i <- match(out$outside_bounds, cols)
    clamped <- box_mean_clamped(x)[i]
    say(sprintf("the private mean of `%s` %s its %s [%s, %s]%s%s.",
                out$outside_bounds, ifelse(clamped, "fell outside", sprintf("(%s) lies outside", vapply(x$center[i], fmt_value, ""))),
                bounds_words(x), vapply(b$lower[i], fmt_value, ""), vapply(b$upper[i], fmt_value, ""),
                ifelse(clamped, " and was clamped to their edge", ""),
                outside_bounds_cause(out$mean_noise_sd[out$outside_bounds], b$upper[i] - b$lower[i], clamped)), 2L)
    lv <- 2L
  }
  if (!is.na(out$n_noisy)) {
    g <- if (out$n_noisy < 2) 2L else grade(out$n_relative_noise, th$count)
    if (g > 0L) {
      say(sprintf("the noisy count of rows is %s (noise sd %s): %s.", fmt_count(out$n_noisy), fmt(out$n_noise_sd),
                  if (g == 2L) "noise dominates the count, and every average divides by it" else
                    "averages divide by an uncertain count"), g)
    }
    lv <- max(lv, g)
  }
  if (length(out$mean_noise)) {
    gm <- vapply(out$mean_noise, grade, 0L, t = th$ratio)
    gm[names(out$mean_noise) %in% zero_var] <- 0L
    if (any(gm > 0L)) {
      j <- which(gm == max(gm))
      # a correlation holds no spread: its covariance's, before scaling
      spread <- if (cor) "the spread" else sprintf("the released spread (sd %s)",
        paste(vapply(sqrt(pmax(0, diag(x$estimate)))[j], fmt, ""), collapse = ", "))
      say(sprintf("the private mean of %s is uncertain by about %s (noise sd), %s %s: the centring is %s.",
                  col_list(cols[j]), paste(unique(vapply(out$mean_noise_sd[j], fmt, "")), collapse = ", "),
                  if (max(gm) == 2L) "more than" else "a large part of", spread,
                  if (max(gm) == 2L) "mostly noise" else "noisy"), max(gm))
      lv <- max(lv, gm)
    }
  }
  if (length(out$variance_noise)) {
    gv <- vapply(out$variance_noise, grade, 0L, t = th$ratio)
    gv[names(out$variance_noise) %in% zero_var] <- 0L
    if (any(gv > 0L)) {
      j <- which(gv == max(gv))
      worst <- if (max(gv) == 2L) "mostly noise" else "noisy"
      w <- col_words(cols[j])
      say(if (cor) {
        sprintf(paste0("the variance%s of %s in the covariance behind the correlations %s %s (noise sd against value less noise): ",
                       "the correlations of %s are %s."), w$s, col_list(cols[j]),
                w$is, worst, if (length(j) > 1L) "these variables" else "this variable", worst)
      } else {
        what <- if (x$scale %in% c("covariance", "average")) "variance" else "diagonal entry"
        sprintf("the released %s%s of %s %s %s (judged by %s noise sd against %s released value less that noise).",
                if (length(j) > 1L) sub("y$", "ie", what) else what, w$s, col_list(cols[j]),
                w$is, worst, w$its, w$its)
      }, max(gv))
      lv <- max(lv, gv)
    }
  }
  gc <- if (is_num1(out$correlation_noise, na_ok = TRUE) || identical(out$correlation_noise, Inf)) {
    grade(out$correlation_noise, th$correlation)
  } else 0L
  if (gc > 0L) {
    # (after the variances: a variance within its noise makes its pairs' Inf)
    say(sprintf(paste0("the %s off-diagonal entries are %s on the correlation scale: their noise sd %s ",
                       "against correlations in [-1, 1]; %s."),
                if (cor) "correlations'" else "covariance's", if (gc == 2L) "mostly noise" else "noisy",
                if (is.finite(out$correlation_noise)) {
                  paste("is about", fmt(out$correlation_noise), "(median over the pairs)")
                } else "has no bound (in the median pair a variance is within its noise)",
                noise_advice(x)), gc)
    lv <- max(lv, gc)
  }
  at <- out$at_bounds
  over <- at_bounds_over(at)
  if (length(over)) {
    say(at_bounds_over_message(over, x), 2L)
    lv <- 2L
    at <- at[!names(at) %in% over]
  }
  if (length(at) && any(at >= th$at_bounds, na.rm = TRUE)) {
    v <- names(at)[which(at >= th$at_bounds)]
    hard <- at_bounds_clamped(at, x, out)
    if (length(hard)) say(at_bounds_message(hard, x), 2L)
    soft <- setdiff(v, hard)
    if (length(soft)) say(at_bounds_message(soft, x, ambiguous = TRUE), 1L)
    lv <- max(lv, if (length(hard)) 2L else 1L)
  }
  if (clip_fill_hit(out, x)) {
    say(if (clip_one_pass(x)) {
      sprintf(paste0("nearly every row was clipped, or lies at the clip: the released mean squared row norm (the ",
                     "mean's square with the variances) is %s%% of clip^2 = %s (its most), so rows beyond the clip ",
                     "were shrunk to it, biasing the mean and the covariance toward 0; give a larger `clip` or ",
                     "public bounds (lower/upper)."), fmt(100 * min(1, out$clip_fill)), fmt(x$clip^2))
    } else clip_fill_message(out, x), 1L)
    lv <- max(lv, 1L)
  }
  g <- mean_step_grade(out)
  if (g > 0L) {
    say(sprintf(paste0("the rows were clipped in the mean step: the released mean lies %s%% of `clip_mean` = %s ",
                       "from 0 (its most, reached when every row is clipped there, all on one side), and with the ",
                       "released variances the rows' mean squared norm is %s times clip_mean^2, which rows within it ",
                       "cannot exceed; so the mean is shrunk toward 0 and the covariance, centred at it, is inflated ",
                       "(and a correlation scaled from it biased). ",
                       "Give a larger `clip_mean` (above the rows' norms) or public bounds (lower/upper)."),
                fmt(100 * min(1, out$mean_clip_fill)), fmt(x$params$clip_mean), fmt(out$mean_clip_excess)), g)
    lv <- max(lv, g)
  }
  out$level <- c("ok", "noisy", "mostly noise")[lv + 1L]
  out$messages <- msgs
  out$message_levels <- c("ok", "noisy", "mostly noise")[grades + 1L]
  structure(out, class = "dp_diagnostics")
}

# The mean a conversion (dp_as_cov()) subtracted the square of (its centre),
# NULL for a release not centred by conversion: the matrix the threshold
# acted on is then the estimate plus center center'.
threshold_centring <- function(x) {
  mu <- x$center
  if (is_string(x$params$converted_from) && !is.null(x$params$center_noise_sd) && is.numeric(mu) && length(mu) == x$p) mu
}

# A thresholded release's off-diagonal entries set to 0, from released
# quantities: the threshold t and the noise sd (dp_threshold()'s, or dp_cov()'s
# threshold step's), and the entries exactly 0 (of the estimate plus the
# centre's square where dp_as_cov() centred it). NULL where it cannot be told:
# p = 1, a correlation (its zeros are scaled ones), dp_cov()'s one pass (the
# released mean's square is added back), t or the sd not a number > 0.
threshold_zeroed <- function(x) {
  pr <- x$params
  p <- x$p
  if (p < 2L || !is.matrix(x$estimate) || !x$scale %in% c("average", "covariance")) return(NULL)
  step <- if (identical(pr$second_mechanism, "threshold")) pr$second_moment else if (is.null(pr$second_mechanism)) pr
  if (!is.list(step) || !is_num1(step$threshold) || !(step$threshold > 0) || !is_num1(step$noise_sd) ||
      !(step$noise_sd > 0) || identical(pr$passes, 1)) {
    return(NULL)
  }
  M <- x$estimate
  mu <- threshold_centring(x)
  if (!is.null(mu)) M <- M + tcrossprod(mu)
  up <- upper.tri(M)
  # the largest correlation a zeroed pair can hold: t over the root product
  # of the pair's released variances (pairs with a variance <= 0 are said
  # elsewhere)
  d <- diag(M)
  z <- up & M == 0 & outer(d > 0, d > 0, "&")
  hidden <- if (any(z)) max((step$threshold / sqrt(outer(pmax(d, 0), pmax(d, 0))))[z]) else 0
  list(t = step$threshold, sd = step$noise_sd, zeroed = sum(M[up] == 0), pairs = sum(up), hidden = hidden,
       # (on a box of bounds the threshold acts on the box's matrix; dp_cov()'s on its step's average)
       scale_words = if (!is.null(pr$second_mechanism)) " on the threshold step's scale" else
         if (!is.null(pr$box_scale)) " on the box scale" else "")
}

col_list <- function(v) paste0("`", v, "`", collapse = ", ")

# The words that agree with a message's columns `v`, one or several.
col_words <- function(v) {
  one <- length(v) <= 1L
  list(its = if (one) "its" else "their", it = if (one) "it" else "them", s = if (one) "" else "s",
       verb_s = if (one) "s" else "", is = if (one) "is" else "are", was = if (one) "was" else "were", it_was = if (one) "it was" else "they were")
}

# What was released with a release's private bounds (range, center, scale,
# clamped_share): the default's own (params$column_bounds), or those of a
# dp_column_bounds() release given as `bounds` (params$bounds_guarantee);
# NULL for public bounds.
private_bounds_facts <- function(x) {
  pr <- x$params
  if (identical(pr$bounds_source, "private") && is.list(pr$column_bounds)) return(pr$column_bounds)
  if (is.list(pr$bounds_guarantee) && !is.null(pr$bounds_guarantee$range)) return(pr$bounds_guarantee)
  NULL
}

# A per-column field of the private bounds as released (center, scale): a
# non-empty named numeric vector; hand-made ones may be anything.
is_column_field <- function(v) is.numeric(v) && !is.object(v) && length(v) > 0L && !is.null(names(v))

# Columns of a release on private bounds one of which reached the end of the
# public search range (params$column_bounds$range, dp_column_bounds()'s
# `range`): the data may extend far beyond it, and every row there is
# clamped to it. Released quantities only.
range_end_columns <- function(x, cols) {
  cb <- private_bounds_facts(x)
  b <- release_bounds(x)
  if (!is.list(cb) || !is_num1(cb$range) || is.null(b)) return(character(0))
  # (only bounds chosen from the data were searched in the range)
  from_data <- bounds_from_data(x)[cols] %in% TRUE
  cols[from_data & (abs(b$lower) >= cb$range * (1 - 1e-6) | abs(b$upper) >= cb$range * (1 - 1e-6))]
}

# Of those, the columns whose private median lies within one private spread
# of the range's end, or outside the column's own bounds: most of the data
# is there, not just a tail (a column of amounts in the billions). A column
# whose tail merely comes near the end (uniform on [0, 9.5e5]) has its upper
# bound there too, and is not among them.
beyond_range_columns <- function(x, cols, at) {
  cb <- private_bounds_facts(x)
  if (!length(at) || !is.list(cb) || !is_num1(cb$range)) return(character(0))
  ce <- cb$center
  sc <- cb$scale
  if (!is_column_field(ce) || !is_column_field(sc)) return(at)  # no median released: taken at its worst
  m <- ce[at]
  s <- sc[at]
  s[is.na(s)] <- 0
  # or the median outside its own bounds: on the coarse axis near the end the
  # median's bin is wide, and the bounds closed on the clamped values past it
  b <- release_bounds(x)
  j <- match(at, cols)
  outside <- if (is.null(b)) FALSE else m <= b$lower[j] | m >= b$upper[j]
  at[is.na(m) | abs(m) + abs(s) >= cb$range * (1 - 1e-6) | outside %in% TRUE]
}

# Columns of a release on private bounds with a long tail: one bound more
# than long_tail_asymmetry times as far from the private median
# (params$column_bounds$center) as the other, where the bounds clamp at
# least long_tail_share of the rows at each end. Normal data put them about
# equally far (ratios of 1-2 in 10 releases per cell, n 5000), exponential
# 3-9 times, lognormal, populations and incomes 5-100 times, and there the
# few clamped rows can hold much of the variance (at 1% clamped: exponential
# 0.87-0.95 of it released, lognormal 0.56-0.64, midwest's poptotal 0.13;
# bench/long-tail.R; bench/RESULTS.md, "Beyond the benchmark's data
# sets"). A ratio of distances, so the private spread's noise stays out of
# it. Released quantities only.
#
# Below that share (large n epsilon, the bounds near the data's ends) the
# check would flag every skewed column whose variance is kept (exponential,
# chi-square, diamonds' prices: ratios 4-16, 99% of the variance kept), and
# the gate alone let the heaviest tails pass unsaid (lognormal with sdlog
# 2.5 at n 5000, epsilon 4: 4% of the variance released, "ok"). There the
# share times the ratio squared is the gate: a tail reaching k times as far
# as the bulk's side holds about share * k^2 of the bulk's spread squared
# beyond the bound. At 1 or more (bench/RESULTS.md, "The long-tail check
# at large n epsilon"): lognormal with sdlog 2 and 2.5, Pareto 1.5, at
# 4-73% of the variance kept, against at most 0.28 for the columns that
# keep 93% or more.
long_tail_asymmetry <- 4
long_tail_share <- 0.005
long_tail_risk <- 1
long_tail_columns <- function(x, cols) {
  cb <- private_bounds_facts(x)
  b <- release_bounds(x)
  if (!is.list(cb) || is.null(b) || !is_num1(cb$clamped_share)) return(character(0))
  share <- cb$clamped_share
  ce <- cb$center
  if (!is_column_field(ce)) return(character(0))
  j <- match(names(ce), cols)
  keep <- !is.na(j) & is.finite(ce)
  if (!any(keep)) return(character(0))
  j <- j[keep]
  up <- b$upper[j] - ce[keep]
  lo <- ce[keep] - b$lower[j]
  skew <- ifelse(up > 0 & lo > 0, pmax(up / lo, lo / up), Inf)
  # (which(): a hand-made share of 0 with a bound at Inf gives 0 * Inf)
  cols[j][which(skew > long_tail_asymmetry & (share >= long_tail_share | share * skew^2 >= long_tail_risk))]
}

# Columns of a release on private bounds with a bound within
# bound_inside_spreads of their private spread (params$column_bounds$scale)
# from their private median: a column's bounds hold most of it only some
# spreads out (the data's own ends: 1.4 spreads below the median for
# exponential data, about 1 on the short side of the heaviest right tails,
# 3 or more for normal data), so such a bound may clamp a large share
# of the rows (iris' Petal.Length, two groups: a lower bound 0.6 spreads
# below the median clamped 37% of it). Released quantities only.
bound_inside_spreads <- 0.75
bound_inside_columns <- function(x, cols) {
  cb <- private_bounds_facts(x)
  b <- release_bounds(x)
  if (!is.list(cb) || is.null(b)) return(character(0))
  ce <- cb$center
  sc <- cb$scale
  if (!is_column_field(ce) || !is_column_field(sc)) return(character(0))
  nm <- intersect(names(ce), names(sc))
  j <- match(nm, cols)
  keep <- !is.na(j) & is.finite(ce[nm]) & is.finite(sc[nm]) & sc[nm] > 0
  if (!any(keep)) return(character(0))
  nm <- nm[keep]
  j <- j[keep]
  near <- pmin(b$upper[j] - ce[nm], ce[nm] - b$lower[j])
  cols[j][near < bound_inside_spreads * sc[nm]]
}

# Columns of a release on private bounds narrower than 1.5 times their private
# spread (the median absolute deviation the bounds' mechanism chose,
# params$column_bounds$scale): bounds that hold most of a column span several
# of its spreads (about 8 for normal, exponential or lognormal data), so such
# bounds closed on a value most rows share (a 0/1 column with few ones, a
# zero-inflated amount: Boston's zn got [-0.005, 0.0098] against a spread of
# 0.04) and clamp the rest. Released quantities only.
# (1.5, not 2: a column of two groups at its ends has a spread of half its
# range, so bounds that hold it are only twice as wide, and a bound a little
# inside read as closed on one value; Boston's zn: 0.37)
one_value_spreads <- 1.5
one_value_columns <- function(x, cols) {
  if (!is.list(x$params$column_bounds)) return(character(0))
  sc <- x$params$column_bounds$scale
  b <- release_bounds(x)
  if (!identical(x$params$bounds_source, "private") || !is.numeric(sc) || is.object(sc) || is.null(b)) {
    return(character(0))
  }
  if (is.null(names(sc))) {
    if (length(sc) != length(cols)) return(character(0))
    names(sc) <- cols  # unnamed columns: in order
  }
  keep <- names(sc) %in% cols
  sc <- sc[keep]
  if (!length(sc)) return(character(0))
  j <- match(names(sc), cols)
  w <- b$upper[j] - b$lower[j]
  names(sc)[is.finite(sc) & is.finite(w) & w < one_value_spreads * sc]
}

# The columns whose released spread fills their bounds, in words, with what
# to give instead by where their bounds came from. `ambiguous`: the spread
# does not tell clamping from a column with two values or two groups near
# its ends (public bounds, public ones the tightening kept, or a released sd
# short of at_bounds_clamped); then one message for the columns on public
# bounds and one for those on bounds from the data.
at_bounds_message <- function(v, x, ambiguous = FALSE) {
  from_data <- bounds_from_data(x)
  on_public <- v[!from_data[v] %in% TRUE]
  if (!ambiguous || !length(on_public)) return(at_bounds_words(v, x, ambiguous, public = FALSE))
  c(at_bounds_words(on_public, x, TRUE, public = TRUE),
    if (length(setdiff(v, on_public))) at_bounds_words(setdiff(v, on_public), x, TRUE, public = FALSE))
}

at_bounds_words <- function(v, x, ambiguous, public) {
  src <- x$params$bounds_source
  w <- col_words(v)
  kept <- public && identical(src, "public, tightened privately")
  where <- sprintf(paste0("most of %s %s at %s %s (a released sd 80%% or more of the largest sd any data within %s ",
                          "bounds can have at %s released mean, which only two values at the ends reach)"), col_list(v),
                   if (length(v) > 1L) "sit" else "sits", w$its,
                   if (kept) "public bounds, which the tightening kept" else
                     if (public && partial_bounds_release(x)) "public bounds" else bounds_words(x), w$its, w$its)
  advice <- if (identical(src, "public, tightened privately")) "use tighten = FALSE, or more epsilon" else
    if (!is.null(x$params$bounds_guarantee)) "give public bounds (lower/upper) that hold the data, or more epsilon to dp_column_bounds()" else
      "give public bounds (lower/upper, NA for the columns whose ranges are not known) that hold the data, or more epsilon"
  # the remedies for one column: its bounds alone (NA for the others), or,
  # for a 0/1 code, a logical column (a public schema), bounded by its
  # coding at no cost
  advice <- paste0(advice, "; a 0/1 code stored as numbers can be given as logical (e.g. x == 1), ",
                   "bounded by its coding [0, 1] at no cost")
  if (ambiguous) {
    if (public) {
      # public bounds: a 0/1 column at bounds [0, 1] looks the same as clamped data
      return(sprintf(paste0("%s: fine if %s only the two bound values (a 0/1 column); otherwise the bounds are ",
                            "narrower than the data, which were clamped to them, and %s spread%s and covariances are ",
                            "under-estimated: give wider bounds."), where, if (length(v) > 1L) "they take" else "it takes",
                     w$its, w$s))
    }
    # bounds from the data, the sd short of a two-point law's: two groups
    # near the ends (modes at +/- 10, sd 1: 0.41 with nothing clamped) or
    # clamping (a normal clamped at +/- 0.5 sd, 62% of its rows: 0.43)
    return(sprintf(paste0("%s: either the bounds chosen from the data clamp %s, or %s two values or two groups ",
                          "near %s ends; if clamped, %s spread%s and covariances are under-estimated (%s)."),
                   where, if (length(v) > 1L) "them" else "it", if (length(v) > 1L) "they have" else "it has",
                   w$its, w$its, w$s, advice))
  }
  sprintf(paste0("%s: bounds chosen from the data clamp %s, so %s spread%s and covariances are under-estimated ",
                 "(a two-valued column loses its values); %s."),
          where, if (length(v) > 1L) "them" else "it", w$its, w$s, advice)
}

# Whether a release message is one of at_bounds_message()'s.
is_at_bounds_message <- function(msgs) startsWith(msgs, "most of `")

# The columns whose released sd, less one noise sd, exceeds the most any
# data within their bounds can have at their released mean (at_bounds above
# 1/2, bounds_fill()): no data inside the bounds have it, so the noise
# inflated the variance; they were said to sit at their bounds, clamped,
# "spreads under-estimated" (swiss at epsilon 1: Education's sd 78.5 in
# [0, 100], its data's 9.6).
at_bounds_over <- function(at) {
  if (!length(at)) return(character(0))
  # (2% above half: a two-valued column's sd is exactly half, and a noisy
  # count's error scales the released variance past the margin the one
  # noise sd leaves)
  names(at)[which(at > 0.51)]
}

at_bounds_over_message <- function(v, x) {
  w <- col_words(v)
  sprintf(paste0("the released sd of %s exceed%s the largest sd any data within %s %s can have at %s released mean ",
                 "(two values at the ends reach it; half the width for a mean midway): the noise inflated %s ",
                 "variance%s, and what lies beneath cannot be told from the release: data inside the bounds, or data ",
                 "at them (two values at the ends, or data beyond them clamped: then wider bounds keep %s spread); ",
                 "more budget or more rows tell them apart."),
          col_list(v), w$verb_s, w$its, bounds_words(x), w$its, w$its, w$s, w$its)
}

# How much a column at its bounds says: with bounds chosen or tightened from
# the data, clamping ("mostly noise": the estimate is of other data); with
# public bounds "noisy", either way (a two-valued column sits there by design,
# clamped data look the same).
at_bounds_grade <- function(x) {
  src <- x$params$bounds_source
  if (identical(src, "private") || identical(src, "public, tightened privately") ||
      !is.null(x$params$bounds_guarantee)) 2L else 1L
}

# Whether a release's bounds were given for some columns and chosen
# privately for the others (dp_cov(), dp_lm() with NA bounds): bounds chosen
# privately that record the bounds given (params$public_bounds, NA where
# none was).
partial_bounds_release <- function(x) {
  identical(x$params$bounds_source, "private") && is.data.frame(x$params$public_bounds)
}

# Per column of a release (named by its columns), whether a bound came from
# the data: all of them where the bounds were chosen privately (the
# default's, a dp_column_bounds() release); with public bounds tightened
# privately, the columns one of whose bounds the tightening moved inside the
# public one (params$public_bounds): a bound it kept is public, where a
# column sitting at both ends may be a 0/1 column (a balanced one, kept at
# [0, 1], was called clamped); none with public bounds. Unreadable public
# bounds (a hand-made release): every column, as before they were recorded.
bounds_from_data <- function(x) {
  cols <- release_colnames(x)
  if (at_bounds_grade(x) < 2L) return(stats::setNames(rep(FALSE, length(cols)), cols))
  all_cols <- stats::setNames(rep(TRUE, length(cols)), cols)
  if (partial_bounds_release(x)) {
    # bounds given for some columns (NA for the others, chosen privately):
    # a column whose bounds are the ones given is on public bounds, matched
    # by name (dp_lm()'s Gram releases have a column of ones, without bounds)
    b <- x$params[["bounds"]]
    pb <- x$params$public_bounds
    rn <- rownames(pb)
    if (!is.numeric(pb$lower) || !is.numeric(pb$upper) || is.null(rn) || !identical(rownames(b), rn) ||
        !all(rn %in% cols)) return(all_cols)
    tol <- bounds_tolerance(b$lower, b$upper)
    given <- is.finite(pb$lower) & is.finite(pb$upper) & abs(b$lower - pb$lower) <= tol & abs(b$upper - pb$upper) <= tol
    out <- stats::setNames(rep(FALSE, length(cols)), cols)
    out[rn] <- !given
    return(out)
  }
  if (!identical(x$params$bounds_source, "public, tightened privately")) return(all_cols)
  b <- release_bounds(x)
  pb <- x$params$public_bounds
  if (is.null(b) || !is.data.frame(pb) || !is.numeric(pb$lower) || !is.numeric(pb$upper) ||
      length(pb$lower) != x$p || length(pb$upper) != x$p || !all(is.finite(pb$lower)) ||
      !all(is.finite(pb$upper))) return(all_cols)
  lo <- as.numeric(pb$lower)
  hi <- as.numeric(pb$upper)
  tol <- bounds_tolerance(lo, hi)
  stats::setNames(!(b$lower <= lo + tol & b$upper >= hi - tol), cols)
}

# The columns at their bounds that are clamped beyond doubt: bounds chosen or
# tightened from the data (bounds_from_data()) and a released sd of at least
# at_bounds_clamped (0.45) of the most data within them can have at the
# released mean, which a column inside its bounds reaches only with most of
# its rows within a few percent of the two ends; or of at least 0.4 where
# the first stage was capped at the quartiles (`d$bounds_capped`, the
# diagnostics so far), so the bounds sit inside every column. From 0.4
# otherwise, a column with two groups near its ends is as likely (said,
# "noisy"; bound_inside is no second sign: a median between two groups puts
# a bound within its spread in some releases, nothing clamped).
#
# On bounds chosen privately the measure is the released sd over the width
# (the fill of a mean midway), as before the fill: their refinement puts a
# bound anywhere beyond a column's last value, often within a few percent of
# it (a 0/1 column's upper bound at 1.01-1.11 in 11 of 40 of the default's
# releases, bench/binary-columns.R), where an off-centre two-valued column
# fills 0.43-0.48 of the room whether its ones were clamped or not (said as
# either, "noisy"). A tightened bound that moved lies inside the public one,
# which for a 0/1 column is its value: there the fill itself.
at_bounds_clamped <- function(at, x, d) {
  if (!length(at) || at_bounds_grade(x) < 2L) return(character(0))
  th <- dp_diagnostic_thresholds
  from_data <- bounds_from_data(x)[names(at)] %in% TRUE
  score <- at
  b <- release_bounds(x)
  if (!identical(x$params$bounds_source, "public, tightened privately") && !is.null(b)) {
    share <- stats::setNames(bounds_mid_share(x, b), release_colnames(x))[names(at)]
    score <- at * ifelse(is.na(share), 1, share)
  }
  names(at)[which(from_data & (score >= th$at_bounds_clamped | (score >= th$at_bounds & isTRUE(d$bounds_capped))))]
}

# no thousands mark: values go in pairs, "[lower, upper]"
fmt_value <- function(v) format(signif(v, 5), big.mark = "", scientific = abs(v) >= 1e9)

# A (noisy) count as printed: whole, with thousands marks.
fmt_count <- function(v) format(round(v), big.mark = ",", decimal.mark = ".", scientific = abs(v) >= 1e12)

# The n averages divide by: public, or the noisy count (floored at 2, as dp_cov() does).
release_n_hat <- function(x) {
  if (!is.na(x$n)) return(x$n)
  if (is_num1(x$params$n_noisy)) return(max(2, x$params$n_noisy))
  NA_real_
}

# What the release's bounds are, in words: public, chosen privately, or
# public ones tightened privately (params$bounds_source).
bounds_words <- function(x) {
  src <- x$params$bounds_source
  if (!is_string(src)) return("bounds")
  if (!is.null(x$params$bounds_guarantee) && src == "public") return("private bounds from dp_column_bounds()")
  switch(src, public = "public bounds", private = "private bounds",
         "public, tightened privately" = "privately tightened bounds", "bounds")
}

# A release's column names, "V1", "V2", ... where its estimate has none.
release_colnames <- function(x) colnames(x$estimate) %||% paste0("V", seq_len(ncol(x$estimate)))

# The tolerance within which a value counts as at a bound: the map back from
# the box rounds.
bounds_tolerance <- function(lower, upper) 1e-9 * pmax(upper - lower, abs(lower), abs(upper))

# Bounds recorded by the release (params$bounds, a data frame lower/upper;
# public, or chosen privately: params$bounds_source), or NULL.
release_bounds <- function(x) {
  b <- x$params[["bounds"]]
  if (is.null(b)) return(NULL)
  lo <- as.numeric(b$lower)
  hi <- as.numeric(b$upper)
  if (length(lo) != x$p || length(hi) != x$p || anyNA(lo) || anyNA(hi)) return(NULL)
  list(lower = lo, upper = hi)
}

# The width of each column's box, by which a box release's noise scales (1 without bounds).
release_box_scale <- function(x) {
  s <- x$params$box_scale
  if (is_finite_num(s) && length(s) == x$p) return(s)
  b <- release_bounds(x)
  if (is.null(b) || is.null(x$params$bounds_source)) return(rep(1, x$p))
  if (isTRUE(x$centred)) b$upper - b$lower else pmax(abs(b$lower), abs(b$upper))
}

# The noisy count's noise sd: dp_cov()'s count is the mean step's noisy
# (clip_mean * n), so sigma_mean / clip_mean.
count_noise_sd <- function(x) {
  pr <- x$params
  if (is_num1(pr$sigma_mean) && is_num1(pr$clip_mean) && pr$clip_mean > 0) pr$sigma_mean / pr$clip_mean else NA_real_
}

# The noise sd of the released mean, per column (in the data's units).
mean_noise_sd <- function(x, n_hat) {
  pr <- x$params
  if (!is_num1(pr$sigma_mean) || !is_num1(n_hat) || n_hat <= 0) return(NULL)
  pr$sigma_mean / n_hat * release_box_scale(x)
}

#' The standard deviation of the noise on each entry of a release's
#' estimate (a p x p matrix on the estimate's scale), from its `params`; NULL
#' where it cannot be told from released quantities. The mechanisms are
#' recognised as release_redraw() recognises them.
#'
#' `zeroed`: how an entry a threshold may have set to 0 (dp_threshold(),
#' dp_cov()'s threshold step) counts. "noise" (the release's diagnostics): the
#' noise it carries, none for a zeroed entry (it carries bias). "bound"
#' (dp_pca()'s component checks, which would read such a 0 as exact): its
#' error bound, zeroed_bound_sd().
#' @noRd
release_noise_sd <- function(x, zeroed = "noise") {
  pr <- x$params
  p <- x$p
  est <- x$estimate
  if (x$scale %in% c("compressed rows", "correlation")) return(NULL)
  from <- pr$converted_from
  if (x$scale == "covariance" && is_string(from) && from != "covariance") {
    # dp_as_cov() divided a sum by the public n: the noise was divided too (the
    # plug-in variances of JL and inverse-Wishart draws need the original matrix)
    if (from != "average" && is.na(x$n)) return(NULL)
    # the source's own, kept by dp_as_cov() (JL's and the posterior's plug-in
    # variances need the matrix before conversion); else from the parameters.
    # A thresholded source's bounds are taken from its own matrix (the kept
    # sd gives its zeroed entries none): the average, its centring put back
    bound <- identical(zeroed, "bound") && !is.null(pr$threshold)
    ssd <- pr$source_noise_sd
    sd <- if (!bound && is.matrix(ssd) && length(dim(ssd)) == 2L && all(dim(ssd) == p)) ssd else {
      if (!is.null(pr$w2) || !is.null(pr$psi)) return(NULL)
      y <- x
      y$scale <- from
      y$params$converted_from <- NULL
      if (bound && !is.null(pr$center_noise_sd)) {
        if (!is.numeric(x$center) || length(x$center) != p) return(NULL)
        y$estimate <- est + tcrossprod(x$center)
      }
      release_noise_sd(y, zeroed)
    }
    if (!is.null(sd) && from != "average") sd <- sd / x$n
    # centred at a released mean: its noise e enters as -(mu e' + e mu' + e e')
    # (mu the mean, sd s per column); numbers count as exact (sd 0); NA: not known
    cs <- pr$center_noise_sd
    if (!is.null(sd) && !is.null(cs)) {
      if (!is.numeric(cs) || length(cs) != p || anyNA(cs) || !is.numeric(x$center) || length(x$center) != p) return(NULL)
      mu <- x$center
      # Var(mu_i e_j + mu_j e_i + e_i e_j) for independent e; on the diagonal
      # Var(2 mu_i e_i + e_i^2) = 4 mu_i^2 s_i^2 + 2 s_i^4
      V <- tcrossprod(mu^2, cs^2) + tcrossprod(cs^2, mu^2) + tcrossprod(cs^2)
      diag(V) <- 4 * mu^2 * cs^2 + 2 * cs^4
      sd <- sqrt(sd^2 + V)
    }
    return(sd)
  }
  if (x$scale == "covariance") return(cov_noise_sd(x, zeroed))
  # made on a box of public bounds and mapped back: the noise is on the box scale
  if (!is.null(pr$box_scale) && x$scale %in% c("sum", "average", "sum + ridge", "posterior sample")) {
    return(box_noise_sd(x, zeroed))
  }
  sym <- function(off, diag_sd) {
    M <- matrix(off, p, p)
    diag(M) <- diag_sd
    M
  }
  if (x$scale == "average") {
    if (!is_num1(pr$noise_sd)) return(NULL)
    M <- matrix(pr$noise_sd, p, p)
    if (!is.null(pr$threshold)) {
      if (identical(zeroed, "bound")) return(zeroed_bound_sd(M, est, pr$threshold, pr$keep_diagonal))
      M[est == 0] <- 0  # a zeroed entry carries no noise (it carries bias)
    }
    return(M)
  }
  # a second-moment release's noise by its mechanism (second_moment_family())
  fam <- if (inherits(x, "dp_second_moment")) second_moment_family(x) else NA_character_
  is_fam <- function(f) is.na(fam) || fam == f
  if (is_fam("wishart") && is_num1(pr[["k"]]) && is_num1(pr$noise_clip) && grepl("Wishart noise", x$mechanism, fixed = TRUE)) {
    return(sym(sqrt(pr[["k"]]) * pr$noise_clip^2, sqrt(2 * pr[["k"]]) * pr$noise_clip^2))
  }
  if (is_fam("jl") && is_num1(pr$w2) && is_num1(pr[["r"]])) {
    # W_p(Sigma, r) / r: Var_ij = (Sigma_ij^2 + Sigma_ii Sigma_jj) / r, Sigma ~ the estimate
    d <- pmax(0, diag(est))
    return(sqrt((est^2 + tcrossprod(d)) / pr[["r"]]))
  }
  if (is_fam("iwishart") && is_num1(pr$psi) && is_num1(pr$df)) {
    # W^-1(Psi, df), Psi ~ est (df - p - 1): Var_ij = ((m + 1) e_ij^2 + (m - 1) e_ii e_jj) / (m (m - 3)), m = df - p,
    # taken as s sqrt(a (e_ij / s)^2 + b (g_ij / s)^2), g_ij = sqrt(e_ii e_jj), s the larger: m (m - 3) and
    # the squares overflowed at large df or entries (NaN from Inf / Inf, or a noise of 0)
    m <- pr$df - p
    if (!(m > 3)) return(matrix(Inf, p, p))
    g <- tcrossprod(sqrt(pmax(0, diag(est))))
    s <- pmax(abs(est), g)
    a <- (m + 1) / m / (m - 3)
    b <- (m - 1) / m / (m - 3)
    return(ifelse(s > 0, s * sqrt(a * (est / s)^2 + b * (g / s)^2), 0))
  }
  if (is_fam("analyze_gauss") && is_num1(pr[["sigma"]])) return(matrix(pr[["sigma"]], p, p))
  NULL
}

#' The sd-equivalent of a thresholded matrix's entries: `sd` where an entry
#' survived, sqrt(sd^2 + t^2) where the threshold t may have zeroed it. The
#' true value of a zeroed entry is anything whose noisy version fell below t:
#' its error is bias up to t (a bound, not a spread: at the uniform spread
#' t / sqrt(3) a PC1 34 degrees off graded "ok", at 0.3 against a sine of
#' 0.56), beside the noise sd it had before. Zeroed: below t in magnitude
#' on the threshold's scale (`M`), a 0 or a value the PSD projection filled
#' in; the diagonal is never zeroed under `keep_diagonal`. NULL when t is not
#' one number >= 0 (a hand-made release: no bound can be told).
#' @noRd
zeroed_bound_sd <- function(sd, M, t, keep_diagonal) {
  if (is.null(M) || !(is_num1(t) && t >= 0 && is.finite(t))) return(NULL)
  hit <- abs(M) < t
  if (isTRUE(keep_diagonal)) diag(hit) <- FALSE
  sd[hit] <- sqrt(sd[hit]^2 + t^2)
  sd
}

#' A release made on a box of public bounds and mapped back to the data's
#' units (`params$box_scale`, `box_shift`: analyze_gauss(), the Sheffet
#' mechanisms and thresholding with bounds, dp_lm()'s Gram of [1, z]): the
#' noise was added on the box scale, so its `params` (sigma, noise_clip, the
#' ridge or prior) are the box's. The estimate is mapped back to the box, on
#' the mechanism's own scale with its ridge or prior put back (the JL and
#' inverse-Wishart draws' plug-in variances are at the matrix drawn around:
#' A'A + w^2 I, (A'A + psi I) / (df - p - 1)), the noise sd is taken there and
#' mapped to the data's units entry by entry: x = z T, N -> T' N T.
#' @noRd
box_noise_sd <- function(x, zeroed = "noise") {
  pr <- x$params
  p <- x$p
  sc <- pr$box_scale
  sh <- if (is.null(pr$box_shift)) rep(0, p) else pr$box_shift
  if (!is_finite_num(sc) || length(sc) != p || any(sc <= 0) || !is_finite_num(sh) || length(sh) != p) return(NULL)
  affine <- any(sh != 0)
  if (affine && sh[1L] != 0) return(NULL)  # the shifts ride on a column of ones, first
  T <- diag(sc, p)
  T[1L, ] <- T[1L, ] + sh
  Ti <- diag(1 / sc, p)
  Ti[1L, ] <- Ti[1L, ] - sh / sc
  Mb <- crossprod(Ti, x$estimate %*% Ti)
  # dp_lm()'s Gram is the sum, converted from the mechanism's scale
  # (converted_from); the other box releases keep the mechanism's own output
  from <- if (is_string(pr$converted_from)) pr$converted_from else "as released"
  conv <- 1
  Mb <- switch(from,
    "as released" = {
      from <- x$scale
      Mb
    },
    "sum + ridge" = Mb + diag(if (is_num1(pr$w2)) pr$w2 else 0, p),
    "posterior sample" = {
      if (!is_num1(pr$df) || !(pr$df > p + 1) || !is_num1(pr$psi)) return(NULL)
      conv <- pr$df - p - 1
      (Mb + diag(pr$psi, p)) / conv
    },
    "sum" = , "average" = Mb,
    return(NULL))
  y <- x
  y$estimate <- Mb
  y$scale <- from
  y$params[c("box_scale", "box_shift", "converted_from")] <- NULL
  sd <- release_noise_sd(y, zeroed)
  if (is.null(sd)) return(NULL)
  sd <- sd * conv
  if (!affine) return(sd * tcrossprod(sc))
  # (T' N T)_ij for N symmetric with independent upper-triangle entries of
  # variance V: a' V a-weighted sums, a = T[, i], b = T[, j]
  V <- sd^2
  TT <- T * T
  out <- crossprod(TT, V %*% TT)
  for (i in seq_len(p)) for (j in i:p) {
    ab <- T[, i] * T[, j]
    out[i, j] <- out[j, i] <- out[i, j] + sum(V * tcrossprod(ab)) - sum(diag(V) * ab^2)
  }
  sqrt(pmax(out, 0))
}

# dp_cov(): the second step's own noise on the sum (the Gram, or the
# centred sum), in the data's units (scaled by the box), from its `params`;
# NULL where they do not tell it. cov_noise_sd() adds the mean step's share;
# dp_lm()'s ridge rule reads this alone.
cov_gram_noise_sd <- function(x, zeroed = "noise") {
  p <- x$p
  sm <- x$params$second_moment
  if (!is.list(sm)) return(NULL)
  second <- switch(if (is_string(x$params$second_mechanism)) x$params$second_mechanism else "",
    analyze_gauss = if (is_num1(sm[["sigma"]])) {
      M <- matrix(sm[["sigma"]], p, p)
      if (is_num1(sm$sigma_diag)) diag(M) <- sm$sigma_diag  # the box path's diagonal block
      M
    },
    threshold = if (is_num1(sm$noise_sd) && !is.na(x$n)) {
      M <- matrix(sm$noise_sd, p, p)
      # (the entries the step may have zeroed, told on its own average)
      if (identical(zeroed, "bound")) M <- zeroed_bound_sd(M, cov_threshold_average(x), sm$threshold, sm$keep_diagonal)
      if (is.null(M)) return(NULL)
      M * x$n
    },
    wishart = if (is_num1(sm[["k"]]) && is_num1(sm$noise_clip)) {
      M <- matrix(sqrt(sm[["k"]]) * sm$noise_clip^2, p, p)
      diag(M) <- sqrt(2 * sm[["k"]]) * sm$noise_clip^2
      M
    },
    NULL)
  if (is.null(second)) NULL else second * tcrossprod(release_box_scale(x))
}

# dp_cov() with the threshold step: the matrix the step thresholded (the
# Gram of the rows centred at the mean, or the uncentred Gram in one pass,
# over n, on the box scale), rebuilt from the covariance: the divisor and the
# mean's correction undone, and in one pass the centring n mu mu'. The PSD
# projection is not undone (the release does not hold what it moved): an
# entry it moved to t or beyond is read as kept.
cov_threshold_average <- function(x) {
  pr <- x$params
  p <- x$p
  n_hat <- release_n_hat(x)
  if (!is_num1(n_hat) || is.na(x$n)) return(NULL)
  div <- if (identical(pr$divisor, "n - 1")) max(1, n_hat - 1) else n_hat
  corr <- if (is_num1(pr$mean_correction)) pr$mean_correction else 0
  S <- x$estimate / tcrossprod(release_box_scale(x)) * div
  if (identical(pr$passes, 1)) {
    mu <- if (is_finite_num(pr$box_center)) pr$box_center else x$center
    if (!is_finite_num(mu) || length(mu) != p) return(NULL)
    S <- S + n_hat * tcrossprod(mu) - diag(corr, p)
  } else {
    S <- S + diag(corr, p)
  }
  S / x$n
}

# dp_cov(): the second step's noise on the centred sum over the divisor,
# scaled by the box, and the centring error of the private mean.
cov_noise_sd <- function(x, zeroed = "noise") {
  pr <- x$params
  p <- x$p
  n_hat <- release_n_hat(x)
  if (!is_num1(n_hat)) return(NULL)
  div <- if (identical(pr$divisor, "n - 1")) max(1, n_hat - 1) else n_hat
  second <- cov_gram_noise_sd(x, zeroed)
  if (is.null(second)) return(NULL)
  w <- release_box_scale(x)
  second <- second / div
  msd <- mean_noise_sd(x, n_hat)
  if (is.null(msd)) return(second)
  # d d' with d_j ~ N(0, msd_j^2), its expectation removed: sd msd_i msd_j, sqrt(2) msd_j^2 on the diagonal
  centring <- tcrossprod(msd)
  diag(centring) <- sqrt(2) * msd^2
  # one pass: - n (mu d' + d mu') too, mu the released mean (box scale on the box): sd n_hat / div *
  # sqrt(mu_i^2 msd_j^2 + mu_j^2 msd_i^2), twice |mu_i| msd_i on the diagonal
  mu <- if (is_finite_num(pr$box_center)) pr$box_center * w else x$center
  cross <- if (identical(pr$passes, 1) && is_finite_num(mu) && length(mu) == p) {
    M <- sqrt(tcrossprod(mu^2, msd^2) + tcrossprod(msd^2, mu^2)) * n_hat / div
    diag(M) <- 2 * abs(mu) * msd * n_hat / div
    M
  } else 0
  sqrt(second^2 + centring^2 + cross^2)
}

#' Attach the diagnostics to a release and, when it is mostly noise, raise one
#' classed warning (muffled by callers that release inside another release).
#' @noRd
finish_diagnostics <- function(rel) {
  rel$diagnostics <- diagnose_release(check_release(rel))
  noise_warning(rel$diagnostics, class(rel)[1])
  rel
}

noise_warning <- function(d, what) {
  if (identical(d$level, "mostly noise") && !isFALSE(getOption("dpcov.noise_warning"))) {
    # the first message of the worst grade: the one that made the level
    i <- match("mostly noise", d$message_levels)
    if (is.na(i) || i > length(d$messages)) i <- 1L
    msg <- sprintf("%s: %s%s", what, if (length(d$messages)) d$messages[i] else "the release is mostly noise.",
                   if (length(d$messages) > 1L) " print() shows the other diagnostics." else "")
    warning(structure(class = c("dpcov_noise_warning", "warning", "condition"),
                      list(message = msg, call = NULL)))
  }
  invisible()
}

# Run expr with the noise warnings of the releases made inside it muffled
# (a release inside a release: the outer one warns for both).
muffle_noise_warnings <- function(expr) {
  withCallingHandlers(expr, dpcov_noise_warning = function(w) invokeRestart("muffleWarning"))
}

# The "Diagnostics:" line of print() and the plain-words warnings.
print_diagnostics <- function(d, digits = 3) {
  if (!is.list(d)) return(invisible())
  fmt <- function(v) if (is_num1(v) || identical(v, Inf)) format(signif(v, digits), big.mark = ",", decimal.mark = ".", scientific = abs(v) >= 1e7) else "NA"
  parts <- character(0)
  if (is_num1(d$noise_to_signal) || identical(d$noise_to_signal, Inf)) parts <- c(parts, sprintf("noise/signal = %s", fmt(d$noise_to_signal)))
  if (is_num1(d$n_noisy)) parts <- c(parts, sprintf("noisy count %s (noise sd %s)", fmt_count(d$n_noisy), fmt(d$n_noise_sd)))
  if (is_num1(d$n_estimate) && is_num1(d$n_noise_sd)) {
    parts <- c(parts, sprintf("private n %s (noise sd %s)", fmt_count(d$n_estimate), fmt(d$n_noise_sd)))
  }
  if (is.numeric(d$mean_noise) && length(d$mean_noise) && !anyNA(d$mean_noise)) {
    parts <- c(parts, sprintf("mean noise/spread up to %s", fmt(max(d$mean_noise))))
  }
  cat_wrapped(sprintf("Diagnostics: %s%slevel %s", paste(parts, collapse = "; "), if (length(parts)) "; " else "",
                      if (is_string(d$level)) d$level else "unknown"))
  if (is.character(d$notes)) for (m in d$notes[!is.na(d$notes)]) cat_wrapped("Note:", m)
  invisible()
}

print_noise_warnings <- function(d) {
  if (!is.list(d) || !is.character(d$messages)) return(invisible())
  for (m in d$messages) cat_wrapped("Warning:", m)
  invisible()
}

# What would make a release (or a regression from it) less noisy, in terms
# of what was given: public bounds (their widths set the noise) or not.
noise_advice <- function(rel) {
  src <- rel$params$bounds_source
  if (inherits(rel, "dp_ldp_aggregate") || identical(rel$params$model, "local")) {
    "each report's noise is set by epsilon alone: more reports (rows) or more budget per report"
  } else if (is.character(rel$params$coded_columns) && length(rel$params$coded_columns) >= rel$p) {
    # every column bounded by its coding: nothing narrower exists
    "the noise is set by the columns' coding [0, 1]: more budget (or more rows)"
  } else if (is.list(rel$params$bounds_guarantee)) {
    # bounds from a dp_column_bounds() release, given as `bounds`
    "the noise scales with the widths of the bounds (a dp_column_bounds() release): give public bounds (lower/upper) if they are known, or more budget (or more rows)"
  } else if (is.character(src) && length(src) == 1L && !is.na(src) && startsWith(src, "public")) {
    "the noise scales with the widths of the public bounds: give narrower public ranges if they are known, or more budget (or more rows)"
  } else if (inherits(rel, "dp_threshold") || identical(rel$params$second_mechanism, "threshold")) {
    # the threshold grows with the noise and its constant: the theory
    # constant, sqrt(2) B^2, zeroes every entry at moderate p unless n is large
    paste0("a thresholded release loses entries below t, which grows with the noise and the threshold's constant: a ",
           "constant tuned on a public sample (dp_threshold(tune = threshold_tune(\"public\", public = ...))), public ",
           "bounds (lower/upper), or more budget (or more rows)")
  } else {
    "give public bounds (lower/upper) or more budget"
  }
}

#' Bounds chosen privately by dp_lm() (no `lower`/`upper`, no `clip`) clamp
#' rows beyond them, so the coefficients are those of the clamped data: a
#' bias the bootstrap, which holds the box fixed, leaves out of the intervals
#' (bench/peers.R, 200 releases per cell: 47-61% of the 95% slope intervals
#' covered lm()'s slopes on penguins at epsilon <= 1 and 56-79% on quakes at
#' epsilon <= 2, with no other warning). From public or released quantities only: the rows the
#' mechanism targets beyond each of the 2k ends (`tail_rows`, a function of
#' epsilon_q) over n (public, or the private estimate), and whether its first
#' stage was capped at the quartiles (`first_rows` >= n / 4). The realised
#' clamping is often larger than the target: it is a floor, not an estimate.
#' Returns NULL for other releases, else the share, its grade and message.
#' @noRd
lm_clamp_check <- function(rel, n_estimate) {
  cb <- if (inherits(rel, "dp_release")) rel$params$column_bounds
  # public bounds tightened privately clamp the rows beyond the tightened ones alike
  tightened <- identical(rel$params$bounds_source, "public, tightened privately")
  if (!(identical(rel$params$bounds_source, "private") || tightened) || !is.list(cb) || !is_num1(cb$tail_rows) ||
      !is_num1(cb$variables)) return(NULL)
  n_hat <- if (is_num1(rel$n)) rel$n else n_estimate
  if (!is_num1(n_hat) || n_hat < 1) n_hat <- 1
  share <- min(1, 2 * cb$variables * cb$tail_rows / n_hat)
  capped <- !tightened && is_num1(cb$first_rows) && column_bounds_capped(cb$first_rows, n_hat)
  th <- dp_diagnostic_thresholds$clipped
  grade <- if (capped || share > th[["mostly"]]) 2L else if (share > th[["noisy"]]) 1L else 0L
  # tightened bounds: graded only beyond what the automatic rule accepts (a
  # target above tighten_auto_level_fit of n per end, which only tighten =
  # TRUE reaches); within it a note, or the default would warn about itself
  if (tightened) grade <- if (share > th[["mostly"]]) 2L else if (cb$tail_rows / n_hat > tighten_auto_level_fit) 1L else 0L
  what <- if (tightened) {
    sprintf("the public bounds of the model's %d variable(s) were tightened privately", as.integer(cb$variables))
  } else {
    sprintf("the bounds of the model's %d numeric variable(s) were chosen privately (%s)",
            as.integer(cb$variables), if (partial_bounds_release(rel)) "their bounds given as NA" else "no lower/upper given")
  }
  avoid <- if (tightened) "tighten = FALSE avoids it" else "public bounds (lower/upper) avoid it"
  advice <- if (tightened) "use tighten = FALSE or more epsilon" else "give public bounds (lower/upper) or more epsilon"
  msg <- if (capped) {
    sprintf(paste0("%s with too little n * epsilon to find the tails: they can clamp a quarter of a variable's rows or ",
                   "more. The coefficients are those of the clamped data, a bias the intervals leave out; ",
                   "give public bounds (lower/upper) or more epsilon."), what)
  } else if (grade == 0L) {
    # few rows, but where n epsilon is large the intervals are narrow and the
    # bias of clamping a skewed column's top rows is not small against them
    # (bench/RESULTS.md, "Tail bins": 84-92% on diamonds' model): a note
    sprintf(paste0("%s and target about %s rows beyond each end (%s%% of the rows in all, often more): the ",
                   "coefficients and intervals are those of the data clamped to those bounds (the release's ",
                   "params$bounds), and the intervals leave the clamping bias out, so they may cover lm()'s ",
                   "coefficients less often than their level; %s."),
            what, format(signif(cb$tail_rows, 2)), format(signif(100 * share, 2)), avoid)
  } else {
    sprintf(paste0("%s and target about %s rows beyond each end, up to %s%% of the rows clamped, often more: ",
                   "the coefficients are those of the clamped data, a bias the intervals leave out, so they ",
                   "cover less often than their level; %s."),
            what, format(signif(cb$tail_rows, 2)), format(signif(100 * share, 2)), advice)
  }
  list(share = share, grade = grade, message = msg)
}

#' The diagnostics of a dp_lm fit, from the fit and its release only: the
#' coefficients' bootstrap spread against their size (the `noise_to_signal`
#' of the coefficients: sampling error and privacy noise together), the
#' private estimate of n and its noise, the release's diagnostics on the
#' regression's columns, and the bootstrap draws dropped as singular.
#' @noRd
lm_diagnostics <- function(fit, rel, columns) {
  th <- dp_diagnostic_thresholds
  grade <- function(v, t) if (is.na(v)) 0L else if (v > t[["mostly"]]) 2L else if (v > t[["noisy"]]) 1L else 0L
  fmt <- function(v) format(signif(v, 3), big.mark = ",", decimal.mark = ".", scientific = abs(v) >= 1e9)
  out <- list(noise_to_signal = NA_real_, n_estimate = fit$n_estimate %||% NA_real_,
              n_noise_sd = fit$n_noise_sd %||% NA_real_, n_relative_noise = NA_real_,
              failed_fraction = NA_real_, clamp_target = NA_real_, intervals_biased = FALSE, outside_interval = character(0),
              shrunk_outside_interval = character(0),
              release_level = NA_character_)
  if (isTRUE(rel$exact)) {
    out$level <- "ok"
    out$messages <- character(0)
    out$message_levels <- character(0)
    return(structure(out, class = "dp_diagnostics"))
  }
  lv <- 0L
  msgs <- character(0)
  grades <- integer(0)
  # each message with its grade: the noise warning raises one of the worst
  say <- function(m, g) {
    msgs <<- c(msgs, m)
    grades <<- c(grades, rep.int(as.integer(g), length(m)))
  }
  if (is_num1(out$n_noise_sd)) {
    n_est <- out$n_estimate
    out$n_relative_noise <- if (n_est > 0) out$n_noise_sd / n_est else Inf
    g <- if (n_est < 2) 2L else grade(out$n_relative_noise, th$count)
    if (g > 0L) {
      what <- if (identical(rel$scale, "covariance")) "dp_cov()'s noisy count" else "the released entry of the column of ones"
      advice <- noise_advice(rel)
      if (is.finite(rel$clip) && !identical(rel$scale, "covariance") && is.null(rel$params[["bounds"]])) {
        # which released columns make the rows long: the largest released sums of squares
        S <- tryCatch(release_sum(rel, rel$n), error = function(e) NULL)
        long <- NULL
        if (!is.null(S) && !is.null(colnames(S))) {
          d <- diag(S)[setdiff(colnames(S), "(Intercept)")]
          if (length(d)) long <- names(d)[which.max(d)]
        }
        advice <- sprintf(paste0("its noise grows with clip^2 (clip = %s%s); subtract public constants from uncentred ",
                                 "columns, give a smaller `clip` or public bounds, or more budget"),
                          fmt(rel$clip), if (is.null(long)) "" else sprintf(", set by long columns such as `%s`", long))
      }
      # The intervals and sigma divide by n. With an intercept, a Gram
      # release on the clip path centres the features by the count, whose
      # error acts as rows added or removed at the origin, so the slopes
      # follow its noise (too nonlinearly to grade from one release: moving
      # the count by one sd swung a fit 2% off by 180%; their bootstrap
      # redraws the count); without an intercept they do not involve it
      # (accurate slopes were called unreliable). On a box the rows it adds
      # or removes sit at the box's centre, and a two-pass covariance centres
      # at its private mean: nothing is said of the slopes there.
      clip_gram <- !identical(rel$scale, "covariance") && is.null(rel$params$box_scale)
      icpt <- "(Intercept)" %in% names(fit$coefficients)
      effect <- if (g == 2L) {
        paste0("noise dominates the count, so the intervals and the residual sd, which divide by n, are not reliable",
               if (clip_gram && icpt) ", nor the slopes, which are centred by it"
               else if (clip_gram) " (the slopes do not depend on it)" else "")
      } else {
        "the intervals rest on an uncertain n"
      }
      say(sprintf("the private n (%s) is %s, with noise sd %s: %s; %s.", what, fmt_count(n_est),
                  fmt(out$n_noise_sd), effect, advice), g)
    } else if (n_est <= length(fit$coefficients) + 1) {
      g <- 1L
      say(sprintf("the private n is %s, not more than the columns of the regression: the intervals are not reliable.",
                  fmt_count(n_est)), g)
    }
    lv <- max(lv, g)
  }
  cl <- lm_clamp_check(rel, out$n_estimate)
  if (!is.null(cl)) {
    out$clamp_target <- cl$share
    out$intervals_biased <- cl$grade > 0L
    if (cl$grade > 0L) say(cl$message, cl$grade) else out$notes <- cl$message
    lv <- max(lv, cl$grade)
  } else if (identical(rel$params$bounds_source, "public")) {
    # public bounds clamp whatever lies beyond them, unseen by the release
    # (counting it would cost budget): an audit measured 0% coverage of the
    # slope of a lognormal feature whose bounds cut 2.5% of its values
    out$notes <- c(out$notes, paste0(
      "the coefficients and intervals are those of the data clamped to the given bounds: values beyond them ",
      "(a tail cut off) bias both, which the intervals leave out, so give bounds that hold every value."))
  }
  # the release's own diagnostics: for the slopes' grade and the checks on
  # the regression's columns below
  rd <- if (inherits(rel, "dp_release")) diagnose_release(check_release(rel))
  v <- diag(fit$vcov)
  b <- fit$coefficients
  # the slopes: the intercept is the fit at all features 0, often far outside
  # the data (depth = table = 0 on diamonds), whose uncertainty is no sign
  # that the fit is noise
  if (length(b) > 1L && "(Intercept)" %in% names(b)) {
    keep <- names(b) != "(Intercept)"
    v <- v[keep]
    b <- b[keep]
  }
  # standardised: each slope times its feature's released sd (unit-free)
  fs <- fit$feature_scale
  scaled <- is.numeric(fs) && !is.null(names(b)) && all(names(b) %in% names(fs)) && all(is.finite(fs[names(b)]) & fs[names(b)] > 0)
  if (scaled) {
    fs <- unname(fs[names(b)])
    b <- b * fs
    v <- v * fs^2
  }
  if (length(v) && all(is.finite(v))) {
    noise <- sqrt(sum(v))
    signal <- sqrt(max(0, sum(b^2) - sum(v)))
    out$noise_to_signal <- ratio_or_inf(noise, signal)
    g <- grade(out$noise_to_signal, th$ratio)
    # the share of that variance the privacy noise adds beyond the sampling
    # error (sigma^2 (X'X)^-1 of the release). Where it adds less than the
    # sampling error, slopes within their standard errors of zero are the
    # data's (lm() would not tell them from zero either; at epsilon 1000 a
    # null effect was called "mostly noise", with "more budget" as advice)
    vs <- fit$vcov_sampling
    if (is.matrix(vs) && !is.null(colnames(vs)) && all(names(b) %in% colnames(vs))) {
      vs <- diag(vs)[names(b)] * (if (scaled) fs^2 else 1)
      if (all(is.finite(vs))) {
        out$privacy_share <- max(0, 1 - sum(vs) / sum(v))
        # only where nothing else is noisy: sigma^2 comes from the released
        # response, which noise can inflate (then the "sampling error" is the
        # noise's too: default fits at penguins epsilon 0.25, 3 times lm()'s
        # slopes off, would have been told so)
        quiet <- lv == 0L && identical(rd$level, "ok")
        if (g > 0L && quiet && sum(v) - sum(vs) <= sum(vs)) {
          out$notes <- c(out$notes, sprintf(paste0(
            "the %s standard errors are %s their size, but the privacy noise adds %s%% of their variance, ",
            "less than the sampling error: lm() on these data would not tell them from zero either."),
            if (length(b) < length(fit$coefficients)) "slopes'" else "coefficients'",
            if (g == 2L) "larger than" else "a large part of", format(round(100 * out$privacy_share))))
          g <- 0L
        }
      }
    }
    if (g > 0L) {
      # Inf: the coefficients' squared size is within their variance, no signal is left above it
      ratio <- if (is.finite(out$noise_to_signal)) sprintf("ratio %s", fmt(out$noise_to_signal)) else
        "no signal left above the noise"
      # the ratio is joint: one coefficient of pure noise (a declared factor
      # level with no rows) makes all of them look so; those whose own
      # standard error exceeds their size are named where they are not all
      weak <- names(b)[sqrt(v) > abs(b)]
      which_ones <- if (length(weak) && length(weak) < length(b)) {
        sprintf("; of them %s %s", col_list(weak), if (length(weak) == 1L) "has a standard error above its size" else
          "have standard errors above their size")
      } else {
        ""
      }
      say(sprintf("the %s %s: their bootstrap standard errors (privacy noise and sampling error) are %s their size (%s%s); %s.",
                  if (length(b) < length(fit$coefficients)) "slopes are" else "coefficients are",
                  if (g == 2L) "mostly noise" else "noisy", if (g == 2L) "larger than" else "a large part of",
                  ratio, which_ones, noise_advice(rel)), g)
    }
    lv <- max(lv, g)
  }
  # Least squares outside its own percentile interval: the bootstrap, which
  # redraws the release's noise at that fit, puts the refits elsewhere, so
  # the fit sits where the noise moved it, not near the data's (the clip
  # path with large means: a slope of 41 for 1.0, its interval [0.93, 1.12],
  # graded "ok"). Joint noise/signal ratios do not see it.
  ls <- fit$regularization$least_squares
  bt <- fit$boot
  if (is.matrix(bt) && nrow(bt) >= 20L && is.numeric(ls) && length(ls) == ncol(bt) && all(is.finite(ls))) {
    ci <- apply(bt, 2L, stats::quantile, probs = c(0.025, 0.975), names = FALSE)
    outside <- colnames(bt)[ls < ci[1L, ] | ls > ci[2L, ]]
    out$outside_interval <- outside
    # the reported (shrunk) coefficients against the same intervals, where
    # least squares lies inside them: the ridge moved them further than the
    # release's noise explains
    cf <- fit$coefficients
    shrunk_out <- if (length(cf) == ncol(bt) && all(is.finite(cf))) {
      setdiff(colnames(bt)[cf < ci[1L, ] | cf > ci[2L, ]], outside)
    } else {
      character(0)
    }
    out$shrunk_outside_interval <- shrunk_out
    if (length(shrunk_out)) {
      w <- col_words(shrunk_out)
      say(sprintf(paste0("the shrunk estimate%s of %s lie%s outside least squares' 95%% bootstrap interval%s: the ridge ",
                         "moved %s further than the release's noise explains; regularize = \"none\" gives least squares."),
                  w$s, col_list(shrunk_out), w$verb_s, w$s, w$it), 1L)
      lv <- max(lv, 1L)
    }
    if (length(outside)) {
      w <- col_words(outside)
      say(sprintf(paste0("the least-squares estimate%s of %s lie%s outside %s own 95%% bootstrap interval%s: the ",
                         "bootstrap, redrawing the release's noise at the fit, puts the refits elsewhere, so the fit is ",
                         "where the noise moved it; %s."),
                  w$s, col_list(outside), w$verb_s, w$its, w$s, noise_advice(rel)), 2L)
      lv <- 2L
    }
  }
  if (is_num1(fit$failed_draws) && fit$B > 0) {
    out$failed_fraction <- fit$failed_draws / fit$B
    if (out$failed_fraction > 0.05) {
      # (said here too: the bootstrap's own warning is held back when the fit warns)
      say(sprintf("%s: %s.", lm_failed_draws_words(fit$failed_draws, fit$B),
                  if (fit$B - fit$failed_draws < 2) "the fit has no standard errors or intervals" else
                    "the intervals may be too short"), 1L)
      lv <- max(lv, 1L)
    }
  }
  if (!is.null(rd)) {
    out$release_level <- rd$level
    used <- function(v) if (length(v)) v[intersect(names(v), columns)] else v
    gv <- vapply(used(rd$variance_noise), grade, 0L, t = th$ratio)
    gm <- vapply(used(rd$mean_noise), grade, 0L, t = th$ratio)
    # the model's numeric variables (a public schema: factors and logicals
    # are two-valued by design) whose released spread fills their bounds, or
    # rows nearly all clipped: the coefficients are of the clamped data
    num <- if (is.character(rel$params$numeric_columns)) rel$params$numeric_columns else setdiff(columns, "(Intercept)")
    at_v <- used(rd$at_bounds)
    at_v <- at_v[names(at_v) %in% num]
    over <- at_bounds_over(at_v)
    if (length(over)) {
      say(at_bounds_over_message(over, rel), 2L)
      lv <- 2L
      at_v <- at_v[!names(at_v) %in% over]
    }
    at <- names(at_v)[at_v >= th$at_bounds]
    hard <- at_bounds_clamped(at_v, rel, rd)
    if (length(setdiff(at, hard))) {
      # public bounds, or a released sd short of the clamped level: perhaps a
      # 0/1 or two-group column, perhaps clamped; said, but the intervals are
      # not called biased (a 0/1 column's are not)
      say(at_bounds_message(setdiff(at, hard), rel, ambiguous = TRUE), 1L)
      lv <- max(lv, 1L)
    }
    at <- hard
    if (length(at) || clip_fill_hit(rd, rel)) {
      say(paste(if (length(at)) at_bounds_message(at, rel) else clip_fill_message(rd, rel),
        "The coefficients are those of the clamped data, a bias the intervals leave out."), if (length(at)) 2L else 1L)
      out$intervals_biased <- TRUE
      lv <- max(lv, if (length(at)) 2L else 1L)
    }
    g <- mean_step_grade(rd)
    if (g > 0L) {
      say(paste0("the rows were clipped in the release's mean step (its mean lies at ",
                 fmt(100 * min(1, rd$mean_clip_fill)), "% of `clip_mean` from 0): the mean is shrunk toward 0 and ",
                 "the second moments centred at it are shifted, so the coefficients are biased, a bias the ",
                 "intervals leave out; give a larger `clip_mean` or public bounds (lower/upper)."), g)
      out$intervals_biased <- TRUE
      lv <- max(lv, g)
    }
    ar <- intersect(rd$beyond_range, columns)
    if (length(ar)) {
      say(sprintf(paste0("the private bounds of %s reached the end of the range they were searched in (+/- %s), ",
                         "with the private median within a spread of it: the rows beyond it are clamped to it, a ",
                         "bias the intervals leave out; give public bounds (lower/upper) for %s."),
                  col_list(ar), format(signif(private_bounds_facts(rel)$range, 3)), if (length(ar) > 1L) "them" else "it"), 2L)
      out$intervals_biased <- TRUE
      lv <- 2L
    }
    an <- intersect(setdiff(rd$at_range, rd$beyond_range), columns)
    if (length(an)) {
      say(sprintf(paste0("a private bound of %s reached the end of the range it was searched in (+/- %s): rows ",
                         "beyond it, if any, are clamped to it; give public bounds (lower/upper) for %s if the ",
                         "data can exceed it."),
                  col_list(an), format(signif(private_bounds_facts(rel)$range, 3)), if (length(an) > 1L) "them" else "it"), 1L)
      lv <- max(lv, 1L)
    }
    lt <- intersect(rd$long_tail, columns)
    if (length(lt)) {
      say(sprintf(paste0("the private bounds of %s are lopsided about %s private median: a long tail, or bounds ",
                         "the noise placed badly, whose clamped rows can move the fit, a bias the intervals leave ",
                         "out; give public bounds (lower/upper) for %s or more epsilon."),
                  col_list(lt), if (length(lt) > 1L) "their" else "its",
                  if (length(lt) > 1L) "them" else "it"), 1L)
      out$intervals_biased <- TRUE
      lv <- max(lv, 1L)
    }
    bi <- intersect(rd$bound_inside, columns)
    if (length(bi)) {
      say(sprintf(paste0("a private bound of %s%s lies within %s of its private spread of its private median: it ",
                         "may clamp a large share of the rows, which can move the fit, a bias the intervals ",
                         "leave out; give public bounds (lower/upper) for %s or more epsilon."),
                  if (length(bi) > 1L) "each of " else "", col_list(bi), format(bound_inside_spreads),
                  if (length(bi) > 1L) "them" else "it"), 1L)
      out$intervals_biased <- TRUE
      lv <- max(lv, 1L)
    }
    ov <- intersect(rd$one_value, columns)
    if (length(ov)) {
      say(sprintf(paste0("the private bounds of %s are narrower than 1.5 times %s private spread: they closed on a ",
                         "value most rows share and clamp the other rows, a bias the intervals leave out; give public ",
                         "bounds (lower/upper) for %s."),
                  col_list(ov), if (length(ov) > 1L) "their" else "its", if (length(ov) > 1L) "them" else "it"), 2L)
      out$intervals_biased <- TRUE
      lv <- 2L
    }
    out_b <- intersect(rd$outside_bounds, columns)
    if (length(out_b)) {
      b <- release_bounds(rel)
      ib <- match(out_b, colnames(rel$estimate))
      cause <- outside_bounds_cause(rd$mean_noise_sd[out_b], if (is.null(b)) rep(NA_real_, length(ib)) else b$upper[ib] - b$lower[ib],
                                    box_mean_clamped(rel)[ib])
      # a factor level's (or a logical's) 0/1 column: its mean is the share of
      # rows at that level, and a share beyond [0, 1] is a level with few rows
      # or nearly all (a declared level the data lack), whose coefficient is noise
      coded <- out_b %in% rel$params$coded_columns
      cause[coded] <- paste0(": it is the 0/1 column of a factor level or a logical, whose mean is the share of rows ",
                             "at that level: the level holds few rows or nearly all of them (a declared level the ",
                             "data lack, or one nearly every row shares), and its coefficient, and predictions at a ",
                             "rare level, are then mostly noise")
      say(sprintf("the private mean of `%s` lies outside its %s%s.", out_b, bounds_words(rel), cause), 2L)
      lv <- 2L
    }
    g <- max(0L, gv, gm)
    if (g > 0L) {
      bad <- unique(c(names(gv)[gv == g], names(gm)[gm == g]))
      w <- col_words(bad)
      say(sprintf("the release's %s of %s %s %s.",
                  if (any(gm == g)) paste0("mean", w$s, " or variance", w$s) else paste0("second moment", w$s),
                  col_list(bad), w$is, if (g == 2L) "mostly noise" else "noisy"), g)
    }
    lv <- max(lv, g)
  }
  if (identical(fit$sigma, NA_real_)) {
    # the released residual sum of squares came out at or below 0: noise
    say(paste0("the residual variance is not estimable: the released residual sum of squares is at ",
               "or below 0 after the noise, so sigma is NA and the intervals hold the privacy noise ",
               "but not the sampling error; ", noise_advice(rel), "."), 1L)
    lv <- max(lv, 1L)
  }
  out$level <- c("ok", "noisy", "mostly noise")[lv + 1L]
  out$messages <- msgs
  out$message_levels <- c("ok", "noisy", "mostly noise")[grades + 1L]
  structure(out, class = "dp_diagnostics")
}

# The refusal of data with no rows where n is public (replace-one, zero-out):
# n is released, a shape the call may depend on; under add/remove (n private)
# no rows are data and the release is noise.
abort_public_rows <- function() {
  abort("`x` has no rows: where n is public (replace-one, zero-out) the release states n and needs at least one row; under add/remove (n private) no rows are data and the release is noise.",
        .arg = "x")
}
