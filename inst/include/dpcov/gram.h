// Gram matrix of row-clipped data in one pass over row blocks.
#ifndef DPCOV_GRAM_H
#define DPCOV_GRAM_H

#include <RcppEigen.h>
#include <algorithm>
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

// Accumulates sum_i c_i^2 x_i x_i' and sum_i c_i x_i with c_i = min(1, clip / ||x_i||)
// (the column sums let a private mean be released from the same pass). Rows may
// arrive in any number of blocks (chunks of a larger data set); only the upper
// triangle is updated until result().
//
// Non-finite entries (NA/NaN, +-Inf) are detected in the same pass, so callers
// need no separate scan of the data: a row's squared norm, or a column's
// diagonal entry of the Gram, is non-finite exactly when the row or column
// holds one (or its squares overflow), and only then are its entries looked
// at. has_nan() / has_inf() report them; the statistics are then meaningless
// and the caller must refuse the data.
class ClippedGram {
 public:
  ClippedGram(Eigen::Index p, double clip, Eigen::Index block_rows = 512)
      : gram_(MatrixXd::Zero(p, p)), sum_(Eigen::VectorXd::Zero(p)), clip_(clip), block_(block_rows), n_(0),
        n_clipped_(0) {}

  void add(const Ref<const MatrixXd>& X) {
    if (!std::isfinite(clip_)) {  // nothing to clip: one rank update, no row copies
      gram_.selfadjointView<Eigen::Upper>().rankUpdate(X.transpose());
      sum_ += X.colwise().sum().transpose();
      n_ += X.rows();
      // x_j'x_j is NaN iff column j holds a NaN, +Inf iff it holds +-Inf or overflows
      if (!gram_.diagonal().allFinite()) scan_nonfinite(X);
      return;
    }
    add_rows_where(X, X.rows(), [](Eigen::Index i) { return i; });
  }

  // The rows of X listed in `rows` (e.g. one cross-validation fold), gathered
  // a block at a time: the subset is never copied whole.
  template <typename Index>
  void add_rows(const Ref<const MatrixXd>& X, const std::vector<Index>& rows) {
    add_rows_where(X, static_cast<Eigen::Index>(rows.size()),
                   [&rows](Eigen::Index i) { return static_cast<Eigen::Index>(rows[i]); });
  }

  MatrixXd result() const {
    MatrixXd G = gram_;
    G.triangularView<Eigen::StrictlyLower>() = G.transpose();
    return G;
  }
  // The accumulator itself: only its upper triangle (i <= j) is meaningful.
  // Readers that walk column j over rows 0..j skip result()'s full copy.
  const MatrixXd& upper() const { return gram_; }
  // Column sums of the clipped rows.
  const Eigen::VectorXd& sum() const { return sum_; }
  Eigen::Index n() const { return n_; }
  Eigen::Index n_clipped() const { return n_clipped_; }
  bool has_nan() const { return has_nan_; }
  bool has_inf() const { return has_inf_; }

  // Clips the rows of B in place and adds B'B: for callers that gather
  // their own blocks (grouped_grams() below).
  void add_block(Eigen::Ref<MatrixXd> B) {
    Eigen::ArrayXd sq = Eigen::ArrayXd::Zero(B.rows());
    if (std::isfinite(clip_))
      for (Eigen::Index c = 0; c < B.cols(); ++c) sq += B.col(c).array().square();
    accumulate(B, sq);
  }

 private:
  // Rows row_of(0), ..., row_of(n - 1) of X in blocks, gathered column by
  // column (X is column-major: reading it row by row would touch a cache line
  // per entry), with the squared row norms summed on the way.
  template <typename RowOf>
  void add_rows_where(const Ref<const MatrixXd>& X, Eigen::Index n, RowOf row_of) {
    const Eigen::Index p = gram_.rows();
    MatrixXd buf(std::min(block_, n), p);
    Eigen::ArrayXd sq(buf.rows());
    for (Eigen::Index start = 0; start < n; start += block_) {
      const Eigen::Index b = std::min(block_, n - start);
      sq.head(b).setZero();
      for (Eigen::Index c = 0; c < p; ++c) {
        const double* xc = X.col(c).data();
        double* bc = buf.col(c).data();
        for (Eigen::Index i = 0; i < b; ++i) {
          bc[i] = xc[row_of(start + i)];
          sq(i) += bc[i] * bc[i];
        }
      }
      accumulate(buf.topRows(b), sq.head(b));
    }
  }

