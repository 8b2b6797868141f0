// Hard thresholding, projection onto the PSD cone, the local-model per-record
// perturbation, and cross-validation of the threshold with Gram downdating.
#ifndef DPCOV_THRESHOLD_H
#define DPCOV_THRESHOLD_H

#include <RcppEigen.h>
#include <algorithm>
#include <cmath>
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
// is symmetrised first so round-off cannot leak an asymmetric part.
inline MatrixXd psd_project(const Ref<const MatrixXd>& A, Index* n_negative = nullptr) {
  const MatrixXd S = 0.5 * (A + A.transpose());
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(S);
  if (es.info() != Eigen::Success) throw std::runtime_error("eigen-decomposition failed");
  VectorXd lam = es.eigenvalues();
  Index neg = 0;
  for (Index i = 0; i < lam.size(); ++i)
    if (lam(i) < 0.0) { lam(i) = 0.0; ++neg; }
  if (n_negative) *n_negative = neg;
  if (neg == 0) return S;
  const MatrixXd& V = es.eigenvectors();
  MatrixXd out = V * lam.asDiagonal() * V.transpose();
  return 0.5 * (out + out.transpose());
}

// Literal local model: record k (clipped to norm <= clip) sends
// x_k x_k' + R_k with R_k symmetric N(0, sd^2); returns the sum of the
// reports, accumulated without storing them. Draw order: record by record,
// each R_k column by column as in symmetric_gaussian().
inline MatrixXd ldp_report_sum(const Ref<const MatrixXd>& X, double clip, double sd) {
  const Index n = X.rows(), p = X.cols();
  ClippedGram gram(p, clip);
  gram.add(X);
  MatrixXd S = gram.result();
  for (Index k = 0; k < n; ++k)
    for (Index j = 0; j < p; ++j)
      for (Index i = 0; i <= j; ++i) {
        const double z = sd * draw_norm();
        S(i, j) += z;
        if (i != j) S(j, i) += z;
      }
  return S;
}

// Squared Frobenius loss ||T_t(A) - H||_F^2 for every candidate threshold t
// in `t_sorted` (ascending), in O(p^2 log m) for all m candidates: entry
// (i, j) is kept for the candidates below |a_ij| and contributes
// (a - h)^2 - h^2 on top of ||H||_F^2 for each of them.
inline VectorXd threshold_losses(const Ref<const MatrixXd>& A, const Ref<const MatrixXd>& H,
                                 const std::vector<double>& t_sorted, bool keep_diag) {
  const Index p = A.rows();
  const Index m = static_cast<Index>(t_sorted.size());
  std::vector<double> bucket(m + 1, 0.0);
  double base = 0.0;
  for (Index j = 0; j < p; ++j)
    for (Index i = 0; i <= j; ++i) {
      const double w = (i == j) ? 1.0 : 2.0;
      const double a = A(i, j), h = H(i, j);
      base += w * h * h;
      const double gain = w * ((a - h) * (a - h) - h * h);
      Index kept;  // number of candidates t with |a| > t
      if (keep_diag && i == j) {
        kept = m;
      } else {
        kept = std::lower_bound(t_sorted.begin(), t_sorted.end(), std::abs(a)) - t_sorted.begin();
      }
      bucket[kept] += gain;
    }
  // candidate k keeps the entries with kept > k
  VectorXd loss(m);
  double acc = 0.0;
  for (Index k = m - 1; k >= 0; --k) {
    acc += bucket[k + 1];
    loss(k) = base + acc;
  }
  return loss;
}

// K-fold cross-validation of the threshold. fold[i] in 0..K-1 assigns row i.
// thresholds is m x K (column k: candidate thresholds for training fold k,
// ascending); noise_sd[k] the sd of the noise added to training matrix k.
// downdate = true: one pass builds every held-out Gram, the total is their
// sum and each training Gram is total minus held-out. downdate = false: the
// naive reference that recomputes each training Gram from its rows and
// thresholds the matrix for every candidate. Both draw the noise in the same
// order, so they return the same losses up to round-off.
inline VectorXd cv_threshold(const Ref<const MatrixXd>& X, const std::vector<int>& fold, int K,
                             double clip, const Ref<const MatrixXd>& thresholds,
                             const Ref<const VectorXd>& noise_sd, bool keep_diag,
                             bool downdate) {
  const Index n = X.rows(), p = X.cols(), m = thresholds.rows();
  std::vector<Index> nk(K, 0);
  for (Index i = 0; i < n; ++i) ++nk[fold[i]];
  // row indices of each fold (the Grams read them in place)
  std::vector<std::vector<Index>> rows(K);
  for (Index i = 0; i < n; ++i) rows[fold[i]].push_back(i);
  std::vector<MatrixXd> held(K);
  MatrixXd total = MatrixXd::Zero(p, p);
  for (int k = 0; k < K; ++k) {
    ClippedGram g(p, clip);
    g.add_rows(X, rows[k]);
    held[k] = g.result();
    total += held[k];
  }
  VectorXd loss = VectorXd::Zero(m);
  for (int k = 0; k < K; ++k) {
    const double n_train = static_cast<double>(n - nk[k]);
    MatrixXd A;
    if (downdate) {
      A = (total - held[k]) / n_train;
    } else {
      std::vector<Index> train;
      for (int l = 0; l < K; ++l)
        if (l != k) train.insert(train.end(), rows[l].begin(), rows[l].end());
      ClippedGram g(p, clip);
      g.add_rows(X, train);
      A = g.result() / n_train;
    }
    if (noise_sd(k) > 0) A += symmetric_gaussian(p, noise_sd(k));
    const MatrixXd H = held[k] / static_cast<double>(nk[k]);
    if (downdate) {
      std::vector<double> t(thresholds.col(k).data(), thresholds.col(k).data() + m);
      loss += threshold_losses(A, H, t, keep_diag);
    } else {
      for (Index c = 0; c < m; ++c)
        loss(c) += (hard_threshold(A, thresholds(c, k), keep_diag) - H).squaredNorm();
    }
  }
  return loss;
}

}  // namespace dpcov

#endif
