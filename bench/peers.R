# Accuracy against peers on real data (issue 19, item 4). Run from the
# package root with dpcov installed:  Rscript bench/peers.R
# Environment: DPCOV_BENCH_REPS (default 50), DPCOV_BENCH_SETS (default
# "diamonds,penguins,quakes"). Needs DPpack (CRAN), ggplot2 (diamonds) and
# palmerpenguins; a method or data set whose package is missing is reported
# as "not available" (install them with install.packages(c("DPpack",
# "ggplot2", "palmerpenguins")); they are not dpcov dependencies). Writes
# bench/peers-results.rds (every repetition), inst/extdata/peers-summary.csv
# (the medians the front-door vignette shows) and prints the markdown tables
# of bench/RESULTS.md ("Accuracy against peers on real data").
#
# Neighbour notion: replace-one (bounded DP), n public, for every method:
# it is the one all four support. DPpack's which.sensitivity = "unbounded"
# uses the same sensitivity as "bounded" for a covariance (its n stays the
# public n), so it is no add/remove guarantee. delta = 1e-6 for the
# approximate-DP methods; DPpack runs its pure epsilon-DP Laplace mechanism
# (delta = 0).
#
# Methods (each given the whole epsilon of a cell):
#   dpcov default  dp_cov(x, epsilon, delta, neighbor = "replace-one"): no
#                  bounds given; whatever the installed dpcov does then
#                  (row-norm bounds or per-column ranges chosen privately).
#                  (epsilon, delta)-DP.
#   dpcov bounds   dp_cov(x, epsilon, delta, lower =, upper =, neighbor =
#                  "replace-one") with the public per-column bounds below.
#                  (epsilon, delta)-DP. "not available" when the installed
#                  dp_cov() has no `lower` argument.
#   textbook       written out below (textbook_cov()): clamp each column to
#                  its public range, Gaussian mechanism on the mean and on
#                  the second moment centred at the box midpoint, cov = M -
#                  m m', PSD projection. Same public bounds. (epsilon,
#                  delta)-DP.
#   textbook box   the same on the unit box (textbook_box_cov()): each
#                  column mapped to [0, 1] by its public range first, the
#                  result mapped back; a stronger baseline than the
#                  reviewers' textbook. (epsilon, delta)-DP.
#   DPpack         DPpack::covDP()/varDP() per entry (Laplace, which.sensitivity
#                  = "bounded"), the p(p+1)/2 entries composed by basic
#                  composition (epsilon / (p(p+1)/2) each), same public
#                  bounds; rescaled from divisor n - 1 to n and projected to
#                  the PSD cone (post-processing, both in DPpack's favour).
#                  Pure epsilon-DP (varDP() redraws its noise until the
#                  variance is positive, which strictly adds a little to its
#                  epsilon; we use it as shipped).
#
# Metrics, against S = stats::cov(x) * (n - 1) / n (divisor n):
#   relative Frobenius ||S^ - S||_F / ||S||_F and spectral ||S^ - S||_2 / ||S||_2;
#   the relative Frobenius error of the implied correlation matrix (which
#   weighs every column alike, where the covariance's error in mixed units
#   is that of its largest-variance columns);
#   PCA: the largest principal angle (degrees) between the top-2 eigenvector
#   subspaces of S^ and S (eigen() of each method's covariance; for dpcov
#   with bounds, the rotation of dp_pca(x, epsilon, delta, lower =, upper =),
#   its own release, as a user would run PCA);
#   regression (one model per data set): relative L2 error of the slopes
#   against lm()'s, and for dp_lm() the share of 95% intervals (percentile
#   bootstrap, B = 200) of the slopes that cover lm()'s slopes. The textbook
#   and DPpack slopes are solved from their private covariance of the
#   model's columns (each its own release with the whole epsilon); they give
#   no intervals.
# Median and interquartile range over `reps` repetitions; the methods are
# interleaved within each repetition.
suppressPackageStartupMessages(library(dpcov))
set.seed(19)
reps <- as.integer(Sys.getenv("DPCOV_BENCH_REPS", "50"))
sets <- strsplit(Sys.getenv("DPCOV_BENCH_SETS", "diamonds,penguins,quakes"), ",")[[1]]
epsilons <- c(0.25, 0.5, 1, 2, 4)
delta <- 1e-6
B_boot <- 200L
neighbor <- "replace-one"
has_dppack <- requireNamespace("DPpack", quietly = TRUE)
has_bounds <- "lower" %in% names(formals(dpcov::dp_cov))
has_lm_bounds <- "lower" %in% names(formals(dpcov:::dp_lm.formula))

