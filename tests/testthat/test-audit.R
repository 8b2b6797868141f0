# One privacy audit (helper-audit.R) for every mechanism: many releases on a
# fixed data set, the noise tested against its calibration at alpha = 1e-6,
# and for each mechanism an under-noised variant (a larger epsilon than the
# one audited) that the same audit must flag. The calibrations are written
# out here from the papers' formulas, not taken from the package.

eps <- 0.5
delta <- 1e-4
B <- 1

# Balle and Wang's analytic sigma, solved here from their Theorem 8.
analytic_sigma_ref <- function(sens, e, d) {
  delta_of <- function(s) pnorm(sens / (2 * s) - e * s / sens) - exp(e) * pnorm(-sens / (2 * s) - e * s / sens)
  uniroot(function(s) delta_of(s) - d, c(1e-3, 1e3) * sens, tol = 1e-13)$root
}

test_that("Analyze Gauss: N(0, sigma^2) entries for every neighbour notion; under-noised fails", {
  X <- audit_matrix(300, 4)
  G <- crossprod(X * pmin(1, B / sqrt(rowSums(X^2))))
  sens <- c("add-remove" = B^2, "replace-one" = sqrt(2) * B^2, "zero-out" = B^2)
  set.seed(101)
  for (nb in names(sens)) {
    sd_ref <- classic_sigma(sens[[nb]], eps, delta)
    pivot <- function(r) upper_entries(r$estimate - G) / sd_ref
    draw_at <- function(e) function() analyze_gauss(X, e, delta, clip = B, neighbor = nb, calibration = "classic")
    expect_true(privacy_audit(draw_at(eps), pivot, 300), label = nb)
    expect_false(privacy_audit(draw_at(1.25 * eps), pivot, 300), label = paste(nb, "under-noised"))
  }
  # the default (analytic) calibration: sigma solves Balle and Wang's equation
  sd_an <- analytic_sigma_ref(B^2, eps, delta)
  pivot <- function(r) upper_entries(r$estimate - G) / sd_an
  expect_true(privacy_audit(function() analyze_gauss(X, eps, delta, clip = B), pivot, 300))
  expect_false(privacy_audit(function() analyze_gauss(X, 1.25 * eps, delta, clip = B), pivot, 300))
})

test_that("Additive Wishart (Alg. 3): diagonal noise B^2 chi^2_k, off-diagonal N(0, k B^4); under-noised fails", {
  X <- audit_matrix(300, 3)
  G <- crossprod(X * pmin(1, B / sqrt(rowSums(X^2))))
  k_of <- function(e) floor(3 + 14 / e^2 * 2 * log(4 / delta))
  k <- k_of(eps)
  set.seed(102)
  draw_at <- function(e) function() wishart_noise(X, e, delta, clip = B)
  diag_pivot <- function(r) diag(r$estimate - G) / B^2
  off_pivot <- function(r) (r$estimate - G)[upper.tri(G)] / (B^2 * sqrt(k))
  expect_true(privacy_audit(draw_at(eps), diag_pivot, 300, "pchisq", df = k))
  expect_false(privacy_audit(draw_at(1.25 * eps), diag_pivot, 300, "pchisq", df = k))
  expect_true(privacy_audit(draw_at(eps), off_pivot, 400))
  expect_false(privacy_audit(draw_at(0.8), off_pivot, 400))
})

# For M ~ W_d(S, r): v'Mv / v'Sv ~ chi^2_r. For M ~ W_d^{-1}(S, nu), M^{-1} ~
# W_d(S^{-1}, nu), so v'Sv / v'Mv ~ chi^2_{nu - d + 1} (Muirhead, Theorem 3.2.12).
wishart_pivot <- function(M, S, v) drop(crossprod(v, M %*% v) / crossprod(v, S %*% v))
iwishart_pivot <- function(M, S, v) drop(crossprod(v, S %*% v) / crossprod(v, M %*% v))

test_that("JL ridge (Alg. 1): r M ~ W_d(A'A + w^2 I, r) with the paper's w^2; under-noised fails", {
  X <- audit_matrix(20, 3)
  G <- crossprod(X * pmin(1, B / sqrt(rowSums(X^2))))
  r <- 6
  w2_of <- function(e) 4 * B^2 * (sqrt(2 * r * log(4 / delta)) + log(4 / delta)) / e
  S <- G + diag(w2_of(eps), 3)
  v <- c(1, -2, 0.5)
  pivot <- function(rel) r * wishart_pivot(rel$estimate, S, v)
  set.seed(103)
  expect_true(privacy_audit(function() jl_ridge(X, eps, delta, clip = B, r = r), pivot, 600, "pchisq", df = r))
  expect_false(privacy_audit(function() jl_ridge(X, 2 * eps, delta, clip = B, r = r), pivot, 600, "pchisq", df = r))
})

