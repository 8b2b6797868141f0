# Simulation tools for the thresholding studies: covariance models, data
# generators, error measures, and a grid runner over future.apply.

#' Covariance models of the thresholding simulations
#'
#' The population covariance matrices of the thresholding studies, by `type`
#' (see Details).
#'
#' * `"model1"`: \eqn{\sigma_{ij} = \rho^{|i-j|}} with \eqn{\rho = 0.6}
#'   (Model 1 of Li and Wang 2023).
#' * `"model2"`: banded, \eqn{\sigma_{ii} = 1}, \eqn{\sigma_{i,i\pm1} = 0.6},
#'   \eqn{\sigma_{i,i\pm2} = 0.3}, 0 beyond (Model 2).
#' * `"random_sparse"`: Wang and Xu's Section 5 model: a symmetric matrix
#'   \eqn{\tilde U} with `2 * round(sparsity * p * p / 2)` non-zero
#'   off-diagonal entries (symmetric pairs, at most all p(p - 1) of them;
#'   the paper's "sr x p x p non-zero entries"), \eqn{U = (\tilde U + \lambda I)/c} with \eqn{\lambda = 50},
#'   \eqn{c = 200}. The paper does not say how the non-zero values are drawn;
#'   here they are uniform on \eqn{(-1, 1)} (so \eqn{\|\tilde U\|_2 < \lambda}
#'   and U is positive definite for every p used there).
#'
#' @param p Dimension (>= 2).
#' @param type `"model1"`, `"model2"` or `"random_sparse"`.
#' @param rho Model 1's correlation.
#' @param sparsity,lambda,scale Random sparse model's ratio sr, lambda and c.
#'   A parameter given for a `type` that does not use it is refused.
#' @return A p x p covariance matrix.
#' @examples
#' cov_model(5, "model1")
#' cov_model(5, "model2")
#' set.seed(1); round(cov_model(6, "random_sparse", sparsity = 0.2), 3)
#' @template ref-wangxu
#' @template param-dots-none
#' @export
cov_model <- function(p, type = "model1", rho = 0.6,
                      sparsity = 0.2, lambda = 50, scale = 200, ...) {
  refuse_unknown_args("cov_model", ...)
  given <- c(rho = !missing(rho), sparsity = !missing(sparsity), lambda = !missing(lambda), scale = !missing(scale))
  type <- check_choice(type, c("model1", "model2", "random_sparse"), "type")
  # a parameter of another model is refused, not ignored
  uses <- switch(type, model1 = "rho", model2 = character(0), random_sparse = c("sparsity", "lambda", "scale"))
  unused <- setdiff(names(given)[given], uses)
  if (length(unused)) {
    abort("`%s` is not a parameter of type \"%s\"%s.", unused[1L], type,
          if (length(uses)) sprintf(" (it takes %s)", paste0("`", uses, "`", collapse = ", ")) else " (it has none)",
          .arg = unused[1L])
  }
  p <- check_count(p, "p", min = 2)
  check_cells(p^2, "the covariance matrix", "p")
  d <- abs(outer(seq_len(p), seq_len(p), "-"))
  switch(type,
    model1 = {
      rho <- check_number(rho, "rho", lower = -1, upper = 1)
      rho^d
    },
    model2 = {
      S <- matrix(0, p, p)
      S[d == 0] <- 1
      S[d == 1] <- 0.6
      S[d == 2] <- 0.3
      S
    },
    random_sparse = {
      sparsity <- check_number(sparsity, "sparsity", lower = 0, upper = 1, upper_open = FALSE)
      lambda <- check_number(lambda, "lambda", lower = 0, upper = 1e150)
      scale <- check_number(scale, "scale", lower = 1e-150, lower_open = FALSE, upper = 1e150)
      up <- which(upper.tri(d))
      k <- min(length(up), round(sparsity * p * p / 2))
      U <- matrix(0, p, p)
      U[up[sample.int(length(up), k)]] <- stats::runif(k, -1, 1)
      U <- U + t(U) + lambda * diag(p)
      if (min(eigen(U, symmetric = TRUE, only.values = TRUE)$values) <= 0) {
        abort("`lambda` = %s does not make the random sparse matrix positive definite; increase it.", format(lambda))
      }
      U / scale
    })
}