  void scan_nonfinite(const Ref<const MatrixXd>& X) {
    for (Eigen::Index c = 0; c < X.cols(); ++c) note_nonfinite(X.col(c));
  }

  // B's rows scaled to norm <= clip (sq: their squared norms), then B'B added.
  void accumulate(Eigen::Ref<MatrixXd> B, Eigen::Ref<Eigen::ArrayXd> sq) {
    if (std::isfinite(clip_)) {
      Eigen::Index clipped = 0;
      for (Eigen::Index i = 0; i < B.rows(); ++i) {
        if (!std::isfinite(sq(i)) && note_nonfinite(B.row(i))) {
          B.row(i).setZero();  // refused by the caller; keep the sums finite meanwhile
          sq(i) = 1.0;
          continue;
        }
        double norm = std::sqrt(sq(i));
        // the squares overflowed: stableNorm() scales before squaring
        if (!std::isfinite(norm)) norm = B.row(i).stableNorm();
        sq(i) = clip_scale(norm, clip_);  // now the row's scale factor
        if (sq(i) < 1.0) ++clipped;
      }
      if (clipped > 0) B.array().colwise() *= sq;
      n_clipped_ += clipped;
    }
    gram_.selfadjointView<Eigen::Upper>().rankUpdate(B.transpose());
    sum_ += B.colwise().sum().transpose();
    n_ += B.rows();
  }

  // Records the NaN / Inf entries of a row or column; false when they are all
  // finite (a row whose squares overflowed).
  template <typename Row>
  bool note_nonfinite(const Row& r) {
    bool found = false;
    for (Eigen::Index c = 0; c < r.size(); ++c) {
      if (std::isnan(r(c))) has_nan_ = found = true;
      else if (std::isinf(r(c))) has_inf_ = found = true;
    }
    return found;
  }

  MatrixXd gram_;
  Eigen::VectorXd sum_;
  double clip_;
  Eigen::Index block_;
  Eigen::Index n_;
  Eigen::Index n_clipped_;
  bool has_nan_ = false;
  bool has_inf_ = false;
};

// Clipped Grams of K disjoint row groups (group[i] in 0..K-1, e.g. CV folds)
// in one sequential pass over X: each chunk of rows is scattered, column by
// column, into one buffer where the groups sit contiguously, and each group's
// part is one rank update. Gathering each group separately would read X once
// per group, since a random fold's rows touch nearly every cache line.
inline std::vector<ClippedGram> grouped_grams(const Ref<const MatrixXd>& X,
                                              const std::vector<int>& group, int K, double clip,
                                              Eigen::Index rows_per_group = 128) {
  const Eigen::Index n = X.rows(), p = X.cols();
  std::vector<ClippedGram> grams;
  grams.reserve(K);
  for (int k = 0; k < K; ++k) grams.emplace_back(p, clip);
  const Eigen::Index chunk = std::min(n, rows_per_group * K);
  MatrixXd buf(chunk, p);
  std::vector<Eigen::Index> count(K), offset(K + 1), slot(chunk);
  for (Eigen::Index start = 0; start < n; start += chunk) {
    const Eigen::Index b = std::min(chunk, n - start);
    std::fill(count.begin(), count.end(), 0);
    for (Eigen::Index i = 0; i < b; ++i) ++count[group[start + i]];
    offset[0] = 0;
    for (int k = 0; k < K; ++k) offset[k + 1] = offset[k] + count[k];
    std::vector<Eigen::Index> next(offset.begin(), offset.end() - 1);
    for (Eigen::Index i = 0; i < b; ++i) slot[i] = next[group[start + i]]++;
    for (Eigen::Index c = 0; c < p; ++c) {
      const double* xc = X.col(c).data() + start;
      double* bc = buf.col(c).data();
      for (Eigen::Index i = 0; i < b; ++i) bc[slot[i]] = xc[i];
    }
    for (int k = 0; k < K; ++k)
      if (count[k] > 0) grams[k].add_block(buf.middleRows(offset[k], count[k]));
  }
  return grams;
}

}  // namespace dpcov

#endif
