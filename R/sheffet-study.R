# The regression experiments of Sheffet's Sections 3-6: data generator
# (Section 3.1 and the multiple-regression data of Section 6.2), the study
# runner behind Figures 1-5, its summary and its plots.

#' Data of Sheffet's regression experiments
#'
#' Rows \eqn{[x, 1, y_1, \ldots, y_m]} with \eqn{x \sim N(0, I_p)} and
#' \eqn{y_j = [x, 1]\beta_j + e_j}, \eqn{e_j \sim N(0, \sigma^2)}: with
#' `m = 1` the single-regression setting of Section 3.1 (p = 20, d = 22),
#' with `m = p` the multiple-regression data of Section 6.2. The paper
#' writes the noise as "N(0, 0.5)" in Section 3.1 and as sd 0.5 in Section
#' 6.2; we use sd `noise_sd = 0.5` in both.
#'
#' Random numbers are drawn row by row (x, then the m noises), so the data
#' equal, under the same seed, what the study's streaming generator reduces
#' to a Gram matrix chunk by chunk.
#'
#' @param n Rows.
#' @param beta A (p + 1) x m matrix (or a vector for m = 1): coefficients of
#'   the p features and, last, the intercept. Default: one draw from
#'   \eqn{U[-1, 1]} per entry for p = 20, m = 1.
#' @param noise_sd Label noise standard deviation.
#' @return An n x (p + 1 + m) matrix with columns `x1..xp`, `one`, `y1..ym`,
#'   and attribute `beta`.
#' @examples
#' set.seed(1)
#' A <- sheffet_data(1000)
#' dim(A) # 1000 x 22
#' dp_regression(second_moment(A), "y1", features = 1:21)
#' attr(A, "beta")
#' @template ref-sheffet
#' @template param-dots-none
#' @export
sheffet_data <- function(n, beta = NULL, noise_sd = 0.5, ...) {
  refuse_unknown_args("sheffet_data", ...)
  n <- check_count(n, "n")
  beta <- study_beta(beta)
  noise_sd <- check_number(noise_sd, "noise_sd", lower = 0, upper = 1e150, lower_open = FALSE)
  p <- nrow(beta) - 1L
  m <- ncol(beta)
  check_cells(n * (p + 1 + m), "the data", "n")
  Z <- matrix(stats::rnorm(n * (p + m)), nrow = n, ncol = p + m, byrow = TRUE)
  X <- cbind(Z[, seq_len(p), drop = FALSE], 1)
  Y <- X %*% beta + noise_sd * Z[, p + seq_len(m), drop = FALSE]
  A <- cbind(X, Y)
  colnames(A) <- study_colnames(p, m)
  attr(A, "beta") <- beta
  A
}

study_beta <- function(beta, p = 20L, m = 1L) {
  if (is.null(beta)) beta <- matrix(stats::runif((p + 1L) * m, -1, 1), p + 1L, m)
  if (is.vector(beta) && is.numeric(beta)) beta <- matrix(beta, ncol = 1L)
  if (!is.matrix(beta) || !is.numeric(beta) || is.object(beta) || anyNA(beta) || any(!is.finite(beta)) || nrow(beta) < 2L ||
      max(abs(beta)) > 1e150) {
    abort("`beta` must be a finite numeric (p + 1) x m matrix (feature coefficients, then the intercept).")
  }
  storage.mode(beta) <- "double"
  beta
}

study_colnames <- function(p, m) c(paste0("x", seq_len(p)), "one", paste0("y", seq_len(m)))

# The clipped Gram matrix of sheffet_data(n, beta, noise_sd), generated and
# reduced chunk by chunk in C++ (n = 2^25 rows never sit in memory).
sheffet_gram <- function(n, beta, noise_sd, clip) {
  g <- simulate_regression_gram_cpp(n, beta, noise_sd, clip)
  new_suffstat(g$gram, g$n, clip, study_colnames(nrow(beta) - 1L, ncol(beta)), g$n_clipped)
}

