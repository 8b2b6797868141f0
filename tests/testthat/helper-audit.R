# Two audits every mechanism goes through:
#  * leak_scan(): does a returned object hold the data, or a statistic of it
#    computed without noise, anywhere (elements, attributes, calls, formulas,
#    closure environments, printed text)?
#  * privacy_audit(): is the noise of many releases on one fixed data set
#    distributed exactly as the calibration says? Each use has an under-noised
#    control that the same helper must flag.

# ---- leakage -----------------------------------------------------------------

# The non-private statistics of a data matrix that no release may hold: the
# data, and for the raw rows, the rows clipped at `clip` (what the mechanisms
# see) and the column-normalised rows (what compression sees): Gram, average,
# covariances, correlations, column means, sds, norms and extremes, row
# norms, eigenvalues; with `group`, the class means and the class-centred
# rows' statistics (what the QDA estimators see). A named nested list.
leak_secrets <- function(x, clip = Inf, group = NULL) {
  x <- as.matrix(x)
  storage.mode(x) <- "double"
  n <- nrow(x)
  stats_of <- function(m) {
    g <- crossprod(m)
    centred <- sweep(m, 2, colMeans(m))
    ev <- function(s) eigen(s, symmetric = TRUE, only.values = TRUE)$values
    list(data = m, row_norms = sqrt(rowSums(m^2)), gram = g, average = g / n,
         cov = stats::cov(m), cov_n = crossprod(centred) / n,
         cor = suppressWarnings(stats::cor(m)), means = colMeans(m),
         sds = apply(m, 2, stats::sd), col_norms = sqrt(diag(g)), col_rms = sqrt(diag(g) / n),
         extremes = range(m), col_extremes = apply(m, 2, range),
         eigen_gram = ev(g), eigen_average = ev(g) / n, eigen_cov = ev(stats::cov(m)))
  }
  out <- list(raw = stats_of(x))
  if (is.finite(clip)) {
    norms <- sqrt(rowSums(x^2))
    out$clipped <- stats_of(x * ifelse(norms > clip, clip / norms, 1))
  }
  # compression scales columns to squared norm n; its eigengaps are PCA's delta_D
  scales <- ifelse(colSums(x^2) > 0, sqrt(n / colSums(x^2)), 1)
  normed <- stats_of(sweep(x, 2, scales, "*"))
  ev <- normed$eigen_average
  out$normalized <- c(list(scales = scales, inv_scales = 1 / scales,
                           eigengaps = -diff(ev) / 2, eigen_diffs = -diff(ev)),
                      normed[c("average", "cov", "means", "sds", "eigen_average")])
  if (!is.null(group)) {
    group <- factor(group)
    centred <- x
    for (i in split(seq_len(n), group)) centred[i, ] <- sweep(x[i, , drop = FALSE], 2, colMeans(x[i, , drop = FALSE]))
    out$class_means <- t(vapply(split(seq_len(n), group), function(i) colMeans(x[i, , drop = FALSE]), numeric(ncol(x))))
    out$pooled <- crossprod(centred) / (n - nlevels(group))
    out$centred <- stats_of(centred)[c("gram", "average", "col_norms", "sds", "eigen_gram", "extremes")]
  }
  out
}

# The secrets as a table: `name` (where in leak_secrets() it comes from),
# `value`, and `summary` (a statistic, not a row-level value). Values that
# any object may hold by chance are dropped: whole numbers (n, p, counts,
# ranks), and values with at most 3 significant digits (0.5, 1e-05, 2.25:
# the form of public constants, epsilon, delta and clip).
secret_table <- function(secrets) {
  v <- unlist(secrets)
  nm <- names(v)
  if (is.null(nm)) nm <- rep("secret", length(v))
  keep <- is.finite(v) & v != round(v) & abs(v - signif(v, 3)) > 1e-12 * abs(v)
  tab <- data.frame(name = nm[keep], value = as.numeric(v[keep]), stringsAsFactors = FALSE)
  tab$summary <- !grepl("(^|\\.)(data|row_norms)[0-9]*$", tab$name)
  tab[!duplicated(tab$value), , drop = FALSE]
}

