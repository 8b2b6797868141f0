// Literal constructions of Sheffet's Algorithms 1-3 (kept to validate the
// Bartlett fast paths), general-factor Wishart draws, and the streaming data
// generator of the paper's regression experiments (Section 3.1 / 6.2).
#ifndef DPCOV_SHEFFET_H
#define DPCOV_SHEFFET_H

#include <RcppEigen.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include "rng.h"
#include "gram.h"
#include "wishart.h"

namespace dpcov {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::Ref;
using Eigen::VectorXd;

// (S T)(S T)' with T T' ~ W_d(I, df) by Bartlett: a draw from W_d(S S', df)
// for ANY square S (a Cholesky factor, or a symmetric square root when S S'
// is singular). With exact = false, the same random numbers, in the same
// order, as rwishart(); exact = true draws the chi-squares as the
// mechanisms do (draw_chisq_exact()).
// A diagonal S (Algorithm 3's W_d(B^2 I, k)) needs no product: S T scales
// T's rows, and (S T)(S T)' exploits that S T is triangular.
// `exact`: the chi-squares with neither tail cut (the mechanisms' noise).
inline MatrixXd wishart_factor_draw(const Ref<const MatrixXd>& S, double df, bool exact = false) {
  const Index d = S.rows();
  MatrixXd T(d, d);
  bartlett_factor(df, T, true, exact);
  if (exactly_diagonal(S)) {
    const MatrixXd F = S.diagonal().asDiagonal() * T;
    MatrixXd W(d, d), Ft(d, d);
    lower_outer(F, Ft, W);
    return W;
  }
  MatrixXd F = S * T.triangularView<Eigen::Lower>();
  MatrixXd W = MatrixXd::Zero(d, d);
  W.selfadjointView<Eigen::Lower>().rankUpdate(F);
  W.triangularView<Eigen::StrictlyUpper>() = W.transpose();
  return W;
}

// Algorithm 1/2 literally: P = R A' with R an r x (n + d) matrix of iid
// N(0, 1) and A' = [clipped A; w I_d] (just A, r x n, when w = 0: the else
// branch of Algorithm 2); returns P'P (the caller divides by r).
// R is never materialised: its columns are drawn block by block, one block
// per block of rows of A', and P accumulates R_block A'_block. Draw order:
// blocks in row order of A', within a block column by column.
inline MatrixXd jl_project_gram(const Ref<const MatrixXd>& A, double clip, double w,
                                Index r, Index block_cells = (1 << 20)) {
  const Index n = A.rows(), d = A.cols();
  const Index rows = n + (w > 0 ? d : 0);
  const Index block = std::max<Index>(1, std::min<Index>(rows, block_cells / std::max<Index>(r, 1)));
  MatrixXd P = MatrixXd::Zero(r, d);
  MatrixXd Rb(r, block), Ab(block, d);
  Index start = 0;
  while (start < rows) {
    const Index b = std::min(block, rows - start);
    for (Index i = 0; i < b; ++i) {
      const Index row = start + i;
      if (row < n) {
        Ab.row(i) = clip_row(A.row(row), clip);
      } else {
        Ab.row(i).setZero();
        Ab(i, row - n) = w;
      }
    }
    for (Index j = 0; j < b; ++j)
      for (Index i = 0; i < r; ++i) Rb(i, j) = draw_norm();
    P.noalias() += Rb.leftCols(b) * Ab.topRows(b);
    start += b;
  }
  MatrixXd G = MatrixXd::Zero(d, d);
  G.selfadjointView<Eigen::Lower>().rankUpdate(P.transpose());
  G.triangularView<Eigen::StrictlyUpper>() = G.transpose();
  return G;
}

// Algorithm 3 literally: sum of k outer products v v', v ~ N(0, scale^2 I_d),
// drawn in blocks of rows (row by row, coordinates in order).
inline MatrixXd wishart_outer_sum(Index d, Index k, double scale, Index block = 1024) {
  MatrixXd G = MatrixXd::Zero(d, d);
  MatrixXd Vt(d, block);
  for (Index start = 0; start < k; start += block) {
    const Index b = std::min(block, k - start);
    for (Index j = 0; j < b; ++j)
      for (Index i = 0; i < d; ++i) Vt(i, j) = scale * draw_norm();
    G.selfadjointView<Eigen::Lower>().rankUpdate(Vt.leftCols(b));
  }
  G.triangularView<Eigen::StrictlyUpper>() = G.transpose();
  return G;
}

// Data of the paper's experiments, reduced to the clipped Gram matrix chunk by
// chunk (n can be 2^25 or more; the data never sit in memory). Each row is
// [x (p iid N(0,1)), 1, y_1, ..., y_m] with y_j = [x, 1] . Beta.col(j) + e_j,
// e_j ~ N(0, noise_sd^2). Draw order per row: x_1..x_p, then e_1..e_m.
inline ClippedGram simulate_regression_gram(Index n, const Ref<const MatrixXd>& Beta,
                                            double noise_sd, double clip,
                                            Index chunk = 4096) {
  const Index p = Beta.rows() - 1, m = Beta.cols(), d = p + 1 + m;
  ClippedGram acc(d, clip);
  MatrixXd X(chunk, d);
  for (Index start = 0; start < n; start += chunk) {
    const Index b = std::min(chunk, n - start);
    for (Index i = 0; i < b; ++i) {
      for (Index j = 0; j < p; ++j) X(i, j) = draw_norm();
      X(i, p) = 1.0;
      for (Index j = 0; j < m; ++j) {
        double y = Beta(p, j) + noise_sd * draw_norm();
        for (Index l = 0; l < p; ++l) y += X(i, l) * Beta(l, j);
        X(i, p + 1 + j) = y;
      }
    }
    acc.add(X.topRows(b));
  }
  return acc;
}

// E||N|| (spectral norm) for a p x p symmetric N with iid N(0, 1) entries on
// and above the diagonal, averaged over `reps` draws from a FIXED internal
// stream (mt19937_64 seeded with `seed`, whose output the C++ standard
// specifies, and our own Box-Muller): a deterministic numerical constant, not
// randomness of any release, so R's stream is neither used nor changed. The
// default seed is the stream of analyze_gauss_shift(reps = ) (and of its
// Monte Carlo before the precomputed table existed); tools/shift-table.R
// uses one seed per p for independent table entries. If `sd` is not null it
// receives the sample standard deviation of the `reps` norms (Welford).
// `tick`, if given, is called before each draw (the R wrapper checks for a
// user interrupt there; the draws do not depend on it).
inline double expected_sym_gaussian_norm(Index p, int reps, std::uint64_t seed = 20160219ULL,
                                         double* sd = nullptr, const std::function<void()>& tick = nullptr) {
  std::mt19937_64 gen(seed);
  const double two_pi = 6.283185307179586;
  auto unif = [&gen]() { return (static_cast<double>(gen() >> 11) + 0.5) * (1.0 / 9007199254740992.0); };
  bool have = false;
  double spare = 0.0;
  auto gauss = [&]() {
    if (have) { have = false; return spare; }
    const double u1 = unif(), u2 = unif();
    const double rad = std::sqrt(-2.0 * std::log(u1));
    spare = rad * std::sin(two_pi * u2);
    have = true;
    return rad * std::cos(two_pi * u2);
  };
  MatrixXd N(p, p);
  double total = 0.0, mean = 0.0, m2 = 0.0;
  Eigen::SelfAdjointEigenSolver<MatrixXd> es;
  for (int t = 0; t < reps; ++t) {
    if (tick) tick();
    for (Index j = 0; j < p; ++j)
      for (Index i = 0; i <= j; ++i) N(i, j) = N(j, i) = gauss();
    es.compute(N, Eigen::EigenvaluesOnly);
    const VectorXd& ev = es.eigenvalues();
    const double nrm = std::max(std::abs(ev(0)), std::abs(ev(p - 1)));
    total += nrm;
    const double dlt = nrm - mean;
    mean += dlt / (t + 1);
    m2 += dlt * (nrm - mean);
  }
  if (sd) *sd = reps > 1 ? std::sqrt(m2 / (reps - 1)) : NAN;
  return total / reps;
}

}  // namespace dpcov

#endif