# ---- data sets and their public bounds --------------------------------------
# Each bound comes from public knowledge (documentation, physics, biology),
# never from the data's own minimum and maximum; a justification per line.
bounds_frame <- function(...) {
  b <- rbind(...)
  data.frame(lower = b[, 1], upper = b[, 2], row.names = rownames(b))
}
datasets <- list()
if ("diamonds" %in% sets && requireNamespace("ggplot2", quietly = TRUE)) {
  d <- as.data.frame(ggplot2::diamonds)[c("carat", "depth", "table", "price", "x", "y", "z")]
  d$lprice <- log(d$price)
  datasets$diamonds <- list(
    name = "diamonds (ggplot2)", x = as.matrix(d[c("carat", "depth", "table", "price", "x", "y", "z")]),
    bounds = bounds_frame(
      carat = c(0, 5.5),     # ?diamonds documents 0.2-5.01 carat; rounded outward
      depth = c(40, 80),     # total depth % of a gem cut: ?diamonds says 43-79
      table = c(40, 100),    # table width as % of the widest point: at most 100
      price = c(0, 20000),   # ?diamonds: "price in US dollars ($326-$18,823)"
      x = c(0, 12),          # a 5.5 ct round brilliant is about 11.8 mm across
      y = c(0, 12),          # likewise (58.9 mm in the data is a recording error)
      z = c(0, 8),           # depth in mm: at most 80% of 12 mm, rounded up
      lprice = c(5, 10)),    # log of $148-$22026, covers the documented prices
    data = d, formula = lprice ~ carat + depth + table)
}
if ("penguins" %in% sets && requireNamespace("palmerpenguins", quietly = TRUE)) {
  cols <- c("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g")
  d <- as.data.frame(palmerpenguins::penguins)[cols]
  d <- d[stats::complete.cases(d), ]
  datasets$penguins <- list(
    name = "penguins (palmerpenguins)", x = as.matrix(d),
    bounds = bounds_frame(
      bill_length_mm = c(25, 65),        # Pygoscelis bills (culmen): generous plausibility range
      bill_depth_mm = c(10, 25),         # likewise, for bill depth
      flipper_length_mm = c(150, 250),   # adult flippers of the three species, generously
      body_mass_g = c(2000, 7000)),      # adults weigh about 2.5-6.5 kg; rounded outward
    data = d, formula = body_mass_g ~ flipper_length_mm + bill_length_mm)
}
if ("quakes" %in% sets) {
  d <- datasets::quakes
  datasets$quakes <- list(
    name = "quakes (datasets)", x = as.matrix(d),
    bounds = bounds_frame(
      lat = c(-40, -10),      # ?quakes: "a cube near Fiji"; Fiji-Tonga region, 10-40 S
      long = c(160, 190),     # 160-190 E around Fiji (east of the dateline as > 180)
      depth = c(0, 700),      # deep-focus earthquakes end near 700 km
      mag = c(4, 7),          # ?quakes: body-wave magnitude > 4.0; mb saturates near 6.5-7
      stations = c(0, 150)),  # reporting stations of a regional network, a public scale
    data = d, formula = stations ~ mag + depth)
}
if (!length(datasets)) stop("no data set available")