#' Run Sheffet's regression experiments (Figures 1-5)
#'
#' For each replication and each n, draws a data set from [sheffet_data()]
#' (streamed and reduced to its clipped Gram matrix, so n = 2^25 fits in
#' memory), releases it with every estimator of the requested experiment at
#' every epsilon, and records the L2 error \eqn{\|\tilde\beta - \beta\|} of
#' the regression coefficients (features and intercept) computed by
#' [dp_regression()]. The coefficient vector beta is drawn once (from the
#' current seed) and kept fixed; the data are redrawn for every replication
#' and n, and shared by all estimators and all epsilon of that replication
#' (the paper redraws per estimator; sharing only couples the estimators'
#' errors, it does not change any one estimator's error distribution).
#'
#' `experiment = "single"` (Sections 3-6.1, Figures 1-4): p = 20 features,
#' intercept, one label, d = 22; estimators
#' * `ols`: least squares on the (clipped) data, non-private;
#' * `jl_nonprivate`: the data projected with r rows, no ridge, non-private;
#' * `alg1`: [jl_ridge()] with the r Algorithm 2 used (Figure 1);
#' * `alg2`: [jl_adaptive()], `r0 = 2d`;
#' * `alg3`, `alg3_shift`: [wishart_noise()] without and with the shift;
#' * `iw_nonprivate`: a posterior draw \eqn{W^{-1}(A^TA, n + d)}, non-private;
#' * `alg4`: [iwishart_posterior()];
#' * `alg5_nd`, `alg5_2d`: [iwishart_adaptive()] with `k0 = n + d` and `2d`;
#' * `ag`, `ag_scaled`, `ag_psd`: [analyze_gauss()] with `post = "none"`,
#'   `"shift"`, `"psd"`.
#'
#' `experiment = "multiple"` (Section 6.2, Figure 5): p = 20 features,
#' intercept and p labels \eqn{y_j = [x, 1]\beta_j + e_j}, d = 2p + 1; one
#' release per estimator (`ag`, `ag_scaled`, `alg2`, `alg5_2d`, `alg3`,
#' `alg3_shift`), and from it, for each m in `m`, the regression of `y1` on
#' x, the intercept and the m redundant labels `y2..y(m+1)`, whose true
#' coefficients are 0.
#'
#' Replications run through [future.apply::future_lapply()] with
#' `future.seed = TRUE`, so any `future::plan()` parallelises them and results
#' are reproducible for a given seed and plan-independent; progress is
#' reported through `progressr` (wrap the call in [progressr::with_progress()]).
#' The Analyze Gauss estimators (`ag`, `ag_scaled`, `ag_psd`) use
#' `calibration = "classic"`, the paper's Gaussian mechanism, as the
#' comparison it draws.
#' No formal privacy is claimed for the study: it measures utility on
#' simulated data, as the paper does.
#'
#' @param experiment `"single"` or `"multiple"`.
#' @param n Data sizes (paper: `2^(14:25)` single, `2^(12:27)` multiple).
#' @param epsilon Privacy levels (paper: 0.05, 0.1, 0.15, 0.2, 0.25, 0.5 for
#'   the single experiment, 0.1 for the multiple one).
#' @param reps Replications (paper: 15).
#' @param m Numbers of redundant label columns (multiple experiment;
#'   refused with the single one), each at most p - 1; the default keeps
#'   those of 0, 1, 2, 5, 10 that are.
#' @param delta Paper: \eqn{e^{-9}}; below 1/6 (Algorithm 3's range).
#' @param clip Row-norm bound; default \eqn{\sqrt{2.5 d}}, the paper's for
#'   the single-regression experiment (it gives none for the multiple
#'   regressions, where we use the same rule).
#' @param p Number of features (paper: 20).
#' @param noise_sd Label noise sd (0.5).
#' @param beta Coefficients ((p + 1) x labels); default drawn uniformly on \[-1, 1\].
#' @return A data frame of class `c("sheffet_study", "dp_study",
#'   "dp_nonprivate")` (see [dp_study]) with columns `experiment`, `rep`, `n`,
#'   `epsilon`, `m`, `estimator`, `error`; attributes `beta`, `settings` and
#'   `elapsed` (seconds).
#' @seealso [summary.sheffet_study()], [plot.sheffet_study()], [dp_study].
#' @examples
#' set.seed(3)
#' st <- sheffet_study("single", n = 2^c(12, 14), epsilon = 0.25, reps = 2)
#' summary(st)[1:4, ]
#' @template ref-sheffet
#' @template param-dots-none
#' @export
sheffet_study <- function(experiment = "single", n = 2^(14:18),
                          epsilon = c(0.05, 0.1, 0.15, 0.2, 0.25, 0.5), reps = 15,
                          m = c(0, 1, 2, 5, 10), delta = exp(-9), clip = NULL, p = 20,
                          noise_sd = 0.5, beta = NULL, ...) {
  refuse_unknown_args("sheffet_study", ...)
  experiment <- check_choice(experiment, c("single", "multiple"), "experiment")
  # the data are streamed, but time grows with n: refuse sizes that would run for days
  n <- check_counts(n, "n", min = 1, max = dp_limits$cells)
  epsilon <- check_numeric_vector(epsilon, "epsilon")
  for (e in epsilon) check_epsilon(e, 1, "the study (Algorithm 3 needs epsilon < 1)")
  # Algorithm 3 (wishart_noise(), in both experiments) needs delta < 1/6:
  # refused here, not from the first replication
  delta <- check_delta(delta, 1 / 6, "the study (Algorithm 3 needs delta < 1/6)")
  reps <- check_count(reps, "reps", max = 1e6)
  p <- check_count(p, "p", min = 1, max = 1e4)
  noise_sd <- check_number(noise_sd, "noise_sd", lower = 0, upper = 1e150, lower_open = FALSE)
  n_labels <- if (experiment == "single") 1L else as.integer(p)
  if (experiment == "multiple") {
    # the default's values that fit p labels (m <= p - 1); a given m is checked whole
    m <- if (missing(m)) m[m <= p - 1] else check_counts(m, "m", min = 0, max = p - 1)
  } else if (!missing(m)) {
    abort("`m` (redundant labels) applies to experiment = \"multiple\" only.", .arg = "m")
  }
  beta <- study_beta(beta, as.integer(p), n_labels)
  if (nrow(beta) != p + 1 || ncol(beta) != n_labels) {
    abort("`beta` must be %d x %d for this experiment.", as.integer(p + 1), n_labels, .arg = "beta")
  }
  d <- p + 1 + n_labels
  if (is.null(clip)) clip <- sqrt(2.5 * d)
  clip <- check_clip(clip)
  if (!is.finite(clip)) abort("`clip` must be finite: the study's private estimators need a row-norm bound.")
  tasks <- expand.grid(n = sort(n, decreasing = TRUE), rep = seq_len(reps))
  settings <- list(experiment = experiment, n = n, epsilon = epsilon, reps = reps, m = m,
                   delta = delta, clip = clip, p = p, d = d, noise_sd = noise_sd)
  progress <- progressr::progressor(steps = nrow(tasks))
  t0 <- proc.time()[["elapsed"]]
  out <- future.apply::future_lapply(seq_len(nrow(tasks)), function(i) {
    res <- study_task(experiment, tasks$n[i], tasks$rep[i], beta, settings)
    progress(sprintf("n = 2^%g, rep %d", log2(tasks$n[i]), tasks$rep[i]))
    res
  }, future.seed = TRUE, future.packages = "dpcov")
  res <- do.call(rbind, out)
  rownames(res) <- NULL
  structure(new_study(res, "sheffet_study"), beta = beta, settings = settings,
            elapsed = proc.time()[["elapsed"]] - t0)
}

