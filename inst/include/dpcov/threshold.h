// Hard thresholding, projection onto the PSD cone, the local-model per-record
// perturbation, and cross-validation of the threshold with Gram downdating.
#ifndef DPCOV_THRESHOLD_H
#define DPCOV_THRESHOLD_H

#include <RcppEigen.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include "gram.h"
#include "noise.h"
#include "rng.h"

namespace dpcov {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::Ref;
using Eigen::VectorXd;

// Keeps a_ij when |a_ij| > t (strictly, as in both papers), zeroes it
// otherwise. With keep_diag the diagonal is never thresholded.
inline MatrixXd hard_threshold(const Ref<const MatrixXd>& A, double t, bool keep_diag) {
  MatrixXd T = A;
  for (Index j = 0; j < A.cols(); ++j)
    for (Index i = 0; i < A.rows(); ++i)
      if (!(keep_diag && i == j) && !(std::abs(A(i, j)) > t)) T(i, j) = 0.0;
  return T;
}

// Nearest PSD matrix in Frobenius norm: eigenvalues clipped at 0. The input
// is symmetrised first so round-off cannot leak an asymmetric part (halves
// added: A + A' overflows where entries pass half the largest double).
inline MatrixXd psd_project(const Ref<const MatrixXd>& A, Index* n_negative = nullptr) {
  const MatrixXd S = 0.5 * A + 0.5 * A.transpose();
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(S);
  if (es.info() != Eigen::Success) throw std::runtime_error("eigen-decomposition failed");
  const VectorXd& lam = es.eigenvalues();
  Index neg = 0;
  for (Index i = 0; i < lam.size(); ++i)
    if (lam(i) < 0.0) ++neg;
  if (n_negative) *n_negative = neg;
  if (neg == 0) return S;
  const Index n = lam.size();
  if (neg == n) return MatrixXd::Zero(n, n);
  const MatrixXd& V = es.eigenvectors();
  // Mostly negative: V diag(lam+) V' rebuilt from the few positive
  // eigenvalues, whose diagonal is a sum of non-negative terms (subtracting
  // a large negative part left variances of -1e-12 by cancellation). Where
  // that overflows (near the double limit the largest eigenvalue, a
  // rank-one Gram's trace, is Inf while the matrix is finite), S less its
  // negative part.
  if (n - neg < neg) {
    MatrixXd out = MatrixXd::Zero(n, n);
    for (Index i = 0; i < n; ++i)
      if (lam(i) > 0.0) out.noalias() += lam(i) * V.col(i) * V.col(i).transpose();
    if (out.allFinite()) return 0.5 * out + 0.5 * out.transpose();
  }
  MatrixXd out = S;
  for (Index i = 0; i < lam.size(); ++i)
    if (lam(i) < 0.0) out.noalias() -= lam(i) * V.col(i) * V.col(i).transpose();
  out = 0.5 * out + 0.5 * out.transpose();
  // a variance the subtraction's cancellation left below 0 (-7e-16) is set
  // to 0: raising a diagonal entry adds a PSD matrix, so the result stays PSD
  for (Index i = 0; i < n; ++i)
    if (out(i, i) < 0.0) out(i, i) = 0.0;
  return out;
}

// Literal local model: record k (clipped to norm <= clip) sends
// x_k x_k' + R_k with R_k symmetric N(0, sd^2); returns the sum of the
// reports, accumulated without storing them. Draw order: record by record,
// each R_k column by column as in symmetric_gaussian().
inline MatrixXd ldp_report_sum(const Ref<const MatrixXd>& X, double clip, double sd) {
  ClippedGram gram(X.cols(), clip);
  gram.add(X);
  MatrixXd S = gram.result();
  for (Index k = 0; k < X.rows(); ++k) add_symmetric_gaussian(S, sd, draw_norm);
  return S;
}

// Number of candidates t_k < x in an ascending grid (std::lower_bound's
// index), called once per matrix entry in cross-validation, where |a_ij|
// lands at unpredictable places in the grid: branches there mispredict.
// Evenly spaced grids (the default) get an arithmetic guess, off by at most
// one, that a branch-free step corrects (the loops after it are safety nets
// that never run); other grids get a branch-free binary search. The grid is
// padded with -Inf and +Inf so neither needs a bounds test.
class CandidatesBelow {
 public:
  explicit CandidatesBelow(const std::vector<double>& t) : m_(static_cast<Index>(t.size())) {
    u_.reserve(t.size() + 2);
    u_.push_back(-std::numeric_limits<double>::infinity());
    u_.insert(u_.end(), t.begin(), t.end());
    u_.push_back(std::numeric_limits<double>::infinity());
    even_ = m_ >= 2 && t[m_ - 1] > t[0];
    if (even_) {
      t0_ = t[0];
      const double step = (t[m_ - 1] - t[0]) / static_cast<double>(m_ - 1);
      inv_step_ = 1.0 / step;
      // a subnormal step overflows 1 / step: then 0 * Inf is NaN, whose cast
      // to an index is undefined; such grids take the binary search
      even_ = std::isfinite(inv_step_);
      // within a quarter step of the even grid: the guess is off by <= 1
      for (Index k = 1; k < m_ && even_; ++k)
        even_ = std::abs(t[k] - (t0_ + step * static_cast<double>(k))) <= 0.25 * step;
    }
  }

