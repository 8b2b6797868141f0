# Private principal components: post-processing of any release (a second-
# moment or covariance matrix, or compressed rows) into a prcomp-like object
# that says what units its components are in and what guarantee it inherits.

#' Private principal components from a release
#'
#' Principal components of what a [dp_release] estimates, as a `prcomp`-like
#' object. Only the release is read, so the result is post-processing: it
#' carries the release's guarantee (and costs no privacy), and it holds no
#' data.
#'
#' What is decomposed, and on which scale `sdev` is (see [dp_scales]):
#'
#' | release `scale` | matrix | `center` | `sdev` |
#' |---|---|---|---|
#' | `"covariance"` ([dp_cov()]) | the covariance | the release's private `center` | per row (the release's divisor) |
#' | `"correlation"` | the correlation | the private `center` | per row, standardised columns |
#' | `"average"` | \eqn{A^TA/n} (uncentred) | `FALSE` | per row (divisor n) |
#' | `"sum"`, `"sum + ridge"`, `"posterior sample"` | the estimate of \eqn{A^TA} (ridge removed), over n when n is public | `FALSE` | per row when n is public, else on the sum scale (`per_row = FALSE`, and `print` says so) |
#' | `"compressed rows"` ([dp_compress()]) | \eqn{C^TC/m} (uncentred, Theorem 3.5) | `FALSE` | per row, in normalised units when the columns were normalised |
#'
#' An uncentred second moment is centred when `center` (a private mean of the
#' same rows, e.g. a [dp_cov()] release, as in [dp_as_cov()]) is given; the
#' total privacy loss then adds that mean's. Noise can make a released
#' matrix indefinite: its negative eigenvalues become zero standard
#' deviations and are counted in `n_negative`.
#'
#' **Units.** Compression with `normalize = TRUE` divides every column by its
#' root mean square \eqn{\sqrt{\sum_i x_{ij}^2/n}}, and a correlation divides
#' by the standard deviations; neither release holds those scales, so the
#' components are in standardised units (`scale = NA`) and [predict()]
#' refuses raw data with a `dpcov_units_error` unless the column scales are
#' given (here in `scale`, or to `predict`), public or privately released.
#'
#' **Subspace error.** For compressed data of normalised columns with
#' truncation against the data's own covariance (the default of
#' [dp_compress()]) and no affine noise, every
#' accepted draw satisfies \eqn{\max_{jk}|B_{jk}| \le \tau} (`params$threshold`),
#' with \eqn{B = C^TC/m - X^TX/n}, so \eqn{\|B\|_F \le p\tau}. By Weyl's
#' inequality the eigengap \eqn{\delta_D = (\lambda_D - \lambda_{D+1})/2} of
#' \eqn{X^TX/n} is at least \eqn{\hat\delta_D - p\tau}, with \eqn{\hat\delta_D}
#' that of \eqn{C^TC/m}. Proposition 3.4 of Zhou, Ligett and Wasserman (Zwald
#' and Blanchard) then bounds the distance between the top-D principal
#' subspaces of the data and of the compressed data by
#' \eqn{p\tau / (\hat\delta_D - p\tau)} whenever \eqn{3p\tau \le
#' \hat\delta_D}. `subspace_bound` holds it for each D; it is computed from
#' the release only. Other releases have no such bound here (`NULL`).
#'
#' @param release A [dp_release]: a square release of any family, or a
#'   [dp_compress()] release. Or the data (a numeric matrix, data frame or
#'   chunk reader, as for [stats::prcomp()]; anything else that is not a
#'   release is taken as data when `...` is given, and validated as
#'   [dp_cov()]'s `x`: a numeric vector is one column, and refusals name
#'   `release`): it is released first by
#'   [dp_cov()] with the arguments in `...` (`epsilon`, `delta`, and public
#'   per-column bounds `lower` and `upper` or `bounds`, or the row-norm
#'   clips; `budget`, `neighbor`, `type = "correlation"` for standardised
#'   components), and its covariance decomposed. With public bounds and no
#'   `tighten` given, dp_pca() passes `tighten` as the automatic rule for
#'   principal axes: the bounds are tightened privately (see [dp_cov()]'s
#'   `tighten`) when n is public (`neighbor = "replace-one"` or
#'   `"zero-out"`, the data in memory) and the \eqn{2/\epsilon_q} rows
#'   targeted beyond each bound are at most a twentieth of n (see
#'   [dp_lm()]'s `tighten`: the rows clamped can be several times the
#'   target, which biases the standard deviations). On `bench/peers.R`'s
#'   data tightening cut the median principal angle (quakes at epsilon 1:
#'   3.5 against 5.4 degrees; `bench/tighten-fit.R`). `tighten = FALSE`
#'   keeps the public box.
#' @param ... With data: arguments of [dp_cov()]. With a release: none.
#' @param rank Number of components to keep in `rotation` (default all); as
#'   in [stats::prcomp()], `sdev` keeps all of them. With data it is checked
#'   before anything is charged (against a reader's columns only once the
#'   release has read them).
#' @param center For an uncentred second-moment release only: a private mean
#'   (numeric vector of length p) or a [dp_cov()] release whose `center` to
#'   use; see [dp_as_cov()]. A [dp_cov()] release is counted in the total
#'   privacy loss (`source$epsilon`, `source$delta`); numbers have a cost not
#'   known here (they may be a release's mean, or the exact means), so the
#'   total is `NA` (the release's own in `source$epsilon_release` and
#'   `source$delta_release`), [glance()]'s `private` is `NA`, and `print`
#'   says the centre's cost is not accounted.
#' @param scale For a release in standardised units (normalised compressed
#'   data, a correlation): the column scales of the data (public, or released
#'   privately), so that [predict()] can take raw data.
#' @return An object of class `c("dp_pca", "prcomp")`: `sdev`, `rotation`
#'   (each axis signed so that its largest loading is positive; compressed
#'   rows keep [prcomp()]'s signs), `center` (numeric where private, `FALSE` for uncentred components, `NA`
#'   when the components are centred at a mean the release does not hold),
#'   `scale` (`FALSE` in the data's units, numeric when given, `NA` when the
#'   columns were scaled by unreleased factors), `x` (scores of the compressed
#'   rows; `NULL` for square releases), `units` and `per_row` (what `sdev`
#'   measures), `n_negative`, `subspace_bound` (a data frame or `NULL`),
#'   `source` (the release's mechanism, scale, epsilon, delta, neighbour, n
#'   when public; the total epsilon and delta `NA` with a `center` given as
#'   numbers), `guarantee`, `diagnostics` (per component, from released
#'   quantities only: `component_noise`, for each retained component the
#'   first-order sd of the turn the noise gives its direction,
#'   \eqn{\sqrt{\sum_{k \ne j} \mathrm{Var}(v_k^T N v_j) / (\lambda_j - \lambda_k)^2}}{sqrt(sum_k Var(v_k' N v_j) / (lambda_j - lambda_k)^2)}
#'   (about the sine of the angle; the noise variances from `params`, the
#'   eigenvectors and values released; an entry a threshold may have set to
#'   0, by [dp_threshold()] or `mechanism = "threshold"`, counts at its error
#'   bound \eqn{\sqrt{s^2 + t^2}}{sqrt(s^2 + t^2)}, noise sd s and threshold
#'   t, not as an exact 0: its true value is anything whose noisy version fell
#'   below t, so those grades are conservative where the true matrix is
#'   sparse, and a Note says so), each gap taken conservatively: less
#'   what the noise can add to it, the smaller of Weyl's
#'   \eqn{2\|N\|_2} and one sd of each eigenvalue's first-order move
#'   \eqn{v_j^T N v_j}{v_j' N v_j} (a gap left at or below 0 gives `Inf`;
#'   pure noise spreads the released eigenvalues, so their own gaps look
#'   clear); graded as [release_diagnostics()]'s ratios (above 0.5
#'   `"noisy"`, above 1 `"mostly noise"`: the direction can point anywhere
#'   among its near-tied neighbours), and `noise_spectral`, about the noise's
#'   spectral norm \eqn{\|N\|_2}, \eqn{2\sqrt{\max_i \sum_j V_{ij}}}{2 sqrt(max_i sum_j V_ij)}.
#'   `level` is the worst over the graded components (`graded_components`:
#'   all of `rank` when it is given; else the leading ones, up to the first
#'   whose conservative gap to the next is below \eqn{\|N\|_2}, PC1 always;
#'   noisy trailing ones are a Note) and over the release's findings that
#'   bias every component (capped private bounds, a mean outside its bounds,
#'   columns at their bounds, rows nearly all clipped, at the release's
#'   grade); a `"mostly noise"` level raises the classed noise warning. The
#'   release's own checks are kept as `release_level` and
#'   `release_messages` (a covariance mostly noise can still give a clear
#'   first component); `print` shows both levels on their own lines) and
#'   `call`.
#' @references Zhou, S., Ligett, K. and Wasserman, L. (2009). Differential
#'   privacy with compression. *Proceedings of the IEEE International
#'   Symposium on Information Theory (ISIT)*, 2718-2722. (Full version
#'   arXiv:0901.1365.)
#'
#'   Zwald, L. and Blanchard, G. (2006). On the convergence of eigenspaces in
#'   kernel principal component analysis. *Advances in Neural Information
#'   Processing Systems 18*, 1649-1656.
#' @seealso [predict.dp_pca()], [compressed_pca()], [dp_as_cov()],
#'   [dpcov_arguments] for the argument names shared across the package.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(20000 * 3), 20000, 3) %*% diag(c(3, 1, 0.5))
#' r <- dp_cov(x, epsilon = 1, delta = 1e-6, clip = 10, clip_mean = 10)
#' pc <- dp_pca(r)
#' pc
#' # from the data with public per-column ranges, as prcomp(x) would
#' dp_pca(x, epsilon = 1, delta = 1e-6, lower = c(-12, -4, -2), upper = c(12, 4, 2))
#' summary(pc)
#' head(predict(pc, x[1:3, ]))
#' @export
dp_pca <- function(release, rank = NULL, center = NULL, scale = NULL, ...) {
  call <- match.call()
  if (missing(release)) abort_missing("release")
  # data: released first by dp_cov() (its arguments in `...`), then decomposed;
  # anything else that is not a release but comes with dp_cov()'s arguments
  # (a vector, a list, statistics) is data too, validated by dp_cov() as `x`
  if (!inherits(release, "dp_release") &&
      (is.matrix(release) || is.data.frame(release) || is.function(release) || ...length())) {
    # (after `release` the positional arguments are dp_pca()'s own, as in
    # prcomp(): dp_pca(x, 1, 1e-6) gives 1 to `rank` and 1e-6 to `center`)
    # names count as R matches them, partial ones too (`eps` is dp_cov()'s `epsilon`)
    named_as <- function(nm, f) any(!is.na(pmatch(nm, f, duplicates.ok = TRUE)))
    given <- as.character(names(sys.call())[-1L])  # (character(0) when none is named)
    by_name <- function(f) named_as(given, f)
    took <- c("rank", "center", "scale")[c(!is.null(rank) && !by_name("rank"), !is.null(center) && !by_name("center"),
                                           !is.null(scale) && !by_name("scale"))]
    positional <- if (length(took)) {
      sprintf(paste0(" dp_pca()'s own %s took %s: after `release`, its positional arguments are `rank`, `center` ",
                     "and `scale`, so name dp_cov()'s (dp_pca(x, epsilon = 1, delta = 1e-6, ...))."),
              col_list(took), if (length(took) > 1L) "values" else "a value")
    } else ""
    if (!...length()) {
      abort("`release` must be a dp_release; to release data first, give dp_cov()'s arguments (`epsilon`, `delta`, and `lower`/`upper` or `bounds`).%s",
            positional, .arg = "release")
    }
    dn <- dots_named(...)
    if (nzchar(positional) && !named_as(dn, "epsilon") && ...length() == length(dn)) {
      abort("`epsilon` is missing, with no default.%s", positional, .arg = "epsilon")
    }
    if (!is.null(center)) abort("`center`: with data, dp_pca() centres at dp_cov()'s private mean.", .arg = "center")
    if (!is.null(scale)) {
      abort("`scale`: with data, the components are in the data's units; for standardised ones pass type = \"correlation\" (to dp_cov()).",
            .arg = "scale")
    }
    # what cannot be data (a string, a list, a factor) is refused as data,
    # before `rank` is checked against the one column public_ncol() would give it
    if (!(is.function(release) || inherits(release, "dp_suffstat") || is.matrix(release) || is.data.frame(release) ||
          (is.numeric(release) || is.logical(release)) && is.null(dim(release)) && !is.object(release))) {
      abort("`release` must be a dp_release, or data: a numeric matrix or data frame (a numeric vector is one column) or a chunk reader; not %s.",
            class(release)[1L], .arg = "release")
    }
    # `rank` is checked before dp_cov() charges anything: against the
    # number of columns (a public shape) of data in memory, statistics, or a
    # package reader (its schema); another reader's only once it is read
    if (!is.null(rank)) {
      check_count(rank, "rank")
      p_known <- if (is.function(release) || inherits(release, "dp_suffstat")) input_width(release) else public_ncol(release)
      if (!is.na(p_known)) check_rank(rank, p_known)
    }
    # arguments dp_cov() does not take (prcomp()'s scale., rank., retx, tol)
    # named in a classed error before anything is charged
    unknown <- dn[!vapply(dn, named_as, logical(1), f = setdiff(names(formals(dp_cov)), "..."))]
    if (length(unknown)) {
      abort("unknown argument(s) %s: dp_pca() takes `rank`, and dp_cov()'s arguments (for standardised components, type = \"correlation\").",
            paste0("`", unknown, "`", collapse = ", "), .arg = unknown[1L])
    }
    # public bounds: tightened by the automatic rule for principal axes
    # unless `tighten` is given (pca_tighten(): public arguments and shape only)
    # dp_cov()'s arguments as dp_cov() will match them (partial names, `eps`
    # for `epsilon`, and positions after `release`), so that the automatic
    # rule reads what dp_cov() will use
    dots <- pca_cov_args(...)
    # (the components are judged, and warned about, below); dp_cov()'s
    # refusals of its `x` are about dp_pca()'s `release`; public bounds are
    # tightened where the rule says so (pca_tighten() is TRUE only for a box
    # of public bounds), else dp_cov() keeps its own default
    release <- pca_data_error(muffle_noise_warnings(
      if (!"tighten" %in% names(dots) && isTRUE(pca_tighten(release, dots))) {
        dp_cov(release, ..., tighten = TRUE)
      } else {
        dp_cov(release, ...)
      }))
  } else if (...length()) {
    check_dots_empty(...)
  }
  check_release(release, "release")
  check_guarantee_numbers(release, "release")
  p <- as.integer(release$p)
  k <- check_rank(rank, p)
  src <- pca_source(release, center)
  # what the components are computed from: the release, or (centred at
  # another release's mean) its conversion, whose guarantee counts both
  basis <- if (is.null(src$release)) release else src$release
  if (src$compressed) {
    C <- compressed_matrix(release, "release")
    s <- compressed_svd(C, k)
    # less the affine noise's s^2 (compressed_cov()): same axes
    values <- s$d^2 - compressed_affine_var(release, "release")
    check_compressed_finite(values, C %*% s$v)
    vectors <- s$v
  } else {
    e <- eigen(src$matrix, symmetric = TRUE)
    values <- e$values
    vectors <- e$vectors[, seq_len(k), drop = FALSE]
    # a sign for each axis (eigen()'s is arbitrary): its largest loading
    # positive, so that a matrix differing in the last bits (sums of a
    # reader's blocks taken in another order) gives the same axes
    big <- apply(abs(vectors), 2L, which.max)
    flip <- vectors[cbind(big, seq_len(ncol(vectors)))] < 0
    vectors[, flip] <- -vectors[, flip]
  }
  tol <- 1e-12 * max(abs(values), 1e-300)
  n_negative <- sum(values < -tol)
  sdev <- sqrt(pmax(values, 0))
  cols <- colnames(release$estimate)
  dimnames(vectors) <- list(cols, paste0("PC", seq_len(k)))
  names(sdev) <- NULL
  col_scale <- src$scale
  if (!is.null(scale)) {
    if (!identical(col_scale, NA)) {
      abort("`scale`: the components of this release are already in the data's units; give `scale` only for standardised releases (normalised compressed data, a correlation).",
            .arg = "scale")
    }
    col_scale <- check_per_column(scale, p, cols, "scale", positive = TRUE)
  }
  # (named by column, as prcomp() names its center)
  mu <- src$center
  if (is.numeric(mu) && !is.null(cols)) names(mu) <- cols
  # a centre given as numbers has a privacy cost not known here (it may be a
  # release's mean, or the exact colMeans()): the total loss is unknown (NA),
  # the release's own kept beside it; a dp_cov() release as `center` is counted
  unaccounted <- isTRUE(src$center_numbers) || isTRUE(release$params$center_numbers)
  out <- list(sdev = sdev, rotation = vectors, center = mu, scale = col_scale,
              x = if (src$compressed) release$estimate %*% vectors else NULL,
              units = src$units, per_row = src$per_row, n_negative = as.integer(n_negative),
              subspace_bound = if (src$compressed) compression_subspace_bound(release, values) else NULL,
              source = list(class = class(release)[1], mechanism = release$mechanism,
                            scale = release$scale,
                            epsilon = if (unaccounted) NA_real_ else basis$epsilon,
                            delta = if (unaccounted) NA_real_ else basis$delta,
                            neighbor = basis$neighbor, n = release$n,
                            has_guarantee = release_guarantee_state(basis)),
              guarantee = src$guarantee,
              # how much of each component is noise (released quantities only)
              diagnostics = pca_diagnostics(basis, src, values, k, rank),
              call = release_call(call, c("release", "center", "x")))
  if (unaccounted) {
    out$source$epsilon_release <- release$epsilon
    out$source$delta_release <- release$delta
    out$source$center_cost <- "not accounted"
  }
  class(out) <- c("dp_pca", "prcomp")
  noise_warning(out$diagnostics, "dp_pca")
  # the components of a release without a formal guarantee are not private either
  # (centred at numbers, NA: not known, said as such, not labelled non-private)
  if (inherits(release, "dp_nonprivate") || isFALSE(release_guarantee_state(basis))) out <- as_nonprivate(out, "dp_pca")
  out
}