study_task <- function(experiment, n, rep, beta, st) {
  s <- sheffet_gram(n, beta, st$noise_sd, st$clip)
  # a study releases at small n on purpose: the noise is what it measures
  muffle_noise_warnings(if (experiment == "single") study_single(s, n, rep, beta, st) else study_multiple(s, n, rep, beta, st))
}

study_error <- function(M, resp, feat, truth) {
  b <- suppressWarnings(dp_regression(M, resp, features = feat))
  sqrt(sum((b - truth)^2))
}

study_single <- function(s, n, rep, beta, st) {
  d <- st$d
  feat <- seq_len(d - 1L)
  truth <- beta[, 1]
  rows <- list()
  add <- function(eps, name, M) {
    rows[[length(rows) + 1L]] <<- data.frame(
      experiment = "single", rep = rep, n = n, epsilon = eps, m = NA_real_,
      estimator = name, error = study_error(M, d, feat, truth), stringsAsFactors = FALSE)
  }
  add(NA_real_, "ols", s$gram)
  add(NA_real_, "iw_nonprivate", iwishart_from_gram(s$gram, n + d))
  for (eps in st$epsilon) {
    a2 <- jl_adaptive(s, eps, st$delta, st$clip, r0 = 2 * d)
    r <- a2$params$r
    add(eps, "alg2", a2$estimate)
    add(eps, "alg1", jl_ridge(s, eps, st$delta, st$clip, r = max(r, d + 1))$estimate)
    add(eps, "jl_nonprivate", wishart_from_gram(s$gram, r) / r)
    add(eps, "alg3", wishart_noise(s, eps, st$delta, st$clip)$estimate)
    add(eps, "alg3_shift", wishart_noise(s, eps, st$delta, st$clip, shift = TRUE)$estimate)
    add(eps, "alg4", iwishart_posterior(s, eps, st$delta, st$clip)$estimate)
    add(eps, "alg5_nd", iwishart_adaptive(s, eps, st$delta, st$clip, k0 = n + d)$estimate)
    add(eps, "alg5_2d", iwishart_adaptive(s, eps, st$delta, st$clip, k0 = 2 * d)$estimate)
    add(eps, "ag", analyze_gauss(s, eps, st$delta, st$clip, calibration = "classic")$estimate)
    add(eps, "ag_scaled", analyze_gauss(s, eps, st$delta, st$clip, calibration = "classic", post = "shift")$estimate)
    add(eps, "ag_psd", analyze_gauss(s, eps, st$delta, st$clip, calibration = "classic", post = "psd")$estimate)
  }
  do.call(rbind, rows)
}