# ---- the textbook baseline ---------------------------------------------------
# Largest sensitivity/sd ratio mu at which the Gaussian mechanism is
# (epsilon, delta)-DP (Balle and Wang 2018, Theorem 8): delta(mu) =
# Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) is increasing in mu.
analytic_ratio <- function(epsilon, delta) {
  f <- function(mu) stats::pnorm(mu / 2 - epsilon / mu) - exp(epsilon) * stats::pnorm(-mu / 2 - epsilon / mu) - delta
  stats::uniroot(f, c(1e-6, 100), tol = 1e-12)$root
}
psd <- function(S) {
  e <- eigen((S + t(S)) / 2, symmetric = TRUE)
  S <- e$vectors %*% (pmax(e$values, 0) * t(e$vectors))
  S
}
# Replace-one, n public. Clamped rows centred at the box midpoint c satisfy
# |x - c|_2 <= R = |(u - l) / 2|_2, so the mean m = sum(x - c) / n has L2
# sensitivity 2R/n and the second moment M = sum (x - c)(x - c)' / n has
# Frobenius sensitivity sqrt(2) R^2 / n (|vv' - ww'|_F^2 = |v|^4 + |w|^4 -
# 2 (v'w)^2 <= 2 R^4). Releasing both is one Gaussian mechanism on the
# stacked, scaled pair; half of its squared sensitivity goes to each.
textbook_cov <- function(x, lower, upper, epsilon, delta) {
  n <- nrow(x)
  p <- ncol(x)
  xc <- pmin(pmax(x, rep(lower, each = n)), rep(upper, each = n))
  c0 <- (lower + upper) / 2
  xc <- xc - rep(c0, each = n)
  R <- sqrt(sum(((upper - lower) / 2)^2))
  mu <- analytic_ratio(epsilon, delta)
  sd_mean <- (2 * R / n) * sqrt(2) / mu
  sd_second <- (sqrt(2) * R^2 / n) * sqrt(2) / mu
  m <- colSums(xc) / n + stats::rnorm(p, 0, sd_mean)
  E <- matrix(0, p, p)
  E[upper.tri(E, diag = TRUE)] <- stats::rnorm(p * (p + 1) / 2, 0, sd_second)
  E <- E + t(E) - diag(diag(E), p)
  M <- crossprod(xc) / n + E
  S <- psd(M - tcrossprod(m))
  dimnames(S) <- list(colnames(x), colnames(x))
  S
}

# The same baseline run on the unit box: columns mapped by z = (x - l) / (u
# - l) (a public map), textbook_cov() on z with bounds [0, 1], mapped back
# (W S W). Each column then gets noise on its own scale instead of the
# widest column's. Not one of the reviewers' peers; a stronger baseline
# that dpcov's box path should match.
textbook_box_cov <- function(x, lower, upper, epsilon, delta) {
  n <- nrow(x)
  w <- upper - lower
  z <- (x - rep(lower, each = n)) / rep(w, each = n)
  S <- textbook_cov(z, rep(0, ncol(x)), rep(1, ncol(x)), epsilon, delta) * tcrossprod(w)
  dimnames(S) <- list(colnames(x), colnames(x))
  S
}

# ---- DPpack, per entry -------------------------------------------------------
dppack_cov <- function(x, lower, upper, epsilon) {
  n <- nrow(x)
  p <- ncol(x)
  eps <- epsilon / (p * (p + 1) / 2)
  S <- matrix(0, p, p, dimnames = list(colnames(x), colnames(x)))
  for (j in seq_len(p)) {
    for (i in seq_len(j)) {
      S[i, j] <- S[j, i] <- if (i == j) {
        DPpack::varDP(x[, j], eps, lower[j], upper[j], which.sensitivity = "bounded")
      } else {
        DPpack::covDP(x[, i], x[, j], eps, lower[i], upper[i], lower[j], upper[j],
                      which.sensitivity = "bounded")
      }
    }
  }
  S <- psd(S * (n - 1) / n)
  dimnames(S) <- list(colnames(x), colnames(x))
  S
}

# ---- metrics -----------------------------------------------------------------
spec <- function(A) max(abs(eigen((A + t(A)) / 2, symmetric = TRUE, only.values = TRUE)$values))
top_angle <- function(A, S, k = 2L) rotation_angle(eigen(A, symmetric = TRUE)$vectors, S, k)
rotation_angle <- function(U, S, k = 2L) {
  U <- U[, seq_len(k), drop = FALSE]
  V <- eigen(S, symmetric = TRUE)$vectors[, seq_len(k), drop = FALSE]
  s <- svd(crossprod(U, V), nu = 0, nv = 0)$d
  acos(min(1, min(s))) * 180 / pi
}
cor_of <- function(A) {
  s <- sqrt(pmax(diag(A), 1e-300))
  A / tcrossprod(s)
}
cov_metrics <- function(est, S) {
  if (is.null(est) || anyNA(est)) return(c(frob = NA, spec = NA, cor = NA, angle = NA))
  c(frob = norm(est - S, "F") / norm(S, "F"), spec = spec(est - S) / spec(S),
    cor = norm(cor_of(est) - cor_of(S), "F") / norm(cor_of(S), "F"), angle = top_angle(est, S))
}
# slopes from a covariance of [X, y], y last; a singular (PSD-projected)
# block gets the minimum-norm solution, as lm() would not
cov_slopes <- function(S) {
  q <- ncol(S)
  e <- eigen(S[-q, -q, drop = FALSE], symmetric = TRUE)
  keep <- e$values > max(e$values) * 1e-10
  inv <- e$vectors[, keep, drop = FALSE] %*% (t(e$vectors[, keep, drop = FALSE]) / e$values[keep])
  drop(inv %*% S[-q, q])
}

