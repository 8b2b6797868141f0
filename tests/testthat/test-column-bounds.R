# dp_column_bounds(): private per-column bounds. Its output equals a plain-R
# reference under the same seed; its choices are distributed as the
# exponential mechanism says (chi-square at alpha 1e-6, with an over-confident
# control that fails); the share of rows it clamps, and the bias of the
# clamped variance, fall as n * epsilon grows; it charges the budget (with
# its zCDP rho) before reading the data and refunds on shape errors.

# ---- a plain-R reference, written out independently --------------------------

# weight of interval [a, b] under the base measure exp(-|s|/lam) ds, from
# its plain antiderivative G(s) = sign(s) lam (1 - exp(-|s|/lam)) (lam = Inf:
# the width)
ref_mass <- function(a, b, lam) {
  if (!is.finite(lam)) return(b - a)
  G <- function(s) sign(s) * lam * (1 - exp(-abs(s) / lam))
  pmax(G(b) - G(a), 0)
}
# interval probabilities of the exponential mechanism: mass * exp(eps u / 2)
ref_probs <- function(z, u, eps, lam) {
  lw <- log(ref_mass(z[-length(z)], z[-1], lam)) + eps * u / 2
  w <- exp(lw - max(lw))
  w / sum(w)
}
# one draw, consuming R's RNG as the package does: n + 1 uniforms for the
# Gumbel-max choice, then one uniform for the point (inverse distribution
# function of the base measure within the interval)
ref_draw <- function(z, u, eps, lam) {
  a <- z[-length(z)]
  b <- z[-1]
  w <- ref_mass(a, b, lam)
  g <- ref_gumbel(length(a))
  k <- which.max(log(w) + eps * u / 2 + g)
  if (!is.finite(lam)) return(a[k] + runif(1) * (b[k] - a[k]))
  A <- a[k]
  B <- b[k]
  # across 0: the side by its mass (one uniform), then a point on it
  if (A < 0 && B > 0) {
    if (runif(1) * ref_mass(A, B, lam) < ref_mass(A, 0, lam)) B <- 0 else A <- 0
  }
  # the mass between the point and the far end (away from 0) is t times the
  # side's, t a uniform fine near 0; inverted by root finding
  t <- ref_fine_uniform(1)
  target <- t * ref_mass(A, B, lam)
  f <- if (A >= 0) function(s) ref_mass(s, B, lam) - target else function(s) ref_mass(A, s, lam) - target
  stats::uniroot(f, c(A, B), tol = 1e-13)$root
}
# the coarse bins of the location: [-top, top] cut at the integers
ref_bin_edges <- function(top) c(-top, (-floor(top)):floor(top), top)
# the bin chosen with probability proportional to exp(eps count / 2) (one
# uniform per bin, Gumbel-max), and the window of it and one bin on each side
ref_location_window <- function(t, top, eps) ref_window(t, ref_bin_edges(top), eps)
ref_window <- function(t, e, eps) {
  cnt <- vapply(seq_len(length(e) - 1L), function(b) {
    sum(t >= e[b] & (t < e[b + 1L] | (b == length(e) - 1L & t <= e[b + 1L])))
  }, numeric(1))
  k <- which.max(eps * cnt / 2 + ref_gumbel(length(cnt)))
  c(e[max(1, k - 1)], e[min(length(e), k + 2)])
}
# the tails' coarse bin: [-top2, top2] cut at the integers, bin utility minus
# the distance from m to the counts of rows beyond (above for the upper
# bound, below for the lower) its two edges, weight its base-measure mass
# (one uniform per bin, Gumbel-max); then the point in the window of the bin
# and one bin towards the data
ref_tail_bin <- function(sv, top2, m, eps, lam, upper) {
  e <- unique(c(-top2, ceiling(-top2):floor(top2), top2))
  cnt <- vapply(e, function(x) if (upper) sum(sv > x) else sum(sv < x), numeric(1))
  lo_c <- pmin(cnt[-length(e)], cnt[-1])
  hi_c <- pmax(cnt[-length(e)], cnt[-1])
  ub <- -pmax(0, lo_c - m, m - hi_c)
  k <- which.max(log(ref_mass(e[-length(e)], e[-1], lam)) + eps * ub / 2 + ref_gumbel(length(ub)))
  list(k = k, edges = e, utility = ub)
}
ref_tail <- function(sv, top2, m, eps, lam, upper) {
  b <- ref_tail_bin(sv, top2, m, eps, lam, upper)
  e <- b$edges
  k <- b$k
  win <- if (upper) c(e[max(1, k - 1)], e[k + 1]) else c(e[k], e[min(length(e), k + 2)])
  i <- 0:length(sv)
  ref_draw(c(win[1], pmin(pmax(sv, win[1]), win[2]), win[2]),
           if (upper) -abs(length(sv) - i - m) else -abs(i - m), eps, lam)
}
ref_column_bounds <- function(X, eps_q, range = 1e6, tau = 0.01, k = 16, a = 0.25, lam = 2, n_public = FALSE) {
  n <- nrow(X)
  m <- min(k / eps_q, a * n)
  # the refinement's axis: nearly linear (kappa 0.3) where the first stage is
  # capped, read from n where it is public and else from a noisy count, drawn
  # first: the exponential mechanism with utility -|c - n|, P(c) ~ exp(-eps_q |c - n| / 2)
  n_cap <- if (n_public) n else n + ref_geometric2(eps_q / 2)
  kap <- if (a * n_cap < k / eps_q) 0.3 else 0.001
  i <- 0:n
  out <- matrix(0, ncol(X), 3)
  for (j in seq_len(ncol(X))) {
    v <- sort(pmin(pmax(X[, j], -range), range))
    top <- asinh(range / tau)
    t <- asinh(v / tau)
    win <- ref_location_window(t, top, eps_q)
    med <- tau * sinh(ref_draw(c(win[1], pmin(pmax(t, win[1]), win[2]), win[2]), -abs(i - n / 2), eps_q, Inf))
    tau0 <- 1e-9 * max(tau, abs(med))
    a <- sort(abs(asinh((v - med) / tau0)))
    top0 <- asinh(2 * range / tau0)
    win <- ref_window(a, c(0, seq_len(floor(top0)), top0), eps_q)
    sc <- max(tau0, tau0 * sinh(ref_draw(c(win[1], pmin(pmax(a, win[1]), win[2]), win[2]), -abs(i - n / 2), eps_q, Inf)))
    top2 <- asinh(2 * range / sc)
    sv <- asinh((v - med) / sc)
    hi <- med + sc * sinh(ref_tail(sv, top2, m, eps_q, lam, upper = TRUE))
    lo <- med + sc * sinh(ref_tail(sv, top2, m, eps_q, lam, upper = FALSE))
    m2 <- min(2 / eps_q, m)
    # the refinement: u (distance beyond the first bound in units of w) in
    # [0, 3], searched on the axis log(1 + u / kap) with base measure exp(-r / 3)
    ax <- function(u) log(1 + u / kap)
    w <- max(hi - med, tau0)
    r <- ref_draw(c(0, ax(pmin(pmax((v - hi) / w, 0), 3)), ax(3)), -abs(n - i - m2), eps_q, 3)
    hi <- hi + w * kap * (exp(r) - 1)
    w <- max(med - lo, tau0)
    r <- ref_draw(-c(ax(3), ax(pmax(pmin((lo - v) / w, 3), 0)), 0), -abs(i - m2), eps_q, 3)
    lo <- lo - w * kap * (exp(-r) - 1)
    # ordered and inside [-range, range] (post-processing)
    lo <- min(max(lo, -range), range)
    hi <- min(max(hi, -range), range)
    out[j, ] <- c(min(lo, hi), med, max(lo, hi))
  }
  out
}