  // count of t_k < x, i.e. the k in 0..m with u[k] < x <= u[k + 1]
  Index operator()(double x) const {
    if (even_) {
      double g = std::min(std::max((x - t0_) * inv_step_ + 0.5, 0.0), static_cast<double>(m_));
      if (!(g == g)) g = 0.0;  // a NaN x: the corrections below place it
      Index k = static_cast<Index>(g);
      k -= (u_[k] >= x) ? 1 : 0;
      k += (u_[k + 1] < x) ? 1 : 0;
      while (k > 0 && u_[k] >= x) --k;
      while (k < m_ && u_[k + 1] < x) ++k;
      return k;
    }
    const double* base = u_.data() + 1;  // binary search of t = u[1..m]
    Index len = m_;
    while (len > 1) {
      const Index half = len / 2;
      base = (base[half - 1] < x) ? base + half : base;
      len -= half;
    }
    return (base - (u_.data() + 1)) + (*base < x ? 1 : 0);
  }

 private:
  std::vector<double> u_;
  Index m_;
  bool even_ = false;
  double t0_ = 0.0, inv_step_ = 0.0;
};

// Squared Frobenius losses ||T_t(A) - H||_F^2 for all m candidates t at
// once, fed one upper-triangle entry (a, h) at a time: the entry is kept for
// the candidates below |a| and then contributes (a - h)^2 instead of h^2, so
// each entry adds its difference to one bucket, and a suffix sum over the
// buckets gives every candidate's loss. O(1) work per entry for even grids.
class ThresholdLosses {
 public:
  ThresholdLosses(const std::vector<double>& t_sorted, bool keep_diag)
      : below_(t_sorted), m_(static_cast<Index>(t_sorted.size())), keep_diag_(keep_diag),
        bucket_(t_sorted.size() + 1, 0.0) {}

  void add(double a, double h, bool diagonal) {
    const double w = diagonal ? 1.0 : 2.0;  // (i, j) stands for (j, i) too
    base_ += w * h * h;
    const Index kept = (keep_diag_ && diagonal) ? m_ : below_(std::abs(a));
    bucket_[kept] += w * ((a - h) * (a - h) - h * h);
  }

  // candidate k keeps the entries with kept > k
  VectorXd losses() const {
    VectorXd loss(m_);
    double acc = 0.0;
    for (Index k = m_ - 1; k >= 0; --k) {
      acc += bucket_[k + 1];
      loss(k) = base_ + acc;
    }
    return loss;
  }

