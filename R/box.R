# The box map (issue 19): public per-column bounds, the way users know them
# (physical units, questionnaire scales), instead of one row-norm bound. The
# data are clamped to the public bounds and mapped to a unit box (a public
# map applied row by row, so post-processing of nothing private), the
# mechanism runs there with the row-norm bound the box implies, and the
# result is mapped back to the data's units. This file is the one place for
# the map; the sensitivities stay in R/privacy.R.
#
#  * centred (dp_cov(), dp_lm(), dp_pca()): z = (clamp(x, l, u) - m) / w with
#    m = (l + u) / 2, w = u - l, so z lies in [-1/2, 1/2]^p: rows have norm
#    <= sqrt(p) / 2 and no further clipping happens (no clipping bias).
#  * uncentred (a second moment about 0, e.g. analyze_gauss()): z = clamp(x,
#    l, u) / s with s = max(|l|, |u|), a linear map (the origin stays put, so
#    the uncentred second moment maps back exactly): |z_j| <= 1, rows have
#    norm <= sqrt(p).
# Mapping back: x = m + w z, so a mean maps to m + w mu_z and a centred
# second moment to W S_z W (W = diag(w)); uncentred, G_x = S G_z S.

#' The public map of validated, aligned bounds `b` (check_bounds()).
#' @noRd
box_map <- function(b, centred, weights = NULL) {
  lower <- b$lower
  upper <- b$upper
  g <- NULL
  if (centred) {
    shift <- (lower + upper) / 2
    scale <- upper - lower
    half <- 0.5
    # `weights`: dp_cov()'s box_weights choice; weighted, coordinate j lies in
    # [-g_j/2, g_j/2] (box_noise_weights())
    g <- box_noise_weights(weights, lower, upper)
    if (!is.null(g)) {
      scale <- scale / g
      half <- g / 2
    }
  } else {
    shift <- 0 * lower
    scale <- pmax(abs(lower), abs(upper))
    half <- 1
  }
  if (!all(is.finite(scale)) || any(scale <= 0)) {
    abort("the public bounds give a column of zero or non-finite width; rescale the data.", .arg = "bounds")
  }
  list(lower = lower, upper = upper, shift = shift, scale = scale, centred = centred, half = half, weights = g)
}

#' The weights g of the centred box for `box_weights` (public: from the
#' public, or privately chosen, bounds only). "equal": NULL, the unit box,
#' every column's noise proportional to its width (the same relative noise
#' for every column: what correlations, PCA of unit-scaled data and
#' regression need). "frobenius": g_j = sqrt(w_j / max w), which minimises
#' the expected squared Frobenius norm of the noise in the data's units:
#' entry (i, j) gets noise proportional to C^2 w_i w_j / (g_i g_j), C = |g| /
#' 2, and (sum g_j^2)(sum w_j^2 / g_j^2) is least at g_j^2 proportional to
#' w_j (Cauchy-Schwarz); the narrow columns get more relative noise
#' (bench/RESULTS.md, "How the box shares its noise among columns").
#' @noRd
box_noise_weights <- function(choice, lower, upper) {
  if (is.null(choice) || identical(choice, "equal")) return(NULL)
  w <- upper - lower
  sqrt(w / max(w))
}

#' The rows of X mapped to the box. Clamping after the map is clamping before
#' it (the map is increasing in each column) and keeps every value inside the
#' box exactly, whatever the rounding of (x - m) / w.
#' @noRd
box_apply <- function(X, map) {
  n <- nrow(X)
  lo <- (map$lower - map$shift) / map$scale
  hi <- (map$upper - map$shift) / map$scale
  Z <- (X - rep(map$shift, each = n)) / rep(map$scale, each = n)
  Z <- pmin(pmax(Z, rep(pmax(lo, -map$half), each = n)), rep(pmin(hi, map$half), each = n))
  dim(Z) <- dim(X)
  dimnames(Z) <- dimnames(X)
  Z
}

#' The row the all-zero record becomes (public: it depends on the bounds only).
#' @noRd
box_zero_row <- function(map) {
  drop(box_apply(matrix(0, 1L, length(map$scale)), map))
}

#' The mean mapped back to the data's units.
#' @noRd
box_unmap_mean <- function(mu, map) map$shift + map$scale * mu

#' A (centred or uncentred) second moment mapped back: W S W.
#' @noRd
box_unmap_second <- function(S, map) S * tcrossprod(map$scale)

#' The released record of the public bounds.
#' @noRd
box_frame <- function(map, colnames) {
  check_unique_colnames(colnames)
  data.frame(lower = map$lower, upper = map$upper,
             row.names = if (is.null(colnames)) paste0("V", seq_along(map$lower)) else colnames)
}

#' Row-norm bound of the box rows centred at a released mean `mu` (clamped
#' into the box first): |z_j - mu_j| <= 1/2 + |mu_j|, so B = sqrt(sum (1/2 +
#' |mu_j|)^2), public (mu is released) and never above sqrt(p).
#' @noRd
box_centred_bound <- function(mu) norm_round_up(0.5 + abs(mu))

#' A chunk reader whose blocks are mapped to the box. The bounds are aligned
#' to the first block's columns (a reader's shape is known only when read);
#' `state$map` holds the map for the caller.
#' @noRd
box_reader <- function(reader, b, centred, state) {
  reader_map(reader, function(blk) {
    blk <- check_reader_block(blk)
    if (is.null(state$map)) {
      # bounds that do not fit the block's columns: the user's arguments
      # against the reader's schema (public), refused in the package's words
      aligned <- tryCatch(align_bounds(b, colnames(blk), ncol(blk)), dpcov_error = function(e) {
        e$message <- paste(conditionMessage(e), "(against the columns of the reader's first block)")
        class(e) <- c("dpcov_reader_block", class(e))
        stop(e)
      })
      state$map <- box_map(aligned, centred, b$weights)
    }
    if (ncol(blk) != length(state$map$scale)) return(blk)  # reader_fold() reports the shape
    box_apply(blk, state$map)
  })
}

