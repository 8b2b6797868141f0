// Symmetric Gaussian noise matrices.
#ifndef DPCOV_NOISE_H
#define DPCOV_NOISE_H

#include <RcppEigen.h>
#include "rng.h"

namespace dpcov {

using Eigen::MatrixXd;

// Symmetric p x p matrix whose upper triangle (diagonal included) is iid
// N(0, sd^2), mirrored below. Draw order: column by column, rows 0..j.
// `normal` draws one N(0, 1); by default R's norm_rand(), as rnorm() does.
template <typename Normal>
inline MatrixXd symmetric_gaussian(Eigen::Index p, double sd, Normal&& normal) {
  MatrixXd E(p, p);
  for (Eigen::Index j = 0; j < p; ++j)
    for (Eigen::Index i = 0; i <= j; ++i) {
      E(i, j) = sd * normal();
      E(j, i) = E(i, j);
    }
  return E;
}

inline MatrixXd symmetric_gaussian(Eigen::Index p, double sd) {
  return symmetric_gaussian(p, sd, draw_norm);
}

}  // namespace dpcov

#endif
