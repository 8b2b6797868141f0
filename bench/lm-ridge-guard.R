# dp_lm()'s noise-calibrated ridge raises the features' smallest (whitened)
# eigenvalue to the noise level tau (lambda = max(0, tau - lambda_min)), and
# (tenth audit) the penalty is kept only where it shrinks the slopes
# (standardised): a block more indefinite than tau raised to tau is nearly
# singular. This compares the package's rule with the rules before and
# tried on the way, set in the namespace for the run:
#   before: the penalty always kept;
#   first draft: such a block raised to |lambda_min|, always kept;
#   second draft: no penalty for any block beyond tau.
#   1. the clip path (Analyze Gauss on [1, x, y], centred by the noisy
#      count) with large means: the largest |coefficient / lm()'s| of each
#      of SEEDS fits, n 50,000, epsilon 1000, clip 400, and the fits whose
#      x1 slope (which least squares finds in every fit) has the wrong sign;
#   2. the box path with public bounds (bench/peers.R's penguins and quakes,
#      REPS fits per cell): how many fits change against "before"
#      (dp_cov()'s releases are projected to the PSD cone, so none should);
#   3. noise-dominated clip-path fits with ten features (a review's cases:
#      centred data, n 1000, epsilon 0.5, clip 10; means 3, n 5000,
#      epsilon 1, clip 64), and large means with a count that is noise
#      itself (a second review's: x ~ N(150, 40), n 1e5, epsilon 10):
#      relative slope error against lm() (median / 90% / max).
# A study, not a method of the package. Run from the package sources:
#   Rscript bench/lm-ridge-guard.R
suppressMessages(library(dpcov))
source("bench/peers-setup.R")
seeds <- as.integer(Sys.getenv("SEEDS", "20"))
reps <- as.integer(Sys.getenv("REPS", "100"))
# the rule raising the block's smallest eigenvalue to level(tau, lambda_min)
rule <- function(level) {
  function(S, sdx, fx, centre, fit_idx, ...) {
    d2 <- diag(sdx)
    d <- sqrt(d2)
    tau <- 2 * sqrt(length(fx)) * max(sdx / tcrossprod(d))
    A <- S[fx, fx, drop = FALSE]
    if (centre) A <- A - tcrossprod(S[fx, 1L]) / S[1L, 1L]
    lmin <- min(eigen(A / tcrossprod(d), symmetric = TRUE, only.values = TRUE)$values)
    lam <- max(0, level(tau, lmin) - lmin)
    out <- numeric(length(fit_idx))
    out[match(fx, fit_idx)] <- lam * d2
    structure(out, lambda = lam, noise_level = tau)
  }
}
ns <- asNamespace("dpcov")
# a variant: namespace bindings replaced while `code` runs
with_ns <- function(bindings, code) {
  if (!length(bindings)) return(force(code))
  old <- mget(names(bindings), envir = ns)
  for (nm in names(bindings)) assignInNamespace(nm, bindings[[nm]], "dpcov")
  on.exit(for (nm in names(old)) assignInNamespace(nm, old[[nm]], "dpcov"))
  force(code)
}
always <- function(...) TRUE
variants <- list(
  landed = list(),
  before = list(lm_ridge_shrinks = always),
  first_draft = list(lm_ridge_penalty = rule(function(tau, lmin) max(tau, -lmin)), lm_ridge_shrinks = always),
  second_draft = list(lm_ridge_penalty = rule(function(tau, lmin) if (lmin < -tau) lmin else tau), lm_ridge_shrinks = always))
run_all <- function(f) lapply(variants, function(b) with_ns(b, f()))
set.seed(1)
n <- 50000
d <- data.frame(x1 = rnorm(n, 150, 40), x2 = rnorm(n, 25, 6))
d$y <- 10 + 0.12 * d$x1 - 0.4 * d$x2 + rnorm(n, 0, 5)
ref <- coef(lm(y ~ x1 + x2, d))[-1]
ratios <- function() {
  vapply(seq_len(seeds), function(s) {
    set.seed(s)
    f <- suppressWarnings(dp_lm(y ~ x1 + x2, d, epsilon = 1000, delta = 1e-6, clip = 400, B = 0))
    coef(f)[-1] / ref
  }, numeric(2))
}
runs <- run_all(ratios)
cat(sprintf("1. clip path, n %d, epsilon 1000, clip 400, %d seeds: largest |coefficient / lm()'s| per fit\n", n, seeds))
tab <- t(vapply(runs, function(r) {
  w <- apply(abs(r), 2, max)
  c(min = min(w), median = stats::median(w), max = max(w), off_10x = sum(w > 10), x1_sign_wrong = sum(r[1, ] < 0))
}, numeric(5)))
print(tab, digits = 3)
cat("\n")
changed <- NULL
for (ds in c("penguins", "quakes")) {
  D <- datasets[[ds]]
  vars <- all.vars(D$formula)
  lb <- D$bounds[vars, ]
  for (eps in c(0.25, 1, 4)) {
    k <- 0L
    for (r in seq_len(reps)) {
      fit <- function() {
        set.seed(1000 * r + round(100 * eps))
        coef(suppressWarnings(dp_lm(D$formula, D$data, eps, 1e-6, lower = setNames(lb$lower, vars),
                                    upper = setNames(lb$upper, vars), neighbor = "replace-one", B = 0)))
      }
      k <- k + !identical(fit(), with_ns(variants$before, fit()))
    }
    changed <- rbind(changed, data.frame(data = ds, epsilon = eps, fits = reps, changed = k))
  }
}
cat("2. box path with public bounds: fits whose coefficients change\n")
print(changed, row.names = FALSE)

cat("\n3. noise-dominated clip-path fits: relative slope error (median / 90% / max)\n")
cases <- list(list(name = "k 10, centred, n 1000, eps 0.5, clip 10", k = 10, n = 1000, mean = 0, sd = 1, eps = 0.5, clip = 10,
                   seed = 2, reps = 40),
              list(name = "k 10, means 3, n 5000, eps 1, clip 64", k = 10, n = 5000, mean = 3, sd = 1, eps = 1, clip = 64,
                   seed = 3, reps = 30),
              list(name = "k 1, x ~ N(150, 40), n 1e5, eps 10, clip at the longest row", k = 1, n = 1e5, mean = 150, sd = 40,
                   eps = 10, clip = NA, seed = 20, reps = 20))
for (cs in cases) {
  set.seed(cs$seed)
  X <- matrix(rnorm(cs$n * cs$k, cs$mean, cs$sd), cs$n, cs$k, dimnames = list(NULL, paste0("x", seq_len(cs$k))))
  dk <- data.frame(X, y = 2 + rowSums(X) * 0.7 + rnorm(cs$n, 0, cs$sd))
  clip <- if (is.na(cs$clip)) max(sqrt(rowSums(cbind(1, as.matrix(dk))^2))) else cs$clip
  refk <- coef(lm(y ~ ., dk))[-1]
  errs <- function() {
    vapply(seq_len(cs$reps), function(s) {
      set.seed(s)
      f <- suppressWarnings(dp_lm(y ~ ., dk, epsilon = cs$eps, delta = 1e-6, clip = clip, B = 0))
      sqrt(sum((coef(f)[-1] - refk)^2) / sum(refk^2))
    }, 0)
  }
  e <- run_all(errs)
  cat(cs$name, "\n")
  print(t(vapply(e, function(v) c(median = stats::median(v), q90 = unname(stats::quantile(v, 0.9)), max = max(v)), numeric(3))),
        digits = 3)
}