#' Draw data for the thresholding simulations
#'
#' Rows are iid \eqn{N(0, \Sigma)} (`"gaussian"`) or multivariate t with
#' `df` degrees of freedom and scale matrix \eqn{\Sigma} (`"t"`), i.e.
#' \eqn{z / \sqrt{w/\nu}} with \eqn{z \sim N(0,\Sigma)}, \eqn{w \sim \chi^2_\nu}.
#' The covariance of the t rows is \eqn{\nu/(\nu-2)\,\Sigma} (5/3 of the
#' scale matrix for 5 df).
#'
#' @param n Number of rows.
#' @param Sigma Covariance (Gaussian) or scale matrix (t).
#' @param dist `"gaussian"` or `"t"`.
#' @param df Degrees of freedom of the t distribution (> 2); refused with
#'   `dist = "gaussian"`.
#' @return An n x p matrix.
#' @examples
#' x <- rdata(1000, cov_model(3, "model1"), dist = "t")
#' round(cov(x), 2) # close to 5/3 of the scale matrix
#' @template ref-wangxu
#' @template param-dots-none
#' @export
rdata <- function(n, Sigma, dist = "gaussian", df = 5, ...) {
  refuse_unknown_args("rdata", ...)
  dist <- check_choice(dist, c("gaussian", "t"), "dist")
  if (dist == "gaussian" && !missing(df)) abort("`df` applies to dist = \"t\" only.", .arg = "df")
  n <- check_count(n, "n")
  Sigma <- check_spd(Sigma, "Sigma")
  p <- nrow(Sigma)
  check_cells(n * p, "the data", "n")
  if (dist == "t") df <- check_number(df, "df", lower = 2)
  z <- matrix(stats::rnorm(n * p), n, p) %*% chol(Sigma)
  if (dist == "t") {
    z <- z / sqrt(stats::rchisq(n, df) / df)
  }
  z
}

#' Errors of a covariance estimate
#'
#' Spectral norm (largest singular value), Frobenius norm, and the matrix
#' l1 operator norm (largest absolute column sum) of `estimate - truth`,
#' optionally relative to the same norm of `truth` (Wang and Xu's measure).
#'
#' @param estimate An estimate (matrix, `dp_release` or [pooled_cov()]); a
#'   release is read as its estimate, on its own `scale` (a sum is not an
#'   average: see [dp_as_cov()]).
#' @param truth The target matrix (or what `estimate` may be). When `estimate` and `truth` both have
#'   row names (column names), their rows (columns) are matched by name:
#'   `estimate` is put in `truth`'s order, and names that differ are an
#'   error. A square matrix named on one dimension alone names its variables
#'   on both (as [subspace_distance()] reads it): a `truth` with row names
#'   only reorders the estimate's rows and columns alike. Unnamed rows or
#'   columns are matched by position.
#' @param norm Any of `"spectral"`, `"frobenius"`, `"l1"`.
#' @param relative Divide by the norm of `truth`.
#' @return A named numeric vector, one entry per norm.
#' @examples
#' S <- cov_model(4, "model1")
#' cov_error(S + 0.1 * diag(4), S)
#' cov_error(S + 0.1 * diag(4), S, relative = TRUE)
#' @template ref-wangxu
#' @template param-dots-none
#' @export
cov_error <- function(estimate, truth, norm = c("spectral", "frobenius", "l1"), relative = FALSE, ...) {
  refuse_unknown_args("cov_error", ...)
  if (missing(estimate)) abort_missing("estimate")
  if (missing(truth)) abort_missing("truth")
  estimate <- check_numeric_matrix(square_estimate(estimate, "estimate"), "estimate")
  truth <- check_numeric_matrix(square_estimate(truth, "truth"), "truth")
  if (any(dim(estimate) != dim(truth))) {
    abort("`estimate` and `truth` must be matrices of the same dimensions.")
  }
  # named rows and columns are matched by name, as the difference needs; a
  # square matrix's names on one dimension name both (square_dimnames()): row
  # names alone reordered the rows but not the columns
  names_of <- function(m) if (nrow(m) == ncol(m)) square_dimnames(m) else list(rownames(m), colnames(m))
  de <- names_of(estimate)
  dt <- names_of(truth)
  rows <- name_order(de[[1L]], dt[[1L]], "estimate", "`truth`")
  cols <- name_order(de[[2L]], dt[[2L]], "estimate", "`truth`")
  if (!is.null(rows)) estimate <- estimate[rows, , drop = FALSE]
  if (!is.null(cols)) estimate <- estimate[, cols, drop = FALSE]
  # the difference of two matrices whose squares do not overflow may still do so
  check_no_overflow(estimate - truth, "estimate")
  if (!is.character(norm) || !length(norm) || anyNA(norm) || anyDuplicated(norm) ||
      !all(norm %in% c("spectral", "frobenius", "l1"))) {
    abort("`norm` must be among \"spectral\", \"frobenius\", \"l1\" (one or more, without NA or repeats).")
  }
  check_flag(relative, "relative")
  one <- function(M, type) switch(type,
    spectral = if (isSymmetric(unname(M))) max(abs(eigen(M, symmetric = TRUE, only.values = TRUE)$values)) else base::norm(M, "2"),
    # (scaled by the largest entry: squares of entries below 1e-154 underflow)
    frobenius = {
      top <- max(abs(M))
      if (top > 0) top * sqrt(sum((M / top)^2)) else 0
    },
    l1 = max(colSums(abs(M))))
  D <- unname(estimate - truth)
  out <- vapply(norm, function(k) one(D, k), numeric(1))
  if (relative) {
    size <- vapply(norm, function(k) one(unname(truth), k), numeric(1))
    if (any(size == 0)) abort("`truth` is the zero matrix: an error relative to it is not defined; use relative = FALSE.", .arg = "truth")
    out <- out / size
  }
  out
}

