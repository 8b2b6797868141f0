# The "main job": a private second-moment release and Wishart draws.
library(dpcov)
set.seed(2026)
x <- matrix(rnorm(2000 * 5), 2000, 5)
x[, 2] <- x[, 1] + 0.5 * x[, 2]
cat("== Analyze Gauss release of A'A, rows clipped to norm 3 ==\n")
r <- analyze_gauss(x, epsilon = 0.5, delta = 1e-6, clip = 3)
print(r)
cat("\n== Wishart and inverse-Wishart draws ==\n")
S <- diag(3) + 0.5
print(rwishart(1, df = 10, Sigma = S)[, , 1])
print(riwishart(1, df = 10, Psi = S)[, , 1])
cat("\n== Gaussian mechanism calibrations (sensitivity 1, delta = 1e-5) ==\n")
print(sapply(c(0.1, 0.5, 1, 4), function(e) c(epsilon = e,
  classic = suppressWarnings(gaussian_sigma(1, e, 1e-5, "classic")),
  analytic = gaussian_sigma(1, e, 1e-5, "analytic"))))