# ---- the runs ----------------------------------------------------------------
method_names <- c("dpcov default", "dpcov bounds", "textbook", "textbook box", "DPpack")
peer_names <- c("textbook", "textbook box", "DPpack")
rows <- list()
lm_rows <- list()
timing <- setNames(numeric(length(method_names) + 3), c(method_names, "dp_pca bounds", "dp_lm default", "dp_lm bounds"))
clock <- function(name, expr) {
  t0 <- proc.time()[["elapsed"]]
  v <- tryCatch(expr, error = function(e) {
    message(name, ": ", conditionMessage(e))
    NULL
  })
  timing[[name]] <<- timing[[name]] + proc.time()[["elapsed"]] - t0
  v
}
t_start <- proc.time()[["elapsed"]]
for (ds in names(datasets)) {
  D <- datasets[[ds]]
  x <- D$x
  n <- nrow(x)
  b <- D$bounds[colnames(x), ]
  S <- stats::cov(x) * (n - 1) / n
  # regression: the model's columns, response last
  vars <- all.vars(D$formula)
  ycol <- vars[1]
  xcols <- vars[-1]
  XY <- as.matrix(D$data[c(xcols, ycol)])
  bl <- D$bounds[c(xcols, ycol), ]
  ref <- stats::coef(stats::lm(D$formula, D$data))[xcols]
  slope_err <- function(beta) if (is.null(beta) || anyNA(beta)) NA else sqrt(sum((beta - ref)^2)) / sqrt(sum(ref^2))
  lm_bounds <- list(lower = setNames(bl$lower, c(xcols, ycol)), upper = setNames(bl$upper, c(xcols, ycol)))
  for (eps in epsilons) {
    for (r in seq_len(reps)) {
      ests <- list(
        "dpcov default" = clock("dpcov default", dp_cov(x, eps, delta, neighbor = neighbor)$estimate),
        "dpcov bounds" = if (has_bounds) {
          clock("dpcov bounds", dp_cov(x, eps, delta, lower = b$lower, upper = b$upper,
                                       neighbor = neighbor)$estimate)
        },
        "textbook" = clock("textbook", textbook_cov(x, b$lower, b$upper, eps, delta)),
        "textbook box" = clock("textbook box", textbook_box_cov(x, b$lower, b$upper, eps, delta)),
        "DPpack" = if (has_dppack) clock("DPpack", dppack_cov(x, b$lower, b$upper, eps)))
      # PCA as a user runs it: dp_pca() with the public bounds (its own
      # release; since 0.1.0 it tightens them by the rule for principal axes)
      pc <- if (has_bounds) {
        clock("dp_pca bounds", dp_pca(x, epsilon = eps, delta = delta, lower = b$lower, upper = b$upper,
                                      neighbor = neighbor))
      }
      for (m in method_names) {
        met <- cov_metrics(ests[[m]], S)
        if (m == "dpcov bounds" && !is.null(pc)) met[["angle"]] <- rotation_angle(pc$rotation, S)
        rows[[length(rows) + 1L]] <- data.frame(dataset = ds, n = n, p = ncol(x), epsilon = eps, rep = r,
                                                method = m, t(met))
      }
      # regression, interleaved the same way
      fits <- list(
        "dpcov default" = clock("dp_lm default", dp_lm(D$formula, D$data, eps, delta, neighbor = neighbor,
                                                       B = B_boot)),
        "dpcov bounds" = if (has_lm_bounds) {
          clock("dp_lm bounds", dp_lm(D$formula, D$data, eps, delta, lower = lm_bounds$lower,
                                      upper = lm_bounds$upper, neighbor = neighbor, B = B_boot))
        })
      tb <- clock("textbook", textbook_cov(XY, bl$lower, bl$upper, eps, delta))
      tbb <- clock("textbook box", textbook_box_cov(XY, bl$lower, bl$upper, eps, delta))
      dq <- if (has_dppack) clock("DPpack", dppack_cov(XY, bl$lower, bl$upper, eps))
      betas <- list("dpcov default" = if (!is.null(fits[[1]])) stats::coef(fits[[1]])[xcols],
                    "dpcov bounds" = if (!is.null(fits[[2]])) stats::coef(fits[[2]])[xcols],
                    "textbook" = if (!is.null(tb)) cov_slopes(tb),
                    "textbook box" = if (!is.null(tbb)) cov_slopes(tbb),
                    "DPpack" = if (!is.null(dq)) cov_slopes(dq))
      for (m in method_names) {
        cover <- NA_real_
        if (m %in% names(fits) && !is.null(fits[[m]])) {
          ci <- stats::confint(fits[[m]], level = 0.95)[xcols, , drop = FALSE]
          cover <- mean(ci[, 1] <= ref & ref <= ci[, 2])
        }
        lm_rows[[length(lm_rows) + 1L]] <- data.frame(dataset = ds, n = n, epsilon = eps, rep = r, method = m,
                                                      slope_err = slope_err(betas[[m]]), coverage = cover)
      }
    }
    message(sprintf("%s eps = %s done, %.0f s", ds, format(eps), proc.time()[["elapsed"]] - t_start))
  }
}
res <- do.call(rbind, rows)
lm_res <- do.call(rbind, lm_rows)
elapsed <- proc.time()[["elapsed"]] - t_start