# dp_cov()'s classed errors about its data argument `x`, raised again naming
# dp_pca()'s `release` (the same classes).
pca_data_error <- function(expr) {
  tryCatch(expr, dpcov_error = function(e) {
    if (!identical(e$arg, "x")) stop(e)
    e$message <- gsub("`x`", "`release`", conditionMessage(e), fixed = TRUE)
    e$arg <- "release"
    stop(e)
  })
}

#' The diagnostics of a PCA, per component, from released quantities only: a
#' component's direction is set by its eigenvalue's gaps to the others, and
#' noise N turns it, to first order, by sum_k (v_k' N v_j) / (lambda_j -
#' lambda_k) v_k: the ratio is the sd of that turn, sqrt(sum_k Var(v_k' N
#' v_j) / gap_jk^2) (V the entries' noise variances, from release_noise_sd()
#' on the decomposed matrix's scale, with the entries a threshold may have
#' zeroed at their error bound, not as exact 0s: a thresholded release whose
#' components were 33-54 degrees off was graded "ok" with noise 0; plug-in
#' eigenvectors and values; pca_turn_variances()), about
#' the sine of the angle the noise turns it by. The released gaps are
#' inflated by the noise (pure noise spreads the eigenvalues over about
#' +-||N||_2: a PC1 62 degrees off had ratio 0.49 against them), so each gap
#' is taken conservatively, less the smaller of 2 ||N||_2 (Weyl: each
#' eigenvalue moves by at most ||N||_2; ||N||_2 about noise_spectral = 2
#' sqrt(max_i sum_j V_ij)) and one sd of each eigenvalue's first-order move
#' v_j' N v_j (Weyl alone flagged 46% of the PCAs whose PC1 was within 5
#' degrees: noise on one large variance moves that eigenvalue, not the
#' others'); a gap left at or below 0 makes the ratio Inf. The level is the
#' worst over the graded components (those of `rank` when given, else the
#' leading ones: up to the first whose conservative gap to the next is below
#' the noise, PC1 always; trailing near-ties are a Note) and over the
#' release's bias findings (capped private bounds, a mean outside its bounds,
#' columns at their bounds, clipped rows), which bias every component; the
#' release's own level is kept in `release_level` (a covariance mostly noise
#' can still give a clear PC1). Never an error: a NaN or infinite noise
#' variance (a correlation whose released variance was <= 0) is Inf.
#' @noRd
pca_diagnostics <- function(release, src, values, k, rank = NULL) {
  rd <- diagnose_release(release)
  sd <- pca_noise_sd(release, src)
  if (is.null(sd) || !all(is.finite(values))) {
    rd$release_level <- rd$level
    return(rd)
  }
  V <- sd^2
  V[is.na(V)] <- Inf
  spec <- 2 * sqrt(max(rowSums(V)))
  p <- length(values)
  vec <- eigen(src$matrix, symmetric = TRUE)$vectors
  # first order: v_j moves by sum_k (v_k' N v_j) / (lambda_j - lambda_k) v_k;
  # `tv$var` the variances Var(v_l' N v_j) (l in 1..p, j in 1..k), `tv$move`
  # the sd of each eigenvalue's first-order move v_j' N v_j
  tv <- pca_turn_variances(V, vec, k)
  move <- tv$move
  move[is.na(move)] <- Inf
  # the gap less what the noise can add to it: Weyl's 2 ||N||_2, or, where
  # smaller, one sd of each eigenvalue's first-order move v_j' N v_j (noise on
  # one large variance moves that eigenvalue, not the others); <= 0: no gap
  kk <- seq_len(k)
  ratio <- if (p < 2L) rep(0, k) else {  # a single component has no direction to lose
    gap <- abs(outer(values, values[kk], "-")) - pmin(2 * spec, outer(move, move[kk], "+"))
    v <- tv$var
    term <- ifelse(is.finite(gap) & gap > 0 & is.finite(v), pmax(0, v) / gap^2, Inf)
    term[cbind(kk, kk)] <- 0  # (the turn is against the other components)
    sqrt(colSums(term))
  }
  ratio <- stats::setNames(ratio, paste0("PC", kk))
  ratio[is.na(ratio)] <- Inf
  # the components graded: those asked for, else the leading ones (up to the
  # first whose conservative gap to the next is below the noise, PC1 always)
  graded <- if (!is.null(rank) || p < 2L) k else {
    d <- seq_len(p - 1L)
    next_gap <- abs(values[d] - values[d + 1L]) - pmin(2 * spec, move[d] + move[d + 1L])
    weak <- which(!(next_gap >= spec) | is.na(next_gap))
    if (length(weak)) max(1L, weak[1L] - 1L) else k
  }
  th <- dp_diagnostic_thresholds$ratio
  g <- ifelse(ratio > th[["mostly"]], 2L, ifelse(ratio > th[["noisy"]], 1L, 0L))
  fmt <- function(v) if (is.finite(v) && v > 1e6) ">1e6" else format(signif(v, 2), big.mark = ",", decimal.mark = ".", scientific = FALSE)
  fmts <- function(j) paste(vapply(ratio[j], fmt, ""), collapse = ", ")
  out <- list(noise_spectral = spec, component_noise = ratio, graded_components = as.integer(graded),
              release_level = rd$level, release_messages = rd$messages, noise_to_signal = rd$noise_to_signal)
  msgs <- character(0)
  grades <- integer(0)
  lead <- seq_len(graded)
  for (lv in 2:1) {
    j <- lead[g[lead] == lv]
    if (!length(j)) next
    msgs <- c(msgs, sprintf(paste0("%s: noise/gap = %s (the noise that turns the direction against the gaps to ",
                                   "the other eigenvalues, less what the noise can add to them): %s."),
                            paste(names(ratio)[j], collapse = ", "), fmts(j),
                            if (lv == 2L) {
                              "the direction is mostly noise (it can point anywhere in the span of its near-tied neighbours)"
                            } else "the direction is noisy"))
    grades <- c(grades, lv)
  }
  # the release's biases (clamped or clipped rows, a mean outside its
  # bounds) are of the data every component is computed from
  bias <- pca_release_bias(rd, release)
  msgs <- c(msgs, bias$messages)
  grades <- c(grades, bias$grades)
  notes <- character(0)
  trail <- setdiff(which(g > 0L), lead)
  if (length(trail)) {
    # in the words and at the thresholds of the graded components' messages
    # (the group holding the earlier component first)
    levels_said <- unique(g[trail])
    said <- vapply(levels_said, function(lv) {
      j <- trail[g[trail] == lv]
      sprintf("%s %s %s (noise/gap = %s)", paste(names(ratio)[j], collapse = ", "),
              if (length(j) > 1L) "are" else "is", if (lv == 2L) "mostly noise" else "noisy", fmts(j))
    }, "")
    notes <- c(notes, sprintf(paste0("the trailing %s: near-tied eigenvalues, not graded; ",
                                     "the level is that of %s (rank = %d keeps only those)."),
                              paste(said, collapse = " and "),
                              if (graded > 1L) sprintf("PC1 to PC%d", graded) else "PC1", graded))
  }
  nb <- attr(sd, "bounded")
  if (is_whole1(nb, 1)) {
    notes <- c(notes, sprintf(paste0("%s of the matrix may have been thresholded to 0 (below the release's threshold): ",
                                     "their true values are known only to lie within about the threshold of 0, so they count ",
                                     "at that bound, not as exact 0s; where the true matrix is sparse (those values near 0) the ",
                                     "components are better than graded."),
                              if (nb == 1) "1 entry" else sprintf("%d entries", as.integer(nb))))
  }
  if (!identical(rd$level, "ok") && !length(grades)) {
    # said, not graded: the components' gaps stand far above the noise; one
    # column has no gap (its axis is the column), while its sdev is the
    # release's noisy variance
    notes <- c(notes, if (p < 2L) {
      sprintf(paste0("the release itself is %s as a matrix (print() of it says why): with one column the ",
                     "component's direction is the column itself (no noise can turn it), but its sdev is the ",
                     "square root of the matrix's one entry, as noisy as the release."), rd$level)
    } else {
      sprintf(paste0("the release itself is %s as a matrix (print() of it says why), but every graded ",
                     "component's eigen-gap stands above the noise (noise/gap at most %s)."),
              rd$level, fmt(max(ratio[lead])))
    })
  }
  if (length(notes)) out$notes <- notes
  out$level <- c("ok", "noisy", "mostly noise")[max(0L, grades) + 1L]
  out$messages <- msgs
  out$message_levels <- c("ok", "noisy", "mostly noise")[grades + 1L]
  structure(out, class = "dp_diagnostics")
}