study_multiple <- function(s, n, rep, beta, st) {
  p <- st$p
  y1 <- p + 2L
  rows <- list()
  add <- function(eps, name, M) {
    for (m in st$m) {
      feat <- c(seq_len(p + 1L), y1 + seq_len(m))
      truth <- c(beta[, 1], rep(0, m))
      rows[[length(rows) + 1L]] <<- data.frame(
        experiment = "multiple", rep = rep, n = n, epsilon = eps, m = m,
        estimator = name, error = study_error(M, y1, feat, truth), stringsAsFactors = FALSE)
    }
  }
  add(NA_real_, "ols", s$gram)
  for (eps in st$epsilon) {
    add(eps, "ag", analyze_gauss(s, eps, st$delta, st$clip, calibration = "classic")$estimate)
    add(eps, "ag_scaled", analyze_gauss(s, eps, st$delta, st$clip, calibration = "classic", post = "shift")$estimate)
    add(eps, "alg2", jl_adaptive(s, eps, st$delta, st$clip, r0 = 2 * st$d)$estimate)
    add(eps, "alg5_2d", iwishart_adaptive(s, eps, st$delta, st$clip, k0 = 2 * st$d)$estimate)
    add(eps, "alg3", wishart_noise(s, eps, st$delta, st$clip)$estimate)
    add(eps, "alg3_shift", wishart_noise(s, eps, st$delta, st$clip, shift = TRUE)$estimate)
  }
  do.call(rbind, rows)
}