#' The four thresholding methods compared in Li and Wang (2023)
#'
#' A data frame with columns `label` (the paper's notation), `variant`,
#' `model` and `neighbor` (the neighbour notion each paper's printed noise is
#' right for: replace-one for the modified DP algorithm, zero-out for Wang and
#' Xu's, and zero-out, i.e. \eqn{\sigma^2 = 2\log(1.25/\delta)/\epsilon^2} per
#' record, for both LDP algorithms).
#' @return A data frame.
#' @examples
#' threshold_methods()
#' @template ref-wangxu
#' @template param-dots-none
#' @export
threshold_methods <- function(...) {
  refuse_unknown_args("threshold_methods", ...)
  data.frame(label = c("modified DP", "Wang-Xu DP", "modified LDP", "Wang-Xu LDP"),
             variant = c("modified", "wang_xu", "modified", "wang_xu"),
             model = c("central", "central", "local", "local"),
             neighbor = c("replace-one", "zero-out", "zero-out", "zero-out"),
             stringsAsFactors = FALSE)
}

#' Run a thresholding simulation study
#'
#' For every row of `settings` and every replication, draws a data set,
#' releases it with each method of `methods` through [dp_threshold()] (with
#' `clip = Inf` and the noise calibrated as if rows had norm at most
#' `sigma_clip_inf`, as the papers do; no formal guarantee holds), and
#' records the errors. All methods of one replication see the same data.
#' Replications run through [future.apply::future_lapply()] with
#' `future.seed = TRUE` (any `future` plan; results do not depend on it) and
#' report progress through `progressr` (wrap the call in
#' `progressr::with_progress()`).
#'
#' For t data the errors are measured against both the scale matrix
#' (`truth = "scale"`) and the covariance, 5/3 of it (`truth = "covariance"`);
#' for Gaussian data the two coincide.
#'
#' @param settings A data frame with columns `cov` (a [cov_model()] type),
#'   `dist`, `p`, `n`, `epsilon`, `delta`, and optionally `sparsity` (for
#'   `"random_sparse"` rows; NA in the others). Other columns label the rows
#'   (e.g. `table`) and are copied to the results; columns named like an
#'   argument of `run_study()` or [cov_model()] (`df`, `rho`, `lambda`,
#'   `scale`, ...) are refused, since they would not be read per row.
#' @param reps Replications per setting.
#' @param methods A data frame like [threshold_methods()].
#' @param tune Passed to [dp_threshold()] (default 10-fold CV, as the papers).
#' @param calibration Passed to [dp_threshold()] (default `"classic"`, the
#'   papers' formula, which with `clip = Inf` is used at every epsilon).
#' @param sigma_clip_inf Row-norm bound the noise is calibrated for.
#' @param ldp_threshold Passed to [dp_threshold()].
#' @param df Degrees of freedom of the t data.
#' @param relative Also record errors relative to the truth's norm.
#' @param noise_multiplier Passed to [dp_threshold()] (4 in the papers).
#' @return A data frame with one row per setting x replication x method x
#'   truth: the setting's columns, `rep`, `method`, `truth`, `constant`
#'   (the tuned c), `spectral`, `frobenius`, `l1` (and `rel_*` columns when
#'   `relative`), of class `c("threshold_study", "dp_study", "dp_nonprivate",
#'   "data.frame")` (see [dp_study]: `summary` is [study_summary()], `plot`
#'   the mean error against n): a simulation, not a release; attribute
#'   `dpcov_version` records the package version, and `run` the arguments it
#'   was run with (`reps`, the tuning method and constant, `calibration`,
#'   `sigma_clip_inf`, `noise_multiplier`, `ldp_threshold`, `df`,
#'   `relative`).
#' @examples
#' s <- data.frame(cov = "model2", dist = "gaussian", p = 10, n = 100,
#'                 epsilon = 0.5, delta = 1 / 400)
#' res <- run_study(s, reps = 2, tune = "theory")
#' res
#' head(as.data.frame(res))
#' @template ref-wangxu
#' @template param-dots-none
#' @export
run_study <- function(settings, reps = 50, methods = threshold_methods(), tune = "cv",
                      sigma_clip_inf = 1, ldp_threshold = "averaged", df = 5, relative = FALSE,
                      noise_multiplier = 4, calibration = "classic", ...) {
  refuse_unknown_args("run_study", ...)
  if (missing(settings)) abort_missing("settings")
  # (before they are checked: missing() is FALSE once an argument is reassigned)
  df_given <- !missing(df)
  rule_given <- !missing(ldp_threshold)
  calibration <- check_choice(calibration, c("analytic", "classic"), "calibration")
  tune <- as_threshold_tune(tune)
  sigma_clip_inf <- check_clip(sigma_clip_inf, "sigma_clip_inf")
  ldp_threshold <- check_choice(ldp_threshold, c("averaged", "printed"), "ldp_threshold")
  df <- check_number(df, "df", lower = 2)
  check_flag(relative, "relative")
  noise_multiplier <- check_number(noise_multiplier, "noise_multiplier", lower = 0, upper = 1e6,
                                   lower_open = FALSE, upper_open = FALSE)
  need <- c("cov", "dist", "p", "n", "epsilon", "delta")
  if (!is.data.frame(settings) || !nrow(settings) || !all(need %in% names(settings))) {
    abort("`settings` must be a data frame with columns %s, and at least one row.", paste(need, collapse = ", "),
          .arg = "settings")
  }
  # the results are the settings' columns beside these: a setting of one of
  # these names would stand where the results are read (study_summary())
  results <- c("rep", "method", "truth", "constant", "spectral", "frobenius", "l1", "rel_spectral", "rel_frobenius",
               "rel_l1")
  clash <- intersect(names(settings), results)
  if (length(clash)) {
    abort("`settings` has column(s) %s, which name the study's results; rename or drop them.",
          paste0("`", clash, "`", collapse = ", "), .arg = "settings")
  }
  # columns named like the study's or cov_model()'s arguments would be read as
  # per-row settings, and were only copied beside results run otherwise
  fixed <- intersect(names(settings), c("rho", "lambda", "scale", "df", "tune", "sigma_clip_inf", "noise_multiplier",
                                        "calibration", "ldp_threshold", "clip", "reps", "relative", "methods"))
  if (length(fixed)) {
    abort("`settings` has column(s) %s, which run_study() does not read per row (they are arguments of run_study() or cov_model(), one value for the whole study); give them as arguments, or rename the columns if they only label the rows.",
          paste0("`", fixed, "`", collapse = ", "), .arg = "settings")
  }
  reps <- check_count(reps, "reps", max = 1e6)
  if (!is.data.frame(methods) || !nrow(methods) || !all(c("label", "variant", "model", "neighbor") %in% names(methods))) {
    abort("`methods` must be a data frame like threshold_methods(), with at least one row.", .arg = "methods")
  }
  settings <- as.data.frame(settings, stringsAsFactors = FALSE)
  # a factor column (read.csv(stringsAsFactors = TRUE)) holds its labels
  fac <- vapply(settings, is.factor, logical(1))
  settings[fac] <- lapply(settings[fac], as.character)
  if (is.null(settings$sparsity)) settings$sparsity <- NA_real_
  # every row checked up front, so that a bad row fails before any replication runs
  for (i in seq_len(nrow(settings))) with_arg(check_study_setting(settings[i, ]), "settings", sprintf("row %d", i))
  for (i in seq_len(nrow(methods))) {
    me <- methods[i, ]
    with_arg({
      if (!is_string(as.character(me$label))) abort("`label` must be one string.")
      variant <- check_choice(as.character(me$variant), c("modified", "wang_xu"), "variant")
      model <- check_choice(as.character(me$model), c("central", "local"), "model")
      threshold_neighbor(as.character(me$neighbor), variant, model)
    }, "methods", sprintf("row %d", i))
  }
  methods <- as.data.frame(methods, stringsAsFactors = FALSE)
  mfac <- vapply(methods, is.factor, logical(1))
  methods[mfac] <- lapply(methods[mfac], as.character)
  # one label per method: the results are told apart by it
  if (anyDuplicated(methods$label)) {
    abort("`methods` has repeated labels (%s); give each method its own label.",
          paste0("\"", unique(methods$label[duplicated(methods$label)]), "\"", collapse = ", "), .arg = "methods")
  }
  # arguments no row or method uses are refused, not recorded as if used
  if (df_given && !any(settings$dist == "t")) {
    abort("`df` applies to rows with dist = \"t\", and `settings` has none.", .arg = "df")
  }
  if (rule_given && !any(methods$model == "local" & methods$variant == "modified")) {
    abort("`ldp_threshold` applies to the modified local method, and `methods` has none.", .arg = "ldp_threshold")
  }
  # a public tuning sample must have each setting's p columns (checked before any replication runs)
  if (identical(tune$method, "public") && any(settings$p != ncol(tune$public))) {
    abort("`tune`: the public sample has %d columns, and `settings` has rows with p = %s.", ncol(tune$public),
          paste(unique(settings$p[settings$p != ncol(tune$public)]), collapse = ", "), .arg = "tune")
  }
  jobs <- expand.grid(rep = seq_len(reps), setting = seq_len(nrow(settings)))
  pr <- progressr::progressor(steps = nrow(jobs))
  one_job <- function(j) {
    st <- settings[jobs$setting[j], ]
    Sigma <- if (st$cov == "random_sparse") {
      cov_model(st$p, "random_sparse", sparsity = st$sparsity)
    } else cov_model(st$p, st$cov)
    x <- if (st$dist == "t") rdata(st$n, Sigma, "t", df) else rdata(st$n, Sigma)
    truths <- if (st$dist == "t") list(scale = Sigma, covariance = df / (df - 2) * Sigma) else list(scale = Sigma)
    rows <- lapply(seq_len(nrow(methods)), function(m) {
      me <- methods[m, ]
      # ldp_threshold only where it applies (dp_threshold() refuses it elsewhere)
      rule <- if (me$model == "local" && me$variant == "modified") list(ldp_threshold = ldp_threshold)
      rel <- do.call(dp_threshold, c(list(x, st$epsilon, st$delta, clip = Inf, variant = me$variant, model = me$model,
                                          tune = tune, neighbor = me$neighbor,
                                          sigma_clip_inf = sigma_clip_inf, noise_multiplier = noise_multiplier,
                                          calibration = calibration), rule))
      do.call(rbind, lapply(names(truths), function(tn) {
        e <- cov_error(rel$estimate, truths[[tn]])
        out <- data.frame(method = me$label, truth = tn, constant = rel$params$constant,
                          spectral = e[["spectral"]], frobenius = e[["frobenius"]], l1 = e[["l1"]],
                          stringsAsFactors = FALSE)
        if (relative) {
          r <- cov_error(rel$estimate, truths[[tn]], relative = TRUE)
          out$rel_spectral <- r[["spectral"]]
          out$rel_frobenius <- r[["frobenius"]]
          out$rel_l1 <- r[["l1"]]
        }
        out
      }))
    })
    pr()
    cbind(st[rep(1L, sum(vapply(rows, nrow, integer(1)))), , drop = FALSE],
          rep = jobs$rep[j], do.call(rbind, rows), row.names = NULL)
  }
  # a study releases at small n on purpose: the noise is what it measures
  one <- function(j) muffle_noise_warnings(one_job(j))
  res <- future.apply::future_lapply(seq_len(nrow(jobs)), one, future.seed = TRUE)
  out <- do.call(rbind, res)
  rownames(out) <- NULL
  attr(out, "dpcov_version") <- as.character(utils::packageVersion("dpcov"))
  # how it was run (public arguments): studies run otherwise are told apart
  attr(out, "run") <- list(reps = reps, tune = tune$method, constant = tune$constant, calibration = calibration,
                           sigma_clip_inf = sigma_clip_inf, noise_multiplier = noise_multiplier,
                           ldp_threshold = ldp_threshold, df = df, relative = relative)
  new_study(out, "threshold_study")
}