test_that("dp_column_bounds() equals the plain-R reference under the same seed", {
  set.seed(3)
  X <- cbind(a = exp(rnorm(300, 3)), b = rnorm(300, 1e4), c = rt(300, 3))
  for (delta in c(0, 1e-6)) {
    set.seed(31)
    r <- dp_column_bounds(X, 2, delta)
    # 30 choices for the 3 columns and, under add/remove, the noisy count
    eq <- if (delta == 0) 2 / 31 else max(2 / 31, sqrt(8 * dpcov:::zcdp_rho(2, delta) / 31))
    expect_equal(r$epsilon_quantile, eq)
    expect_equal(r$rho, 31 * eq^2 / 8)
    expect_match(r$guarantee, "31 exponential mechanisms", fixed = TRUE)
    set.seed(31)
    ref <- ref_column_bounds(X, eq)
    expect_equal(r$bounds$lower, ref[, 1], tolerance = 1e-9)
    expect_equal(r$bounds$upper, ref[, 3], tolerance = 1e-9)
    expect_equal(unname(r$center), ref[, 2], tolerance = 1e-9)
    expect_identical(rownames(r$bounds), c("a", "b", "c"))
  }
  # n public (replace-one, zero-out): the first stage is capped here (16 / eq > 300 / 4),
  # so the refinement searches the nearly linear axis
  for (nb in c("replace-one", "zero-out")) {
    set.seed(32)
    r <- dp_column_bounds(X, 2, 1e-6, neighbor = nb)
    eq <- max(2 / 30, sqrt(8 * dpcov:::zcdp_rho(2, 1e-6) / 30))
    expect_lt(300 / 4, 16 / eq)
    set.seed(32)
    ref <- ref_column_bounds(X, eq, n_public = TRUE)
    expect_equal(r$bounds$lower, ref[, 1], tolerance = 1e-9)
    expect_equal(r$bounds$upper, ref[, 3], tolerance = 1e-9)
    set.seed(32)
    ref0 <- ref_column_bounds(X, eq)
    expect_false(isTRUE(all.equal(r$bounds$upper, ref0[, 3])))
  }
  # zCDP composition gives more per choice than basic composition here
  expect_identical(dp_column_bounds(X, 2, 1e-6)$composition, "zCDP")
  expect_gt(dp_column_bounds(X, 2, 1e-6)$epsilon_quantile, 2 / 30)
  # a data frame and a matrix give the same release
  set.seed(5)
  a <- dp_column_bounds(X, 1)
  set.seed(5)
  b <- dp_column_bounds(as.data.frame(X), 1)
  expect_identical(a$bounds, b$bounds)
})

test_that("the location's coarse bin is drawn as the exponential mechanism on counts says (chi-square, alpha 1e-6)", {
  counts <- c(0, 0, 3, 11, 6, 1, 0, 0, 0, 2)
  eps <- 0.8
  prob <- exp(eps * counts / 2) / sum(exp(eps * counts / 2))
  set.seed(39)
  idx <- vapply(1:4000, function(r) dpcov:::bin_exp_mech(counts, eps, 1), integer(1))
  expect_gt(chisq_p(idx, prob), 1e-6)
  # over-confident control: twice the epsilon's probabilities are rejected
  expect_lt(chisq_p(idx, exp(eps * counts) / sum(exp(eps * counts))), 1e-6)
})

test_that("the median's interval is distributed as the two-stage location mechanism says (chi-square, alpha 1e-6, with power)", {
  v <- c(-3, -1.2, 0.004, 0.5, 0.9, 2, 2.2, 7, 40, 41, 300, 5000)
  X <- matrix(v, ncol = 1)
  n <- length(v)
  eps <- 4                         # one column, n public: 10 choices of eps / 10 each
  eq <- eps / 10
  top <- asinh(1e6 / 0.01)
  t <- asinh(sort(v) / 0.01)
  z <- c(-top, t, top)
  # the mixture over the coarse bins of the median's interval probabilities
  # in each bin's window, mapped to the intervals of the whole axis
  e <- ref_bin_edges(top)
  cnt <- vapply(seq_len(length(e) - 1L), function(b) sum(t >= e[b] & t < e[b + 1L]), numeric(1))
  pb <- exp(eq * cnt / 2) / sum(exp(eq * cnt / 2))
  mech_prob <- function(eq_m) {
    prob <- numeric(length(z) - 1L)
    for (k in seq_along(pb)) {
      win <- c(e[max(1, k - 1)], e[min(length(e), k + 2)])
      zk <- c(win[1], pmin(pmax(t, win[1]), win[2]), win[2])
      wk <- zk[-1] - zk[-length(zk)]
      lw <- ifelse(wk > 0, log(wk), -Inf) + eq_m * -abs(0:n - n / 2) / 2
      pk <- exp(lw - max(lw))
      pk <- pk / sum(pk)
      mid <- findInterval((zk[-1] + zk[-length(zk)]) / 2, z, rightmost.closed = TRUE)
      for (i in which(wk > 0)) prob[mid[i]] <- prob[mid[i]] + pb[k] * pk[i]
    }
    prob
  }
  prob <- mech_prob(eq)
  # the export's median equals the mechanism's (same seed), which is then drawn often
  set.seed(40)
  a <- dp_column_bounds(X, eps, neighbor = "replace-one")$center
  set.seed(40)
  expect_equal(unname(a), dpcov:::column_bounds_mechanism(X, eq, 1e6, 0.01, 16, 0.25, 2, n_public = TRUE)$center)
  draw <- function(e, reps) vapply(seq_len(reps), function(r) {
    med <- dpcov:::column_bounds_mechanism(X, e, 1e6, 0.01, 16, 0.25, 2, n_public = TRUE)$center
    findInterval(asinh(med / 0.01), z, rightmost.closed = TRUE)
  }, integer(1))
  set.seed(41)
  idx <- draw(eq, 1500)
  expect_gt(chisq_p(idx, prob), 1e-6)
  # over-confident control: three times the epsilon fails the same test
  idx2 <- draw(3 * eq, 1500)
  expect_lt(chisq_p(idx2, prob), 1e-6)
})

