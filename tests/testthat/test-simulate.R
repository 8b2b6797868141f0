# Simulation tools: covariance models, data generators, error measures, runner.

test_that("covariance models match their definitions", {
  S1 <- cov_model(6, "model1")
  expect_equal(S1, outer(1:6, 1:6, function(i, j) 0.6^abs(i - j)))
  S2 <- cov_model(6, "model2")
  expect_equal(diag(S2), rep(1, 6))
  expect_equal(S2[cbind(1:5, 2:6)], rep(0.6, 5))
  expect_equal(S2[cbind(1:4, 3:6)], rep(0.3, 4))
  expect_equal(S2[abs(row(S2) - col(S2)) >= 3], rep(0, sum(abs(row(S2) - col(S2)) >= 3)))
  expect_true(isSymmetric(S2))
  set.seed(1)
  U <- cov_model(40, "random_sparse", sparsity = 0.2)
  expect_true(isSymmetric(U))
  expect_equal(sum(U[row(U) != col(U)] != 0), round(0.2 * 40 * 40 / 2) * 2)
  expect_true(all(abs(diag(U) - 50 / 200) < 1e-12))
  expect_gt(min(eigen(U, symmetric = TRUE)$values), 0)
  expect_error(cov_model(1, "model1"), "`p` must be >= 2")
  expect_error(cov_model(5, "model3"), "`type` must be one of")
  expect_error(cov_model(50, "random_sparse", sparsity = 0.5, lambda = 1), "positive definite")
})

test_that("rdata: Gaussian and t moments (t covariance is df/(df-2) times the scale)", {
  set.seed(2)
  S <- cov_model(3, "model1")
  n <- 40000
  g <- rdata(n, S)
  # every entry of the sample second moment within 6 standard errors
  se <- sqrt((S^2 + outer(diag(S), diag(S))) / n)
  expect_true(all(abs(crossprod(g) / n - S) < 6 * se))
  tt <- rdata(n, S, dist = "t", df = 5)
  C <- 5 / 3 * S
  # var(x_i x_j) for t5 with scale S: E[w^-2] = df^2/((df-2)(df-4)) = 25/3
  se_t <- sqrt((25 / 3) * (S^2 + outer(diag(S), diag(S))) / n)
  expect_true(all(abs(crossprod(tt) / n - C) < 6 * se_t))
  # heavier tails than the Gaussian: the kurtosis of a coordinate exceeds 3
  k <- mean(tt[, 1]^4) / mean(tt[, 1]^2)^2
  expect_gt(k, 4)
  # KS on a standardised coordinate: t5 marginal
  expect_gt(stats::ks.test(tt[1:5000, 2] / sqrt(S[2, 2]), "pt", df = 5)$p.value, 1e-6)
  expect_lt(stats::ks.test(tt[, 2] / sqrt(S[2, 2]), "pnorm")$p.value, 1e-6)
  expect_error(rdata(10, matrix(c(1, 2, 2, 1), 2)), "positive definite")
  expect_error(rdata(10, S, dist = "cauchy"), "`dist` must be one of")
  expect_error(rdata(10, S, dist = "t", df = 2), "`df` must be in")
})

test_that("cov_error equals base norms", {
  set.seed(3)
  A <- crossprod(matrix(stats::rnorm(30), 6, 5))
  S <- cov_model(5, "model2")
  e <- cov_error(A, S)
  expect_equal(e[["spectral"]], norm(A - S, "2"))
  expect_equal(e[["frobenius"]], norm(A - S, "F"))
  expect_equal(e[["l1"]], norm(A - S, "O"))
  r <- cov_error(A, S, relative = TRUE)
  expect_equal(r[["l1"]], norm(A - S, "O") / norm(S, "O"))
  expect_equal(r[["spectral"]], norm(A - S, "2") / norm(S, "2"))
  B <- matrix(stats::rnorm(25), 5)  # asymmetric: singular values
  expect_equal(cov_error(B, S, "spectral")[["spectral"]], norm(B - S, "2"))
  rel <- dp_threshold(rdata(100, S) / 3, 0.5, 1e-3, clip = 1, tune = 1)
  expect_equal(cov_error(rel, S), cov_error(as.matrix(rel), S))
  expect_error(cov_error(A, S[1:4, 1:4]), "same dimensions")
  # named matrices are matched by name, not by position (audit)
  nm <- c("a", "b", "c", "d", "e")
  An <- `dimnames<-`(A, list(nm, nm))
  Sn <- `dimnames<-`(S, list(nm, nm))
  expect_equal(cov_error(An[5:1, 5:1], Sn), cov_error(A, S))
  expect_equal(cov_error(Sn, Sn[c(2, 1, 3:5), c(2, 1, 3:5)]), c(spectral = 0, frobenius = 0, l1 = 0))
  expect_equal(cov_error(An[, 5:1], Sn, "spectral"), cov_error(A, S, "spectral"))  # columns alone
  e <- expect_error(cov_error(`dimnames<-`(A, list(letters[6:10], letters[6:10])), Sn), class = "dpcov_error")
  expect_identical(e$arg, "estimate")
  expect_equal(cov_error(An[5:1, 5:1], S), cov_error(A[5:1, 5:1], S))  # one side unnamed: by position
  expect_error(cov_error(A, S, "max"), "`norm` must be among")
})

