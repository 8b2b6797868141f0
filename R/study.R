# One kind of study object: the four study runners return class
# c("<kind>_study", "dp_study", "dp_nonprivate", ...), with print, summary,
# plot and as.data.frame methods, and the plotting helpers they share.

study_kinds <- c("sheffet_study", "threshold_study", "qda_study", "compression_study")

#' Study objects
#'
#' The four study runners, [sheffet_study()] (Sheffet's regression
#' experiments), [run_study()] (thresholding), [qda_study()] (plug-in
#' discriminants) and [compression_pca_study()] (PCA on compressed data),
#' return one kind of object: class `c("<kind>", "dp_study", "dp_nonprivate",
#' ...)`. A study runs mechanisms on simulated or real data and records exact
#' errors: it is **not** a private release, and `print` says so first.
#'
#' * `print` describes the study and shows the head of its summary;
#' * `summary` gives a table of means (and standard errors) per setting and
#'   method: [summary.sheffet_study()], [study_summary()] for thresholding,
#'   the `summary` table of a `qda_study`, and for compression the mean
#'   distance and bounds per m;
#' * `plot` draws the study's figure, legend outside the data:
#'   [plot.sheffet_study()], [plot.qda_study()], [plot.compression_study()],
#'   and for thresholding the mean error against n per method;
#' * `as.data.frame` gives the long format: one row per setting x method x
#'   replication (and x truth for thresholding), without the study's
#'   attributes.
#'
#' The fields earlier versions returned are unchanged. `as_dp_study()`
#' converts a study saved by an earlier version (its class lacks `dp_study`,
#' and for compression studies `dp_nonprivate`; thresholding results may be a
#' plain data frame) to the current class.
#' @param x,object A study.
#' @param n_rows Summary rows `print` shows.
#' @param measure For thresholding studies: the error column to plot
#'   (`"spectral"`, `"frobenius"` or `"l1"`).
#' @param main Plot title (`NULL` for a default).
#' @param row.names,optional `as.data.frame()`: as in [base::as.data.frame()]
#'   (`row.names` one distinct name per row, else a classed error;
#'   `optional` `TRUE` or `FALSE`).
#' @param ... `summary`: passed to the kind's summary (e.g. `measure` of
#'   [study_summary()]); `plot`: passed to [graphics::plot()];
#'   `as_dp_study()` and `as.data.frame()`: nothing (an argument they do not
#'   take is an error); otherwise unused.
#' @return `print`: `x`, invisibly; `summary`: a data frame; `plot`: the
#'   plotted summary, invisibly; `as.data.frame`: a data frame;
#'   `as_dp_study`: the study with its current class.
#' @seealso [dpcov_arguments]
#' @examples
#' s <- data.frame(cov = "model2", dist = "gaussian", p = 5, n = c(50, 200),
#'                 epsilon = 1, delta = 1e-3)
#' st <- run_study(s, reps = 2, tune = "theory")
#' st
#' head(as.data.frame(st))
#' plot(st)
#' @name dp_study
NULL

#' @rdname dp_study
#' @export
as_dp_study <- function(x, ...) {
  refuse_unknown_args("as_dp_study", ...)
  if (missing(x)) abort_missing("x")
  kind <- intersect(class(x), study_kinds)[1]
  if (is.na(kind)) {
    if (is.data.frame(x) && !is.object(x[["method"]]) && all(c("method", "truth", "spectral") %in% names(x))) {
      kind <- "threshold_study"  # run_study() results saved as a plain data frame
    } else {
      abort("`x` is not a study: its class is none of %s.", paste(study_kinds, collapse = ", "), .arg = "x")
    }
  }
  base <- if (is.data.frame(x)) "data.frame" else character(0)
  class(x) <- c(kind, "dp_study", "dp_nonprivate", base)
  check_study(x)
  x
}

# Class a runner's result.
new_study <- function(x, kind) {
  class(x) <- c(kind, "dp_study", "dp_nonprivate", if (is.data.frame(x)) "data.frame")
  x
}