# Every number and string an object holds, with where it was found. Walks
# lists, attributes (so S4 slots, formula environments, srcrefs), environments
# and their enclosures (stopping at namespaces, package environments, the
# global, base and empty environments), closures (formals, body, environment)
# and language objects (calls, formulas).
leak_leaves <- function(obj) {
  out <- list()
  seen <- new.env()
  add <- function(path, v) out[[length(out) + 1L]] <<- list(path = path, value = v)
  skip_env <- function(e) {
    identical(e, globalenv()) || identical(e, baseenv()) || identical(e, emptyenv()) ||
      isNamespace(e) || environmentName(e) %in% c("R_GlobalEnv", "base") ||
      !is.null(attr(e, "name")) && grepl("^package:", attr(e, "name"))
  }
  walk <- function(x, path, depth = 0) {
    if (depth > 60) return()
    if (typeof(x) %in% c("externalptr", "weakref", "bytecode", "char")) return()
    a <- attributes(x)
    for (nm in setdiff(names(a), c("names", "class"))) walk(a[[nm]], paste0(path, "@", nm), depth + 1)
    if (is.null(x)) return()
    if (is.environment(x)) {
      if (skip_env(x)) return()
      key <- format(x)
      if (!is.null(seen[[key]])) return()
      assign(key, TRUE, envir = seen)
      for (nm in ls(x, all.names = TRUE)) {
        if (bindingIsActive(nm, x)) next
        v <- tryCatch(get(nm, envir = x, inherits = FALSE), error = function(e) NULL)
        walk(v, paste0(path, "$<env>", nm), depth + 1)
      }
      # a closure made inside a function sees that function's frame too
      walk(parent.env(x), paste0(path, "<parent>"), depth + 1)
      return()
    }
    if (is.function(x)) {
      if (is.primitive(x)) return()
      walk(formals(x), paste0(path, "<formals>"), depth + 1)
      walk(as.list(body(x)), paste0(path, "<body>"), depth + 1)
      walk(environment(x), paste0(path, "<closure>"), depth + 1)
      return()
    }
    if (is.language(x)) {
      if (is.symbol(x)) return()
      parts <- as.list(x)
      for (i in seq_along(parts)) {
        if (!identical(parts[[i]], quote(expr = ))) walk(parts[[i]], sprintf("%s<call>[%d]", path, i), depth + 1)
      }
      return()
    }
    if (isS4(x) && !is.list(x)) return()  # slots were walked as attributes
    if (is.list(x) || is.pairlist(x)) {
      for (i in seq_along(x)) {
        v <- x[[i]]
        if (!missing(v)) walk(v, sprintf("%s[[%d]]", path, i), depth + 1)
      }
      return()
    }
    if (is.factor(x)) return(add(path, as.character(x)))
    if (is.numeric(x) || is.complex(x)) add(path, as.numeric(Re(x)))
    if (is.character(x)) add(path, x)
  }
  walk(obj, "obj")
  out
}

# The text an object prints (and its summary prints), at its default and at
# full precision where the method takes `digits`.
printed_text <- function(obj) {
  quiet <- function(expr) tryCatch(utils::capture.output(expr), error = function(e) character())
  txt <- c(quiet(print(obj)), quiet(print(obj, digits = 15)))
  s <- tryCatch(summary(obj), error = function(e) NULL)
  if (!is.null(s)) txt <- c(txt, quiet(print(s)), quiet(print(s, digits = 15)))
  txt
}

# Numbers written in text, with their significant digits (trailing zeros
# not counted: "0.1230" has 3).
numbers_in_text <- function(txt) {
  tok <- unlist(regmatches(txt, gregexpr("-?[0-9]+\\.?[0-9]*([eE][-+]?[0-9]+)?", txt)))
  mant <- sub("[eE].*$", "", sub("^-", "", tok))
  digits <- nchar(sub("0+$", "", sub("^0+", "", gsub(".", "", mant, fixed = TRUE))))
  vals <- suppressWarnings(as.numeric(tok))
  ok <- !is.na(vals) & is.finite(vals)
  data.frame(token = tok[ok], value = vals[ok], digits = digits[ok], stringsAsFactors = FALSE)
}

# Which secrets (by name) does the text of an object show? A number with k
# significant digits shows a secret when it equals the secret rounded to k
# digits. Numbers with >= `exact_digits` digits are checked against every
# secret; shorter ones (down to `min_digits`, e.g. a column mean printed with
# 4 digits) only against the summary statistics, as a row-level value
# matches some printed number at 4 digits by chance.
text_matches <- function(txt, tab, min_digits = 4L, exact_digits = 7L) {
  nums <- numbers_in_text(txt)
  nums <- nums[nums$digits >= min_digits, , drop = FALSE]
  found <- data.frame(token = character(0), name = character(0), exact = logical(0), stringsAsFactors = FALSE)
  for (i in seq_len(nrow(nums))) {
    k <- nums$digits[i]
    cand <- if (k >= exact_digits) tab else tab[tab$summary, , drop = FALSE]
    hit <- abs(signif(cand$value, k) - nums$value[i]) <= 1e-10 * abs(nums$value[i])
    if (any(hit)) {
      found <- rbind(found, data.frame(token = nums$token[i], name = cand$name[hit],
                                       exact = k >= exact_digits, stringsAsFactors = FALSE))
    }
  }
  unique(found)
}