#' Summaries and plots of a Sheffet study
#'
#' `summary()` gives the mean, standard deviation and standard error of the
#' L2 error over replications for each experiment, estimator, epsilon, m and
#' n. `plot()` draws the mean error against n (log2 scale) with error bars of
#' one standard deviation (as the paper reports mean and standard deviation;
#' on the log axis a bar's lower end is truncated at a tenth of the mean)
#' for the estimators of one of the paper's figures, in base graphics.
#'
#' @param object,x A `sheffet_study` from [sheffet_study()].
#' @param figure 1 (JL: Alg. 1, 2, non-private), 2 (additive Wishart),
#'   3 (inverse Wishart), 4 (the six estimators) or 5 (multiple regression).
#' @param epsilon The epsilon to show (default: the first non-missing).
#' @param m For figure 5: the number of redundant labels to show (refused
#'   with the other figures).
#' @param ylim,main Passed to [graphics::plot()].
#' @param ... `plot()`: passed to [graphics::plot()]; `summary()`: unused.
#' @return `summary()`: a data frame. `plot()`: `x`, invisibly.
#' @examples
#' set.seed(3)
#' st <- sheffet_study("single", n = 2^c(12, 14), epsilon = 0.25, reps = 2)
#' plot(st, figure = 4)
#' @name sheffet_study_methods
NULL

#' @rdname sheffet_study_methods
#' @export
summary.sheffet_study <- function(object, ...) {
  check_sheffet_study(object, "object")
  df <- as.data.frame(unclass(object), stringsAsFactors = FALSE)
  key <- paste(df$experiment, df$estimator, df$epsilon, df$m, df$n, sep = "|")  # NA-safe
  out <- do.call(rbind, lapply(split(df, key), function(g) {
    data.frame(experiment = g$experiment[1], estimator = g$estimator[1], epsilon = g$epsilon[1],
               m = g$m[1], n = g$n[1], reps = nrow(g), mean = mean(g$error),
               sd = if (nrow(g) > 1) stats::sd(g$error) else NA_real_,
               se = if (nrow(g) > 1) stats::sd(g$error) / sqrt(nrow(g)) else NA_real_,
               stringsAsFactors = FALSE)
  }))
  out <- out[order(out$experiment, out$estimator, out$epsilon, out$m, out$n), ]
  rownames(out) <- NULL
  as_nonprivate(out, "study_summary")
}

#' @rdname sheffet_study_methods
#' @param n_rows Rows of the summary `print()` shows.
#' @export
print.sheffet_study <- function(x, n_rows = 6, ...) {
  check_sheffet_study(x, settings = TRUE)
  n_rows <- check_count(n_rows, "n_rows", max = 1e6)
  nonprivate_banner(x, "a study on simulated data (its non-private estimators are exact)")
  st <- attr(x, "settings")
  cat(sprintf("<sheffet_study> %s regression on simulated data (a study, not a release), d = %s, %d replications, %s seconds\n",
              st$experiment, format(st$d), as.integer(st$reps), format(round(attr(x, "elapsed"), 1))))
  cat(sprintf("n = 2^%s .. 2^%s, epsilon = %s, delta = %s, clip = %s\n",
              format(min(log2(st$n))), format(max(log2(st$n))), paste(st$epsilon, collapse = ", "),
              format(st$delta, digits = 3), format(st$clip, digits = 4)))
  cat(sprintf("%d errors; summary() gives mean and sd per estimator, epsilon, m and n:\n", nrow(x)))
  print(utils::head(plain_table(summary(x)), n_rows), row.names = FALSE)
  invisible(x)
}

