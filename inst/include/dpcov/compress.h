// Compression by a Gaussian random projection (Zhou, Ligett and Wasserman):
// release C = Phi X (+ Delta), Phi m x n with iid N(0, 1/n) entries, with the
// tail truncation of their Procedure 4.1.
//
// Two samplers with the same output distribution:
// * gram path: given X, the rows of Phi X are iid N(0, S), S = X'X / n, so
//   C = Z R with Z m x p iid N(0, 1) and R the symmetric square root of S
//   (unique, defined for singular S): O(n p^2 + m p^2).
// * explicit path: Phi is generated literally, in column blocks (m x b tiles,
//   filled column-major exactly like matrix(rnorm(m * n), m, n)), and
//   C += tile * X[rows of the block]; memory O(m b), never m x n.
#ifndef DPCOV_COMPRESS_H
#define DPCOV_COMPRESS_H

#include <RcppEigen.h>
#include <cmath>
#include <stdexcept>
#include "rng.h"
#include "gram.h"

namespace dpcov {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::Ref;
using Eigen::VectorXd;

// X'X: one symmetric rank-k update and nothing else (ClippedGram would also
// sum the columns, a second read of X that compression does not need). Its
// diagonal tells the caller about non-finite entries: x_j'x_j is NaN exactly
// when column j holds a NaN, +Inf when it holds +-Inf or its squares overflow.
inline MatrixXd crossprod_lower(const Ref<const MatrixXd>& X) {
  MatrixXd G = MatrixXd::Zero(X.cols(), X.cols());
  G.selfadjointView<Eigen::Upper>().rankUpdate(X.transpose());
  G.triangularView<Eigen::StrictlyLower>() = G.transpose();
  return G;
}

// Column scale factors s_j = sqrt(n) / ||x_j|| that give every column squared
// norm n, read off the diagonal of X'X (no second pass over X).
inline VectorXd normalizing_scales(const MatrixXd& G, Index n) {
  return (static_cast<double>(n) / G.diagonal().array()).sqrt().matrix();
}

// Symmetric positive semidefinite square root R = V diag(sqrt(max(l, 0))) V'.
// Unique, so the gram path is reproducible against any correct eigensolver;
// negative eigenvalues (rounding in a singular S) are set to zero. Where
// S_jj = 0 (an all-zero column of the data) row and column j of S are zero,
// and so are those of the exact root: set exactly, not left at rounding
// error, so that such a column is compressed to exact zeros.
inline MatrixXd psd_sqrt(const MatrixXd& S) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> eig(S);
  if (eig.info() != Eigen::Success) throw std::runtime_error("eigendecomposition failed");
  const VectorXd root = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  MatrixXd R = eig.eigenvectors() * root.asDiagonal() * eig.eigenvectors().transpose();
  for (Index j = 0; j < S.rows(); ++j) {
    if (S(j, j) == 0.0) {
      R.row(j).setZero();
      R.col(j).setZero();
    }
  }
  return R;
}

// Procedure 4.1 on the scale of normalised columns:
// max_jk |(C'C/m)_jk - ref_jk| w_j w_k <= threshold, w_j = 1 / sqrt(S_jj)
// with S = E C'C/m the data's X'X/n (as compressed: normalised or not). The
// threshold, Delta_max and Lemma 4.4 are for columns of squared norm n, where
// S_jj = 1 and this is the test as printed (up to rounding); unnormalised
// columns are kept or discarded as their normalised versions would be, in any
// units. An all-zero column (S_jj = 0, compressed to exact zeros) has w_j = 1.
inline VectorXd truncation_weights(const VectorXd& second_moments) {
  VectorXd w(second_moments.size());
  for (Index j = 0; j < w.size(); ++j) {
    w(j) = second_moments(j) > 0.0 ? 1.0 / std::sqrt(second_moments(j)) : 1.0;
  }
  return w;
}

// Fills M column by column with iid N(0, sd^2): the order of
// matrix(rnorm(rows * cols, sd = sd), rows, cols).
inline void fill_gaussian(Eigen::Ref<MatrixXd> M, double sd) {
  for (Index j = 0; j < M.cols(); ++j)
    for (Index i = 0; i < M.rows(); ++i) M(i, j) = sd * draw_norm();
}