# The first-order variances of the turn of each retained eigenvector, for a
# symmetric noise N with independent upper-triangle entries of variances V
# (p x p) and eigenvectors `vec` (columns): for a = v_l, b = v_j, u = a * b
# and V0 = V off its diagonal,
#   Var(a' N b) = sum_i V_ii u_i^2 + (a*a)' V0 (b*b) + u' V0 u,
# as a p x k matrix `var` (l in 1..p, j in 1..k), and `move`, the sd of
# v_j' N v_j for every j. Matrix products in place of the double loop over
# l and j (each O(p^2): 161 s at p = 400): the first two terms are
# crossprod()s of the squared vectors, the third one p x p product per j
# (O(k p^3) in BLAS). Exact as the loop: an earlier shortcut through a
# low-rank fit of V's off-diagonal lost the small variances of columns on
# much smaller scales than the others. Any non-finite V: every variance and
# move Inf.
#' @noRd
pca_turn_variances <- function(V, vec, k) {
  p <- nrow(vec)
  kk <- seq_len(k)
  if (!all(is.finite(V))) return(list(var = matrix(Inf, p, k), move = rep(Inf, p)))
  dv <- diag(V)
  V0 <- V
  diag(V0) <- 0
  W <- vec * vec
  var <- crossprod(W, V0 %*% W[, kk, drop = FALSE]) + crossprod(W, dv * W[, kk, drop = FALSE])
  for (j in kk) {
    U <- vec * vec[, j]
    var[, j] <- var[, j] + colSums(U * (V0 %*% U))
  }
  # v_j' N v_j: u = v_j^2, so the last two terms are equal
  move <- sqrt(pmax(0, colSums(W * (dv * W)) + 2 * colSums(W * (V0 %*% W))))
  list(var = var, move = move)
}