test_that("run_study: shape, both truths for t data, and reproducible under future.seed", {
  s <- data.frame(cov = c("model2", "model1"), dist = c("gaussian", "t"), p = 8, n = 60,
                  epsilon = 0.5, delta = 1 / 400, table = c(1, 2))
  set.seed(4)
  a <- run_study(s, reps = 2, tune = threshold_tune("cv", folds = 3))
  set.seed(4)
  b <- run_study(s, reps = 2, tune = threshold_tune("cv", folds = 3))
  expect_identical(a, b)
  # 2 reps x (4 methods x 1 truth + 4 methods x 2 truths)
  expect_equal(nrow(a), 2 * 4 + 2 * 8)
  expect_setequal(unique(a$truth[a$dist == "t"]), c("scale", "covariance"))
  expect_equal(unique(a$truth[a$dist == "gaussian"]), "scale")
  expect_setequal(unique(a$method), threshold_methods()$label)
  sm <- study_summary(a)
  expect_equal(nrow(sm), 4 + 8)
  expect_true(all(sm$reps == 2))
  expect_true(all(c("table", "mean_spectral", "se_frobenius") %in% names(sm)))
  one <- a[a$dist == "gaussian" & a$method == "Wang-Xu DP", ]
  expect_equal(sm$mean_spectral[sm$dist == "gaussian" & sm$method == "Wang-Xu DP"], mean(one$spectral))
  rel <- run_study(s[1, ], reps = 1, tune = 1, relative = TRUE)
  expect_true(all(c("rel_spectral", "rel_l1") %in% names(rel)))
  expect_error(run_study(data.frame(p = 5), reps = 1), "`settings` must be a data frame with columns")
  expect_error(run_study(s, reps = 0), "`reps` must be >= 1")
})

test_that("simulation helpers refuse a parameter of another model, not ignore it (audit)", {
  e <- expect_error(cov_model(10, "model2", rho = 0.5), "not a parameter", class = "dpcov_error")
  expect_identical(e$arg, "rho")
  e <- expect_error(cov_model(10, "model1", sparsity = 0.1), class = "dpcov_error")
  expect_identical(e$arg, "sparsity")
  e <- expect_error(cov_model(10, "random_sparse", rho = 0.1), class = "dpcov_error")
  expect_identical(e$arg, "rho")
  expect_equal(cov_model(4, "model1", rho = 0.5)[1, 2], 0.5)
  set.seed(1)
  expect_true(isSymmetric(cov_model(6, "random_sparse", sparsity = 0.3, lambda = 60, scale = 100)))
  e <- expect_error(rdata(10, diag(2), df = -3), "dist = \"t\"", class = "dpcov_error")
  expect_identical(e$arg, "df")
  set.seed(2)
  a <- rdata(10, diag(2))
  set.seed(2)
  expect_identical(rdata(10, diag(2), "gaussian"), a)
  e <- expect_error(sheffet_study("single", n = 2^7, epsilon = 0.5, reps = 1, p = 2, m = c(1, 2)), "multiple",
                    class = "dpcov_error")
  expect_identical(e$arg, "m")
})

test_that("cov_error() reads a square matrix's names on one dimension as naming both, as subspace_distance() does (review)", {
  set.seed(1)
  x <- matrix(rnorm(3000, 1), 1000, 3, dimnames = list(NULL, c("a", "b", "c")))
  r <- dp_cov(x, epsilon = 1, delta = 1e-6)
  T2 <- diag(c(1, 2, 3))
  dimnames(T2) <- list(c("c", "b", "a"), c("c", "b", "a"))
  want <- cov_error(r$estimate[3:1, 3:1], unname(T2))
  T5 <- unname(T2)
  rownames(T5) <- c("c", "b", "a")
  T6 <- unname(T2)
  colnames(T6) <- c("c", "b", "a")
  expect_identical(cov_error(r, T2), want)
  expect_identical(cov_error(r, T5), want)   # rows reordered, and columns alike
  expect_identical(cov_error(r, T6), want)
  expect_identical(cov_error(T5, r), cov_error(unname(T2), r$estimate[3:1, 3:1]))
  # the control: a matrix named by rows and columns each is matched each by its own
  A <- matrix(1:9 + 0, 3, dimnames = list(c("a", "b", "c"), c("c", "b", "a")))
  B <- A[3:1, 3:1]
  expect_identical(cov_error(A, B), c(spectral = 0, frobenius = 0, l1 = 0))
})