 private:
  CandidatesBelow below_;
  Index m_;
  bool keep_diag_;
  std::vector<double> bucket_;
  double base_ = 0.0;
};

// Squared Frobenius loss ||T_t(A) - H||_F^2 for every candidate threshold t
// in `t_sorted` (ascending).
inline VectorXd threshold_losses(const Ref<const MatrixXd>& A, const Ref<const MatrixXd>& H,
                                 const std::vector<double>& t_sorted, bool keep_diag) {
  ThresholdLosses acc(t_sorted, keep_diag);
  for (Index j = 0; j < A.cols(); ++j)
    for (Index i = 0; i <= j; ++i) acc.add(A(i, j), H(i, j), i == j);
  return acc.losses();
}

// K-fold cross-validation of the threshold. fold[i] in 0..K-1 assigns row i.
// thresholds is m x K (column k: candidate thresholds for training fold k,
// ascending); noise_sd[k] the sd of the noise added to training matrix k.
// downdate = true: one pass builds every held-out Gram, the total is their
// sum, and each fold's training average (total minus held-out, plus noise)
// and held-out average are formed entry by entry inside the loss loop, so no
// p x p matrix is built per fold. downdate = false: the naive reference that
// recomputes each training Gram from its rows and thresholds the matrix for
// every candidate. Both draw the noise in symmetric_gaussian()'s order from
// one PolarNormal stream, so they return the same losses up to round-off.
inline VectorXd cv_threshold(const Ref<const MatrixXd>& X, const std::vector<int>& fold, int K,
                             double clip, const Ref<const MatrixXd>& thresholds,
                             const Ref<const VectorXd>& noise_sd, bool keep_diag,
                             bool downdate) {
  const Index n = X.rows(), p = X.cols(), m = thresholds.rows();
  // held-out Grams (upper triangles) in one pass; total = their sum (the
  // naive path below recomputes its own, so it checks this one too)
  const std::vector<ClippedGram> held = grouped_grams(X, fold, K, clip);
  MatrixXd total = MatrixXd::Zero(p, p);
  for (int k = 0; k < K; ++k) total.triangularView<Eigen::Upper>() += held[k].upper();
  // the simulated noise is 10 x p(p+1)/2 normals for 10 folds: as many
  // seconds as the Grams with R's norm_rand(), 0.6 of that by the polar method
  PolarNormal normal;
  VectorXd loss = VectorXd::Zero(m);
  for (int k = 0; k < K; ++k) {
    const double n_held = static_cast<double>(held[k].n()), n_train = static_cast<double>(n) - n_held;
    const double inv_train = 1.0 / n_train, inv_held = 1.0 / n_held;
    const double sd = noise_sd(k);
    const std::vector<double> t(thresholds.col(k).data(), thresholds.col(k).data() + m);
    if (downdate) {
      const MatrixXd& Hk = held[k].upper();
      ThresholdLosses acc(t, keep_diag);
      // a column's noise is drawn before its losses: interleaving the
      // generator with the loss arithmetic costs 40% more
      VectorXd z = VectorXd::Zero(p);
      for (Index j = 0; j < p; ++j) {
        if (sd > 0)
          for (Index i = 0; i <= j; ++i) z(i) = sd * normal();
        for (Index i = 0; i <= j; ++i)
          acc.add((total(i, j) - Hk(i, j)) * inv_train + z(i), Hk(i, j) * inv_held, i == j);
      }
      loss += acc.losses();
    } else {
      std::vector<Index> train, test;
      for (Index i = 0; i < n; ++i) (fold[i] == k ? test : train).push_back(i);
      ClippedGram g(p, clip), h(p, clip);
      g.add_rows(X, train);
      h.add_rows(X, test);
      MatrixXd A = g.result() / n_train;
      if (sd > 0) A += symmetric_gaussian(p, sd, normal);
      const MatrixXd H = h.result() / n_held;
      for (Index c = 0; c < m; ++c)
        loss(c) += (hard_threshold(A, thresholds(c, k), keep_diag) - H).squaredNorm();
    }
  }
  return loss;
}

}  // namespace dpcov

#endif