# dp_pca()'s `...` as dp_cov() matches its arguments after `x`: by full,
# partial or positional name (match.call() on a call holding the values).
pca_cov_args <- function(...) {
  vals <- list(...)
  if (!length(vals)) return(list())
  # (arguments R cannot match, an argument given twice: as they are, for
  # dp_cov() to refuse in its own words)
  mc <- tryCatch(match.call(dp_cov, as.call(c(list(quote(dp_cov), quote(release)), vals)), expand.dots = FALSE),
                 error = function(e) NULL)
  if (is.null(mc)) return(vals)
  out <- as.list(mc)[-1L]
  out$x <- NULL
  out[["..."]] <- NULL
  out
}

# The release's findings that bias every component (not noise, which the
# gaps judge): capped private bounds, a mean outside (or clamped to) its
# bounds, columns sitting at their bounds, rows nearly all clipped (in
# either step); each with
# the release's own message and grade.
pca_release_bias <- function(rd, release) {
  msgs <- rd$messages
  lv <- match(rd$message_levels, c("ok", "noisy", "mostly noise")) - 1L
  if (!is.character(msgs) || length(lv) != length(msgs)) return(list(messages = character(0), grades = integer(0)))
  hit <- rep(FALSE, length(msgs))
  if (isTRUE(rd$bounds_capped)) hit <- hit | grepl("bounds were chosen privately", msgs, fixed = TRUE)
  for (v in rd$outside_bounds) hit <- hit | startsWith(msgs, sprintf("the private mean of `%s` ", v)) & grepl("outside", msgs)
  hit <- hit | is_at_bounds_message(msgs)
  if (clip_fill_hit(rd, release)) hit <- hit | (startsWith(msgs, "nearly every row was clipped") | startsWith(msgs, "many rows were clipped"))
  if (mean_step_grade(rd) > 0L) hit <- hit | startsWith(msgs, "the rows were clipped in the mean step")
  hit <- hit & !is.na(lv) & lv > 0L
  list(messages = if (any(hit)) paste("the release:", msgs[hit]) else character(0), grades = lv[hit])
}

# The noise sd of the matrix a PCA decomposes (pca_source()), or NULL: the
# release's, on the decomposed scale, with entries a threshold may have
# zeroed at their error bound; a correlation's from the covariance it scales
# (params$correlation_bound_sd, else params$correlation_noise_sd).
pca_noise_sd <- function(release, src) {
  if (src$compressed) return(NULL)
  p <- release$p
  # (a thresholded release's zeroed entries at their error bound, not as
  # exact 0s: release_noise_sd(zeroed = "bound"); a correlation's kept by
  # cov_release_to_cor() where it differs from the noise's)
  ok <- function(s) is.numeric(s) && is.matrix(s) && all(dim(s) == p) && !anyNA(s)
  # (attribute "bounded": the entries, of the upper triangle, taken at their
  # bound, for the diagnostics' note)
  bounded <- function(b, s) {
    attr(b, "bounded") <- if (ok(s)) sum((b != s)[upper.tri(b, diag = TRUE)]) else 0L
    b
  }
  if (release$scale == "correlation") {
    s <- release$params$correlation_noise_sd
    b <- release$params$correlation_bound_sd
    if (!is.null(b)) return(if (ok(b)) bounded(b, s) else NULL)
    return(if (ok(s)) s else NULL)
  }
  sd <- release_noise_sd(release, zeroed = "bound")
  if (is.null(sd)) return(NULL)
  sd <- bounded(sd, release_noise_sd(release))
  f <- switch(release$scale, covariance = 1, average = 1, sum = , "sum + ridge" = 1,
              "posterior sample" = if (is_num1(release$params$df)) release$params$df - p - 1 else NA_real_, NA_real_)
  if (!release$scale %in% c("covariance", "average") && isTRUE(src$per_row)) f <- f / release$n
  if (!is_num1(f)) return(NULL)
  structure(sd * f, bounded = attr(sd, "bounded"))
}