# ---- dp_cov() on the box ---------------------------------------------------------

#' dp_cov() with public per-column bounds. With Analyze Gauss: one pass,
#' dp_cov_box_joint(). With thresholding or Wishart the two steps run on the box rows
#' z: the mean step on z (norm <= C = sqrt(p)/2, nothing clipped), the second
#' step on z - mu (mu the released mean clamped into the box; norm <= B =
#' box_centred_bound(mu), nothing clipped). The shift to the box midpoint and
#' the centring move the zero record, so zero-out is calibrated with the
#' transformed zero row in both steps (its box row z0, then z0 - mu; see
#' "Neighbours of transformed rows" in R/privacy.R). The covariance is projected to the
#' PSD cone on the box scale, where the noise is isotropic (so the result
#' does not depend on the data's units: cents or dollars give the same
#' correlation), then mapped back with the mean.
#' @noRd
dp_cov_box <- function(x, b, epsilon, delta, eps_mean, delta_mean, eps_second, delta_second, split,
                       mechanism, type, divisor, neighbor, calibration, charge, call, min_rows, gauss = NULL) {
  if (mechanism == "analyze_gauss") {
    return(dp_cov_box_joint(x, b, epsilon, delta, eps_mean + eps_second, delta_mean + delta_second, split, type,
                            divisor, neighbor, calibration, charge, call, min_rows, gauss = gauss))
  }
  src <- dp_cov_source(x, min_rows)
  state <- new.env(parent = emptyenv())
  if (is.null(src$reader)) {
    check_threshold_p(mechanism, src$p)
    state$map <- box_map(align_bounds(b, src$colnames, src$p), centred = TRUE)
    src$X <- box_apply(src$X, state$map)
  } else {
    src$reader <- box_reader(src$reader, b, centred = TRUE, state)
  }
  # step 1: the mean of the box rows (no clipping: norms <= sqrt(p) / 2)
  if (is.null(src$reader)) {
    sums <- colSums(src$X)
  } else {
    pass <- dp_cov_stream(src$reader, colSums, min_rows = min_rows)
    sums <- pass$total
    src[c("n", "p", "colnames")] <- pass[c("n", "p", "colnames")]
    check_threshold_p(mechanism, src$p)
  }
  map <- state$map
  p <- src$p
  C <- bound_round_up(sqrt(p) / 2, p)
  sigma_m <- mean_step_sigma(C, neighbor, eps_mean, delta_mean, calibration,
                             zero_row = norm_round_up(box_zero_row(map)))
  mean_step <- noisy_mean(sums, src$n, C, sigma_m, neighbor == "add-remove")
  # the released mean, clamped into the box (post-processing): public now
  mu <- pmin(pmax(mean_step$center, -0.5), 0.5)
  B <- box_centred_bound(mu)
  # step 2: the second moment of z - mu; the zero record enters as z0 - mu
  second <- dp_cov_second_step(src, mu, B, mechanism, neighbor, eps_second, delta_second, calibration,
                               zero_record = box_zero_row(map) - mu)
  n_public <- neighbor != "add-remove" || second$n_public
  n_hat <- if (n_public) src$n else max(2, mean_step$n_noisy)
  correction <- sigma_m^2 / n_hat
  S <- second$sum - diag(correction, p)
  mean_step$center <- box_unmap_mean(mu, map)
  params <- list(split = split, epsilon_mean = eps_mean, delta_mean = delta_mean,
                 epsilon_second = eps_second, delta_second = delta_second,
                 bounds = box_frame(map, src$colnames), bounds_source = "public",
                 clip_mean = C, sigma_mean = sigma_m, clip_second = B, box_center = mu,
                 second_mechanism = mechanism,
                 sigma_second = second$sigma, mean_correction = correction, divisor = divisor,
                 calibration = calibration, passes = 2,
                 units = "box: clip_mean, clip_second, box_center, sigma_mean, sigma_second and mean_correction are on the unit-box scale")
  dp_cov_finish(S, n_hat, mean_step, second, src$colnames, src$n, p, params, type, divisor, epsilon,
                delta, neighbor, B, n_public, charge, call, unmap = function(cov) box_unmap_second(cov, map),
                mechanism_text = sprintf("public per-column bounds (unit box), Gaussian mean, then %s on the rows centred at it",
                                         second$mechanism),
                tuning = tuning_record("none"),
                guarantee = dp_cov_box_guarantee_text(eps_mean, delta_mean, eps_second, delta_second, neighbor,
                                                      C, B, n_public))
}