study_kind <- function(x) intersect(class(x), study_kinds)[1]

# A study given as input: its kind's own check.
check_study <- function(x, arg = "x") {
  kind <- if (inherits(x, "dp_study")) study_kind(x) else NA_character_
  if (is.na(kind)) abort("`%s` is not a valid dp_study: its class names none of %s.", arg,
                         paste(study_kinds, collapse = ", "), .arg = arg)
  switch(kind,
    sheffet_study = check_sheffet_study(x, arg),
    qda_study = check_qda_study(x, arg),
    compression_study = check_compression_study(x, arg),
    threshold_study = check_threshold_study(x, arg))
  kind
}

#' @rdname dp_study
#' @export
print.dp_study <- function(x, n_rows = 6, ...) {
  kind <- check_study(x)
  n_rows <- check_count(n_rows, "n_rows", max = 1e6)
  nonprivate_banner(x, "a study of mechanisms on data, with exact errors")
  what <- switch(kind,
    threshold_study = sprintf("thresholding study: %d setting(s) x %d method(s), %d rows",
                              nrow(unique(x[intersect(c("cov", "dist", "p", "n", "epsilon", "delta", "sparsity"), names(x))])),
                              length(unique(x$method)), nrow(x)),
    compression_study = sprintf("PCA on compressed data: m = %s, D = %d, %d replication(s) per m",
                                paste(format(sort(unique(x$m)), big.mark = ",", decimal.mark = ".", scientific = FALSE, trim = TRUE), collapse = ", "),
                                as.integer(x$dim[1]), max(table(x$m))),
    kind)
  cat(sprintf("<%s> %s (a study, not a release)\n", kind, what))
  cat("summary() gives the table below; as.data.frame() the long format; plot() the figure.\n")
  print(utils::head(plain_table(summary(x)), n_rows), row.names = FALSE)
  invisible(x)
}

#' @rdname dp_study
#' @export
summary.dp_study <- function(object, ...) {
  # a study's table holds exact statistics of the data it ran on (errors,
  # compression's delta_D and bounds): it stays labelled non-private
  as_nonprivate(study_table(object, ...), "study_summary")
}

# A labelled table as a plain data frame (for printing under a banner that
# already says it is not private).
plain_table <- function(d) {
  class(d) <- "data.frame"
  d
}

study_table <- function(object, ...) {
  kind <- check_study(object, "object")
  switch(kind,
    sheffet_study = summary.sheffet_study(object, ...),
    threshold_study = {
      m <- intersect(c("spectral", "frobenius", "l1"), names(object))
      args <- list(...)
      if (is.null(args$measure)) args$measure <- m
      do.call(study_summary, c(list(as.data.frame(object)), args))
    },
    qda_study = {
      out <- object$summary
      # a study whose test subjects leaked into the fit says so in its table too
      leak <- qda_study_leak(object, "object")
      if (leak != "none") {
        attr(out, "nonprivate_why") <- qda_study_why(leak, "misclassifications of classifiers fitted and tested on the data")
      }
      out
    },
    compression_study = {
      d <- as.data.frame(object)
      keys <- sort(unique(d$m))
      out <- do.call(rbind, lapply(keys, function(m) {
        g <- d[d$m == m, , drop = FALSE]
        data.frame(m = m, dim = g$dim[1], reps = nrow(g), distance = mean(g$distance),
                   se = if (nrow(g) > 1) stats::sd(g$distance) / sqrt(nrow(g)) else NA_real_,
                   bound = mean(g$bound), worst_case = mean(g$worst_case),
                   bound_applies = if (is.logical(g$bound_applies)) mean(g$bound_applies) else NA_real_)
      }))
      rownames(out) <- NULL
      out
    })
}