test_that("the noisy count under add/remove is the exponential mechanism on the integers (chi-square, alpha 1e-6, with power)", {
  # utility -|c - n|, sensitivity 1: P(c) proportional to exp(-eps |c - n| / 2),
  # n plus two-sided geometric noise with alpha = exp(-eps / 2)
  eps <- 0.5
  n <- 1000
  pmf <- function(k, a) (1 - a) / (1 + a) * a^abs(k)
  cells <- function(d) pmin(pmax(d, -9), 9)          # the tails pooled beyond 8
  probs <- function(a) {
    p <- pmf(-8:8, a)
    tail <- a^9 / (1 + a)                            # P(k >= 9) = P(k <= -9)
    c(tail, p, tail)
  }
  set.seed(81)
  d <- vapply(1:20000, function(i) dpcov:::count_exp_mech(n, eps), numeric(1)) - n
  idx <- cells(d) + 10
  expect_gt(chisq_p(idx, probs(exp(-eps / 2))), 1e-6)
  # over-confident control: twice the epsilon's probabilities are rejected
  expect_lt(chisq_p(idx, probs(exp(-eps))), 1e-6)
  # and the worst-case pair: counts n and n + 1 differ by at most a factor
  # exp(eps) in probability (here exp(eps / 2)) at every outcome, and the log
  # ratio spans at most eps (bounded range: eps^2 / 8-zCDP)
  k <- -50:50
  lr <- log(pmf(k, exp(-eps / 2))) - log(pmf(k - 1, exp(-eps / 2)))
  expect_lte(max(abs(lr)), eps)
  expect_lte(diff(range(lr)), eps + 1e-12)
})

test_that("the tail mechanism with its base measure: interval frequencies and the point within (alpha 1e-6, with power)", {
  z <- c(-30, -2, -0.5, 0.3, 1, 1.1, 4, 9, 30)
  u <- -abs(0:7 - 5)
  eps <- 0.7
  prob <- ref_probs(z, u, eps, 2)
  set.seed(43)
  pts <- vapply(1:8000, function(r) dpcov:::interval_exp_mech(z, u, eps, 1, 2), numeric(1))
  idx <- findInterval(pts, z, rightmost.closed = TRUE)
  expect_gt(chisq_p(idx, prob), 1e-6)
  # control: the flat (Lebesgue) base measure's probabilities are rejected
  expect_lt(chisq_p(idx, ref_probs(z, u, eps, Inf)), 1e-6)
  # within the widest interval the point follows the base measure: its
  # distribution function there is a probability integral transform
  k <- 8
  inside <- pts[idx == k]
  Fk <- function(s) ref_mass(rep(z[k], length(s)), s, 2) / ref_mass(z[k], z[k + 1], 2)
  expect_gt(suppressWarnings(stats::ks.test(Fk(inside), "punif")$p.value), 1e-6)
  expect_lt(suppressWarnings(stats::ks.test((inside - z[k]) / (z[k + 1] - z[k]), "punif")$p.value), 1e-6)
})

test_that("the tail's coarse bin is drawn as the exponential mechanism with its base mass says (chi-square, alpha 1e-6, with power)", {
  # values on the tail axis, a dense block ending abruptly at 1.6 (a capped
  # price's tail): the target m lies in bin [1, 2)
  set.seed(44)
  sv <- sort(c(stats::rnorm(300), 1.55 + 0.05 * stats::runif(60)))
  top2 <- 12.5
  m <- 30
  eps <- 0.4
  e <- unique(c(-top2, ceiling(-top2):floor(top2), top2))
  up <- ref_tail_bin(sv, top2, m, eps, 2, upper = TRUE)
  expect_identical(up$utility[match(1, e)], 0)        # the bin holding the target
  expect_true(all(up$utility[e[-length(e)] > max(sv)] == -m))  # the empty bins beyond the data
  prob_of <- function(b, eps_m) {
    lw <- log(ref_mass(e[-length(e)], e[-1], 2)) + eps_m * b$utility / 2
    w <- exp(lw - max(lw))
    w / sum(w)
  }
  for (upper in c(TRUE, FALSE)) {
    b <- ref_tail_bin(sv, top2, m, eps, 2, upper)
    u_pkg <- dpcov:::tail_bin_utility(if (upper) length(sv) - findInterval(e, sv) else
      findInterval(e, sv, left.open = TRUE), m)
    expect_equal(u_pkg, b$utility)
    set.seed(45)
    k <- vapply(1:3000, function(r) dpcov:::bin_exp_mech(u_pkg, eps, 1,
                                                        log_mass = dpcov:::log_base_mass(e[-length(e)], e[-1], 2)),
                integer(1))
    expect_gt(chisq_p(k, prob_of(b, eps)), 1e-6)
    # over-confident control: the probabilities at four times the epsilon are rejected
    expect_lt(chisq_p(k, prob_of(b, 4 * eps)), 1e-6)
  }
})

test_that("the tail bin's utility moves by at most 1 between neighbours (worst-case pairs, every notion)", {
  set.seed(46)
  e <- c(-5, -1, 0, 0.5, 1, 3, 8)
  u_of <- function(v, m) dpcov:::tail_bin_utility(length(v) - findInterval(e, sort(v)), m)
  v <- stats::rnorm(40)
  a <- 0.25
  m_of <- function(n) min(12, a * n)
  worst <- 0
  for (r in 1:400) {
    j <- sample.int(length(v), 1L)
    x <- stats::runif(1, -6, 9)
    rep1 <- v
    rep1[j] <- x                                  # replace-one (n fixed)
    zero <- v
    zero[j] <- 0                                  # zero-out
    d <- c(max(abs(u_of(v, m_of(40)) - u_of(rep1, m_of(40)))),
           max(abs(u_of(v, m_of(40)) - u_of(zero, m_of(40)))),
           max(abs(u_of(v, m_of(40)) - u_of(c(v, x), m_of(41)))),      # add a row
           max(abs(u_of(v, m_of(40)) - u_of(v[-j], m_of(39)))))        # remove one
    worst <- max(worst, d)
  }
  expect_lte(worst, 1 + 1e-12)
  # attained: a row moved from the bottom bin to beyond the top edge, the target inside no bin's range
  v2 <- c(rep(-2, 20), rep(2, 20))
  v2n <- c(rep(-2, 19), 9, rep(2, 20))
  d2 <- max(abs(u_of(v2, 12) - u_of(v2n, 12)))
  expect_equal(d2, 1)
  # so the bin choice's exact probabilities (base mass times exp(eps u / 2)) differ by at most a
  # factor exp(eps) between the two, and by more than exp(eps / 2) somewhere (the bound is not loose)
  eps <- 0.7
  lp <- function(v) {
    lw <- dpcov:::log_base_mass(e[-length(e)], e[-1], 2) + eps * u_of(v, 12) / 2
    lw - log(sum(exp(lw)))
  }
  lr <- abs(lp(v2) - lp(v2n))
  expect_lte(max(lr), eps + 1e-12)
  expect_gt(max(lr), eps / 2)
})