#' dp_cov() with public per-column bounds and Analyze Gauss, in one pass: the
#' column sums (and under add/remove the count) and the uncentred Gram of the
#' same box rows z (norm <= C = sqrt(p)/2, nothing clipped), released by one
#' Gaussian mechanism on three stacked blocks, the sums, the Gram's diagonal
#' and its off-diagonal (box_joint_sigmas(): `split` is the mean's share of
#' the squared sensitivity-to-noise ratio, box_diag_share of the rest the
#' diagonal's, the total at the full (epsilon, delta) of the steps). The covariance is the one-pass
#' combination uncentred_to_centred() at the released mean mu (clamped into
#' the box), projected to the PSD cone on the box scale and mapped back. No
#' centring at mu before the Gram: its bound stays sqrt(p)/2 (centring
#' would raise it up to sqrt(p) for means near the box's edge). Sums first,
#' then the Gram's noise (the draw order).
#' @noRd
dp_cov_box_joint <- function(x, b, epsilon, delta, eps_steps, delta_steps, split, type, divisor, neighbor,
                             calibration, charge, call, min_rows, zero_row = NULL, gauss = NULL) {
  # composed with earlier steps (composed_gaussian()): its noise ratio and its own guarantee
  if (!is.null(gauss)) {
    eps_steps <- gauss$epsilon
    delta_steps <- gauss$delta
  }
  src <- dp_cov_source(x, min_rows)
  state <- new.env(parent = emptyenv())
  stats_of <- function(Z) cbind(crossprod(Z), colSums(Z))
  if (is.null(src$reader)) {
    state$map <- box_map(align_bounds(b, src$colnames, src$p), centred = TRUE, b$weights)
    tot <- stats_of(box_apply(src$X, state$map))
  } else {
    pass <- dp_cov_stream(box_reader(src$reader, b, centred = TRUE, state), stats_of, min_rows = min_rows)
    src[c("n", "p", "colnames")] <- pass[c("n", "p", "colnames")]
    tot <- if (is.null(pass$total)) matrix(0, src$p, src$p + 1L) else pass$total
  }
  map <- state$map
  p <- src$p
  g <- map$weights
  gram <- tot[, seq_len(p), drop = FALSE]
  sums <- tot[, p + 1L]
  # the zeroed record's box row: the image of the zero row, unless the caller's
  # rows are transformed records (dp_lm()'s design) and it gives that row's norm
  z0 <- if (is.null(zero_row)) norm_round_up(box_zero_row(map)) else zero_row
  cal <- box_joint_sigmas(p, neighbor, split, eps_steps, delta_steps, calibration, zero_row = z0,
                          ratio = gauss$ratio, weights = g)
  C <- cal$C
  mean_step <- noisy_mean(sums, src$n, C, cal$sigma_mean, neighbor == "add-remove")
  gram_noisy <- unname(gram) + symmetric_gaussian_blocks(p, cal$sigma_offdiag, cal$sigma_diag)
  n_public <- neighbor != "add-remove"
  n_hat <- if (n_public) src$n else max(2, mean_step$n_noisy)
  # the released mean, clamped into the box (post-processing)
  mu <- pmin(pmax(mean_step$center, -map$half), map$half)
  S <- uncentred_to_centred(gram_noisy, mu, n_hat, cal$sigma_mean)
  correction <- attr(S, "correction")
  mean_step$center <- box_unmap_mean(mu, map)
  mechanism <- paste0("Analyze Gauss (Dwork et al. 2014) on the uncentred box rows, jointly calibrated with the mean ",
                      "(diagonal and off-diagonal as separate blocks)")
  second <- list(mechanism = mechanism,
                 params = list(sigma = cal$sigma_offdiag, sigma_diag = cal$sigma_diag, calibration = calibration,
                               noise_clip = C))
  # the zero record's box row sets the noise under zero-out only
  if (neighbor == "zero-out") second$params$zero_row <- z0
  params <- list(split = split, diag_share = cal$diag_share, joint_calibration = TRUE, mu_total = cal$mu_tot,
                 epsilon_steps = eps_steps, delta_steps = delta_steps,
                 bounds = box_frame(map, src$colnames), bounds_source = "public",
                 clip_mean = C, sigma_mean = cal$sigma_mean, clip_second = C, box_center = mu,
                 second_mechanism = "analyze_gauss", sigma_second = cal$sigma_offdiag,
                 sigma_second_diag = cal$sigma_diag,
                 mean_correction = correction, divisor = divisor, calibration = calibration, passes = 1,
                 units = paste0("box: clip_mean, clip_second, box_center, sigma_mean, sigma_second (off-diagonal), ",
                               "sigma_second_diag and mean_correction are on the ",
                               if (is.null(g)) "unit-box scale" else "weighted box's scale (params$box_scale)"))
  if (!is.null(g)) {
    # the weighted box: its weights and the data units per box unit, which the
    # noise sds and the released centre are read with
    params$box_weights <- g
    params$box_scale <- map$scale
  }
  dp_cov_finish(S, n_hat, mean_step, second, src$colnames, src$n, p, params, type, divisor, epsilon,
                delta, neighbor, C, n_public, charge, call, unmap = function(cov) box_unmap_second(cov, map),
                mechanism_text = paste0("public per-column bounds (",
                                        if (is.null(g)) "unit box" else "box weighted by the square roots of the widths",
                                        "), the Gaussian mean and Analyze Gauss on ",
                                        "the uncentred box rows as one Gaussian mechanism (one pass)"),
                tuning = tuning_record("none"),
                guarantee = dp_cov_box_joint_guarantee_text(eps_steps, delta_steps, neighbor, C, split, n_public,
                                                            weighted = !is.null(g)))
}

# dp_cov()'s share of epsilon and delta for the mean when bounds are given,
# `split` is not, and the second mechanism is thresholding or Wishart (see
# ?dp_cov, "Default split").
box_default_split <- 0.15

# With Analyze Gauss (the joint calibration): the mean's share of the squared
# sensitivity-to-noise ratio when `split` is not given (see ?dp_cov).
box_joint_split <- 0.4

# ---- dp_lm() on the box ----------------------------------------------------------

#' dp_lm()'s bounds must name a column of `data` (backticked too, as a
#' variable of the model names it), a design column or a variable of the
#' model: a typo is refused, not ignored.
#' @noRd
refuse_unknown_bound_names <- function(nm, data_names, design_cols, variables) {
  unknown <- setdiff(nm, c(data_names, paste0("`", data_names, "`"), design_cols, variables))
  if (length(unknown)) {
    abort("`bounds` names %s, not variables of `data` or columns of the design.",
          paste0("`", unknown, "`", collapse = ", "), .arg = "bounds")
  }
  invisible()
}