#' @rdname dp_study
#' @export
plot.dp_study <- function(x, measure = "spectral", main = NULL, ...) {
  kind <- check_study(x)
  switch(kind,
    sheffet_study = plot.sheffet_study(x, main = main, ...),
    qda_study = plot.qda_study(x, ...),
    compression_study = plot.compression_study(x, main = main, ...),
    threshold_study = plot_threshold_study(x, measure = measure, main = main, ...))
}

#' @rdname dp_study
#' @export
as.data.frame.dp_study <- function(x, row.names = NULL, optional = FALSE, ...) {
  kind <- check_study(x)
  if (kind == "qda_study" && !is_frame_with(x$errors, numeric = c("rep", "p", "errors"), character = "estimator")) {
    abort("`x` is not a valid qda_study: its `errors` table (rep, p, estimator, errors) is missing or malformed.", .arg = "x")
  }
  out <- if (kind == "qda_study") x$errors else x
  out <- as.data.frame(unclass(out), stringsAsFactors = FALSE)
  rownames(out) <- NULL
  data_frame_args(out, row.names, optional, ...)
}

check_compression_study <- function(x, arg = "x") {
  if (!inherits(x, "compression_study") ||
      !is_frame_with(x, numeric = c("m", "dim", "distance", "bound", "worst_case")) ||
      !all(is.finite(x$m)) || !all(is.finite(x$distance))) {
    abort("`%s` is not a valid compression_study: it needs rows with numeric m, dim, distance, bound and worst_case.",
          arg, .arg = arg)
  }
  invisible(x)
}

check_threshold_study <- function(x, arg = "x") {
  # (errors are norms: finite and >= 0 in every row a study makes)
  errs <- intersect(c("spectral", "frobenius", "l1", "rel_spectral", "rel_frobenius", "rel_l1"), names(x))
  if (!is_frame_with(x, numeric = c("n", "epsilon", "spectral"), character = c("method", "truth")) ||
      !all(vapply(x[errs], function(v) is.numeric(v) && all(is.finite(v) & v >= 0), logical(1)))) {
    abort("`%s` is not a valid threshold_study: it needs rows with n, epsilon, method, truth and finite errors >= 0 (spectral, and frobenius and l1 where present).",
          arg, .arg = arg)
  }
  invisible(x)
}

