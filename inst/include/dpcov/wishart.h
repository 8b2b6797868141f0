// Wishart and inverse-Wishart draws by the Bartlett decomposition.
//
// Draw order (part of the API: the plain-R reference in the tests repeats it):
// for row j = 0..p-1 of the lower Bartlett factor T, first T_jj =
// sqrt(chisq(df - j)), then T_j0, ..., T_j,j-1 ~ N(0, 1). This is the order of
// stats::rWishart, so rwishart() reproduces its draws under the same seed.
#ifndef DPCOV_WISHART_H
#define DPCOV_WISHART_H

#include <RcppEigen.h>
#include "rng.h"

namespace dpcov {

using Eigen::MatrixXd;
using Eigen::Ref;

// Lower-triangular T with T T' ~ W_p(I, df); df > p - 1 may be real.
inline void bartlett_factor(double df, Ref<MatrixXd> T) {
  const Eigen::Index p = T.rows();
  T.setZero();
  for (Eigen::Index j = 0; j < p; ++j) {
    T(j, j) = std::sqrt(draw_chisq(df - static_cast<double>(j)));
    for (Eigen::Index i = 0; i < j; ++i) T(j, i) = draw_norm();
  }
}

// Lower Cholesky factor of a symmetric positive definite matrix; false if not PD.
inline bool lower_cholesky(const Ref<const MatrixXd>& S, MatrixXd& L) {
  Eigen::LLT<MatrixXd> llt(S);
  if (llt.info() != Eigen::Success) return false;
  L = llt.matrixL();
  return true;
}

// One Wishart draw W = (L T)(L T)' ~ W_p(L L', df). Writes the lower Cholesky
// factor L T into `out` when chol is true, else the full matrix.
inline void wishart_draw(const Ref<const MatrixXd>& L, double df, bool chol,
                         MatrixXd& T, Ref<MatrixXd> out) {
  bartlett_factor(df, T);
  MatrixXd F = L.triangularView<Eigen::Lower>() * T;  // lower x lower stays lower
  if (chol) {
    out = F;
  } else {
    out.setZero();
    out.selfadjointView<Eigen::Lower>().rankUpdate(F);
    out.triangularView<Eigen::StrictlyUpper>() = out.transpose();
  }
}

// One inverse-Wishart draw M ~ W_p^{-1}(Psi, df) with R the lower Cholesky
// factor of Psi. With U = P T P (the Bartlett factor with rows and columns
// reversed, upper triangular, U U' ~ W_p(I, df)), M = R (U U')^{-1} R' and its
// lower Cholesky factor is R U^{-T}: no inversion of Psi or of a full matrix.
inline void iwishart_draw(const Ref<const MatrixXd>& R, double df, bool chol,
                          MatrixXd& T, Ref<MatrixXd> out) {
  const Eigen::Index p = R.rows();
  bartlett_factor(df, T);
  MatrixXd U = T.reverse();  // reverse rows and columns: upper triangular
  // F' = U^{-1} R'  (F = R U^{-T} is lower triangular)
  MatrixXd Ft = R.transpose();
  U.triangularView<Eigen::Upper>().solveInPlace(Ft);
  if (chol) {
    out = Ft.transpose();
    out.triangularView<Eigen::StrictlyUpper>().setZero();
  } else {
    out.setZero();
    out.selfadjointView<Eigen::Lower>().rankUpdate(Ft.transpose());
    out.triangularView<Eigen::StrictlyUpper>() = out.transpose();
  }
  (void)p;
}

}  // namespace dpcov

#endif