#' The public interval of every column of dp_lm()'s released design [ones,
#' X, y] but the ones: a numeric variable's bounds by name, a factor's (or a
#' logical's) coded columns from its contrasts (treatment dummies: [0, 1]),
#' a product term (an interaction) the product interval of its variables; a
#' bound named by a design column (e.g. "I(x^2)") overrides. `b` is
#' check_bounds() output, unaligned and named.
#' @noRd
lm_box_bounds <- function(b, tt, mf, X, resp, data_names) {
  if (is.null(names(b$lower))) {
    arg <- if (identical(b$arg, "lower")) "lower" else "bounds"
    abort("`%s`: for dp_lm() name every bound by its variable (or design column), e.g. %s.", arg,
          if (arg == "lower") "lower = c(x = 0, y = -5), upper = c(x = 10, y = 5)" else
            "bounds = list(x = c(0, 10), y = c(-5, 5))", .arg = arg)
  }
  refuse_unknown_bound_names(names(b$lower), data_names, colnames(X), c(rownames(attr(tt, "factors")), resp))
  named <- function(v) if (v %in% names(b$lower)) c(b$lower[[v]], b$upper[[v]]) else NULL
  # a factor's or a logical's coding is public and exact: bounds inside it
  # would clamp its 0/1 columns and rescale their coefficients (bounds
  # [0.2, 0.5] on a logical made its coefficient 3.3 for a true 1, with tight
  # intervals); bounds containing it only widen the box
  coded <- function(v) {
    col <- mf[[v]]
    if (is.factor(col)) return(range(c(0, 1, stats::contrasts(col))))
    # a comparison is 0/1 whatever the data; a column merely named like one is not
    if (is.logical(col) || !v %in% data_names && lm_logical_term(v)) return(c(0, 1))
    NULL
  }
  check_coding <- function(iv, code, name) {
    if (!is.null(iv) && !is.null(code) && (iv[1] > code[1] || iv[2] < code[2])) {
      abort("`bounds` for `%s` ([%s, %s]) do not contain its coding [%s, %s] (public: fixed by a factor's contrasts or a logical's FALSE/TRUE); drop them, or give bounds that contain it.",
            name, format(iv[1]), format(iv[2]), format(code[1]), format(code[2]), .arg = "bounds")
    }
  }
  var_interval <- function(v) {
    iv <- named(v)
    code <- coded(v)
    check_coding(iv, code, v)
    if (!is.null(iv)) return(iv)
    if (!is.null(code)) return(code)
    abort("`bounds`: give public bounds for `%s`, a numeric variable of the model.", v, .arg = "bounds")
  }
  fac <- attr(tt, "factors")
  # the terms name a variable by its label (`my x`, backticked), the model
  # frame by its name (my x): its row of `fac` is its column of `mf`
  frame_name <- stats::setNames(names(mf), lm_variable_labels(tt))
  asg <- attr(X, "assign")
  cols <- which(asg > 0)
  lo <- hi <- numeric(length(cols))
  for (k in seq_along(cols)) {
    j <- cols[k]
    iv <- named(colnames(X)[j])
    vars <- rownames(fac)[fac[, asg[j]] > 0]
    # a design column of coded variables only (a dummy, a product of dummies)
    # is in their coding's product interval whatever the data
    if (!is.null(iv) && all(vapply(vars, function(v) !is.null(coded(frame_name[[v]])), logical(1)))) {
      code <- c(1, 1)
      for (v in vars) {
        w <- coded(frame_name[[v]])
        code <- range(c(code[1] * w[1], code[1] * w[2], code[2] * w[1], code[2] * w[2]))
      }
      check_coding(iv, code, colnames(X)[j])
    }
    if (is.null(iv)) {
      iv <- c(1, 1)
      for (v in vars) {
        w <- var_interval(frame_name[[v]])
        prods <- c(iv[1] * w[1], iv[1] * w[2], iv[2] * w[1], iv[2] * w[2])
        iv <- range(prods)
      }
    }
    lo[k] <- iv[1]
    hi[k] <- iv[2]
  }
  y_iv <- named(resp)
  # a logical response (a column or a comparison) is 0/1 whatever the data
  if (is.logical(stats::model.response(mf)) || !resp %in% data_names && lm_logical_term(resp)) {
    check_coding(y_iv, c(0, 1), resp)
    if (is.null(y_iv)) y_iv <- c(0, 1)
  }
  if (is.null(y_iv)) abort("`bounds`: give public bounds for the response `%s`.", resp, .arg = "bounds")
  lo <- c(lo, y_iv[1])
  hi <- c(hi, y_iv[2])
  if (any(!(lo < hi))) {
    i <- which(!(lo < hi))[1L]
    abort("`bounds`: the design column `%s` has width 0 (a constant); drop it from the model.",
          c(colnames(X)[cols], resp)[i], .arg = "bounds")
  }
  list(lower = lo, upper = hi)
}

#' Per released column of dp_lm()'s design (the columns lm_box_bounds()
#' bounds, named), whether its bounds came from the variables in `private`
#' (model frame names whose bounds were chosen privately): a column named in
#' `b` by itself follows that name, any other (a product, a factor's dummy)
#' any of its variables.
#' @noRd
lm_box_from_data <- function(b, private, tt, mf, X, resp) {
  fac <- attr(tt, "factors")
  frame_name <- stats::setNames(names(mf), lm_variable_labels(tt))
  asg <- attr(X, "assign")
  cols <- which(asg > 0)
  out <- vapply(cols, function(j) {
    if (colnames(X)[j] %in% names(b$lower)) return(colnames(X)[j] %in% private)
    any(frame_name[rownames(fac)[fac[, asg[j]] > 0]] %in% private)
  }, logical(1))
  stats::setNames(c(out, resp %in% private), c(colnames(X)[cols], resp))
}