test_that("inverse-Wishart posterior (Alg. 4): W^-1(A'A + psi I, n + d) with the paper's psi; under-noised fails", {
  n <- 20
  X <- audit_matrix(n, 3)
  G <- crossprod(X * pmin(1, B / sqrt(rowSums(X^2))))
  psi_of <- function(e) 2 * B^2 / e * (2 * sqrt(2 * (n + 3) * log(4 / delta)) + 2 * log(4 / delta))
  S <- G + diag(psi_of(eps), 3)
  v <- c(0.3, 1, -1)
  pivot <- function(rel) iwishart_pivot(rel$estimate, S, v)
  set.seed(104)
  expect_true(privacy_audit(function() iwishart_posterior(X, eps, delta, clip = B), pivot, 600, "pchisq", df = n + 1))
  expect_false(privacy_audit(function() iwishart_posterior(X, 2 * eps, delta, clip = B), pivot, 600, "pchisq", df = n + 1))
})

# Data whose clipped Gram is 200 I: lambda_min - offset stays far from 0 and
# the ridge / prior branch is always taken, so both noise parts can be audited.
axis_rows <- function() diag(3)[rep(1:3, each = 200), ]
plaplace <- function(q) ifelse(q < 0, exp(q) / 2, 1 - exp(-q) / 2)

test_that("adaptive JL (Alg. 2): Laplace smallest eigenvalue, then W_d(A'A + (w0^2 - s) I, r0); under-noised fails", {
  X <- axis_rows()
  G <- crossprod(X)
  r0 <- 6
  centre <- 200 - 2 * B^2 * log(2 / delta) / eps
  s_pivot <- function(rel) (rel$params$s - centre) / (2 * B^2 / eps)
  w0 <- 8 * B^2 / eps * (sqrt(2 * r0 * log(8 / delta)) + log(8 / delta))
  m_pivot <- function(rel) {
    expect_identical(rel$params$branch, "ridge")
    r0 * wishart_pivot(rel$estimate, G + diag(w0 - rel$params$s, 3), c(1, 1, -1))
  }
  reps <- if (extended_tests()) c(800, 600) else c(400, 300)
  set.seed(105)
  draw_at <- function(e) function() jl_adaptive(X, e, delta, clip = B, r0 = r0)
  expect_true(privacy_audit(draw_at(eps), s_pivot, reps[1], plaplace))
  expect_false(privacy_audit(draw_at(1.5 * eps), s_pivot, reps[1], plaplace))
  expect_true(privacy_audit(draw_at(eps), m_pivot, reps[2], "pchisq", df = r0))
  expect_false(privacy_audit(draw_at(1.5 * eps), m_pivot, reps[2], "pchisq", df = r0))
})

test_that("adaptive inverse-Wishart (Alg. 5): Laplace eigenvalue, then W^-1(A'A + (psi0 - s) I, k0); under-noised fails", {
  X <- axis_rows()
  G <- crossprod(X)
  k0 <- 6
  centre <- 200 - 2 * B^2 * log(2 / delta) / eps
  psi0 <- 4 * B^2 / eps * (2 * sqrt(2 * k0 * log(8 / delta)) + 2 * log(8 / delta))
  s_pivot <- function(rel) (rel$params$s - centre) / (2 * B^2 / eps)
  m_pivot <- function(rel) iwishart_pivot(rel$estimate, G + diag(psi0 - rel$params$s, 3), c(2, -1, 1))
  set.seed(106)
  draw_at <- function(e) function() iwishart_adaptive(X, e, delta, clip = B, k0 = k0)
  expect_true(privacy_audit(draw_at(eps), s_pivot, 800, plaplace))
  expect_false(privacy_audit(draw_at(1.5 * eps), s_pivot, 800, plaplace))
  expect_true(privacy_audit(draw_at(eps), m_pivot, 600, "pchisq", df = k0 - 3 + 1))
  expect_false(privacy_audit(draw_at(1.5 * eps), m_pivot, 600, "pchisq", df = k0 - 3 + 1))
})