# ---- summaries ---------------------------------------------------------------
q <- function(v, pr) if (all(is.na(v))) NA_real_ else unname(stats::quantile(v, pr, na.rm = TRUE))
summ <- do.call(rbind, lapply(split(res, list(res$dataset, res$epsilon, res$method), drop = TRUE), function(g) {
  data.frame(dataset = g$dataset[1], n = g$n[1], p = g$p[1], epsilon = g$epsilon[1], method = g$method[1],
             frob = q(g$frob, 0.5), frob_q1 = q(g$frob, 0.25), frob_q3 = q(g$frob, 0.75),
             spec = q(g$spec, 0.5), spec_q1 = q(g$spec, 0.25), spec_q3 = q(g$spec, 0.75),
             cor = q(g$cor, 0.5), cor_q1 = q(g$cor, 0.25), cor_q3 = q(g$cor, 0.75),
             angle = q(g$angle, 0.5))
}))
lm_summ <- do.call(rbind, lapply(split(lm_res, list(lm_res$dataset, lm_res$epsilon, lm_res$method), drop = TRUE),
                                 function(g) {
  data.frame(dataset = g$dataset[1], n = g$n[1], epsilon = g$epsilon[1], method = g$method[1],
             slope_err = q(g$slope_err, 0.5), coverage = if (all(is.na(g$coverage))) NA else mean(g$coverage, na.rm = TRUE))
}))
ord <- function(d) d[order(match(d$dataset, names(datasets)), d$epsilon, match(d$method, method_names)), ]
summ <- ord(summ)
lm_summ <- ord(lm_summ)
rownames(summ) <- rownames(lm_summ) <- NULL

info <- list(dpcov_version = as.character(utils::packageVersion("dpcov")),
             dppack_version = if (has_dppack) as.character(utils::packageVersion("DPpack")) else NA,
             has_bounds = has_bounds, has_lm_bounds = has_lm_bounds, reps = reps, delta = delta,
             neighbor = neighbor, B = B_boot, elapsed = elapsed, timing = timing,
             bounds = lapply(datasets, `[[`, "bounds"), formulas = lapply(datasets, function(D) deparse(D$formula)),
             date = format(Sys.time(), tz = "UTC", usetz = TRUE))
saveRDS(list(cov = res, lm = lm_res, summary = summ, lm_summary = lm_summ, info = info),
        "bench/peers-results.rds", compress = "xz")
