# Two audits every mechanism goes through:
#  * leak_scan(): does a returned object hold the data, or a statistic of it
#    computed without noise, anywhere (elements, attributes, calls, formulas,
#    closure environments, printed text)?
#  * privacy_audit(): is the noise of many releases on one fixed data set
#    distributed exactly as the calibration says? Each use has an under-noised
#    control that the same helper must flag.

# ---- leakage -----------------------------------------------------------------

# The non-private statistics of a data matrix that no release may hold.
leak_secrets <- function(x, clip = Inf) {
  x <- as.matrix(x)
  n <- nrow(x)
  norms <- sqrt(rowSums(x^2))
  xc <- if (is.finite(clip)) x * ifelse(norms > clip, clip / norms, 1) else x
  centred <- sweep(x, 2, colMeans(x))
  list(data = x, clipped = xc, gram = crossprod(x), gram_clipped = crossprod(xc),
       average = crossprod(x) / n, average_clipped = crossprod(xc) / n,
       cov = stats::cov(x), cov_n = crossprod(centred) / n, cor = stats::cor(x),
       means = colMeans(x), sds = apply(x, 2, stats::sd), col_norms = sqrt(colSums(x^2)),
       row_norms = norms, extremes = range(x), col_extremes = apply(x, 2, range))
}

# Every number and string an object holds, with where it was found. Walks
# lists, attributes, environments (except namespaces and the global and base
# environments), closures (formals, body, environment) and language objects.
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
    if (depth > 50) return()
    a <- attributes(x)
    for (nm in setdiff(names(a), c("names", "class"))) walk(a[[nm]], paste0(path, "@", nm), depth + 1)
    if (is.null(x)) return()
    if (is.environment(x)) {
      if (skip_env(x)) return()
      key <- format(x)
      if (!is.null(seen[[key]])) return()
      assign(key, TRUE, envir = seen)
      for (nm in ls(x, all.names = TRUE)) {
        v <- tryCatch(get(nm, envir = x, inherits = FALSE), error = function(e) NULL)
        walk(v, paste0(path, "$<env>", nm), depth + 1)
      }
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
    if (is.list(x) || is.pairlist(x)) {
      for (i in seq_along(x)) {
        v <- x[[i]]
        if (!missing(v)) walk(v, sprintf("%s[[%d]]", path, i), depth + 1)
      }
      return()
    }
    if (is.numeric(x) || is.complex(x)) add(path, as.numeric(Re(x)))
    if (is.character(x) || is.factor(x)) add(path, as.character(x))
  }
  walk(obj, "obj")
  out
}

# Values no release may hold: every secret except those any object may hold
# by chance (whole numbers such as n or p, 0 and +-1).
secret_values <- function(secrets) {
  v <- unique(as.numeric(unlist(secrets)))
  v <- v[is.finite(v)]
  v[v != round(v)]
}

# The text an object prints (and its summary prints), at full precision
# where the method takes `digits`.
printed_text <- function(obj) {
  txt <- c(utils::capture.output(print(obj)),
           tryCatch(utils::capture.output(print(obj, digits = 15)), error = function(e) character()))
  s <- tryCatch(summary(obj), error = function(e) NULL)
  if (!is.null(s)) txt <- c(txt, utils::capture.output(print(s)),
                            tryCatch(utils::capture.output(print(s, digits = 15)), error = function(e) character()))
  txt
}

# Numbers in text with at least `min_digits` significant digits.
numbers_in_text <- function(txt, min_digits = 6) {
  tok <- unlist(regmatches(txt, gregexpr("-?[0-9]+\\.?[0-9]*(e[-+]?[0-9]+)?", txt)))
  mant <- sub("e.*$", "", sub("^-", "", tok))
  digits <- nchar(gsub("^0+", "", gsub("\\.", "", sub("0+$", "", ifelse(grepl("\\.", mant), mant, paste0(mant, "."))))))
  tok <- tok[digits >= min_digits]
  vals <- suppressWarnings(as.numeric(tok))
  data.frame(token = tok[!is.na(vals)], value = vals[!is.na(vals)],
             digits = digits[digits >= min_digits][!is.na(vals)], stringsAsFactors = FALSE)
}

# Where does `obj` hold any secret? A character vector of findings (empty
# when clean). Numbers match within 1e-9 relative; printed numbers match a
# secret rounded to the digits printed.
leak_scan <- function(obj, secrets, extra = numeric(0)) {
  vals <- sort(c(secret_values(secrets), extra))
  hits <- character(0)
  near <- function(v) {
    v <- v[is.finite(v)]
    if (!length(v) || !length(vals)) return(FALSE)
    i <- findInterval(v, vals)
    lo <- vals[pmax(i, 1L)]
    hi <- vals[pmin(i + 1L, length(vals))]
    tol <- 1e-9 * pmax(1, abs(v))
    any(abs(v - lo) <= tol | abs(v - hi) <= tol)
  }
  for (leaf in leak_leaves(obj)) {
    v <- leaf$value
    if (is.numeric(v)) {
      if (near(v)) hits <- c(hits, leaf$path)
    } else {
      num <- suppressWarnings(as.numeric(unlist(regmatches(v, gregexpr("-?[0-9]+\\.[0-9]{5,}(e[-+]?[0-9]+)?", v)))))
      if (near(num[!is.na(num)])) hits <- c(hits, paste0(leaf$path, " (text)"))
    }
  }
  nums <- numbers_in_text(printed_text(obj))
  for (i in seq_len(nrow(nums))) {
    k <- nums$digits[i]
    if (any(abs(signif(vals, k) - nums$value[i]) <= 1e-12 * pmax(1, abs(nums$value[i])))) {
      hits <- c(hits, paste0("printed: ", nums$token[i]))
    }
  }
  unique(hits)
}

expect_no_leak <- function(obj, secrets, extra = numeric(0), label = deparse(substitute(obj))) {
  hits <- leak_scan(obj, secrets, extra)
  testthat::expect(length(hits) == 0L,
                   sprintf("%s holds non-private values at: %s", label, paste(utils::head(hits, 10), collapse = "; ")))
  invisible(obj)
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

# Classic Gaussian sigma, written out independently of the package.
classic_sigma <- function(sensitivity, epsilon, delta) sensitivity * sqrt(2 * log(1.25 / delta)) / epsilon

# A fixed data set made without the RNG: rows with norms spread around `clip`
# (some clipped), irregular values, a non-zero mean.
audit_matrix <- function(n, p, clip = 1) {
  z <- sin(outer(seq_len(n), seq_len(p), function(i, j) 1.37 * i + 2.11 * j^2 + i * j / 7.3))
  z * (0.4 + 1.6 * (seq_len(n) %% 5) / 4) * clip / sqrt(p) + 0.05
}