test_that("a dense tail ending abruptly: the first tail point stays within its bin's window (control: one continuous choice overshoots)", {
  # on the tail axis: a normal bulk whose top 7% is packed into [1.5, 1.51]
  # (a capped price's log), m = 100 rows targeted above: the points near the
  # target have a tiny measure against the empty axis beyond, weighted
  # exp(-eps m / 2) = exp(-8) each
  set.seed(49)
  sv <- sort(pmin(stats::rnorm(20000), 1.5 + 0.01 * stats::runif(20000)))
  top2 <- 20
  m <- 100
  eps <- 0.16
  n <- length(sv)
  set.seed(50)
  two <- replicate(400, dpcov:::column_bounds_tail(sv, top2, m, eps, 1, 2, upper = TRUE))
  one <- replicate(400, dpcov:::interval_exp_mech(c(-top2, sv, top2), -abs(n - 0:n - m), eps, 1, 2))
  # the window of the target's bin [1, 2) and the one below: never beyond 2
  # (about half land in the window's empty part, within a quarter of a scale unit of the data)
  expect_lt(mean(two > 2), 0.01)
  expect_gt(mean(two > 1.4 & two < 1.52), 0.4)
  # the control: most draws beyond 2, a tenth beyond 5 (sinh(5) = 74 scale units out)
  expect_gt(mean(one > 2), 0.4)
  expect_lt(mean(one > 1.4 & one < 1.52), 0.3)
  # the lower bound mirrors it
  set.seed(51)
  lo <- replicate(400, dpcov:::column_bounds_tail(-rev(sv), top2, m, eps, 1, 2, upper = FALSE))
  expect_lt(mean(lo < -2), 0.01)
})

# share of rows beyond the bounds and relative bias of the clamped variance
clamp_stats <- function(x, b) {
  cl <- pmin(pmax(x, b$bounds$lower), b$bounds$upper)
  c(share = mean(x < b$bounds$lower | x > b$bounds$upper), bias = 1 - stats::var(cl) / stats::var(x))
}

test_that("no bias floor: the clamped share and the variance bias fall as n * epsilon grows (lognormal)", {
  set.seed(47)
  x <- matrix(exp(rnorm(20000)), ncol = 1)
  res <- sapply(c(0.3, 3, 30), function(eps) {
    rowMeans(replicate(20, clamp_stats(x, dp_column_bounds(x, eps))))
  })
  # n * epsilon = 6000, 6e4, 6e5: each tenfold step cuts both by more than half
  expect_true(all(res["share", -1] < res["share", -3] / 2))
  expect_true(all(res["bias", -1] < res["bias", -3] / 2))
  # (a mean of 0.021 over 1500 releases at epsilon 30, sd 0.015 per release:
  # 0.0033 for this mean of 20, so 0.035 is four of them above)
  expect_lt(res["bias", 3], 0.035)
  # the rows clamped are at most a few times the refinement's target 2 /
  # epsilon_q at each end (fewer when the refinement lands beyond the data)
  for (k in 1:3) expect_lt(res["share", k] * 20000, 3 * 2 * 2 / (c(0.3, 3, 30)[k] / dpcov:::column_bounds_choices))
})

test_that("short tails: the refinement lands near the data's ends, not in the empty rest of its window", {
  # a uniform column and a price-like one (skewed, capped at 18,823): the
  # refinement on the logarithmic axis puts most of its base measure just
  # beyond the first bound; on the linear axis (exp(-2u)) the empty part of
  # the window won about three draws in four. The draws are spread (a share
  # still lands far out), so the test counts the draws near each end over
  # 200 releases: about half land within 5% of the uniform's range beyond it
  skip_if_not_extended()
  set.seed(71)
  x <- cbind(u = runif(50000), s = pmin(326 + stats::rexp(50000, 1 / 3000), 18823))
  set.seed(72)
  r <- replicate(200, {
    b <- dp_column_bounds(x, 1, 1e-6)$bounds
    c(b$upper, b$lower)
  })
  expect_gt(mean(r[1, ] < 1.05), 0.35)
  expect_gt(mean(r[3, ] > -0.05), 0.35)
  expect_lt(stats::median(r[2, ]), 23000)   # the price's upper bound: 18,823 at most in the data
  # and they still enclose nearly all of the data
  expect_gt(mean(r[1, ] > stats::quantile(x[, 1], 0.999)), 0.9)
  expect_gt(mean(r[3, ] < stats::quantile(x[, 1], 0.001)), 0.9)
})

test_that("large means and heavy tails: the bounds enclose the bulk and are tight", {
  set.seed(53)
  X <- cbind(big = rnorm(20000, 1e5, 1), t2 = rt(20000, 2), e = rexp(20000) * 1e3)
  b <- dp_column_bounds(X, 1, 1e-6)$bounds
  q <- apply(X, 2, stats::quantile, c(0.01, 0.99))
  expect_true(all(b$lower < q[1, ] & b$upper > q[2, ]))
  # widths within a small factor of the data's 0.1%-99.9% range
  w <- apply(X, 2, function(v) diff(stats::quantile(v, c(0.001, 0.999))))
  expect_true(all((b$upper - b$lower) / w < 4))
})

test_that("the budget is charged (epsilon, delta, rho) before the data is read, refunded on shape errors", {
  X <- matrix(rexp(600), 200, 3)
  bud <- dp_budget(2, 1e-5)
  r <- dp_column_bounds(X, 1, 1e-6, budget = bud)
  led <- as.data.frame(bud)
  expect_identical(led$what, "dp_column_bounds")
  expect_equal(led$epsilon, 1)
  expect_equal(led$delta, 1e-6)
  expect_equal(led$rho, 31 * r$epsilon_quantile^2 / 8)  # 10 per column and the noisy count
  expect_equal(r$rho, led$rho)
  # the rho joins the Gaussian charges' zCDP total
  analyze_gauss(X, 0.5, 1e-6, clip = 3, budget = bud)
  sp <- budget_spent(bud)
  expect_equal(sp$rho, led$rho + 1 / (2 * dpcov:::noise_sigma(1, 0.5, 1e-6, "analytic")^2))
  expect_lt(sp$epsilon, 1.5)
  # delta = 0: pure epsilon-DP, recorded with delta 0
  b0 <- dp_budget(1, 1e-6)
  dp_column_bounds(X, 1, budget = b0)
  expect_equal(as.data.frame(b0)$delta, 0)
  expect_equal(budget_spent(b0)$epsilon, 1)
  # refused over-spend records nothing
  expect_error(dp_column_bounds(X, 0.5, budget = b0), class = "dpcov_budget_error")
  expect_equal(nrow(as.data.frame(b0)), 1L)
  # a refusal of the values after the charge keeps it (a refund would test them for free)
  b1 <- dp_budget(1, 1e-6)
  expect_error(dp_column_bounds(replace(X, 5, NA), 0.5, budget = b1), class = "dpcov_data_error")
  expect_equal(nrow(as.data.frame(b1)), 1L)
})