# What a release's PCA decomposes: the matrix (per row where n allows), its
# center and column scale, the units in words.
pca_source <- function(release, center) {
  sc <- release$scale
  guarantee <- release$guarantee
  if (sc == "compressed rows") {
    if (!is.null(center)) abort("`center`: compressed rows are uncentred (Theorem 3.5); `center` applies to second-moment releases only.", .arg = "center")
    norm <- !isFALSE(release$params$normalize)
    return(list(compressed = TRUE, matrix = NULL, center = FALSE, scale = if (norm) NA else FALSE,
                per_row = TRUE, guarantee = guarantee,
                units = if (norm) {
                  "normalised columns (each divided by its root mean square sqrt(sum x^2 / n), which the release does not hold); uncentred, per row (C'C / m)"
                } else "the data's units; uncentred, per row (C'C / m)"))
  }
  if (!is.null(center)) {
    if (sc %in% c("covariance", "correlation") || isTRUE(release$centred)) {
      abort("`center`: the release is already centred (scale \"%s\"); `center` applies to uncentred second moments only.", sc, .arg = "center")
    }
    conv <- dp_as_cov(release, "covariance", center)
    return(list(compressed = FALSE, matrix = conv$estimate, center = check_center(center, release$p, colnames(release$estimate)),
                scale = FALSE, per_row = TRUE, guarantee = conv$guarantee, release = conv,
                center_numbers = !inherits(center, "dp_cov"),
                units = "the data's units; centred at the given private mean, per row (divisor n)"))
  }
  rel_center <- if (is.numeric(release$center) && length(release$center) == release$p) unname(release$center) else NA
  switch(sc,
    covariance = list(compressed = FALSE, matrix = release$estimate, center = rel_center, scale = FALSE,
                      per_row = TRUE, guarantee = guarantee,
                      units = sprintf("the data's units; centred at %s, per row (divisor %s)",
                                      if (identical(rel_center, NA)) "a private mean not held by the release" else "the released private mean",
                                      if (is.null(release$params$divisor)) "n" else release$params$divisor)),
    correlation = list(compressed = FALSE, matrix = release$estimate, center = rel_center, scale = NA,
                       per_row = TRUE, guarantee = guarantee,
                       units = "standardised columns (a correlation: each column divided by its standard deviation, which the release does not hold)"),
    average = list(compressed = FALSE, matrix = release$estimate,
                   center = if (isTRUE(release$centred)) rel_center else FALSE, scale = FALSE,
                   per_row = TRUE, guarantee = guarantee,
                   units = "the data's units; uncentred second moment, per row (A'A / n)"),
    {
      total <- release_sum(release)  # sum, sum + ridge, posterior sample: A'A
      n <- release$n
      per_row <- !is.na(n)
      list(compressed = FALSE, matrix = if (per_row) total / n else total,
           center = if (isTRUE(release$centred)) rel_center else FALSE, scale = FALSE,
           per_row = per_row, guarantee = guarantee,
           units = if (per_row) {
             "the data's units; uncentred second moment, per row (the estimated A'A divided by the public n)"
           } else {
             "the data's units, but on the SUM scale: sdev^2 are eigenvalues of the estimated A'A; n is not released (add/remove neighbours), so they are not divided by n"
           })
    })
}

# Proposition 3.4 with ||B||_F <= p * threshold (truncation) and Weyl's
# inequality for the unknown eigengap: computed from the release only.
compression_subspace_bound <- function(release, values) {
  pr <- release$params
  p <- length(values)
  # (unnormalised columns are truncated on the correlation scale: |B_jk| <=
  # tau sqrt(S_jj S_kk), with S private, so no bound from the release)
  applies <- isTRUE(pr$truncate) && !isFALSE(pr$normalize) && identical(pr$reference, "own X'X/n") &&
    is_num1(pr$affine_sd) && pr$affine_sd == 0 && is_num1(pr$threshold) && p >= 2
  if (!applies) return(NULL)
  # the bound is only as good as tau: a release's own threshold is the
  # formula's at its public n, p, m and delta_max (a hand-made one is checked)
  tau <- tryCatch(compression_threshold(release$n, p, pr[["m"]], pr$delta_max), error = function(e) NA_real_)
  if (!(is.finite(tau) && abs(pr$threshold - tau) <= 1e-8 * tau)) {
    abort("`release`: its `params$threshold` is not compression_threshold(n, p, m, delta_max) of its own `n`, `p`, `params$m` and `params$delta_max`, so no subspace bound follows from it.",
          .arg = "release")
  }
  norm_b <- p * pr$threshold
  d <- seq_len(p - 1L)
  gap <- (values[d] - values[d + 1L]) / 2
  ok <- 3 * norm_b <= gap
  data.frame(dim = d, delta_D_hat = gap, norm_B_max = norm_b,
             bound = ifelse(ok, norm_b / (gap - norm_b), NA_real_), bound_applies = ok)
}

# Components kept: all p by default.
check_rank <- function(rank, p) {
  if (is.null(rank)) return(as.integer(p))
  rank <- check_count(rank, "rank")
  if (rank > p) abort("`rank` must be <= p = %d; got %s.", as.integer(p), format(rank), .arg = "rank")
  as.integer(rank)
}

# A dp_pca given as input (hand-made ones included): the fields methods read.
check_dp_pca <- function(x, arg = "x") {
  check_object(x, "dp_pca", list(
    # a vector whose squares sum to a finite total (the importance divides by it)
    sdev = function(v) is_finite_num(v) && is.null(dim(v)) && all(v >= 0) && is.finite(sum(v^2)),
    rotation = function(v) is_finite_matrix(v) && ncol(v) >= 1L && ncol(v) <= length(x$sdev) &&
      nrow(v) == length(x$sdev),
    # (named, by the rotation's rows: a stored centre in another order was used by position)
    center = function(v) isFALSE(v) || identical(v, NA) || is_finite_num(v) && length(v) == nrow(x$rotation) &&
      same_names(names(v), rownames(x$rotation)),
    scale = function(v) isFALSE(v) || identical(v, NA) || is_finite_num(v) && length(v) == nrow(x$rotation) && all(v > 0) &&
      same_names(names(v), rownames(x$rotation)),
    units = is_string, per_row = is_flag, guarantee = is_string,
    n_negative = function(v) is_whole1(v, 0) && v <= length(x$sdev),
    x = function(v) is.null(v) || is_finite_matrix(v) && ncol(v) == ncol(x$rotation),
    subspace_bound = function(v) is.null(v) || is_frame_with(v, numeric = c("dim", "bound"), min_rows = 0L),
    # (read field by field by print(), glance() and the diagnostics)
    source = function(v) is.null(v) || is.list(v) && !is.object(v),
    diagnostics = function(v) is.null(v) || is.list(v)),
    arg = arg)
}

# The classed error of a units mismatch (newdata in other units than the components).
abort_units <- function(fmt, ..., .arg) abort(fmt, ..., .arg = .arg, .class = "dpcov_units_error")