# The thresholding study's figure: mean error (+- 2 se) against n, one line
# per method, one panel per other setting (cov, dist, p, epsilon) shown in
# the title of the first.
plot_threshold_study <- function(x, measure = "spectral", main = NULL, ...) {
  measure <- check_choice(measure, intersect(c("spectral", "frobenius", "l1", "rel_spectral", "rel_frobenius", "rel_l1"),
                                             names(x)), "measure")
  if (!is.null(main) && !is_string(main)) abort("`main` must be NULL or one string.", .arg = "main")
  s <- study_summary(as.data.frame(x), measure)
  mean_col <- paste0("mean_", measure)
  se_col <- paste0("se_", measure)
  s[[se_col]][is.na(s[[se_col]])] <- 0
  s$series <- paste(s$method, if (length(unique(s$truth)) > 1) paste0("(", s$truth, ")") else "")
  s$series <- trimws(s$series)
  others <- intersect(c("cov", "dist", "p", "epsilon", "delta", "sparsity"), names(s))
  varying <- others[vapply(others, function(k) length(unique(s[[k]])) > 1, logical(1))]
  if (is.null(main)) {
    fixed <- setdiff(others, varying)
    fixed <- fixed[vapply(fixed, function(k) !all(is.na(s[[k]])), logical(1))]
    main <- paste0("Thresholding, ", measure, " error",
                   if (length(fixed)) paste0("\n", paste(fixed, vapply(fixed, function(k) format(s[[k]][1]), ""),
                                                         sep = " = ", collapse = ", ")))
  }
  if (length(varying)) {
    s$series <- paste0(s$series, " [", do.call(paste, c(lapply(varying, function(k) paste(k, "=", s[[k]])), sep = ", ")), "]")
  }
  series <- unique(s$series)
  cols <- study_palette(length(series))
  lo <- pmax(s[[mean_col]] - 2 * s[[se_col]], min(s[[mean_col]][s[[mean_col]] > 0], 1) / 2)
  hi <- s[[mean_col]] + 2 * s[[se_col]]
  ns <- sort(unique(s$n))
  logx <- length(ns) > 1 && max(ns) / min(ns) >= 4
  leg <- legend_outside_setup(series, cex = 0.75)
  on.exit(graphics::par(leg$op))
  # (the user's xlim, ylab, ... replace these defaults: passed twice, they
  # were base R's "matched by multiple actual arguments")
  graphics_call(graphics::plot, list(NA),
                list(xlim = range(ns) * if (logx) c(1 / 1.15, 1.15) else c(0.95, 1.05),
                     ylim = headroom(range(c(lo, hi, 0)), log = FALSE), log = if (logx) "x" else "",
                     xlab = "n (rows)", ylab = paste("mean", measure, "error (\u00b1 2 se)"), main = main,
                     axes = FALSE),
                list(...))
  study_axis(1, ns, log = logx)
  study_axis(2, NULL)
  graphics::box()
  for (i in seq_along(series)) {
    g <- s[s$series == series[i], , drop = FALSE]
    g <- g[order(g$n), , drop = FALSE]
    graphics::lines(g$n, g[[mean_col]], type = "b", pch = 15 + (i - 1) %% 5, col = cols[i])
    ok <- g[[se_col]] > 1e-9 * abs(g[[mean_col]])  # (an se of rounding size draws no arrow: R warns)
    if (any(ok)) {
      graphics::arrows(g$n[ok], g[[mean_col]][ok] - 2 * g[[se_col]][ok], g$n[ok],
                       g[[mean_col]][ok] + 2 * g[[se_col]][ok], angle = 90, code = 3, length = 0.03, col = cols[i])
    }
  }
  legend_outside(series, col = cols, pch = 15 + (seq_along(series) - 1) %% 5, lty = 1, leg = leg)
  invisible(s)
}

study_palette <- function(k) {
  base <- c("black", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "grey45")
  rep(base, length.out = k)
}

# ---- legends outside the data, headroom, tick labels -------------------------------

# Make room for a legend of `labels` outside the plot region: in the right
# margin when it takes at most 30% of the figure's width, else (a figure in
# a multi-panel layout) under the x axis label, in as many columns as fit.
# Returns what legend_outside() needs and the old par (to restore).
legend_outside_setup <- function(labels, cex = 0.8) {
  op <- graphics::par(no.readonly = TRUE)["mar"]
  fig_w <- graphics::par("fin")[1]
  csi <- graphics::par("csi")
  col_w <- max(graphics::strwidth(labels, units = "inches", cex = cex)) + 0.55 * cex / 0.8
  mar <- graphics::par("mar")
  if (col_w <= 0.3 * fig_w) {
    mar[4] <- max(mar[4], col_w / csi + 1)
    graphics::par(mar = mar)
    return(list(op = op, cex = cex, where = "right", ncol = 1L))
  }
  cex <- max(0.6, cex - 0.1)
  # a column as legend_outside() draws it: the label with 20% slack, the
  # line segment and the gaps (about four character widths)
  col_w <- 1.2 * max(graphics::strwidth(labels, units = "inches", cex = cex)) +
    4.5 * graphics::strwidth("0", units = "inches", cex = cex)
  ncol <- max(1L, min(length(labels), floor(0.95 * fig_w / col_w)))
  rows <- ceiling(length(labels) / ncol)
  below <- mar[1]
  mar[1] <- mar[1] + rows * 1.15 * cex + 0.6
  graphics::par(mar = mar)
  list(op = op, cex = cex, where = "bottom", ncol = as.integer(ncol), below = below)
}