dir.create("inst/extdata", showWarnings = FALSE, recursive = TRUE)
utils::write.csv(data.frame(summ[c("dataset", "n", "p", "epsilon", "method")],
                            lapply(summ[c("frob", "spec", "cor", "angle")], signif, 3), reps = reps),
                 "inst/extdata/peers-summary.csv", row.names = FALSE)

# ---- markdown ----------------------------------------------------------------
fmt <- function(v) ifelse(is.na(v), "n/a", trimws(formatC(v, digits = 3, format = "g")))
wide <- function(d, value, iqr = NULL) {
  out <- NULL
  for (ds in unique(d$dataset)) {
    for (eps in epsilons) {
      g <- d[d$dataset == ds & d$epsilon == eps, ]
      if (!nrow(g)) next
      cells <- vapply(method_names, function(m) {
        h <- g[g$method == m, ]
        if (!nrow(h) || is.na(h[[value]])) return("not available")
        s <- fmt(h[[value]])
        if (!is.null(iqr)) s <- sprintf("%s (%s-%s)", s, fmt(h[[iqr[1]]]), fmt(h[[iqr[2]]]))
        s
      }, character(1))
      # the best peer (textbook or DPpack) and dpcov's ratios to it
      peer <- suppressWarnings(min(g[[value]][g$method %in% peer_names], na.rm = TRUE))
      ratio <- function(m) {
        v <- g[[value]][g$method == m]
        if (!length(v) || is.na(v) || !is.finite(peer)) "n/a" else formatC(v / peer, digits = 2, format = "f")
      }
      out <- rbind(out, c(ds, format(g$n[1]), format(eps), cells, ratio("dpcov default"), ratio("dpcov bounds")))
    }
  }
  colnames(out) <- c("data", "n", "epsilon", method_names, "default / best peer", "bounds / best peer")
  out
}
md <- function(m) {
  cat("| ", paste(colnames(m), collapse = " | "), " |\n", sep = "")
  cat("|", paste(rep("---", ncol(m)), collapse = "|"), "|\n", sep = "")
  for (i in seq_len(nrow(m))) cat("| ", paste(m[i, ], collapse = " | "), " |\n", sep = "")
  cat("\n")
}
cat(sprintf("dpcov %s, DPpack %s, reps = %d, delta = %g, %s neighbours, %.0f s in all\n\n", info$dpcov_version,
            info$dppack_version, reps, delta, neighbor, elapsed))
cat("Seconds per method (all cells):", paste(sprintf("%s %.1f", names(timing), timing), collapse = ", "), "\n\n")
cat("Relative Frobenius error, median (IQR)\n\n")
md(wide(summ, "frob", c("frob_q1", "frob_q3")))
cat("Relative spectral error, median (IQR)\n\n")
md(wide(summ, "spec", c("spec_q1", "spec_q3")))
cat("Relative Frobenius error of the implied correlation matrix, median (IQR)\n\n")
md(wide(summ, "cor", c("cor_q1", "cor_q3")))
cat("Largest principal angle (degrees) between the top-2 eigenspaces, median\n\n")
md(wide(summ, "angle"))
cat("Regression: relative L2 error of the slopes against lm(), median\n\n")
md(wide(lm_summ, "slope_err"))
cat("Regression: coverage of lm()'s slopes by dp_lm()'s 95% intervals\n\n")
cov_tab <- do.call(rbind, lapply(split(lm_summ[lm_summ$method %in% c("dpcov default", "dpcov bounds"), ],
                                       list(lm_summ$dataset[lm_summ$method %in% c("dpcov default", "dpcov bounds")],
                                            lm_summ$epsilon[lm_summ$method %in% c("dpcov default", "dpcov bounds")]),
                                       drop = TRUE),
                                 function(g) c(g$dataset[1], format(g$epsilon[1]),
                                               fmt(g$coverage[g$method == "dpcov default"]),
                                               fmt(if (any(g$method == "dpcov bounds")) g$coverage[g$method == "dpcov bounds"] else NA))))
cov_tab <- cov_tab[order(match(cov_tab[, 1], names(datasets)), as.numeric(cov_tab[, 2])), , drop = FALSE]
colnames(cov_tab) <- c("data", "epsilon", "dp_lm default", "dp_lm bounds")
md(cov_tab)