test_that("a data frame's matrix columns count as the columns they expand to, in the charge and the guarantee", {
  # as.matrix() expands a matrix column; the choices' budget is set before the
  # data is read, so it must count the expanded columns, or each choice runs at
  # an epsilon meant for fewer of them
  set.seed(12)
  n <- 300
  d <- data.frame(a = rnorm(n))
  d$m <- matrix(rnorm(n * 4), n, 4)
  d$i <- I(matrix(rexp(n * 2), n, 2))
  X <- as.matrix(d)
  expect_identical(ncol(X), 7L)
  expect_identical(dpcov:::public_ncol(d), 7L)
  for (nb in c("replace-one", "add-remove")) {
    set.seed(3); r <- dp_column_bounds(d, 1, neighbor = nb)
    set.seed(3); rx <- dp_column_bounds(X, 1, neighbor = nb)
    expect_equal(r$bounds, rx$bounds, info = nb)
    expect_equal(r$epsilon_quantile, 1 / (70 + (nb == "add-remove")), info = nb)
    expect_match(r$guarantee, sprintf("%d exponential mechanisms", 70L + (nb == "add-remove")), info = nb)
  }
  # dp_cov()'s default and tightening: the same release and the same charge as the expanded matrix
  for (args in list(list(), list(lower = rep(-20, 7), upper = rep(20, 7), tighten = TRUE))) {
    bd <- dp_budget(2, 1e-5, neighbor = "replace-one"); bx <- dp_budget(2, 1e-5, neighbor = "replace-one")
    set.seed(4); r <- do.call(dp_cov, c(list(d, 1, 1e-6, neighbor = "replace-one", budget = bd), args))
    set.seed(4); rx <- do.call(dp_cov, c(list(X, 1, 1e-6, neighbor = "replace-one", budget = bx), args))
    expect_equal(unname(r$estimate), unname(rx$estimate))
    expect_equal(r$params$column_bounds$rho, rx$params$column_bounds$rho)
    expect_equal(as.data.frame(bd)$rho, as.data.frame(bx)$rho)
    expect_equal(r$params$column_bounds$rho, (if (length(args)) 2 else 10) * 7 * r$params$column_bounds$epsilon_quantile^2 / 8)
  }
  # the internal check refuses a matrix other than the one charged for
  cols <- dpcov:::column_bounds_epsilon(1, 0, 2)
  expect_error(dpcov:::check_charged_columns(X, cols), "charged for 2 column\\(s\\), run on 7")
})