# Where does `obj` hold any secret? A character vector of findings (empty
# when clean). Numbers it holds match a secret within 1e-9 (relative).
# Numbers in its strings and printed text match as in text_matches(). With
# `rerun` (the same call on other data, `rerun_secrets` its secrets) a
# short printed number counts only when the rerun's text shows the same
# secret: a leaked statistic does, a noisy or public number that equals a
# secret to 4 digits by chance does not.
leak_scan <- function(obj, secrets, extra = numeric(0), rerun = NULL, rerun_secrets = NULL) {
  tab <- secret_table(secrets)
  if (length(extra)) tab <- rbind(tab, data.frame(name = "extra", value = extra, summary = TRUE))
  vals <- sort(tab$value)
  hits <- character(0)
  near <- function(v) {
    v <- v[is.finite(v)]
    if (!length(v) || !length(vals)) return(FALSE)
    i <- findInterval(v, vals)
    lo <- vals[pmax(i, 1L)]
    hi <- vals[pmin(i + 1L, length(vals))]
    tol <- 1e-9 * pmax(abs(v), 1e-300)
    any(abs(v - lo) <= tol | abs(v - hi) <= tol)
  }
  text_of <- function(o) {
    strings <- unlist(lapply(leak_leaves(o), function(l) if (is.character(l$value)) l$value))
    c(printed_text(o), strings)
  }
  for (leaf in leak_leaves(obj)) {
    if (is.numeric(leaf$value) && near(leaf$value)) hits <- c(hits, leaf$path)
  }
  m <- text_matches(text_of(obj), tab)
  short <- m[!m$exact, , drop = FALSE]
  if (!is.null(rerun) && nrow(short)) {
    m2 <- text_matches(text_of(rerun), secret_table(rerun_secrets))
    short <- short[short$name %in% m2$name, , drop = FALSE]
  }
  m <- rbind(m[m$exact, , drop = FALSE], short)
  if (nrow(m)) hits <- c(hits, sprintf("text: %s (%s)", m$token, m$name))
  unique(hits)
}

expect_no_leak <- function(obj, secrets, extra = numeric(0), rerun = NULL, rerun_secrets = NULL,
                           label = deparse(substitute(obj))) {
  hits <- leak_scan(obj, secrets, extra, rerun, rerun_secrets)
  testthat::expect(length(hits) == 0L,
                   sprintf("%s holds non-private values at: %s", label, paste(utils::head(hits, 10), collapse = "; ")))
  invisible(obj)
}

# Calls stored anywhere in `obj` that hold a value instead of code (a data
# matrix, a data frame, a list or a closure put there by do.call()).
# Formulas are language too, and checked the same way.
calls_with_values <- function(obj) {
  bad <- character(0)
  is_code <- function(e) {
    if (missing(e) || is.symbol(e)) return(TRUE)
    if (is.atomic(e)) return(length(e) <= 1L)
    if (is.call(e)) return(all(vapply(as.list(e), function(a) missing(a) || is_code(a), logical(1))))
    if (is.pairlist(e)) return(all(vapply(as.list(e), function(a) missing(a) || is_code(a), logical(1))))
    FALSE
  }
  seen <- new.env()
  walk <- function(x, path, depth = 0) {
    if (depth > 60 || is.null(x)) return()
    a <- attributes(x)
    for (nm in setdiff(names(a), c("names", "class", "srcref"))) walk(a[[nm]], paste0(path, "@", nm), depth + 1)
    if (is.call(x)) {
      if (!is_code(x)) bad <<- c(bad, path)
      return()
    }
    if (is.environment(x)) {
      key <- format(x)
      if (isNamespace(x) || identical(x, globalenv()) || identical(x, baseenv()) ||
          identical(x, emptyenv()) || !is.null(seen[[key]])) return()
      assign(key, TRUE, envir = seen)
      for (nm in ls(x, all.names = TRUE)) {
        if (!bindingIsActive(nm, x)) walk(tryCatch(get(nm, envir = x), error = function(e) NULL), paste0(path, "$<env>", nm), depth + 1)
      }
      return()
    }
    if (is.list(x)) for (i in seq_along(x)) walk(x[[i]], sprintf("%s[[%d]]", path, i), depth + 1)
  }
  walk(obj, "obj")
  bad
}

