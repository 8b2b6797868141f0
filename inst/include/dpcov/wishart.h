// Wishart and inverse-Wishart draws by the Bartlett decomposition.
//
// Draw order (part of the API: the plain-R reference in the tests repeats it):
// for row j = 0..p-1 of the lower Bartlett factor T, first T_jj =
// sqrt(chisq(df - j)), then T_j0, ..., T_j,j-1 ~ N(0, 1). This is the order of
// stats::rWishart, so rwishart() reproduces its draws under the same seed.
#ifndef DPCOV_WISHART_H
#define DPCOV_WISHART_H

#include <RcppEigen.h>
#include <limits>
#include "rng.h"

namespace dpcov {

using Eigen::MatrixXd;
using Eigen::Ref;

// Lower-triangular T with T T' ~ W_p(I, df); df > p - 1 may be real.
// `zero_upper = false` leaves the strictly upper triangle alone, for a
// workspace that is never written there (zeroed once, not once per draw).
// `exact`: the chi-squares with neither tail cut (draw_chisq_exact(), for
// mechanism noise); else R's rchisq(), as stats::rWishart.
inline void bartlett_factor(double df, Ref<MatrixXd> T, bool zero_upper = true, bool exact = false) {
  const Eigen::Index p = T.rows();
  if (zero_upper) T.setZero();
  for (Eigen::Index j = 0; j < p; ++j) {
    const double dfj = df - static_cast<double>(j);
    T(j, j) = std::sqrt(exact ? draw_chisq_exact(dfj) : draw_chisq(dfj));
    for (Eigen::Index i = 0; i < j; ++i) T(j, i) = draw_norm();
  }
}

// Lower Cholesky factor of a symmetric positive definite matrix; false if not
// PD. A non-finite S is not PD, though LLT would let a NaN pivot through.
inline bool lower_cholesky(const Ref<const MatrixXd>& S, MatrixXd& L) {
  if (!S.allFinite()) return false;
  Eigen::LLT<MatrixXd> llt(S);
  if (llt.info() != Eigen::Success) return false;
  L = llt.matrixL();
  return true;
}

// out = F F' for lower-triangular F (out may be a slice of an R array), with
// Ft = F' as workspace: W_ij = Ft.col(i).head(j + 1) . Ft.col(j).head(j + 1)
// for i >= j, written to both triangles (exactly symmetric). About p^3/6
// multiply-adds in contiguous, vectorised dot products: 2-2.6x faster at
// p = 8..100 than a column (axpy) loop or Eigen's triangular product, which
// does three times the arithmetic (measured with the package's -O2 build).
inline void lower_outer(const MatrixXd& F, MatrixXd& Ft, Ref<MatrixXd> out) {
  const Eigen::Index p = F.rows();
  Ft = F.transpose();
  for (Eigen::Index j = 0; j < p; ++j)
    for (Eigen::Index i = j; i < p; ++i) {
      const double w = Ft.col(i).head(j + 1).dot(Ft.col(j).head(j + 1));
      out(i, j) = w;
      out(j, i) = w;
    }
}

// Every off-diagonal entry exactly zero.
inline bool exactly_diagonal(const Ref<const MatrixXd>& S) {
  for (Eigen::Index j = 0; j < S.cols(); ++j)
    for (Eigen::Index i = 0; i < S.rows(); ++i)
      if (i != j && S(i, j) != 0.0) return false;
  return true;
}

// How a scale's lower Cholesky factor L is applied to the Bartlett factor T:
// a dense L needs the triangular product L T; a diagonal one (Sigma exactly
// diagonal) only scales rows, L T = diag(l) T, and the identity not even that.
enum class ScaleKind { dense, diagonal, identity };

inline ScaleKind scale_kind(const MatrixXd& L) {
  if (!exactly_diagonal(L)) return ScaleKind::dense;
  return (L.diagonal().array() == 1.0).all() ? ScaleKind::identity : ScaleKind::diagonal;
}

// Repeated draws from W_p(Sigma, df) or W_p^{-1}(Psi, df) for one scale
// matrix, factored once; workspaces are reused so small-p draws do not pay for
// heap allocation. Results are written through `out`, which may be a slice of
// an R array.
class WishartSampler {
 public:
  // `scale_chol` is the lower Cholesky factor of Sigma (Wishart) or Psi
  // (inverse-Wishart).
  // `exact`: Bartlett chi-squares with neither tail cut (mechanism noise).
  WishartSampler(const MatrixXd& scale_chol, double df, bool exact = false)
      : Lt_(scale_chol.transpose()), l_(scale_chol.diagonal()), kind_(scale_kind(scale_chol)),
        df_(df), exact_(exact), p_(scale_chol.rows()), T_(MatrixXd::Zero(p_, p_)), F_(p_, p_), W_(p_, p_) {}