# A study given as input (hand-made ones included): the columns summary() and
# plot() read, and for print() the settings attribute.
check_sheffet_study <- function(x, arg = "x", settings = FALSE) {
  if (!inherits(x, "sheffet_study") || !is_frame_with(x, numeric = c("n", "epsilon", "m", "error"),
                                                      character = c("experiment", "estimator")) ||
      !all(is.finite(x$n) & x$n >= 1) || !all(is.finite(x$error) & x$error >= 0)) {
    abort("`%s` is not a valid sheffet_study: it needs rows with columns experiment, estimator, n, epsilon, m and a finite error >= 0 (a distance).",
          arg, .arg = arg)
  }
  if (settings) {
    st <- attr(x, "settings")
    ok <- is.list(st) && is_string(st$experiment) && is_num1(st$d) && is_num1(st$reps) &&
      is_finite_num(st$n) && all(st$n >= 1) && is.numeric(st$epsilon) && is_num1(st$delta) &&
      is_num1(st$clip) && is_num1(attr(x, "elapsed"))
    if (!ok) abort("`%s` is not a valid sheffet_study: its settings or elapsed attributes are missing or malformed.", arg, .arg = arg)
  }
  invisible(x)
}

study_figures <- list(
  `1` = c(alg2 = "Alg. 2", alg1 = "Alg. 1", jl_nonprivate = "non-private JL"),
  `2` = c(alg3 = "Alg. 3", alg3_shift = "Alg. 3 shifted", ols = "non-private OLS"),
  `3` = c(iw_nonprivate = "non-private posterior", alg4 = "Alg. 4", alg5_nd = "Alg. 5 (k0 = n + d)",
          alg2 = "Alg. 2 (r0 = 2d)", alg5_2d = "Alg. 5 (k0 = 2d)"),
  `4` = c(ag = "Analyze Gauss", ag_scaled = "Analyze Gauss scaled", alg2 = "Alg. 2",
          alg5_2d = "Alg. 5 (k0 = 2d)", alg3 = "Alg. 3", alg3_shift = "Alg. 3 shifted"),
  `5` = c(ag = "Analyze Gauss", ag_scaled = "Analyze Gauss scaled", alg2 = "Alg. 2",
          alg5_2d = "Alg. 5 (k0 = 2d)", alg3 = "Alg. 3", alg3_shift = "Alg. 3 shifted", ols = "non-private OLS")
)

study_style <- list(
  ag = c("black", 15), ag_scaled = c("black", 1), alg2 = c("blue", 15), alg5_2d = c("deepskyblue3", 1),
  alg3 = c("magenta", 15), alg3_shift = c("magenta", 1), alg1 = c("red", 17),
  jl_nonprivate = c("black", 17), ols = c("darkgrey", 4), iw_nonprivate = c("black", 17),
  alg4 = c("darkgreen", 15), alg5_nd = c("red", 1), ag_psd = c("orange", 2)
)