# Does any single vector the object holds carry at least `min_hits` entries
# of the data (exactly)? A fitted classifier's means do not; the data, a
# column of it, or a closure capturing it do.
holds_raw_data <- function(obj, x, min_hits = NULL) {
  v <- sort(unique(as.numeric(as.matrix(x))))
  v <- v[is.finite(v) & v != round(v)]
  if (is.null(min_hits)) min_hits <- max(3L, min(nrow(as.matrix(x)), length(v)) %/% 2L)
  paths <- character(0)
  for (leaf in leak_leaves(obj)) {
    u <- leaf$value
    if (!is.numeric(u) || length(u) < min_hits) next
    i <- findInterval(u, v)
    hit <- abs(u - v[pmax(i, 1L)]) <= 1e-12 * abs(u) | abs(u - v[pmin(i + 1L, length(v))]) <= 1e-12 * abs(u)
    if (sum(hit, na.rm = TRUE) >= min_hits) paths <- c(paths, leaf$path)
  }
  paths
}

# ---- noise audit ---------------------------------------------------------------

#' One audit for every mechanism: `draw()` makes one release (from R's RNG)
#' and `pivot(release)` turns it into values that, if the noise is exactly
#' as calibrated, are iid from the distribution `cdf(..., ...)`. Passes when
#' a Kolmogorov-Smirnov test (and, for a standard normal, a two-sided
#' chi-square test of the sum of squares) keeps the null at level alpha.
privacy_audit <- function(draw, pivot, reps, cdf = "pnorm", ..., alpha = 1e-6) {
  z <- unlist(lapply(seq_len(reps), function(i) pivot(draw())))
  p <- suppressWarnings(stats::ks.test(z, cdf, ...)$p.value)
  if (identical(cdf, "pnorm") && !length(list(...))) {
    q <- sum(z^2)
    p_var <- 2 * min(stats::pchisq(q, length(z)), stats::pchisq(q, length(z), lower.tail = FALSE))
    p <- min(p, p_var)
  }
  structure(p > alpha, p_value = p, n = length(z))
}

# The upper triangle (diagonal included) of a symmetric matrix.
upper_entries <- function(m) m[upper.tri(m, diag = TRUE)]

# Chi-square goodness of fit of chosen indices (interval, bin) to the
# probabilities `prob` a mechanism claims, cells with expected count < 5
# pooled (dp_clip_bound()'s and dp_column_bounds()'s exponential mechanisms).
chisq_p <- function(index, prob) {
  obs <- tabulate(index, nbins = length(prob))
  exp_n <- prob * length(index)
  small <- exp_n < 5
  if (any(small)) {
    obs <- c(obs[!small], sum(obs[small]))
    exp_n <- c(exp_n[!small], sum(exp_n[small]))
  }
  stats::pchisq(sum((obs - exp_n)^2 / exp_n), df = length(obs) - 1L, lower.tail = FALSE)
}

# Classic Gaussian sigma, written out independently of the package.
classic_sigma <- function(sensitivity, epsilon, delta) sensitivity * sqrt(2 * log(1.25 / delta)) / epsilon

# A fixed data set made without the RNG: rows with norms spread around `clip`
# (some clipped), irregular values, a non-zero mean.
audit_matrix <- function(n, p, clip = 1) {
  z <- sin(outer(seq_len(n), seq_len(p), function(i, j) 1.37 * i + 2.11 * j^2 + i * j / 7.3))
  z * (0.4 + 1.6 * (seq_len(n) %% 5) / 4) * clip / sqrt(p) + 0.05
}

# capture.output() at a console width that does not wrap print()'s lines, for
# tests that match a printed line or phrase (print wraps to getOption("width"),
# which testthat sets to 80; test-methods.R checks the wrapping itself)
wide_output <- function(...) {
  op <- options(width = 10000L)
  on.exit(options(op))
  utils::capture.output(...)
}

# Standardised noise draws (a list of vectors: test-box.R, test-partial-bounds.R) are standard normal: shape
# (KS) and scale (chi-square test of the variance, two-sided), at 1e-6; the
# control, a claim of half the noise, fails.
expect_stated_sd <- function(d) {
  var_p <- function(v) {
    q <- sum(v^2)
    2 * min(stats::pchisq(q, length(v)), stats::pchisq(q, length(v), lower.tail = FALSE))
  }
  for (v in d) {
    expect_gt(suppressWarnings(stats::ks.test(v, "pnorm"))$p.value, 1e-6)
    expect_gt(var_p(v), 1e-6)
    expect_lt(var_p(v * 2), 1e-6)
  }
}