#' The labels of a terms object's variables as its `factors` rows and the
#' coefficients write them (`my x`, backticked where not syntactic); the model
#' frame names the same variables without the backticks of a bare name.
#' @noRd
lm_variable_labels <- function(tt) {
  vars <- as.list(attr(tt, "variables"))[-1L]
  # terms()' own labels (its factors' row names) where it has them: deparse1()
  # spells an expression past 500 characters otherwise, and a lookup by the
  # one of the other's labels failed (R's "subscript out of bounds")
  fac <- attr(tt, "factors")
  if (length(fac) && !is.null(rownames(fac)) && nrow(fac) == length(vars)) return(rownames(fac))
  vapply(vars, function(e) deparse1(e, backtick = TRUE), "")
}

#' dp_lm()'s bounds named by the model frame's names: a bound named by a
#' variable's label (`my x` with its backticks, as the coefficients name it)
#' is renamed to the variable's name (my x, the column of `data`), so both
#' spellings work (for the box, the private tightening and the messages).
#' `b` is check_bounds() output; a formula terms() cannot read is left to
#' lm_design()'s errors.
#' @noRd
lm_bound_names <- function(b, formula) {
  nm <- names(b$lower)
  if (is.null(nm) || !inherits(formula, "formula")) return(b)
  tt <- tryCatch(stats::terms(formula), error = function(e) NULL)
  if (is.null(tt)) return(b)
  vars <- as.list(attr(tt, "variables"))[-1L]
  plain <- vapply(vars, function(e) if (is.name(e)) as.character(e) else deparse1(e), "")
  label <- lm_variable_labels(tt)
  alias <- label != plain & label %in% nm & !label %in% plain
  if (!any(alias)) return(b)
  nm[match(label[alias], nm)] <- plain[alias]
  dup <- unique(nm[duplicated(nm)])
  if (length(dup)) {
    abort("`%s` names the variable(s) %s twice (with and without backticks); give one bound per variable.",
          if (identical(b$arg, "lower")) "lower" else "bounds", paste0("`", dup, "`", collapse = ", "),
          .arg = if (identical(b$arg, "lower")) "lower" else "bounds")
  }
  names(b$lower) <- names(b$upper) <- nm
  b
}

#' Whether a variable of the model is a logical expression whatever the data
#' (a comparison or a logical operator, possibly inside I() or brackets), so
#' its design column, as.double(), lies in [0, 1]: a public interval.
#' @noRd
lm_logical_term <- function(v) {
  e <- tryCatch(str2lang(v), error = function(err) NULL)
  while (is.call(e) && (identical(e[[1L]], as.name("I")) || identical(e[[1L]], as.name("("))) && length(e) == 2L) {
    e <- e[[2L]]
  }
  is.call(e) && is.name(e[[1L]]) &&
    as.character(e[[1L]]) %in% c("<", ">", "<=", ">=", "==", "!=", "!", "&", "|", "%in%", "as.logical")
}

#' The affine map of dp_lm()'s box: the released rows are [1, z] and the
#' data's rows [1, x] = [1, z] T with T = diag(1, w) plus the shifts m in the
#' row of the ones: x_j = m_j + w_j z_j. A Gram maps back exactly as T' G T.
#' @noRd
lm_box_affine <- function(shift, scale) {
  T <- diag(c(1, scale), length(scale) + 1L)
  T[1L, -1L] <- shift
  T
}

#' dp_lm()'s release on the box: the mechanism ran on [1, z]; its estimate of
#' the sum (ridge removed, a posterior draw rescaled: release_sum()) is mapped
#' back to the data's units, T' S T, and released on the "sum" scale with the
#' map recorded (public) so that the bootstrap redraws the noise on the box
#' scale (lm_moments()).
#' @noRd
lm_box_release <- function(rel, map, colnames) {
  S <- release_sum(rel, if (isTRUE(rel$n_public)) rel$n else NA_real_)
  T <- lm_box_affine(map$shift, map$scale)
  est <- crossprod(T, S %*% T)
  est <- symmetric_part(est)
  dimnames(est) <- list(colnames, colnames)
  rel$params$converted_from <- if (rel$scale != "sum") rel$scale
  rel$estimate <- est
  rel$scale <- "sum"
  rel$ridge <- 0
  rel$params$bounds <- box_frame(map, colnames[-1L])
  rel$params$bounds_source <- "public"
  rel$params$box_shift <- c(0, map$shift)
  rel$params$box_scale <- c(1, map$scale)
  rel$mechanism <- paste0(rel$mechanism, ", on the unit box of public per-column bounds, mapped back to the data's units")
  rel$guarantee <- box_guarantee_text(rel$guarantee, centred = TRUE)
  rel
}

#' The bootstrap's redraw for a box release: S over the regression's columns
#' (the ones first) mapped to the box scale, the release's noise redrawn there,
#' mapped back.
#' @noRd
lm_box_redraw <- function(rel, idx, redraw) {
  force(redraw)
  sh <- rel$params$box_shift
  sc <- rel$params$box_scale
  if (!is_finite_num(sh) || !is_finite_num(sc) || length(sh) != rel$p || length(sc) != rel$p || any(sc <= 0)) {
    abort("`x`: its `params$box_shift` or `params$box_scale` is malformed.", .arg = "x")
  }
  # the centred box of dp_lm() shifts (the ones first); the uncentred box only scales
  if (any(sh != 0)) return(box_affine_redraw(redraw, sh[idx[-1L]], sc[idx[-1L]]))
  d <- sc[idx]
  function(S) redraw(S / tcrossprod(d)) * tcrossprod(d)
}

#' `redraw` (moments over [1, z] on the box scale) wrapped to take and return
#' moments over [1, x], x = shift + scale * z: S_z = T^-T S_x T^-1, then T' . T.
#' @noRd
box_affine_redraw <- function(redraw, shift, scale) {
  force(redraw)
  T <- lm_box_affine(shift, scale)
  # the inverse map z = (x - shift) / scale in closed form: solve(T) refuses
  # (numerically singular) narrow ranges far from 0, which private bounds can be
  Ti <- lm_box_affine(-shift / scale, 1 / scale)
  function(S) crossprod(T, redraw(crossprod(Ti, S %*% Ti)) %*% T)
}