  // W = (L T)(L T)'; its lower Cholesky factor is L T. A diagonal L only
  // scales T's rows; the identity leaves T as it is.
  void wishart(bool chol, Ref<MatrixXd> out) {
    bartlett_factor(df_, T_, false, exact_);  // T_'s upper triangle stays zero
    switch (kind_) {
      case ScaleKind::identity:
        finish(chol, T_, out);
        return;
      case ScaleKind::diagonal:
        F_.noalias() = l_.asDiagonal() * T_;
        break;
      case ScaleKind::dense:
        // (L T)_ij = sum_{k = j..i} L_ik T_kj for i >= j (both lower triangular):
        // contiguous dots of a column of L' and one of T
        F_.setZero();
        for (Eigen::Index j = 0; j < p_; ++j)
          for (Eigen::Index i = j; i < p_; ++i)
            F_(i, j) = Lt_.col(i).segment(j, i - j + 1).dot(T_.col(j).segment(j, i - j + 1));
        break;
    }
    finish(chol, F_, out);
  }

  // With U = P T P (the Bartlett factor with rows and columns reversed: upper
  // triangular, U U' ~ W_p(I, df)), M = L (U U')^{-1} L' ~ W_p^{-1}(L L', df)
  // and its lower Cholesky factor is L U^{-T}: no full matrix is inverted.
  // Returns false when the draw cannot be represented: a Bartlett chi-square
  // T_jj^2 fell below the normal range (it underflows to 0 or a subnormal
  // number for df - j close to 0, e.g. 70% of draws at df = p - 1 + 1e-3),
  // so M = L (U U')^{-1} L' is not computed accurately and has entries of the
  // order of 1 / T_jj^2 > 4.5e307; or the result is not finite. `out` is
  // then written but must not be used.
  bool inverse_wishart(bool chol, Ref<MatrixXd> out) {
    bartlett_factor(df_, T_, false, exact_);  // T_'s upper triangle stays zero
    bool ok = true;
    // (R's rchisq() returns Inf with probability about 2^-54, whose inverse
    // would be a singular draw: not finite, not representable)
    for (Eigen::Index j = 0; j < p_; ++j)
      if (!(std::isfinite(T_(j, j)) && T_(j, j) * T_(j, j) >= std::numeric_limits<double>::min())) ok = false;
    W_ = T_.reverse();                                     // U, upper triangular
    F_ = Lt_;
    W_.triangularView<Eigen::Upper>().solveInPlace(F_);    // U^{-1} L' = (L U^{-T})'
    F_.transposeInPlace();
    F_.triangularView<Eigen::StrictlyUpper>().setZero();   // exact zeros above
    finish(chol, F_, out);
    return ok && out.allFinite();
  }

 private:
  void finish(bool chol, const MatrixXd& F, Ref<MatrixXd> out) {
    if (chol) {
      out = F;
      return;
    }
    lower_outer(F, W_, out);
  }

  MatrixXd Lt_;  // L', whose columns are L's rows
  Eigen::VectorXd l_;
  ScaleKind kind_;
  double df_;
  bool exact_;
  Eigen::Index p_;
  MatrixXd T_, F_, W_;  // T_ is only ever written on and below its diagonal
};

}  // namespace dpcov

#endif