# One row of run_study()'s settings.
check_study_setting <- function(st) {
  cov <- check_choice(as.character(st$cov), c("model1", "model2", "random_sparse"), "cov")
  check_choice(as.character(st$dist), c("gaussian", "t"), "dist")
  p <- check_count(st$p, "p", min = 2)
  n <- check_count(st$n, "n", min = 2)
  check_cells(n * p, "the simulated data", "n")
  check_epsilon(st$epsilon)
  check_delta(st$delta)
  if (cov == "random_sparse") check_number(st$sparsity, "sparsity", lower = 0, upper = 1, upper_open = FALSE)
  # (a sparsity beside Model 1 or 2 was copied to the results, unused)
  if (cov != "random_sparse" && !is.na(st$sparsity)) abort("`sparsity` applies to cov = \"random_sparse\" only; give NA in the other rows.", .arg = "sparsity")
  invisible(st)
}

#' Summarise a simulation study
#'
#' Mean and standard error (sd / sqrt(reps)) of the errors per setting,
#' method and truth.
#' @param results Output of [run_study()].
#' @param measure Error columns to summarise.
#' @return A data frame with `mean_<measure>` and `se_<measure>` columns.
#' @examples
#' s <- data.frame(cov = "model2", dist = "gaussian", p = 10, n = 100,
#'                 epsilon = 0.5, delta = 1 / 400)
#' study_summary(run_study(s, reps = 2, tune = "theory"))
#' @template ref-wangxu
#' @template param-dots-none
#' @export
study_summary <- function(results, measure = c("spectral", "frobenius"), ...) {
  refuse_unknown_args("study_summary", ...)
  if (missing(results)) abort_missing("results")
  if (!is.data.frame(results) || !nrow(results)) abort("`results` must be a run_study() result (a data frame with rows).")
  results <- as.data.frame(unclass(results), stringsAsFactors = FALSE)  # a plain table, not a study
  if (!is.character(measure) || !length(measure) || anyNA(measure) || anyDuplicated(measure)) {
    abort("`measure` must be one or more names of error columns of `results`.")
  }
  bad <- measure[!vapply(measure, function(m) is.numeric(results[[m]]) && !is.object(results[[m]]), logical(1))]
  if (length(bad)) {
    abort("`measure`: %s %s not numeric column(s) of `results`.", paste0('"', bad, '"', collapse = ", "),
          if (length(bad) > 1) "are" else "is")
  }
  # every column but the replication, the per-release constant and the
  # errors tells results apart (a fixed list pooled two scenarios, or two
  # settings columns of the user's, as one with twice the reps)
  errors <- c("spectral", "frobenius", "l1", "rel_spectral", "rel_frobenius", "rel_l1")
  keys <- setdiff(names(results), c("rep", "constant", errors, measure))
  g <- do.call(paste, c(lapply(results[keys], as.character), sep = "\r"))
  g <- factor(g, levels = unique(g))
  parts <- lapply(split(results, g), function(d) {
    out <- d[1L, keys, drop = FALSE]
    out$reps <- nrow(d)
    for (m in measure) {
      out[[paste0("mean_", m)]] <- mean(d[[m]])
      out[[paste0("se_", m)]] <- stats::sd(d[[m]]) / sqrt(nrow(d))
    }
    out
  })
  out <- do.call(rbind, parts)
  rownames(out) <- NULL
  out
}