#' A dp_cov() release made with public bounds: the affine map of its columns
#' `vars` (midpoints and widths of params$bounds), or NULL without bounds.
#' @noRd
cov_box_affine <- function(rel, vars) {
  b <- rel$params[["bounds"]]
  if (is.null(b)) return(NULL)
  if (!is.data.frame(b) || nrow(b) != rel$p || !is_finite_num(b$lower) || !is_finite_num(b$upper) ||
      any(!(b$lower < b$upper))) {
    abort("`x`: its `params$bounds` is malformed.", .arg = "x")
  }
  g <- release_box_weights(rel)
  list(shift = ((b$lower + b$upper) / 2)[vars], scale = ((b$upper - b$lower) / g)[vars], half = (g / 2)[vars])
}

# ---- uncentred second moments on the box -------------------------------------------

#' analyze_gauss() with public per-column bounds: the data on the uncentred
#' box [-1, 1]^p (a linear map, z = clamp(x) / s), Analyze Gauss there with
#' B = sqrt(p), the estimate mapped back (S G S). A range that excludes 0
#' moves the zero record to a public non-zero row, whose norm enters the
#' zero-out sensitivity (gram_sensitivity()'s zero_row).
#' @noRd
analyze_gauss_box <- function(x, box, epsilon, delta, neighbor, calibration, sigma_clip_inf, post, budget, call,
                              bounds_g = NULL) {
  if (!is.null(sigma_clip_inf)) {
    abort("`sigma_clip_inf` applies only with `clip` = Inf; with bounds the noise is calibrated to the box.",
          .arg = "sigma_clip_inf")
  }
  if (post == "shift") {
    abort("`post` = \"shift\" adds E||N|| I on the box scale, which is not a ridge in the data's units; use \"none\" or \"psd\" with bounds.",
          .arg = "post")
  }
  if (inherits(x, "dp_suffstat") || is.function(x)) {
    abort("`x`: with per-column bounds analyze_gauss() needs the data (a matrix or data frame), not %s.",
          if (is.function(x)) "a chunk reader" else "a dp_suffstat (already clipped to one L2 bound)", .arg = "x")
  }
  # the column names name the bounds (box_frame()): a schema refusal, before the charge
  check_data_colnames(x)
  check_release_width(x)
  # the uncentred map keeps the zero record at the origin when every range holds 0
  zero_inside <- all(box$lower <= 0 & box$upper >= 0)
  charge <- budget_charge(budget, "Analyze Gauss", epsilon, delta,
                          sigma_ratio = noise_sigma(1, epsilon, delta, calibration),
                          neighbor = notion_no_count(neighbor, zero_row = if (zero_inside) 0 else NA),
                          bounds = bounds_g)
  with_refund(budget, charge, {
    X <- check_data_matrix(x, min_rows = 0L)
    if (neighbor != "add-remove" && nrow(X) < 1) abort_public_rows()
    p <- ncol(X)
    map <- box_map(align_bounds(box, colnames(X), p), centred = FALSE)
    B <- box_uncentred_bound(p)
    s <- second_moment(box_apply(X, map), B)
    w0 <- norm_round_up(box_zero_row(map))
    sigma <- noise_sigma(gram_sensitivity(B, neighbor, zero_row = w0), epsilon, delta, calibration)
    est <- s$gram + symmetric_gaussian_cpp(p, sigma)
    mechanism <- "Analyze Gauss (Dwork et al. 2014) on the box of public per-column bounds, mapped back to the data's units"
    lift <- NULL
    if (post == "psd") {
      pre <- est
      est <- psd_project(est)$matrix
      # the projection's lift of each diagonal entry, for the diagnostics
      lift <- pmax(0, diag(est) - diag(pre)) * map$scale^2
      mechanism <- paste0(mechanism, ", projected to PSD on the box scale")
    }
    est <- box_unmap_second(est, map)
    dimnames(est) <- dimnames(s$gram)
    params <- list(sigma = sigma, calibration = calibration, noise_clip = B, post = post,
                   bounds = box_frame(map, colnames(X)), bounds_source = "public",
                   box_shift = rep(0, p), box_scale = map$scale,
                   units = "box: sigma and noise_clip are on the box scale (x / max(|lower|, |upper|))")
    # the zero record's box row sets the noise under zero-out only
    if (neighbor == "zero-out") params$zero_row <- w0
    params$psd_shift <- lift
    params$budget_charge <- charge
    n_public <- neighbor != "add-remove"
    new_dp_release(est, "second_moment", mechanism, epsilon, delta, neighbor, B, s$n, p,
                   n_public = n_public, scale = "sum", centred = FALSE, params = params,
                   guarantee = box_guarantee_text(dp_guarantee_text(epsilon, delta, neighbor, B, n_public),
                                                  centred = FALSE),
                   call = call)
  })
}

