# The "main job": one private release from each family, and the samplers.
library(dpcov)
set.seed(2026)
x <- matrix(rnorm(2000 * 5), 2000, 5)
x[, 2] <- x[, 1] + 0.5 * x[, 2]

cat("== Analyze Gauss release of A'A, rows clipped to norm 3 ==\n")
print(analyze_gauss(x, epsilon = 0.5, delta = 1e-6, clip = 3))

cat("\n== Additive Wishart noise (Sheffet Alg. 3), shifted ==\n")
print(wishart_noise(x, epsilon = 0.5, delta = 1e-6, clip = 3, shift = TRUE))

cat("\n== Sparse covariance by DP thresholding (theory-default constant) ==\n")
print(dp_threshold(x / 3, epsilon = 0.5, delta = 1e-6, clip = 1, tune = "theory"))

cat("\n== Compression: 400 x 5 release of Phi X (above the m of Theorem 4.6) ==\n")
print(dp_compress(x, m = 400))

cat("\n== Wishart and inverse-Wishart draws ==\n")
S <- diag(3) + 0.5
print(rwishart(1, df = 10, Sigma = S)[, , 1])
print(riwishart(1, df = 10, Psi = S)[, , 1])

cat("\n== Gaussian mechanism calibrations (sensitivity 1, delta = 1e-5) ==\n")
# the classic formula is proven (and accepted) only for epsilon < 1
print(sapply(c(0.1, 0.5, 1, 4), function(e) c(epsilon = e,
  classic = if (e < 1) gaussian_sigma(1, e, 1e-5, "classic") else NA,
  analytic = gaussian_sigma(1, e, 1e-5, "analytic"))))

cat("\n== The front door: a private covariance from a data frame, charged to a budget ==\n")
set.seed(5)
df <- data.frame(height = rnorm(5000, 170, 8), weight = rnorm(5000, 70, 10))
df$weight <- df$weight + 0.5 * (df$height - 170)
b <- dp_budget(epsilon = 2, delta = 1e-5)
print(dp_cov(df, epsilon = 1, delta = 5e-6, budget = b))
print(round(cov(df), 2))
print(b)