#' Methods for private principal components
#'
#' `print` shows the guarantee, the units and the leading loadings;
#' `summary` the importance of the components (as [summary.prcomp()]) and,
#' for compressed data, the subspace-error bound of Proposition 3.4;
#' `plot` a scree plot of the variances (sdev^2) with the share of each;
#' `predict` the scores of new rows; `biplot` needs scores, so it works for
#' compressed rows only (the PCA of a square release has no rows: a classed
#' error).
#'
#' `predict` centres `newdata` at the PCA's `center` and divides it by its
#' `scale` before rotating. When the components are in units the data are
#' not in (normalised compressed data or a correlation without column scales,
#' or a centred PCA whose mean is not in the release) it refuses with an
#' error of class `dpcov_units_error` unless `scale` (the column scales:
#' root mean squares for normalised compression, standard deviations for a
#' correlation) or `center` is given here.
#' @param object,x A [dp_pca()] result.
#' @param newdata A numeric matrix or data frame with the release's columns
#'   (matched by name when the release names its columns, and then refused
#'   without names; by position otherwise); a row with a missing value
#'   scores `NA`, as in [stats::predict.prcomp()]. Missing: the scores of the
#'   compressed rows (compressed releases only).
#' @param center,scale Column means and scales of the data, needed only when
#'   the PCA does not hold them (see Details); with `newdata` only (without
#'   it they are refused).
#' @param digits Significant digits.
#' @param npcs Components shown in the scree plot.
#' @param evaluate `update()`: run the stored call again with the changes (a new
#'   release, spending its budget again; a call stored with placeholders for
#'   values is refused), or return it (`FALSE`).
#' @param type The scree plot's form, as in [stats::screeplot()]: `"barplot"`
#'   (default) or `"lines"`.
#' @param main Plot title (`NULL` for a default).
#' @param choices The two components `biplot()` draws (default `1:2`), within
#'   those kept.
#' @param row.names,optional `as.data.frame()`: as in [base::as.data.frame()]
#'   (the call is refused).
#' @param matrix `tidy()`: which part, with broom's names for a `prcomp`:
#'   `"v"` (or `"rotation"`, `"variables"`, `"loadings"`) the loadings,
#'   columns `column`, `PC`, `value` (one row per variable and component);
#'   `"d"` (or `"pcs"`, `"eigenvalues"`) the components, columns `PC`,
#'   `std.dev`, `percent` and `cumulative` (shares of the variance, rounded
#'   as in `summary()`); `"u"` (or `"x"`, `"samples"`, `"scores"`) the scores
#'   of the compressed rows (columns `row`, `PC`, `value`), which only a
#'   PCA of compressed rows has: for a square release it is a classed error
#'   (score data you hold with `predict(x, newdata)`). The default is `"v"`,
#'   not broom's `"u"`: a PCA of a release holds no rows, so the loadings
#'   are what every one has.
#' @param ... Unused: an argument given is refused (`plot` and `screeplot`:
#'   graphical parameters, passed to [graphics::barplot()] or, with `type =
#'   "lines"`, [graphics::plot()]; they override the defaults, e.g. `col`,
#'   `ylab`, and `axes = FALSE` drops the value axis; `log = "y"` draws the
#'   variances on a log scale (all shown must be positive), `xlim` and `ylim`
#'   are two different finite numbers, and `names.arg` one label per
#'   component shown; other values of these are refused).
#' @return `predict`: a matrix of scores (rows x components). `summary`: a
#'   `summary.dp_pca` list with `importance`. `plot`: the variances shown,
#'   invisibly. `print`: `x`, invisibly. `tidy`: a data frame (class
#'   `dp_nonprivate` too when the PCA is; see `matrix`). `glance`: one row,
#'   `p`, `rank` (components kept), `epsilon`, `delta`, `neighbor`, `private`
#'   (`NA`, with `epsilon` and `delta`, when the components are centred at a
#'   mean given as numbers, whose privacy cost is not known)
#'   and `level` (the components' grade; see [dp_pca()]'s `diagnostics`).
#'   `as.data.frame()` is refused, as it is for [stats::prcomp()]: `tidy()`
#'   gives the loadings or the components as data frames.
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(5000 * 3), 5000, 3) %*% diag(c(3, 1, 0.5))
#' pc <- dp_pca(dp_compress(x, m = 500))
#' summary(pc)
#' rms <- sqrt(colMeans(x^2))         # public here, for the example
#' head(predict(pc, x[1:3, ], scale = rms))
#' plot(pc)
#' @name dp_pca_methods
NULL

#' @rdname dp_pca_methods
#' @export
print.dp_pca <- function(x, digits = 4, ...) {
  check_dp_pca(x)
  check_method_dots(...)
  digits <- check_digits(digits)
  src <- if (is.list(x$source) && is_string(x$source$class)) x$source$class else "matrix"
  if (inherits(x, "dp_nonprivate")) nonprivate_banner(x, "the components of a release without a formal guarantee (see Guarantee)")
  cat_wrapped(sprintf("<dp_pca> Principal components of a <%s> release (post-processing)", src))
  diagnosed <- inherits(x$diagnostics, "dp_diagnostics")
  if (diagnosed) print_noise_warnings(x$diagnostics)
  cat_wrapped("Guarantee:", x$guarantee)
  if (center_unaccounted(x)) cat_wrapped("Privacy loss:", center_unaccounted_text)
  cat_wrapped("Units:", x$units)
  if (diagnosed) print_pca_diagnostics(x$diagnostics)
  if (x$n_negative > 0) {
    cat(sprintf("Note: the released matrix has %d negative eigenvalue(s) (privacy noise); their sdev is 0.\n",
                x$n_negative))
  }
  cat(sprintf("Standard deviations (1, .., p=%d):\n", length(x$sdev)))
  print(signif(x$sdev, digits), digits = digits)
  k <- ncol(x$rotation)
  cat(sprintf("\nRotation (p x k) = (%d x %d)%s:\n", nrow(x$rotation), k, if (k > 5) ", first 5 columns" else ""))
  print(signif(x$rotation[, seq_len(min(k, 5L)), drop = FALSE], digits), digits = digits)
  invisible(x)
}

# A PCA centred at a mean given as numbers (dp_pca(release, center = )):
# their privacy cost is not known here, so the total is not either (NA).
center_unaccounted <- function(x) is.list(x$source) && identical(x$source$center_cost, "not accounted")
center_unaccounted_text <- paste0(
  "not known: centred at a mean given as numbers, whose privacy cost is not accounted (the total adds that of ",
  "the release they came from, or they are the exact means: no guarantee), so the total epsilon and delta ",
  "are NA; pass the dp_cov() release itself as `center` to have it counted.")

# The release's own line (its level, not the components') and the
# components' line, so neither contradicts the other.
print_pca_diagnostics <- function(d) {
  rel <- d
  if (is_string(d$release_level)) rel$level <- d$release_level
  rel$notes <- NULL
  cat(sub("^Diagnostics:", "Release diagnostics:", utils::capture.output(print_diagnostics(rel))), sep = "\n")
  r <- d$component_noise
  if (is.numeric(r) && length(r)) {
    fmt <- function(v) if (is.na(v)) "NA" else if (is.finite(v) && v > 1e6) ">1e6" else
      format(signif(v, 2), big.mark = ",", decimal.mark = ".", scientific = FALSE)
    shown <- seq_len(min(length(r), 6L))
    graded <- if (is_whole1(d$graded_components, 1)) min(d$graded_components, length(r)) else length(r)
    cat_wrapped(sprintf("Components: noise/gap %s%s; level %s%s",
                paste(sprintf("%s %s", names(r)[shown], vapply(r[shown], fmt, "")), collapse = ", "),
                if (length(r) > 6L) ", ..." else "", if (is_string(d$level)) d$level else "unknown",
                if (graded < length(r)) sprintf(" (graded: %s)", if (graded > 1L) sprintf("PC1 to PC%d", graded) else "PC1") else ""))
  }
  if (is.character(d$notes)) for (m in d$notes[!is.na(d$notes)]) cat_wrapped("Note:", m)
  invisible()
}

#' @rdname dp_pca_methods
#' @export
summary.dp_pca <- function(object, ...) {
  check_dp_pca(object, "object")
  check_method_dots(...)
  v <- object$sdev^2
  share <- if (sum(v) > 0) v / sum(v) else rep(0, length(v))  # all-zero release: no variance to share
  importance <- rbind(`Standard deviation` = object$sdev, `Proportion of Variance` = round(share, 5),
                      `Cumulative Proportion` = round(cumsum(share), 5))
  colnames(importance) <- paste0("PC", seq_along(v))
  structure(list(importance = importance, units = object$units, per_row = object$per_row,
                 guarantee = object$guarantee, n_negative = object$n_negative,
                 subspace_bound = object$subspace_bound,
                 compressed = !is.null(object$x), diagnostics = object$diagnostics,
                 nonprivate = inherits(object, "dp_nonprivate"), center_unaccounted = center_unaccounted(object)),
            class = "summary.dp_pca")
}