#' The other uncentred mechanisms with public bounds ([wishart_noise()],
#' [jl_ridge()], [jl_adaptive()], [iwishart_posterior()],
#' [iwishart_adaptive()], [dp_threshold()]): the mechanism `fun`, called with
#' bounds from its frame `env`, is called again on the statistics of the box
#' rows (z = clamp(x) / s, clip = sqrt(p), the moved zero record's row in
#' `zero_row`), with its other arguments as given (each evaluated once, in
#' the first call), and its release is mapped back to the data's units
#' (box_unmap_release()).
#' @noRd
box_uncentred_call <- function(fun, env, call, mechanism = NULL) {
  given <- function(a) !eval(call("missing", as.name(a)), env)
  if (given("x") && is_box_suffstat(get("x", env))) return(box_suffstat_call(fun, env, call, given, mechanism))
  box <- check_bounds(get("lower", env), get("upper", env), get("bounds", env))
  check_bounds_exclusive(box, clip = if (given("clip")) get("clip", env) else NULL)
  # the mechanism's notion: its `neighbor` (NULL: thresholding's own, never
  # add/remove); Sheffet's algorithms (`mechanism`) have theirs fixed, in
  # sheffet_notions
  notion <- if ("neighbor" %in% names(formals(fun))) {
    if (given("neighbor")) get("neighbor", env) else eval(formals(fun)$neighbor)
  } else sheffet_release_notion(mechanism)
  bounds_g <- bounds_release_guarantee(get("bounds", env), notion)
  d <- if (given("delta")) get("delta", env)
  if (is_number(d) && d > 0 && d < 1) refuse_void_bounds_budget(get("budget", env), bounds_g, d, notion)
  if (!is.null(get("sigma_clip_inf", env))) {
    abort("`sigma_clip_inf` applies only with `clip` = Inf; with bounds the noise is calibrated to the box.",
          .arg = "sigma_clip_inf")
  }
  if (!given("x")) abort_missing("x")
  x <- get("x", env)
  if (inherits(x, "dp_suffstat") || is.function(x)) {
    abort("`x`: with per-column bounds this mechanism needs the data (a matrix or data frame), not %s.",
          if (is.function(x)) "a chunk reader" else "a dp_suffstat (already clipped to one L2 bound)", .arg = "x")
  }
  # the column names name the bounds (box_frame()): refused before `fun` charges and draws
  check_data_colnames(x)
  if ("model" %in% names(formals(fun)) && given("model") && !identical(get("model", env), "central")) {
    abort("`model`: per-column bounds are for the central model; a local report is clipped per record.", .arg = "model")
  }
  args <- box_call_args(fun, env, given)
  X <- tryCatch(check_data_matrix(x, min_rows = 0L), dpcov_data_error = function(e) {
    # a refusal of the data's values keeps the charge the release would have
    # made, as everywhere (with_refund()); the mechanism charges inside `fun`,
    # so it runs once on zero rows of the same shape, its result discarded
    charge_refused_values(fun, args, x, box, bounds_g)
    stop(e)
  })
  map <- box_map(align_bounds(box, colnames(X), ncol(X)), centred = FALSE)
  args <- box_tune_args(args, map)
  B <- box_uncentred_bound(ncol(X))
  s <- second_moment(box_apply(X, map), B)
  s$zero_row <- zero_row_norm(box_zero_row(map), B)
  # judged (and warned about) once it is in the data's units and labelled
  # as a release on public bounds, below
  # bounds from a dp_column_bounds() release the budget has not charged: a
  # step of this release, charged with the mechanism's own charge inside `fun`
  # (the mechanism's budget refusal comes after the box rows were read here:
  # its words say so; nothing was charged or released)
  rel <- tryCatch(muffle_noise_warnings(with_pending_bounds(args$budget, bounds_g, do.call(fun, c(list(x = s, clip = B), args)))),
                  dpcov_budget_error = function(e) {
                    e$message <- sub("the data was not read", "nothing was released (the box rows were formed first)",
                                     e$message, fixed = TRUE)
                    stop(e)
                  })
  rel <- box_unmap_release(rel, map, colnames(X))
  rel$call <- release_call(call)
  finish_diagnostics(compose_bounds_guarantee(rel, bounds_g))
}

# The charge of a release on box rows whose data were refused for their
# values: the mechanism on zeros of the data's public shape, with the
# caller's budget and arguments, the result discarded. Any refusal of that
# run (an exhausted budget, a bad argument the mechanism checks before its
# charge) is raised instead of the data's: the call fails as it does on
# complete data, so the refusal says nothing about the values.
charge_refused_values <- function(fun, args, x, box, bounds_g = NULL) {
  p <- public_ncol(x)
  n <- public_nrow(x)
  cn <- data_colnames(x)
  map <- box_map(align_bounds(box, cn, p), centred = FALSE)
  args <- box_tune_args(args, map)
  B <- box_uncentred_bound(p)
  # the statistics of n zero rows, written down (no n x p matrix of zeros)
  s <- new_suffstat(matrix(0, p, p), if (is.finite(n) && n >= 1) n else 1, B, cn, 0, sum = numeric(p))
  s$zero_row <- zero_row_norm(box_zero_row(map), B)
  # (the package's refusals only; one handler, so the re-raise is not caught again)
  tryCatch(suppressWarnings(with_pending_bounds(args$budget, bounds_g, do.call(fun, c(list(x = s, clip = B), args)))),
           error = function(e) if (inherits(e, "dpcov_error")) stop(e))
  invisible(NULL)
}

# The mechanism's other arguments, as given (each evaluated once); `post =
# "shift"` would add a box-scale ridge that is no ridge in the data's units.
box_call_args <- function(fun, env, given) {
  skip <- c("x", "clip", "lower", "upper", "bounds", "sigma_clip_inf", "...")
  args <- list()
  for (a in setdiff(names(formals(fun)), skip)) if (given(a)) args[a] <- list(get(a, env))
  if (identical(args$post, "shift")) {
    abort("`post` = \"shift\" adds E||N|| I on the box scale, which is not a ridge in the data's units; use \"none\" or \"psd\" with bounds.",
          .arg = "post")
  }
  # (the mechanism is run on the box rows' statistics, not on rows)
  # (JL only: explicit Wishart noise sums outer products of Gaussian vectors, no rows)
  if (identical(args$method, "explicit") && any(c("r", "r0") %in% names(formals(fun)))) {
    abort("`method` = \"explicit\" projects the rows themselves, and with per-column bounds the mechanism sees the box rows' statistics; use method = \"bartlett\", which draws the same distribution.",
          .arg = "method")
  }
  if (!is.null(args$tune) && identical(as_threshold_tune(args$tune, "tune")$method, "cv")) {
    abort("`tune` = \"cv\" cross-validates on the private rows, and with per-column bounds the mechanism sees only the box rows' statistics; use a public sample (threshold_tune(\"public\", ...)), a fixed constant or \"theory\".",
          .arg = "tune")
  }
  args
}

