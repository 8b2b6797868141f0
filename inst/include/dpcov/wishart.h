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

// out = F F' for lower-triangular F (out may be a slice of an R array): the
// lower triangle W_ij = sum_{k <= j} F_ik F_jk, then mirrored. About p^3/6
// multiply-adds, a third of a general product; the inner loop runs down
// column k of F and column j of out (both contiguous).
inline void lower_outer(const MatrixXd& F, Ref<MatrixXd> out) {
  const Eigen::Index p = F.rows();
  for (Eigen::Index j = 0; j < p; ++j) {
    double* wj = out.col(j).data();
    for (Eigen::Index i = j; i < p; ++i) wj[i] = 0.0;
    for (Eigen::Index k = 0; k <= j; ++k) {
      const double f = F(j, k);
      const double* fk = F.col(k).data();
      for (Eigen::Index i = j; i < p; ++i) wj[i] += fk[i] * f;
    }
  }
  for (Eigen::Index j = 0; j < p; ++j)
    for (Eigen::Index i = j + 1; i < p; ++i) out(j, i) = out(i, j);
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
  WishartSampler(const MatrixXd& scale_chol, double df)
      : L_(scale_chol), l_(scale_chol.diagonal()), kind_(scale_kind(scale_chol)), df_(df),
        p_(scale_chol.rows()), T_(p_, p_), F_(p_, p_), W_(p_, p_) {}

  // W = (L T)(L T)'; its lower Cholesky factor is L T. With L = diag(l),
  // W = diag(l) T T' diag(l): T T' is formed and its entries scaled.
  void wishart(bool chol, Ref<MatrixXd> out) {
    bartlett_factor(df_, T_);
    if (kind_ == ScaleKind::dense) {
      if (p_ <= kSmall) {
        for (Eigen::Index j = 0; j < p_; ++j)
          for (Eigen::Index i = 0; i < p_; ++i) {
            double acc = 0.0;
            for (Eigen::Index k = j; k <= i; ++k) acc += L_(i, k) * T_(k, j);
            F_(i, j) = acc;  // zero above the diagonal (empty sum)
          }
      } else {
        F_.noalias() = L_.triangularView<Eigen::Lower>() * T_;
      }
      finish(chol, F_, out);
      return;
    }
    if (chol) {
      out = T_;
      if (kind_ == ScaleKind::diagonal) out.array().colwise() *= l_.array();
      return;
    }
    outer(T_, out);
    if (kind_ == ScaleKind::diagonal) {
      for (Eigen::Index j = 0; j < p_; ++j)
        out.col(j).array() *= l_.array() * l_(j);
    }
  }

  // With U = P T P (the Bartlett factor with rows and columns reversed: upper
  // triangular, U U' ~ W_p(I, df)), M = L (U U')^{-1} L' ~ W_p^{-1}(L L', df)
  // and its lower Cholesky factor is L U^{-T}: no full matrix is inverted.
  void inverse_wishart(bool chol, Ref<MatrixXd> out) {
    bartlett_factor(df_, T_);
    W_ = T_.reverse();                                     // U, upper triangular
    F_ = L_.transpose();
    W_.triangularView<Eigen::Upper>().solveInPlace(F_);    // U^{-1} L' = (L U^{-T})'
    F_.transposeInPlace();
    F_.triangularView<Eigen::StrictlyUpper>().setZero();   // exact zeros above
    finish(chol, F_, out);
  }

 private:
  void finish(bool chol, const MatrixXd& F, Ref<MatrixXd> out) {
    if (chol) {
      out = F;
      return;
    }
    outer(F, out);
  }

  // F F' for lower-triangular F: plain dot products up to kSmall, the
  // column loops of lower_outer() up to kOuterLoops;
  // above, Eigen's blocked (vectorised) triangular product wins despite doing
  // three times the arithmetic (bench/samplers.R).
  void outer(const MatrixXd& F, Ref<MatrixXd> out) {
    if (p_ <= kSmall) {  // dot products, each written to both triangles
      for (Eigen::Index j = 0; j < p_; ++j)
        for (Eigen::Index i = j; i < p_; ++i) {
          double acc = 0.0;
          for (Eigen::Index k = 0; k <= j; ++k) acc += F(i, k) * F(j, k);
          out(i, j) = acc;
          out(j, i) = acc;
        }
      return;
    }
    if (p_ <= kOuterLoops) {
      lower_outer(F, out);
      return;
    }
    // A triangular product into a plain matrix: a rank update written straight
    // into a strided Ref (an R array slice) measured about 10x slower at p = 100.
    W_.noalias() = F.triangularView<Eigen::Lower>() * F.transpose();
    out = W_;
  }

  // Below this size Eigen's blocked products cost more in dispatch than the
  // arithmetic; plain loops win (bench/samplers.R, p = 5).
  static constexpr Eigen::Index kSmall = 12;
  static constexpr Eigen::Index kOuterLoops = 64;

  MatrixXd L_;
  Eigen::VectorXd l_;
  ScaleKind kind_;
  double df_;
  Eigen::Index p_;
  MatrixXd T_, F_, W_;
};

}  // namespace dpcov

#endif
