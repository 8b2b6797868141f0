// Thin export of the symmetric Gaussian noise matrix.
#include <dpcov/noise.h>

// [[Rcpp::export]]
Eigen::MatrixXd symmetric_gaussian_cpp(int p, double sd) {
  return dpcov::symmetric_gaussian(p, sd);
}