# A public tuning sample is data like `x`: mapped to the box by the same
# public map, so the constant is chosen on the scale of the matrix it
# thresholds (raw, it was cross-validated as if it were box rows).
box_tune_args <- function(args, map) {
  if (is.null(args$tune)) return(args)
  tune <- as_threshold_tune(args$tune, "tune")
  if (tune$method == "public" && ncol(tune$public) == length(map$lower)) {
    tune$public <- box_apply(tune$public, map)
    args$tune <- tune
  }
  args
}

#' A mechanism given the statistics of box rows (second_moment() with
#' bounds): run on them as they are (the box bound as clip, the bounds
#' removed so the mechanism does not come back here), mapped back.
#' @noRd
box_suffstat_call <- function(fun, env, call, given, mechanism = NULL) {
  s <- check_suffstat(get("x", env))
  if (!is.null(get("lower", env)) || !is.null(get("upper", env)) || !is.null(get("bounds", env))) {
    abort("`x` already holds statistics of rows on a box of public bounds; do not give `lower`, `upper` or `bounds` again.",
          .arg = "bounds")
  }
  if (given("clip") && !is.null(get("clip", env)) && !isTRUE(all.equal(get("clip", env), s$clip))) {
    abort("`clip`: `x` holds statistics of box rows, whose bound is sqrt(p) = %s; leave `clip` out.", format(s$clip),
          .arg = "clip")
  }
  if (!is.null(get("sigma_clip_inf", env))) {
    abort("`sigma_clip_inf` applies only with `clip` = Inf; box rows have a finite bound.", .arg = "sigma_clip_inf")
  }
  if ("model" %in% names(formals(fun)) && given("model") && !identical(get("model", env), "central")) {
    abort("`model`: statistics of box rows are for the central model.", .arg = "model")
  }
  map <- box_map(list(lower = s$bounds$lower, upper = s$bounds$upper), centred = FALSE)
  bounds <- s$bounds
  s$bounds <- NULL
  rel <- do.call(fun, c(list(x = s, clip = s$clip), box_tune_args(box_call_args(fun, env, given), map)))
  rel <- box_unmap_release(rel, map, s$colnames)
  rel$call <- release_call(call)
  rel
}

#' A square release made on the uncentred box, mapped back to the data's
#' units: the mechanism's own output M, as D M D (D = diag of the box's
#' scales), on the mechanism's own scale. A public ridge w I on the box is
#' w D^2 in the data's units (`ridge`, one per column), and an inverse-Wishart
#' draw stays one, W^-1(A'A + psi D^2, df), so the release keeps what the
#' mechanism's page promises (positive definite with a shift, Sheffet's ridge
#' regression from a JL release); release_sum() removes the ridge as before.
#' An average is mapped the same way. The map is recorded (public) for
#' dp_lm()'s bootstrap, which redraws the noise on the box scale.
#' @noRd
box_unmap_release <- function(rel, map, colnames) {
  M <- rel$estimate
  est <- box_unmap_second(symmetric_part(M), map)
  dimnames(est) <- if (is.null(colnames)) NULL else list(colnames, colnames)
  rel$estimate <- est
  ridge <- if (is.null(rel$ridge)) 0 else rel$ridge
  rel$ridge <- if (all(ridge == 0)) 0 else ridge * map$scale^2
  rel$params$bounds <- box_frame(map, colnames)
  rel$params$bounds_source <- "public"
  rel$params$box_shift <- rep(0, length(map$scale))
  rel$params$box_scale <- map$scale
  rel$params$units <- "box: the noise parameters are on the box scale (x / max(|lower|, |upper|))"
  rel$mechanism <- paste0(rel$mechanism, ", on the box of public per-column bounds, mapped back to the data's units")
  rel$guarantee <- box_guarantee_text(rel$guarantee, centred = FALSE)
  rel
}

# ---- second_moment() on the box ----------------------------------------------------

#' second_moment() with public bounds: the statistics of the uncentred box
#' rows (norm <= sqrt(p) exactly: every |z_j| <= 1), the bounds recorded, and
#' the norm of the zero record's box row for zero-out.
#' @noRd
box_second_moment <- function(x, box) {
  state <- new.env(parent = emptyenv())
  if (is.function(x)) {
    check_reader(x)
    s <- second_moment(box_reader(x, box, centred = FALSE, state), Inf)
  } else {
    X <- check_data_matrix(x, min_rows = 0L)
    state$map <- box_map(align_bounds(box, colnames(X), ncol(X)), centred = FALSE)
    s <- second_moment(box_apply(X, state$map), Inf)
  }
  s$clip <- box_uncentred_bound(s$p)
  s$bounds <- box_frame(state$map, s$colnames)
  s$zero_row <- zero_row_norm(box_zero_row(state$map), s$clip)
  s
}

#' Statistics of box rows, as second_moment() records them.
#' @noRd
is_box_suffstat <- function(x) inherits(x, "dp_suffstat") && is.list(x) && !is.null(x$bounds)

#' The Gram of a dp_suffstat in the data's units (box rows mapped back, S G S).
#' @noRd
suffstat_gram <- function(s) {
  if (is.null(s$bounds)) return(s$gram)
  map <- box_map(list(lower = s$bounds$lower, upper = s$bounds$upper), centred = FALSE)
  g <- box_unmap_second(s$gram, map)
  dimnames(g) <- dimnames(s$gram)
  g
}
