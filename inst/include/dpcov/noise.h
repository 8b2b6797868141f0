// Symmetric Gaussian noise matrices.
#ifndef DPCOV_NOISE_H
#define DPCOV_NOISE_H

#include <RcppEigen.h>
#include "rng.h"

namespace dpcov {

using Eigen::MatrixXd;

// Adds to S a symmetric matrix whose upper triangle (diagonal included) is
// iid N(0, sd^2), mirrored below. Draw order: column by column, rows 0..j.
// `normal` draws one N(0, 1); by default R's norm_rand(), as rnorm() does.
template <typename Normal>
inline void add_symmetric_gaussian(Eigen::Ref<MatrixXd> S, double sd, Normal&& normal) {
  for (Eigen::Index j = 0; j < S.cols(); ++j)
    for (Eigen::Index i = 0; i <= j; ++i) {
      const double z = sd * normal();
      S(i, j) += z;
      if (i != j) S(j, i) += z;
    }
}

// The same matrix on its own.
template <typename Normal>
inline MatrixXd symmetric_gaussian(Eigen::Index p, double sd, Normal&& normal) {
  MatrixXd E = MatrixXd::Zero(p, p);
  add_symmetric_gaussian(E, sd, normal);
  return E;
}

inline MatrixXd symmetric_gaussian(Eigen::Index p, double sd) {
  return symmetric_gaussian(p, sd, draw_norm);
}

}  // namespace dpcov

#endif
