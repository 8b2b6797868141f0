// Gram matrix of row-clipped data in one pass over row blocks.
#ifndef DPCOV_GRAM_H
#define DPCOV_GRAM_H

#include <RcppEigen.h>
#include <cmath>
#include <limits>
#include <vector>

namespace dpcov {

using Eigen::MatrixXd;
using Eigen::Ref;

// Scale factor that shrinks a row of norm `norm` to norm at most `clip`.
inline double clip_scale(double norm, double clip) {
  return (std::isfinite(clip) && norm > clip) ? clip / norm : 1.0;
}

// Accumulates sum_i c_i^2 x_i x_i' with c_i = min(1, clip / ||x_i||). Rows may
// arrive in any number of blocks (chunks of a larger data set); only the lower
// triangle is updated until result().
class ClippedGram {
 public:
  ClippedGram(Eigen::Index p, double clip, Eigen::Index block_rows = 512)
      : gram_(MatrixXd::Zero(p, p)), clip_(clip), block_(block_rows), n_(0),
        n_clipped_(0) {}

  void add(const Ref<const MatrixXd>& X) {
    if (!std::isfinite(clip_)) {  // nothing to clip: one rank update, no row copies
      gram_.selfadjointView<Eigen::Lower>().rankUpdate(X.transpose());
      n_ += X.rows();
      return;
    }
    add_rows_where(X, X.rows(), [](Eigen::Index i) { return i; });
  }

  // The rows of X listed in `rows` (e.g. one cross-validation fold), read in
  // place: no gathered copy of the subset.
  template <typename Index>
  void add_rows(const Ref<const MatrixXd>& X, const std::vector<Index>& rows) {
    add_rows_where(X, static_cast<Eigen::Index>(rows.size()),
                   [&rows](Eigen::Index i) { return static_cast<Eigen::Index>(rows[i]); });
  }

  MatrixXd result() const {
    MatrixXd G = gram_;
    G.triangularView<Eigen::StrictlyUpper>() = G.transpose();
    return G;
  }
  Eigen::Index n() const { return n_; }
  Eigen::Index n_clipped() const { return n_clipped_; }

 private:
  // Rows row_of(0), ..., row_of(n - 1) of X, clipped, in blocks.
  template <typename RowOf>
  void add_rows_where(const Ref<const MatrixXd>& X, Eigen::Index n, RowOf row_of) {
    MatrixXd Bt(gram_.rows(), block_);  // transposed block: rankUpdate wants columns
    for (Eigen::Index start = 0; start < n; start += block_) {
      const Eigen::Index b = std::min(block_, n - start);
      for (Eigen::Index i = 0; i < b; ++i) {
        const Eigen::Index r = row_of(start + i);
        const double s = clip_scale(X.row(r).norm(), clip_);
        if (s < 1.0) ++n_clipped_;
        Bt.col(i) = s * X.row(r).transpose();
      }
      gram_.selfadjointView<Eigen::Lower>().rankUpdate(Bt.leftCols(b));
    }
    n_ += n;
  }

  MatrixXd gram_;
  double clip_;
  Eigen::Index block_;
  Eigen::Index n_;
  Eigen::Index n_clipped_;
};

}  // namespace dpcov

#endif