test_that("central thresholding: the average plus N(0, s^2) for each variant and notion; under-noised fails", {
  n <- 2000
  X <- audit_matrix(n, 4)
  A <- crossprod(X * pmin(1, B / sqrt(rowSums(X^2)))) / n
  expect_gt(min(eigen(A)$values), 0.01)   # the PSD step leaves the audited entries alone
  cases <- list(list("modified", "replace-one", sqrt(2) * B^2 / n),
                list("wang_xu", "zero-out", B^2 / n),
                list("wang_xu", "replace-one", sqrt(2) * B^2 / n))
  set.seed(107)
  for (cs in cases) {
    s_ref <- classic_sigma(cs[[3]], eps, delta)
    pivot <- function(r) upper_entries(r$estimate - A) / s_ref
    draw_at <- function(e) function() {
      dp_threshold(X, e, delta, clip = B, variant = cs[[1]], neighbor = cs[[2]], tune = 0,
                   noise_multiplier = 0, calibration = "classic")
    }
    expect_true(privacy_audit(draw_at(eps), pivot, 300), label = cs[[2]])
    expect_false(privacy_audit(draw_at(1.25 * eps), pivot, 300), label = paste(cs[[2]], "under-noised"))
  }
})

test_that("local thresholding: the average plus N(0, sigma^2 / n), aggregated and per record; under-noised fails", {
  # epsilon = 5 (analytic calibration) keeps the averaged noise small enough
  # (spectral norm about 0.06 against a smallest eigenvalue of 0.19) that the
  # PSD step leaves the audited entries alone
  n <- 4000
  e5 <- 5
  X <- audit_matrix(n, 3)
  A <- crossprod(X * pmin(1, B / sqrt(rowSums(X^2)))) / n
  set.seed(108)
  # the fast tier audits replace-one only (zero-out differs by the sensitivity, audited centrally above)
  for (nb in if (extended_tests()) c("replace-one", "zero-out") else "replace-one") {
    sens <- if (nb == "replace-one") sqrt(2) * B^2 else B^2
    s_ref <- analytic_sigma_ref(sens, e5, delta) / sqrt(n)
    pivot <- function(r) upper_entries(r$estimate - A) / s_ref
    for (m in c("aggregate", "explicit")) {
      reps <- if (m == "aggregate") 300 else 150
      draw_at <- function(e) function() {
        r <- dp_threshold(X, e, delta, clip = B, model = "local", neighbor = nb, tune = 0,
                          noise_multiplier = 0, method = m)
        expect_equal(r$params$negative_eigenvalues, 0)
        r
      }
      expect_true(privacy_audit(draw_at(e5), pivot, reps), label = paste(nb, m))
      expect_false(privacy_audit(draw_at(1.3 * e5), pivot, reps), label = paste(nb, m, "under-noised"))
    }
  }
})

test_that("client reports and the server aggregate carry the calibrated noise; under-noised fails", {
  X <- audit_matrix(200, 3)
  Xc <- X * pmin(1, B / sqrt(rowSums(X^2)))
  ij <- which(upper.tri(diag(3), diag = TRUE), arr.ind = TRUE)
  prod_true <- Xc[, ij[, 1]] * Xc[, ij[, 2]]
  sd_ref <- classic_sigma(sqrt(2) * B^2, eps, delta)
  set.seed(109)
  pivot <- function(rep) as.vector(rep$reports - prod_true) / sd_ref
  draw_at <- function(e) function() ldp_perturb(X, e, delta, clip = B, calibration = "classic")
  expect_true(privacy_audit(draw_at(eps), pivot, 5))
  expect_false(privacy_audit(draw_at(1.25 * eps), pivot, 5))
  A <- crossprod(Xc) / 200
  agg_pivot <- function(a) upper_entries(a$estimate - A) / (sd_ref / sqrt(200))
  expect_true(privacy_audit(function() ldp_aggregate(draw_at(eps)()), agg_pivot, 300))
  expect_false(privacy_audit(function() ldp_aggregate(draw_at(1.25 * eps)()), agg_pivot, 300))
})

test_that("compression: rows of Phi X are N(0, X'X/n) of the normalised data; a shrunk variant fails", {
  n <- 2000
  X <- audit_matrix(n, 3)
  Xn <- sweep(X, 2, sqrt(colSums(X^2) / n), "/")
  R <- chol(crossprod(Xn) / n)              # rows of C R^-1 are N(0, I)
  pivot <- function(r) as.vector(r$estimate %*% solve(R))
  set.seed(110)
  expect_true(privacy_audit(function() dp_compress(X, m = 300), pivot, 10))
  # without normalisation the spread of these columns is 0.8 of the audited one
  Xs <- Xn * 0.8
  expect_false(privacy_audit(function() dp_compress(Xs, m = 300, normalize = FALSE), pivot, 10))
})