#' @rdname sheffet_study_methods
#' @param legend_pos `"outside"` (default: in the right margin, beside the
#'   data), `"none"`, or a [graphics::legend()] keyword to put it inside.
#' @export
plot.sheffet_study <- function(x, figure = 4, epsilon = NULL, m = 0, ylim = NULL, main = NULL,
                               legend_pos = "outside", ...) {
  check_sheffet_study(x)
  if (!(is_number(figure) || is_string(figure)) || !as.character(figure) %in% names(study_figures)) {
    abort("`figure` must be one of 1, 2, 3, 4, 5.")
  }
  figure <- as.character(figure)
  if (!missing(m) && figure != "5") abort("`m` (redundant labels) applies to figure 5 (the multiple-label experiment) only.", .arg = "m")
  if (!is.null(epsilon)) epsilon <- check_epsilon(epsilon)
  m <- check_count(m, "m", min = 0)
  ylim <- check_ylim(ylim)
  if (!is.null(main) && !is_string(main)) abort("`main` must be NULL or one string.", .arg = "main")
  legend_pos <- check_legend_pos(legend_pos)
  exper <- if (figure == "5") "multiple" else "single"
  sm <- summary.sheffet_study(x)
  sm <- sm[sm$experiment == exper, , drop = FALSE]
  if (!nrow(sm)) abort("this study has no \"%s\" experiment (figure %s).", exper, figure)
  if (is.null(epsilon)) epsilon <- sort(unique(sm$epsilon[!is.na(sm$epsilon)]))[1]
  est <- study_figures[[figure]]
  keep <- sm$estimator %in% names(est) & (is.na(sm$epsilon) | sm$epsilon == epsilon)
  if (exper == "multiple") keep <- keep & sm$m == m
  sm <- sm[keep, , drop = FALSE]
  if (all(is.na(sm$epsilon))) {
    abort("this study has no %s results at `epsilon` = %s%s.", exper, format(epsilon),
          if (exper == "multiple") sprintf(" and m = %s", format(m)) else "")
  }
  est <- est[names(est) %in% sm$estimator]
  # on the log axis a bar's lower end is truncated at mean / 10
  lo <- pmax(sm$mean - ifelse(is.na(sm$sd), 0, sm$sd), sm$mean / 10)
  hi <- sm$mean + ifelse(is.na(sm$sd), 0, sm$sd)
  if (is.null(ylim)) ylim <- headroom(range(c(lo, hi)), log = TRUE)
  if (is.null(main)) {
    main <- sprintf("Figure %s: epsilon = %s%s", figure, format(epsilon),
                    if (exper == "multiple") paste0(", m = ", m) else "")
  }
  cols <- vapply(names(est), function(e) study_style[[e]][1], "")
  pchs <- vapply(names(est), function(e) as.integer(study_style[[e]][2]), 1L)
  if (legend_pos == "outside") {
    leg <- legend_outside_setup(unname(est), cex = 0.75)
    on.exit(graphics::par(leg$op))
  }
  xr <- range(log2(sm$n))
  graphics::plot(NA, xlim = xr + c(-1, 1) * max(0.25, 0.04 * diff(xr)), ylim = ylim, log = "y",
                 xlab = "n (rows)", ylab = "mean L2 error of beta", main = main, axes = FALSE, ...)
  ks <- sort(unique(log2(sm$n)))
  if (length(ks) > 8) ks <- ks[round(ks) %% 2 == round(ks[1]) %% 2]
  graphics::axis(1, at = ks, labels = axis_labels(2^ks, 2), cex.axis = 0.85)
  study_axis(2, NULL)
  graphics::box()
  for (i in seq_along(est)) {
    g <- sm[sm$estimator == names(est)[i], , drop = FALSE]
    g <- g[order(g$n), , drop = FALSE]
    graphics::lines(log2(g$n), g$mean, col = cols[i], type = "b", pch = pchs[i])
    ok <- !is.na(g$sd) & g$sd > 0
    if (any(ok)) {
      # error bars: mean +- sd, the lower end floored at the plot's bottom (log axis)
      xs <- log2(g$n[ok]); lo <- pmax(g$mean[ok] - g$sd[ok], g$mean[ok] / 10, ylim[1])
      hi <- g$mean[ok] + g$sd[ok]
      graphics::segments(xs, lo, xs, hi, col = cols[i])
      graphics::segments(xs - 0.08, c(lo, hi), xs + 0.08, c(lo, hi), col = cols[i])
    }
  }
  if (legend_pos == "outside") {
    legend_outside(unname(est), col = cols, pch = pchs, lty = 1, leg = leg)
  } else if (legend_pos != "none") {
    graphics::legend(legend_pos, legend = unname(est), bty = "n", cex = 0.7, col = cols, pch = pchs, lty = 1)
  }
  invisible(x)
}