#' @export
print.summary.dp_pca <- function(x, digits = 4, ...) {
  check_object(x, "summary.dp_pca", list(
    importance = is_finite_matrix, units = is_string, guarantee = is_string,
    n_negative = function(v) is_whole1(v, 0),
    subspace_bound = function(v) is.null(v) || is.data.frame(v)))
  check_method_dots(...)
  digits <- check_digits(digits)
  if (isTRUE(x$nonprivate)) {
    cat("<dp_pca> NOT a private release: the components of a release without a formal guarantee (see Guarantee).\n")
    cat("Principal components (post-processing of a release)\n")
  } else if (isTRUE(x$center_unaccounted)) {
    # (centred at numbers of unknown cost: not stated private, the loss said below)
    cat("Principal components (post-processing of a release; total privacy loss not known)\n")
  } else {
    cat("Private principal components (post-processing of a release)\n")
  }
  if (inherits(x$diagnostics, "dp_diagnostics")) print_noise_warnings(x$diagnostics)
  cat_wrapped("Guarantee:", x$guarantee)
  if (isTRUE(x$center_unaccounted)) cat_wrapped("Privacy loss:", center_unaccounted_text)
  cat_wrapped("Units:", x$units)
  if (x$n_negative > 0) {
    cat_wrapped(sprintf(paste("%d negative eigenvalue(s) of the released matrix set to 0 (privacy noise);",
                              "the proportions share the sum of the others, which the noise also moved."), x$n_negative))
  }
  cat("Importance of components:\n")
  print(signif(x$importance, digits), digits = digits)
  if (!is.null(x$subspace_bound)) {
    cat("\nSubspace error of the top-D components, Proposition 3.4 (Zhou, Ligett and Wasserman),\n",
        "with ||B||_F <= p * truncation threshold and the eigengap bounded by Weyl's inequality\n",
        "(NA where 3 ||B||_F > the released eigengap: the proposition does not apply):\n", sep = "")
    print(x$subspace_bound, digits = digits, row.names = FALSE)
  } else if (isTRUE(x$compressed)) {
    cat("\nNo subspace-error bound: it needs truncation against the data's own covariance and no affine noise.\n")
  }
  invisible(x)
}

#' @rdname dp_pca_methods
#' @export
predict.dp_pca <- function(object, newdata, center = NULL, scale = NULL, ...) {
  check_dp_pca(object, "object")
  check_method_dots(...)
  if (missing(newdata)) {
    if (is.null(object$x)) abort("`newdata` is missing: a PCA of a square release has no rows of its own to score.", .arg = "newdata")
    # the compressed rows' scores are on the components' own scale: a column
    # centre or scale has no data to apply to (and would be ignored)
    given <- c("center", "scale")[c(!is.null(center), !is.null(scale))]
    if (length(given)) {
      abort("`%s` applies to `newdata` only: without it predict() returns the compressed rows' scores, which are already on the components' scale.",
            given[1L], .arg = given[1L])
    }
    return(object$x)
  }
  R <- object$rotation
  p <- nrow(R)
  # a row with a missing value scores NA, as in predict.prcomp(); an infinite
  # value is refused (its scores would be NaN or infinite)
  X <- check_data_matrix(named_columns(newdata, rownames(R)), "newdata", unique_names = FALSE, na_ok = TRUE)
  # as predict.prcomp(): a fit with column names reads newdata by name only
  if (!is.null(rownames(R)) && is.null(colnames(X))) {
    abort("`newdata` has no column names; the release's columns are %s: name them (its columns are matched by name).",
          paste(rownames(R), collapse = ", "), .arg = "newdata")
  }
  if (!is.null(rownames(R)) && !is.null(colnames(X))) {
    # matching by name needs names that identify one column each
    if (!names_identify(colnames(X))) {
      abort("`newdata` has missing, empty or repeated column names; they must identify its columns, which are matched by name.",
            .arg = "newdata")
    }
    if (!names_identify(rownames(R))) {
      abort("`object`: the release's column names are missing, empty or repeated, so `newdata` cannot be matched to them by name; give `newdata` without column names in the release's order.",
            .arg = "object")
    }
    miss <- setdiff(rownames(R), colnames(X))
    if (length(miss)) abort("`newdata` lacks the column(s) %s of the release.", paste(miss, collapse = ", "), .arg = "newdata")
    X <- X[, rownames(R), drop = FALSE]
  }
  if (ncol(X) != p) abort("`newdata` must have %d columns (the release's); it has %d.", p, ncol(X), .arg = "newdata")
  mu <- object$center
  if (!is.null(center)) {
    if (!identical(mu, NA)) abort("`center`: this PCA %s; give `center` only when the release does not hold its mean.",
                                  if (isFALSE(mu)) "is uncentred" else "already holds its private center", .arg = "center")
    mu <- check_center(center, p, rownames(object$rotation))
  } else if (identical(mu, NA)) {
    abort_units("`center` is needed: the components are centred at a private mean the release does not hold; give it (e.g. the `center` of a dp_cov() release).",
                .arg = "center")
  }
  sc <- object$scale
  if (!is.null(scale)) {
    if (!identical(sc, NA)) abort("`scale`: the components %s; give `scale` only for standardised components.",
                                  if (isFALSE(sc)) "are in the data's units" else "already hold their column scales", .arg = "scale")
    sc <- check_per_column(scale, p, rownames(object$rotation), "scale", positive = TRUE)
  } else if (identical(sc, NA)) {
    abort_units(paste0("`scale` is needed: the components are in %s, and `newdata` is not. Give the column scales ",
                       "(public, or released privately) in `scale`, or standardise `newdata` yourself and pass it ",
                       "with scale = rep(1, %d)."), x_units_short(object$units), p, .arg = "scale")
  }
  if (is.numeric(mu)) X <- sweep(X, 2L, mu)
  if (is.numeric(sc)) X <- sweep(X, 2L, sc, "/")
  X %*% R
}

#' @rdname dp_pca_methods
#' @export
glance.dp_pca <- function(x, ...) {
  check_dp_pca(x)
  check_method_dots(...)
  src <- x$source
  # (centred at numbers of unknown cost: whether the total is private is not known)
  private <- if (inherits(x, "dp_nonprivate")) FALSE else if (center_unaccounted(x)) NA else TRUE
  num <- function(v) if (isTRUE(private) && is_num1(v)) as.double(v) else NA_real_
  out <- data.frame(p = nrow(x$rotation), rank = ncol(x$rotation), epsilon = num(src$epsilon), delta = num(src$delta),
                    neighbor = if (is_string(src$neighbor)) src$neighbor else NA_character_, private = private,
                    level = if (is_string(x$diagnostics$level)) x$diagnostics$level else NA_character_,
                    stringsAsFactors = FALSE)
  if (isFALSE(private)) class(out) <- c("dp_nonprivate", class(out))
  out
}

#' @rdname dp_pca_methods
#' @export
as.data.frame.dp_pca <- function(x, row.names = NULL, optional = FALSE, ...) {
  abort("`x` is a dp_pca: as.data.frame() is not defined for it (nor for a prcomp); tidy(x) gives the loadings, tidy(x, matrix = \"d\") the components.",
        .arg = "x")
}

