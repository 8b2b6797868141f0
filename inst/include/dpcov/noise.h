// Symmetric Gaussian noise matrices.
#ifndef DPCOV_NOISE_H
#define DPCOV_NOISE_H

#include <RcppEigen.h>
#include "rng.h"

namespace dpcov {

using Eigen::MatrixXd;

// Symmetric p x p matrix whose upper triangle (diagonal included) is iid
// N(0, sd^2), mirrored below. Draw order: column by column, rows 0..j.
inline MatrixXd symmetric_gaussian(Eigen::Index p, double sd) {
  MatrixXd E(p, p);
  for (Eigen::Index j = 0; j < p; ++j)
    for (Eigen::Index i = 0; i <= j; ++i) {
      E(i, j) = sd * draw_norm();
      E(j, i) = E(i, j);
    }
  return E;
}

}  // namespace dpcov

#endif