test_that("duplicate or missing column names are refused, classed, with nothing charged", {
  # they name the per-column bounds (row names of params$bounds): a plain
  # data.frame() error after the charge before
  set.seed(13)
  d <- data.frame(a = rnorm(100), b = rnorm(100)); names(d) <- c("a", "a")
  m <- as.matrix(data.frame(a = rnorm(100), b = rnorm(100))); colnames(m) <- c("a", NA)
  dm <- data.frame(m.1 = rnorm(100)); dm$m <- matrix(rnorm(200), 100, 2)  # "m.1" twice once expanded
  calls <- list(function(x, b) dp_column_bounds(x, 1, 1e-6, budget = b),
                function(x, b) dp_cov(x, 1, 1e-6, budget = b),
                function(x, b) dp_cov(x, 1, 1e-6, lower = -9, upper = 9, budget = b),
                function(x, b) dp_cov(x, 1, 1e-6, lower = -9, upper = 9, tighten = TRUE, neighbor = "replace-one",
                                      budget = b),
                function(x, b) dp_pca(x, epsilon = 1, delta = 1e-6, budget = b))
  # an empty name that clashes once filled (`V2`, the name an unnamed column gets)
  me <- m; colnames(me) <- c("V2", "")
  for (x in list(d, m, dm, me)) for (k in seq_along(calls)) {
    b <- dp_budget(5, 1e-4, neighbor = "replace-one")
    e <- tryCatch(calls[[k]](x, b), error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_identical(e$arg, if (k == 5L) "release" else "x")  # dp_pca()'s data argument
    expect_match(conditionMessage(e), "duplicate or missing column names")
    expect_identical(nrow(as.data.frame(b)), 0L)
  }
  # an array column of three dimensions (as.matrix() cannot expand it): refused before the charge
  da <- data.frame(a = rnorm(100)); da$m <- array(rnorm(400), c(100, 2, 2))
  for (k in seq_along(calls)) {
    b <- dp_budget(5, 1e-4, neighbor = "replace-one")
    e <- tryCatch(calls[[k]](da, b), error = identity)
    expect_s3_class(e, "dpcov_error")
    expect_match(conditionMessage(e), "three or more dimensions")
    expect_identical(nrow(as.data.frame(b)), 0L)
  }
  # control: unique names release
  names(d) <- c("a", "b")
  expect_s3_class(dp_cov(d, 1, 1e-6), "dp_cov")
})

test_that("zcdp_rho() inverts the zCDP conversion, and rho charges compose", {
  for (e in c(0.1, 1, 5)) for (d in c(1e-9, 1e-5)) {
    r <- dpcov:::zcdp_rho(e, d)
    expect_lte(dpcov:::zcdp_epsilon(r, d), e)
    expect_gt(dpcov:::zcdp_epsilon(r * (1 + 1e-6), d), e * (1 - 1e-6))
  }
  expect_identical(dpcov:::zcdp_epsilon(0.1, 0), Inf)
})

test_that("print states the guarantee and warns when the bounds clamp many rows", {
  X <- matrix(rexp(400), 200, 2)
  set.seed(3)
  b <- dp_column_bounds(X, 0.5, n_hint = 210)
  out <- wide_output(print(b))
  expect_true(any(grepl("differential privacy", out)))
  expect_true(any(grepl("WARNING: n * epsilon is too small for private bounds", out, fixed = TRUE)))
  # (3000 rows: the first stage is not capped, and the refinement's target is about 3% of them)
  mid <- wide_output(print(dp_column_bounds(matrix(rexp(6000), 3000, 2), 0.5, n_hint = 3000)))
  # a few percent at each end: a note, not an uppercase warning (variances
  # within 3% of the truth on faithful and penguins at epsilon 8)
  expect_true(any(grepl("Note: the private bounds clamp about", mid, fixed = TRUE)))
  expect_false(any(grepl("WARNING: the private bounds clamp", mid, fixed = TRUE)))
  expect_match(dpcov:::column_bounds_note(10, 200, 0.25, 1000, data.frame(lower = 0, upper = 1), 1e6),
               "^WARNING: the private bounds clamp about 20%")
  expect_match(dpcov:::column_bounds_note(10, 22, 0.25, 1000, data.frame(lower = 0, upper = 1), 1e6),
               "^Note: the private bounds clamp about 2.2%.*slightly for light tails, by much more for a long tail")
  expect_identical(as.data.frame(b), b$bounds)
  big <- dp_column_bounds(X, 0.5, n_hint = 1e9)
  expect_false(any(grepl("WARNING: the private bounds clamp", wide_output(print(big)))))
  # data beyond the range: the bound sits at its end and print says so
  expect_output(print(dp_column_bounds(X * 1e4, 5, range = 100)), "end of the public range")
  expect_error(dp_column_bounds(X, 1, resolution = 200, range = 100), class = "dpcov_error")
  expect_error(dp_column_bounds(function() NULL, 1), class = "dpcov_error")
})

test_that("dp_lm() without bounds chooses the numeric variables' bounds privately and charges them first", {
  set.seed(61)
  n <- 5000
  d <- data.frame(x = exp(rnorm(n)), z = rnorm(n, 100, 5), g = factor(sample(c("a", "b"), n, TRUE)))
  d$y <- 2 * d$x - 0.1 * d$z + (d$g == "b") + rnorm(n)
  b <- dp_budget(2, 1e-5)
  set.seed(62)
  f <- dp_lm(y ~ x + z + g, d, epsilon = 1, delta = 1e-6, B = 0, budget = b)
  led <- as.data.frame(b)
  expect_identical(led$what, c("dp_lm private column bounds", "dp_lm: analyze_gauss"))
  # half of epsilon and delta on the bounds by default; Analyze Gauss gets
  # the rest of the zCDP budget; its own guarantee is its exact epsilon at
  # 5e-7, and the two compose to (1, 1e-6)
  expect_equal(led$epsilon[1], 0.5)
  expect_gt(led$epsilon[2], 0.5)
  expect_equal(led$delta, c(5e-7, 5e-7))
  expect_equal(led$rho[2], dpcov:::zcdp_rho(1, 1e-6) - dpcov:::lm_bounds_rho(0.5, 5e-7))
  expect_equal(budget_spent(b)$epsilon, 1, tolerance = 1e-8)
  expect_identical(f$release$params$composition, "zCDP")
  expect_match(f$release$guarantee, "^\\(1, 1e-06\\)-differential privacy in total by zero-concentrated composition")
  # the rho charged before the number of numeric variables is known bounds the real one
  expect_equal(led$rho[1], dpcov:::lm_bounds_rho(0.5, 5e-7))
  rel <- f$release
  expect_identical(rel$params$bounds_source, "private")
  expect_lte(rel$params$column_bounds$rho, led$rho[1] * (1 + 1e-12))
  expect_identical(rel$tuning$method, "private column bounds")
  expect_match(rel$guarantee, "^\\(1, 1e-06\\)-differential privacy in total")
  # the numeric variables' bounds are those of the mechanism under the same seed
  set.seed(62)
  ref <- dpcov:::column_bounds_mechanism(as.matrix(d[c("y", "x", "z")]),
                                         rel$params$column_bounds$epsilon_quantile, 1e6, 0.01, 16, 0.25, 2)
  bb <- rel$params$bounds
  expect_equal(bb[c("x", "z", "y"), "lower"], ref$lower[c(2, 3, 1)])
  expect_equal(bb["gb", "lower"], 0)
  expect_equal(bb["gb", "upper"], 1)
  # the basic-composition rho bound holds for any number of columns
  for (k in 1:5) {
    expect_lte(dpcov:::column_bounds_epsilon(0.2, 2e-7, k)$rho, dpcov:::lm_bounds_rho(0.2, 2e-7) * (1 + 1e-12))
    expect_lte(dpcov:::column_bounds_epsilon(0.2, 0, k)$rho, dpcov:::lm_bounds_rho(0.2, 0) * (1 + 1e-12))
  }
})

test_that("after a capped first stage the refinement clamps fewer rows, n public or private; the charge's notion follows", {
  # a skewed count column and a discrete one at n epsilon_q of tens: the first
  # stage is capped at the quartiles, and the refinement on the log axis
  # stayed near them in a third of the draws
  set.seed(71)
  n <- 1000
  X <- cbind(counts = stats::rnbinom(n, mu = 30, size = 3) + 10, mag = round(stats::rgamma(n, 8, 16) + 4, 1))
  clamped <- function(f) {
    set.seed(72)
    mean(replicate(60, {
      b <- f()
      sum(X < rep(b$lower, each = n) | X > rep(b$upper, each = n))
    }))
  }
  eq <- dp_column_bounds(X, 0.5, 5e-7)$epsilon_quantile
  expect_lt(0.25 * n, 16 / eq)   # capped
  # the control: the log axis whatever the rule
  log_axis <- clamped(function() dpcov:::column_bounds_mechanism(X, eq, 1e6, 0.01, 16, 0.25, 2,
                                                                kappa = dpcov:::column_bounds_refine_kappa))
  ar <- clamped(function() dp_column_bounds(X, 0.5, 5e-7)$bounds)   # n private: the noisy count decides
  ro <- clamped(function() dp_column_bounds(X, 0.5, 5e-7, neighbor = "replace-one")$bounds)
  expect_lt(ar, 0.75 * log_axis)
  expect_lt(ro, 0.75 * log_axis)
  # far from the cap the noisy count decides as n: the log axis, equal to the control under the same seed
  set.seed(73)
  big <- matrix(rnorm(20000), ncol = 2)
  eq_big <- dp_column_bounds(big, 0.5, 5e-7)$epsilon_quantile
  expect_gt(0.25 * 1e4, 16 / eq_big + 20 / eq_big)
  set.seed(74)
  a <- dp_column_bounds(big, 0.5, 5e-7)$bounds
  set.seed(74)
  dpcov:::count_exp_mech(1e4, eq_big)  # the count the export draws first
  ctl <- dpcov:::column_bounds_mechanism(big, eq_big, 1e6, 0.01, 16, 0.25, 2, n_public = TRUE,
                                         kappa = dpcov:::column_bounds_refine_kappa)
  expect_equal(a$lower, ctl$lower)
  expect_equal(a$upper, ctl$upper)
  # the charge holds under every notion only where n is private
  b1 <- dp_budget(5, 1e-5)
  dp_column_bounds(X, 0.5, 5e-7, budget = b1)
  expect_identical(as.data.frame(b1)$neighbor, "any")
  b2 <- dp_budget(5, 1e-5, neighbor = "replace-one")
  dp_column_bounds(X, 0.5, 5e-7, neighbor = "replace-one", budget = b2)
  expect_identical(as.data.frame(b2)$neighbor, "replace-one")
  # dp_cov()'s and dp_lm()'s bounds step: the same
  b3 <- dp_budget(5, 1e-5, neighbor = "replace-one")
  r <- suppressWarnings(dp_cov(X, 1, 1e-6, neighbor = "replace-one", budget = b3))
  expect_identical(as.data.frame(b3)$neighbor[1], "replace-one")
  expect_match(r$guarantee, "replace-one", fixed = TRUE)
  b4 <- dp_budget(5, 1e-5)
  suppressWarnings(dp_cov(X, 1, 1e-6, budget = b4))
  expect_identical(as.data.frame(b4)$neighbor[1], "any")
  b5 <- dp_budget(5, 1e-5, neighbor = "replace-one")
  suppressWarnings(dp_lm(counts ~ mag, as.data.frame(X), 1, 1e-6, neighbor = "replace-one", B = 0, budget = b5))
  expect_identical(as.data.frame(b5)$neighbor[1], "replace-one")
})

test_that("a first stage capped at the quartiles is flagged from the noisy count or the public n, and warns", {
  op <- options(dpcov.noise_warning = TRUE)
  on.exit(options(op))
  set.seed(95)
  X <- cbind(a = exp(rnorm(500, 3)), b = rnorm(500, 1e4))
  eq <- 0.5 / 21                                        # 20 choices and the noisy count
  set.seed(96)
  ws <- list()
  b <- withCallingHandlers(dp_column_bounds(X, 0.5),
                           warning = function(w) { ws[[length(ws) + 1L]] <<- w; invokeRestart("muffleWarning") })
  # the released count is the one the mechanism drew first (and charged: 21 choices)
  set.seed(96)
  expect_equal(b$n_noisy, dpcov:::count_exp_mech(500, eq))
  expect_match(b$guarantee, "21 exponential mechanisms", fixed = TRUE)
  expect_match(b$guarantee, "released in `n_noisy`", fixed = TRUE)
  expect_identical(b$n, NA_real_)
  # plain R: the first stage's target against a quarter of that count
  expect_identical(b$capped, b$first_rows >= 0.25 * max(1, b$n_noisy))
  expect_true(b$capped)
  expect_equal(b$clamped_share, min(0.25, b$tail_rows / max(1, b$n_noisy)))
  expect_length(ws, 1L)
  expect_s3_class(ws[[1]], "dpcov_noise_warning")
  expect_match(conditionMessage(ws[[1]]), "^dp_column_bounds: n \\* epsilon is too small for private bounds")
  # print says so without n_hint
  expect_true(any(grepl("WARNING: n * epsilon is too small", wide_output(print(b)), fixed = TRUE)))
  # the bounds are those of the mechanism under the same seed: no further draw, no further look
  set.seed(96)
  ref <- dpcov:::column_bounds_mechanism(X, eq, 1e6, 0.01, 16, 0.25, 2)
  expect_equal(b$bounds$lower, ref$lower)
  expect_equal(b$n_noisy, ref$n_noisy)
  # n public: read from n, stated, no count drawn
  br <- suppressWarnings(dp_column_bounds(X, 0.5, neighbor = "replace-one"))
  expect_identical(br$n, 500)
  expect_identical(br$n_noisy, NA_real_)
  expect_true(br$capped)
  expect_match(br$guarantee, "n is public under this notion", fixed = TRUE)
  expect_warning(dp_column_bounds(X, 0.5, neighbor = "replace-one"), class = "dpcov_noise_warning")
  # control: a large n epsilon is not capped, and neither warns nor prints it
  set.seed(97)
  big <- matrix(rnorm(40000), 20000, 2)
  expect_no_warning(bb <- dp_column_bounds(big, 1))
  expect_false(bb$capped)
  expect_false(any(grepl("too small", wide_output(print(bb)), fixed = TRUE)))
})

test_that("logical columns get their coding [0, 1], with no choice spent on them", {
  set.seed(110)
  dm <- data.frame(a = rnorm(20000), flag = runif(20000) < 0.003, b = rexp(20000) * 5)
  bud <- dp_budget(5, 1e-3)
  set.seed(111)
  b <- dp_column_bounds(dm, 1, budget = bud)
  expect_equal(unlist(b$bounds["flag", ]), c(lower = 0, upper = 1))
  expect_identical(b$coded_columns, "flag")
  expect_identical(unname(is.na(b$center)), c(FALSE, TRUE, FALSE))
  expect_identical(unname(is.na(b$scale)), c(FALSE, TRUE, FALSE))
  # 10 choices per numeric column and the count: the numeric columns' bounds
  # are, draw for draw, those of the call on them alone
  expect_match(b$guarantee, "21 exponential mechanisms")
  expect_match(b$guarantee, "the 1 logical column(s) are bounded by their coding [0, 1]", fixed = TRUE)
  set.seed(111)
  ref <- dp_column_bounds(dm[, c("a", "b")], 1)
  expect_identical(b$bounds[c("a", "b"), ], ref$bounds)
  expect_identical(b$n_noisy, ref$n_noisy)
  expect_equal(dpcov:::check_budget(bud)$ledger$epsilon, 1)
  # the release from them keeps the rare column's variance (private bounds closed on 0)
  r <- dp_cov(dm, 4, 1e-6, bounds = b)
  v <- var(dm$flag) * 19999 / 20000
  expect_gt(r$estimate["flag", "flag"], v / 3)
  # and knows the coded column for what it is: two-valued by design, not clamped
  expect_identical(r$params$coded_columns, "flag")
  set.seed(112)
  dh <- data.frame(a = rnorm(10000), f = runif(10000) < 0.5)
  rh <- suppressWarnings(dp_cov(dh, 1, 1e-5, bounds = dp_column_bounds(dh, 1)))
  expect_false("f" %in% names(rh$diagnostics$at_bounds))
  expect_false(any(grepl("sits at its private bounds", rh$diagnostics$messages, fixed = TRUE)))
  # the data's schema decides, not the bounds' origin: a numeric column in {0, 5} given
  # the coded bounds of a logical one is clamped, and judged so
  dn <- data.frame(a = dh$a, f = 5 * as.numeric(dh$f))
  rc <- suppressWarnings(dp_cov(dn, 1, 1e-5, bounds = dp_column_bounds(dh, 1)))
  expect_null(rc$params$coded_columns)
  expect_true("f" %in% names(rc$diagnostics$at_bounds))
  expect_identical(rc$diagnostics$level, "mostly noise")
  # and a logical column with public bounds [0, 1] is coded too
  rp <- suppressWarnings(dp_cov(dh, 1, 1e-5, lower = c(a = -5, f = 0), upper = c(a = 5, f = 1)))
  expect_identical(rp$params$coded_columns, "f")
  expect_false("f" %in% names(rp$diagnostics$at_bounds))
  # dp_lm(): the logical variable's design column, with bounds from the release or its default
  fit <- suppressWarnings(dp_lm(a ~ f, dh, 1, 1e-5, bounds = dp_column_bounds(dh, 1), B = 0))
  expect_identical(fit$release$params$coded_columns, "fTRUE")
  expect_false("fTRUE" %in% names(release_diagnostics(fit$release)$at_bounds))
  # all logical (a matrix, a vector): [0, 1] everywhere, and no warning about private bounds
  old <- options(dpcov.noise_warning = TRUE)
  on.exit(options(old))
  expect_no_warning(bl <- dp_column_bounds(matrix(runif(100) < 0.5, 50, 2), 1, neighbor = "replace-one"))
  expect_identical(as.matrix(bl$bounds), cbind(lower = c(0, 0), upper = c(1, 1)))
  expect_identical(bl$coded_columns, c("V1", "V2"))
  expect_false(any(grepl("WARNING", wide_output(print(bl)), fixed = TRUE)))
  expect_match(dp_column_bounds(c(TRUE, FALSE, TRUE), 1)$guarantee, "none was made", fixed = TRUE)
  # control: the same small numeric matrix warns
  expect_warning(dp_column_bounds(matrix(runif(100), 50, 2), 1, neighbor = "replace-one"), class = "dpcov_noise_warning")
})

test_that("an empty column name (cbind(X, v)) is named V<j>, and the release's bounds can be given back", {
  set.seed(16)
  x1 <- cbind(cbind(a = rnorm(3000), b = rnorm(3000)), rnorm(3000))
  expect_identical(colnames(x1), c("a", "b", ""))
  r <- suppressWarnings(dp_cov(x1, 1, 1e-5))
  expect_identical(colnames(r$estimate), c("a", "b", "V3"))
  expect_identical(rownames(r$params$bounds), c("a", "b", "V3"))
  r2 <- suppressWarnings(dp_cov(x1, 1, 1e-5, bounds = r$params$bounds))
  expect_identical(r2$params$bounds, r$params$bounds)
  b <- dp_column_bounds(x1, 1)
  expect_identical(rownames(b$bounds), c("a", "b", "V3"))
  ra <- analyze_gauss(x1, 1, 1e-5, lower = -5, upper = 5)
  expect_identical(colnames(ra$estimate), c("a", "b", "V3"))
  # the same release as with the name given
  x2 <- x1
  colnames(x2)[3] <- "V3"
  set.seed(3); e1 <- dp_cov(x1, 1, 1e-5, lower = -5, upper = 5)$estimate
  set.seed(3); e2 <- dp_cov(x2, 1, 1e-5, lower = -5, upper = 5)$estimate
  expect_identical(e1, e2)
})

test_that("under add/remove the refinement's axis follows the noisy count, never n (mutation audit)", {
  set.seed(1)
  X <- matrix(rnorm(4000), 2000, 2)
  eq <- 0.05  # first stage targets 16 / 0.05 = 320 rows < 0.25 * 2000: not capped at the true n
  run <- function(kappa) {
    with_binding("dpcov", "count_exp_mech", function(n, eps_q) 10, {
      set.seed(9)
      dpcov:::column_bounds_mechanism(X, eq, 1e6, 0.01, 16, 0.25, 2, n_public = FALSE, kappa = kappa)
    })
  }
  # a noisy count of 10 makes the first stage capped (320 >= 0.25 * 10): the capped axis
  capped <- run(dpcov:::column_bounds_refine_kappa_capped)
  expect_identical(run(NULL)[1:2], capped[1:2])
  expect_false(identical(run(dpcov:::column_bounds_refine_kappa)[1:2], capped[1:2]))
})

test_that("dp_lm()'s default: the bounds' rho and the Gaussian's fit within rho(epsilon, delta) (mutation audit)", {
  set.seed(1)
  d <- data.frame(x = rnorm(2000), z = runif(2000))
  d$y <- d$x + rnorm(2000)
  for (eps in c(0.5, 2)) {
    f <- dp_lm(y ~ x + z, d, epsilon = eps, delta = 1e-6, B = 0)
    # the bounds: dp_column_bounds()'s mechanism at 2 * share of (epsilon, delta) on the 3
    # numeric variables, 10 choices each and the noisy count (add/remove), (eps_q^2 / 8)-zCDP each
    share <- dpcov:::column_bounds_share
    k <- 10 * 3 + 1
    eq <- max(2 * share * eps / k, sqrt(8 * dpcov:::zcdp_rho(2 * share * eps, 2 * share * 1e-6) / k))
    rho_bounds <- k * eq^2 / 8
    rho_gauss <- f$release$params$mu_total^2 / 2
    expect_lte(rho_bounds + rho_gauss, dpcov:::zcdp_rho(eps, 1e-6) * (1 + 1e-9))
  }
})

test_that("the point inside a chosen interval reaches the base measure's far tail, beyond a 32-bit uniform's 22 decays (review)", {
  # the inversion took one runif(), so from [0, 10] at decay 0.1 nothing
  # above 2.218 could be drawn, and a neighbour's interval from 0.5 reached
  # 2.718: points with probability 0 under one data set and not the other
  # the smallest uniforms: the fine uniform's far end
  top <- with_runif_queue(list(2^-33, 2^-33), dpcov:::base_draw(0, 10, 0.1))
  expect_gt(top, 4)  # 63 log 2 decays: 4.37
  expect_equal(top, 0.1 * 63 * log(2), tolerance = 1e-6)
  # the law: exp(-s / decay) on [a, b], both sides of 0 and across it (KS,
  # 2e4 draws; the control with decay 0.11 fails)
  cdf <- function(a, b, d) {
    G <- function(s) sign(s) * d * (1 - exp(-abs(s) / d))
    function(q) (G(pmin(pmax(q, a), b)) - G(a)) / (G(b) - G(a))
  }
  for (ab in list(c(0.2, 3), c(-4, -0.5), c(-2, 1.5))) {
    set.seed(8)
    v <- vapply(1:20000, function(i) dpcov:::base_draw(ab[1], ab[2], 0.5), numeric(1))
    expect_gt(stats::ks.test(v, cdf(ab[1], ab[2], 0.5))$p.value, 1e-6)
    expect_lt(stats::ks.test(v, cdf(ab[1], ab[2], 0.6))$p.value, 1e-6)
  }
})

test_that("an edited dp_column_bounds release is refused; hand-made dp_bound and dp_column_bounds fields are checked", {
  set.seed(1)
  x <- matrix(rnorm(4000), 2000, 2, dimnames = list(NULL, c("a", "b")))
  cb <- suppressWarnings(dp_column_bounds(x, epsilon = 1))
  b <- dp_budget(3, 1e-5)
  cbd <- suppressWarnings(dp_column_bounds(x, epsilon = 1, delta = 1e-6))
  for (field in list(list("epsilon", 1e-9, cb), list("delta", 1e-9, cbd), list("neighbor", "replace-one", cb))) {
    h <- field[[3]]
    h[[field[[1]]]] <- field[[2]]
    e <- expect_error(dp_cov(x, 1, 1e-6, bounds = h, budget = b), "not the guarantee it was released with",
                      class = "dpcov_error")
    expect_identical(e$arg, "bounds")
  }
  expect_identical(budget_spent(b)$charges, 0L)
  expect_s3_class(dp_cov(x, 1, 1e-6, bounds = cb, budget = b), "dp_release")   # control
  h <- cb
  h$n <- -5
  expect_error(print(h), "not a valid dp_column_bounds", class = "dpcov_error")
  bd <- dp_clip_bound(x, epsilon = 1)
  for (edit in list(function(o) { o$lower <- 10; o$upper <- 1; o }, function(o) { o$count_noise_sd <- -1; o },
                    function(o) { o$n_clipped <- 2.5; o }, function(o) { o$epsilon_bound <- 5; o })) {
    expect_error(print(edit(bd)), "not a valid dp_bound", class = "dpcov_error")
  }
  expect_output(print(bd), "dp_bound")
})