#' @rdname dp_pca_methods
#' @export
tidy.dp_pca <- function(x, matrix = "v", ...) {
  check_dp_pca(x)
  check_method_dots(...)
  matrix <- check_choice(matrix, c("v", "rotation", "variables", "loadings", "d", "pcs", "eigenvalues",
                                   "u", "x", "samples", "scores"), "matrix")
  R <- x$rotation
  long <- function(M, id, labels) {
    k <- ncol(M)
    out <- data.frame(rep(labels, each = k), PC = rep(as.numeric(seq_len(k)), times = nrow(M)),
                      value = as.vector(t(M)), stringsAsFactors = FALSE)
    names(out)[1L] <- id
    out
  }
  out <- if (matrix %in% c("d", "pcs", "eigenvalues")) {
    imp <- summary(x)$importance
    data.frame(PC = as.numeric(seq_len(ncol(imp))), std.dev = unname(imp[1L, ]), percent = unname(imp[2L, ]),
               cumulative = unname(imp[3L, ]))
  } else if (matrix %in% c("v", "rotation", "variables", "loadings")) {
    long(R, "column", if (is.null(rownames(R))) seq_len(nrow(R)) else rownames(R))
  } else {
    if (is.null(x$x)) {
      abort("`matrix` = \"%s\": the PCA of a square release has no rows, so no scores; score data you hold with predict(x, newdata) (or tidy the loadings, matrix = \"v\").",
            matrix, .arg = "matrix")
    }
    long(x$x, "row", if (is.null(rownames(x$x))) seq_len(nrow(x$x)) else rownames(x$x))
  }
  if (inherits(x, "dp_nonprivate")) {
    class(out) <- c("dp_nonprivate", class(out))
    # (print's default reason is generic)
    attr(out, "nonprivate_why") <- "the components of a release without a formal guarantee (see the PCA's guarantee)"
  }
  out
}

x_units_short <- function(units) sub("\\s*\\(.*$", "", sub(";.*$", "", units))

#' @rdname dp_pca_methods
#' @export
biplot.dp_pca <- function(x, choices = 1:2, ...) {
  check_dp_pca(x)
  if (is.null(x$x)) {
    abort("`x` is the PCA of a square release: it has no rows, so no scores to draw; score data you hold with predict(x, newdata) and plot those.",
          .arg = "x")
  }
  k <- ncol(x$rotation)
  if (!(is.numeric(choices) && length(choices) == 2L && !anyNA(choices) && all(choices == round(choices)) &&
        all(choices >= 1) && all(choices <= k))) {
    abort("`choices` must be two component numbers in 1..%d (the components kept).", as.integer(k), .arg = "choices")
  }
  NextMethod()
}

#' @rdname dp_pca_methods
#' @export
screeplot.dp_pca <- function(x, npcs = min(10L, length(x$sdev)), type = "barplot", main = NULL, ...) {
  plot.dp_pca(x, npcs = npcs, type = type, main = main, ...)
}

#' @rdname dp_pca_methods
#' @export
plot.dp_pca <- function(x, npcs = min(10L, length(x$sdev)), type = "barplot", main = NULL, ...) {
  check_dp_pca(x)
  npcs <- check_count(npcs, "npcs")
  # (abbreviated as stats::screeplot()'s match.arg() allows: "l", "bar")
  if (is_string(type) && nzchar(type) && !is.na(i <- pmatch(type, c("barplot", "lines")))) type <- c("barplot", "lines")[i]
  type <- check_choice(type, c("barplot", "lines"), "type")
  if (!is.null(main) && !is_string(main)) abort("`main` must be NULL or one string.", .arg = "main")
  npcs <- min(npcs, length(x$sdev))
  v <- x$sdev[seq_len(npcs)]^2
  share <- if (sum(x$sdev^2) > 0) v / sum(x$sdev^2) else rep(0, npcs)
  if (is.null(main)) {
    main <- if (inherits(x, "dp_nonprivate")) "Scree plot of principal components (NOT private)" else
      "Scree plot of private principal components"
  }
  top <- if (max(v) > 0) max(v) else 1
  # the user's graphical parameters override the defaults (named twice,
  # barplot() failed with R's unclassed "matched by multiple actual arguments");
  # the value axis is drawn here, without scientific notation, unless axes = FALSE
  dots <- check_graphics_dots(list(...))
  draw_axis <- !isFALSE(dots$axes)
  dots$axes <- NULL
  # the arguments that shape the axes are checked here (R's errors on them
  # were unclassed: "log scale error", "incorrect number of names", "invalid
  # 'xlim' value"); a log value axis starts below the smallest variance
  logy <- pca_plot_log(dots$log, v)
  dots$log <- NULL
  for (a in c("xlim", "ylim")) {
    lim <- dots[[a]]
    if (!is.null(lim) && !(is.numeric(lim) && !is.object(lim) && length(lim) == 2L && all(is.finite(lim)) &&
                           lim[1L] != lim[2L] && (a == "xlim" || !logy || all(lim > 0)))) {
      abort("`%s` must be two different finite numbers%s.", a, if (a == "ylim" && logy) ", both positive (a log scale)" else "",
            .arg = a)
    }
  }
  names_pc <- paste0("PC", seq_len(npcs))
  if (!is.null(dots$names.arg)) {
    nm <- dots$names.arg
    if (!((is.character(nm) || is.numeric(nm)) && !is.object(nm) && is.null(dim(nm)) && length(nm) == npcs && !anyNA(nm))) {
      abort("`names.arg` must be %d label(s), one per component shown (`npcs`).", as.integer(npcs), .arg = "names.arg")
    }
    names_pc <- as.character(nm)
    dots$names.arg <- NULL
  }
  ylim <- if (!is.null(dots$ylim)) dots$ylim else if (logy) c(min(v) / 2, 2 * top) else c(0, 1.15 * top)
  args <- utils::modifyList(list(main = main, ylim = ylim,
                                 ylab = if (x$per_row) "variance (per row)" else "eigenvalue of the estimated sum A'A"),
                            dots)
  if (logy) args$log <- "y"
  if (type == "barplot") {
    mid <- graphics_call(graphics::barplot, list(v, axes = FALSE), list(names.arg = names_pc, col = "grey80"), args)
  } else {
    mid <- seq_len(npcs)
    graphics_call(graphics::plot, list(mid, v, axes = FALSE), list(type = "b", xlab = ""), args)
    graphics::axis(1, at = mid, labels = names_pc)
  }
  if (draw_axis) {
    lo <- min(ylim)
    hi <- max(ylim)
    at <- if (logy) grDevices::axisTicks(log10(c(lo, hi)), log = TRUE) else if (is.null(dots$ylim)) pretty(c(0, top)) else pretty(c(lo, hi))
    at <- at[at >= lo & at <= hi]
    graphics::axis(2, at = at, labels = axis_labels(at, if (logy) 10), las = 1)
  }
  graphics::text(mid, v, sprintf("%.0f%%", 100 * share), pos = 3, cex = 0.8, xpd = TRUE)
  graphics::box()
  invisible(v)
}

# plot.dp_pca()'s `log`: "" or "y" (the components' axis is not numeric);
# a log scale cannot show a variance of 0 (a negative eigenvalue set to 0).
pca_plot_log <- function(log, v) {
  if (is.null(log) || identical(log, "")) return(FALSE)
  if (!identical(log, "y")) {
    abort("`log` must be \"y\" (a log value axis) or \"\": the components' axis is not numeric.", .arg = "log")
  }
  if (any(v <= 0)) {
    abort("`log` = \"y\": %s %s variance 0 (a negative eigenvalue of the noisy matrix, set to 0), which a log scale cannot show; lower `npcs` or drop `log`.",
          paste0("PC", which(v <= 0), collapse = ", "), if (sum(v <= 0) > 1L) "have" else "has", .arg = "log")
  }
  TRUE
}

# Axis tick labels without scientific notation mixed with decimals: plain
# numbers with thousands separators, or 10^k / 2^k on log axes.
axis_labels <- function(at, log_base = NULL) {
  if (!is.null(log_base)) {
    k <- log(at, log_base)
    if (all(abs(k - round(k)) < 1e-8)) {
      return(as.expression(lapply(round(k), function(e) bquote(.(log_base)^.(e)))))
    }
  }
  big <- max(abs(at), 0, na.rm = TRUE)
  if (big >= 1e6 || big > 0 && big < 1e-3) return(format(at, scientific = TRUE, digits = 3))
  format(at, big.mark = ",", decimal.mark = ".", scientific = FALSE, drop0trailing = TRUE, trim = TRUE)
}