// A root R with R'R = S taken on the correlation scale, R = sqrt(P) D with
// P = D^-1 S D^-1 and D = diag(sqrt(S_jj)) (1 where S_jj = 0): the same law
// for Z R as the symmetric root of S, but accurate per column whatever the
// columns' units (the symmetric root of a raw-unit S carries an absolute
// error of eps ||S||, which swamps a column 1e8 times smaller than another).
// With normalised columns (S_jj = 1) it is the symmetric root.
inline MatrixXd scaled_psd_root(const MatrixXd& S) {
  const Index p = S.rows();
  VectorXd d(p);
  for (Index j = 0; j < p; ++j) d(j) = S(j, j) > 0.0 ? std::sqrt(S(j, j)) : 1.0;
  const VectorXd dinv = d.cwiseInverse();
  const MatrixXd P = dinv.asDiagonal() * S * dinv.asDiagonal();
  return psd_sqrt(P) * d.asDiagonal();
}

// Gram path: one draw of Z R, Z m x p iid N(0, 1), R'R = S.
class GramCompressor {
 public:
  explicit GramCompressor(const MatrixXd& S)
      : root_(scaled_psd_root(S)), weights_(truncation_weights(S.diagonal())) {}
  MatrixXd draw(Index m) const {
    MatrixXd Z(m, root_.rows());
    fill_gaussian(Z, 1.0);
    return Z * root_;
  }
  const VectorXd& weights() const { return weights_; }
 private:
  MatrixXd root_;
  VectorXd weights_;
};

// Explicit path: Phi X with Phi drawn in m x b tiles; X's columns are
// multiplied by `scales` (all ones when not normalising) after the product,
// since (Phi X) diag(s) = Phi (X diag(s)).
class ExplicitCompressor {
 public:
  // the truncation's weights from the scaled columns' squared norms over n
  // (one O(np) pass; the R side has refused columns whose squares overflow)
  ExplicitCompressor(const Ref<const MatrixXd>& X, const VectorXd& scales,
                     Index block_cols = 256)
      : X_(X), scales_(scales), block_(block_cols),
        weights_(truncation_weights((X.colwise().squaredNorm().transpose().array() *
                                     scales.array().square()).matrix() /
                                    static_cast<double>(X.rows()))) {}
  MatrixXd draw(Index m) const {
    const Index n = X_.rows();
    const double sd = 1.0 / std::sqrt(static_cast<double>(n));
    MatrixXd C = MatrixXd::Zero(m, X_.cols());
    MatrixXd tile(m, block_);
    for (Index start = 0; start < n; start += block_) {
      const Index b = std::min(block_, n - start);
      fill_gaussian(tile.leftCols(b), sd);
      C.noalias() += tile.leftCols(b) * X_.middleRows(start, b);
    }
    return C * scales_.asDiagonal();
  }
  const VectorXd& weights() const { return weights_; }
 private:
  const Ref<const MatrixXd> X_;
  VectorXd scales_;
  Index block_;
  VectorXd weights_;
};

// Procedure 4.1's test, with the compressor's truncation_weights(). C'C / m
// is formed from C / sqrt(m): C'C itself overflowed on rows in the data's
// units near the double range, and a draw whose test read Inf was discarded.
inline bool within_truncation(const MatrixXd& C, const MatrixXd& ref, double threshold,
                              const VectorXd& w) {
  const MatrixXd S = crossprod_lower(C / std::sqrt(static_cast<double>(C.rows())));
  const Index p = S.cols();
  for (Index k = 0; k < p; ++k)
    for (Index j = 0; j < p; ++j)
      if (!(std::abs(S(j, k) - ref(j, k)) * w(j) * w(k) <= threshold)) return false;
  return true;
}

// Draws until an output passes the truncation test (when `truncate`), at most
// `max_tries` times, then adds the affine noise Delta (iid N(0, affine_sd^2),
// column-major). Returns false, and leaves C untouched, when every try was
// discarded. The number of discarded draws is deliberately not reported.
template <typename Compressor>
bool compress_truncated(const Compressor& comp, Index m, bool truncate,
                        const MatrixXd& ref, double threshold, int max_tries,
                        double affine_sd, MatrixXd& C) {
  for (int t = 0; t < max_tries; ++t) {
    MatrixXd draw = comp.draw(m);
    if (!truncate || within_truncation(draw, ref, threshold, comp.weights())) {
      if (affine_sd > 0) {
        MatrixXd Delta(m, draw.cols());
        fill_gaussian(Delta, affine_sd);
        draw += Delta;
      }
      C.swap(draw);
      return true;
    }
  }
  return false;
}

}  // namespace dpcov

#endif