# The legend where legend_outside_setup() made room for it.
legend_outside <- function(labels, ..., leg) {
  if (leg$where == "right") {
    graphics::legend("topleft", legend = labels, inset = c(1.02, 0), xpd = TRUE, bty = "n", cex = leg$cex,
                     y.intersp = 1.1, ...)
  } else {
    inset <- 1 + (leg$below + 0.1) * graphics::par("csi") / graphics::par("pin")[2]
    # legend()'s own column width leaves no gap after the longest label:
    # 20% slack keeps a label off the next column's symbol
    tw <- 1.2 * max(graphics::strwidth(labels, units = "user", cex = leg$cex))
    graphics::legend("top", legend = labels, inset = c(0, inset), xpd = TRUE, bty = "n", cex = leg$cex,
                     ncol = leg$ncol, text.width = tw, ...)
  }
}

# Room so that no series touches the frame: 8% on each side (in log space on
# a log axis).
headroom <- function(r, log = FALSE, frac = 0.08) {
  if (log) {
    lr <- log10(r)
    w <- max(diff(lr), 0.3)
    return(10^(lr + c(-1, 1) * frac * w))
  }
  w <- diff(r)
  if (!(w > 0)) w <- max(abs(r), 1)
  r + c(if (r[1] == 0) 0 else -frac * w, frac * w)
}

# Axis with labels formatted by axis_labels(): powers of 2 for n (log2 data
# sizes), plain numbers with separators otherwise, never 1e+02 beside 0.5.
study_axis <- function(side, at = NULL, log = FALSE, base = 2) {
  if (is.null(at)) at <- graphics::axTicks(side)
  if (log && base == 2 && all(abs(log2(at) - round(log2(at))) < 1e-8) && length(at) > 1 && max(at) >= 1024) {
    k <- round(log2(at))
    if (length(k) > 8) k <- k[k %% 2 == k[1] %% 2]
    at <- 2^k
    labels <- axis_labels(at, 2)
  } else {
    labels <- axis_labels(at)
  }
  graphics::axis(side, at = at, labels = labels, las = if (side == 2) 1 else 0, cex.axis = 0.85)
}

check_legend_pos <- function(legend_pos) {
  check_choice(legend_pos, c("outside", "none", "bottomright", "bottom", "bottomleft", "left", "topleft", "top",
                             "topright", "right", "center"), "legend_pos")
}

#' @rdname dp_study
#' @param i,j,drop Rows, columns and `drop` of [`[.data.frame`][base::Extract].
#' @export
`[.dp_study` <- function(x, i, j, ..., drop) {
  out <- tryCatch(NextMethod(), error = function(e) {
    abort("`x`: this subset of a %s cannot be taken (%s); as.data.frame(x) gives its long table.", study_kind(x),
          conditionMessage(e), .arg = "x")
  })
  # a subset that is no longer a study of its kind (a column it needs left
  # out, no rows) is a plain table, still labelled non-private: its print
  # would otherwise refuse it. (The checks subset studies themselves: those
  # subsets are taken as they are.)
  if (isTRUE(dpcov_state$checking_study_subset)) return(out)
  if (!inherits(out, "dp_study")) {
    # (a list-based study's `[` keeps no class: its parts stay labelled)
    if (!inherits(out, "dp_nonprivate")) class(out) <- c("dp_nonprivate", class(unclass(out)))
    return(out)
  }
  # the study's own attributes (settings, timings) that `[` dropped
  keep <- setdiff(names(attributes(x)), c(names(attributes(out)), "names", "row.names", "class", "dim", "dimnames"))
  for (a in keep) attr(out, a) <- attr(x, a)
  dpcov_state$checking_study_subset <- TRUE
  on.exit(dpcov_state$checking_study_subset <- FALSE)
  ok <- !inherits(tryCatch(switch(study_kind(out),
                                  sheffet_study = check_sheffet_study(out, settings = TRUE),
                                  qda_study = check_qda_study(out, settings = TRUE),
                                  check_study(out)),
                           dpcov_error = identity), "error")
  if (!ok) class(out) <- setdiff(class(out), c(study_kinds, "dp_study"))
  out
}
