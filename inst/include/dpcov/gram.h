// Gram matrix of row-clipped data in one pass over row blocks.
#ifndef DPCOV_GRAM_H
#define DPCOV_GRAM_H

#include <RcppEigen.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>
#include <atomic>
#include <condition_variable>
#include <mutex>
#if defined(__GNUC__) && defined(__x86_64__) && !defined(_WIN32)
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace dpcov {

using Eigen::MatrixXd;
using Eigen::Ref;

// The norm rows are scaled to, and kept below: `clip` less a margin for the
// rounding of a computed norm and of the scaling (relative error at most
// about (p / 2 + 5) 2^-53), so that every row the statistics hold has an
// exact norm <= clip, the bound the noise is calibrated to. The margin,
// (p + 8) 2^-52, is 8 times that (2e-15 at p = 1, 2e-12 at p = 10^4).
// R's twin: inner_clip() in R/second-moment.R (and the SQL of second_moment_db()).
inline double inner_clip(double clip, Eigen::Index p) {
  if (!std::isfinite(clip)) return clip;
  return clip * (1.0 - (static_cast<double>(p) + 8.0) * std::numeric_limits<double>::epsilon());
}

// Scale factor that shrinks a row of norm `norm` to norm at most `clip`.
inline double clip_scale(double norm, double clip) {
  return (std::isfinite(clip) && norm > clip) ? clip / norm : 1.0;
}

// A row clipped to norm <= clip, as (x / top) * (clip / r) (top the largest
// |entry|, r the norm of x / top, in [1, sqrt(p)]): both factors stay in the
// normal range for every clip >= 1e-50 and every finite row. One factor
// clip / ||x|| underflows for a tiny clip and a huge row (1e-20 against
// 1e303: subnormal), and its rounding let the clipped row's norm reach 2 clip.
template <typename Row>
inline Eigen::RowVectorXd clip_row(const Row& x, double clip_bound) {
  const double clip = inner_clip(clip_bound, x.size());
  const double top = x.cwiseAbs().maxCoeff();
  if (!std::isfinite(clip) || !(top > 0)) return x;
  const double r = (x / top).norm();
  if (!(top * r > clip)) return x;  // (top * r may overflow: then it is clipped)
  return (x / top) * (clip / r);
}

namespace gram_detail {

using Eigen::Index;

// The AVX2/FMA kernel: GCC/Clang on x86-64, compiled for that target function
// by function (no -march flag, so the package runs on any x86-64) and chosen
// at run time when the CPU has both. Not on Windows, where GCC does not align
// the stack for the 32-byte registers it may spill.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(_WIN32)
#define DPCOV_GRAM_AVX2 1
#define DPCOV_TARGET_AVX2 __attribute__((target("avx2,fma")))
#if defined(__clang__)
#define DPCOV_UNROLL _Pragma("unroll")
#else
#define DPCOV_UNROLL _Pragma("GCC unroll 4")
#endif
#endif

inline bool cpu_has_avx2_fma() {
#ifdef DPCOV_GRAM_AVX2
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return ok;
#else
  return false;
#endif
}

// A block's row statistics and the working memory of one thread.
struct Scratch {
  std::vector<double> sq, c, w, top, panel, buf, packed, apanel;  // buf, packed, apanel: sized when first needed
  std::vector<unsigned char> ok;
  explicit Scratch(Index rows) : sq(rows), c(rows), w(rows), top(rows), panel(3 * rows) {}
};

// What a run of blocks adds up: the Gram (p x p, column-major; its upper
// triangle is meaningful, the strict lower triangle holds scratch), the
// column sums of the clipped rows, and counts.
struct Partial {
  MatrixXd gram;
  Eigen::VectorXd sum;
  Index n = 0, n_clipped = 0;
  bool has_nan = false, has_inf = false;
  explicit Partial(Index p) : gram(MatrixXd::Zero(p, p)), sum(Eigen::VectorXd::Zero(p)) {}
  void reset() {
    gram.setZero();
    sum.setZero();
    n = n_clipped = 0;
    has_nan = has_inf = false;
  }
  void add(const Partial& o) {
    gram += o.gram;
    sum += o.sum;
    n += o.n;
    n_clipped += o.n_clipped;
    has_nan = has_nan || o.has_nan;
    has_inf = has_inf || o.has_inf;
  }
};

#ifdef DPCOV_GRAM_AVX2
DPCOV_TARGET_AVX2 inline double hsum(__m256d v) {
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

// g(r, c) += sum_i a_r[i] x_c[i] for r < MR, c < NR (a_r = a + r * lda,
// x_c = x + c * ldx): MR x NR dot products of length b, 4 rows at a time, in
// MR * NR <= 12 accumulators.
// pf (or NULL): a column of the next block, fetched into cache a line (8
// rows) every 8 rows on the way, so that memory works while the FMAs do.
template <int MR, int NR>
DPCOV_TARGET_AVX2 inline void tile(const double* a, Index lda, const double* x, Index ldx, Index b, double* g,
                                   Index ldg, const double* pf, Index npf) {
  __m256d acc[MR][NR];
  DPCOV_UNROLL for (int r = 0; r < MR; ++r) DPCOV_UNROLL for (int c = 0; c < NR; ++c) acc[r][c] = _mm256_setzero_pd();
  Index i = 0;
  for (; i + 4 <= b; i += 4) {
    if (pf && !(i & 7) && i < npf) _mm_prefetch(reinterpret_cast<const char*>(pf + i), _MM_HINT_T0);
    __m256d ar[MR];
    DPCOV_UNROLL for (int r = 0; r < MR; ++r) ar[r] = _mm256_loadu_pd(a + r * lda + i);
    DPCOV_UNROLL for (int c = 0; c < NR; ++c) {
      const __m256d xc = _mm256_loadu_pd(x + c * ldx + i);
      DPCOV_UNROLL for (int r = 0; r < MR; ++r) acc[r][c] = _mm256_fmadd_pd(ar[r], xc, acc[r][c]);
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < NR; ++c) {
      double s = hsum(acc[r][c]);
      for (Index t = i; t < b; ++t) s += a[r * lda + t] * x[c * ldx + t];
      g[r + c * ldg] += s;
    }
}

template <int MR>
DPCOV_TARGET_AVX2 inline void tile_row(Index nr, const double* a, Index lda, const double* x, Index ldx, Index b,
                                       double* g, Index ldg, const double* pf, Index npf) {
  switch (nr) {
    case 4: tile<MR, 4>(a, lda, x, ldx, b, g, ldg, pf, npf); break;
    case 3: tile<MR, 3>(a, lda, x, ldx, b, g, ldg, pf, npf); break;
    case 2: tile<MR, 2>(a, lda, x, ldx, b, g, ldg, pf, npf); break;
    default: tile<MR, 1>(a, lda, x, ldx, b, g, ldg, pf, npf); break;
  }
}

// G += X' diag(w) X over the upper triangle (w = NULL: unweighted), X being
// b x p with column j at X + j * ld, and sum[j] += sum_i f[i] X(i, j) (f =
// NULL: plain sums). Columns are taken three at a time (j0), weighted once
// into `panel` (their sums taken on the way), and dotted with the columns
// k >= j0 four at a time; the tiles that straddle the diagonal also write
// below it (scratch). `next` (nb rows, column stride ldn, or NULL): the next
// block, fetched into cache a column per tile while this one is in use.
DPCOV_TARGET_AVX2 inline void gram_update_avx2(const double* X, Index ld, Index b, Index p, const double* f,
                                               const double* w, double* panel, double* G, double* sum,
                                               const double* next, Index ldn, Index nb) {
  Index fetched = 0;  // columns of the next block: one per tile
  for (Index j0 = 0; j0 < p; j0 += 3) {
    const Index mr = std::min<Index>(3, p - j0);
    for (Index r = 0; r < mr; ++r) {
      const double* xr = X + (j0 + r) * ld;
      __m256d acc = _mm256_setzero_pd();
      Index i = 0;
      double t = 0.0;
      if (w) {
        double* pr = panel + r * b;
        for (; i + 4 <= b; i += 4) {
          const __m256d v = _mm256_loadu_pd(xr + i);
          _mm256_storeu_pd(pr + i, _mm256_mul_pd(_mm256_loadu_pd(w + i), v));
          acc = _mm256_fmadd_pd(_mm256_loadu_pd(f + i), v, acc);
        }
        for (; i < b; ++i) {
          pr[i] = w[i] * xr[i];
          t += f[i] * xr[i];
        }
      } else {
        for (; i + 4 <= b; i += 4) acc = _mm256_add_pd(_mm256_loadu_pd(xr + i), acc);
        for (; i < b; ++i) t += xr[i];
      }
      sum[j0 + r] += hsum(acc) + t;
    }
    const double* a = w ? panel : X + j0 * ld;
    const Index lda = w ? b : ld;
    for (Index k0 = j0; k0 < p; k0 += 4) {
      const Index nr = std::min<Index>(4, p - k0);
      double* g = G + j0 + k0 * p;
      const double* x = X + k0 * ld;
      const double* pf = next && fetched < p ? next + (fetched++) * ldn : nullptr;
      if (mr == 3) tile_row<3>(nr, a, lda, x, ld, b, g, p, pf, nb);
      else if (mr == 2) tile_row<2>(nr, a, lda, x, ld, b, g, p, pf, nb);
      else tile_row<1>(nr, a, lda, x, ld, b, g, p, pf, nb);
    }
  }
  if (next)  // fewer tiles than columns (small p): the rest at once
    for (; fetched < p; ++fetched)
      for (Index i = 0; i < nb; i += 8) _mm_prefetch(reinterpret_cast<const char*>(next + fetched * ldn + i), _MM_HINT_T0);
}

// The packed kernel (large p): the block is packed once into micro-panels of
// 4 columns, each holding the b rows as consecutive 4-vectors (row-major;
// columns beyond p are zero), so that the Gram's 12 x 4 tiles become outer
// products: per row, three 4-vectors of the 12 left columns (weighted by
// w_i, copied once per tile row into `a`) times four broadcasts of the right
// columns' entries, 12 FMAs into 12 accumulators that stay in registers for
// the whole block (no horizontal sums), 3 vector loads and 4 broadcasts.
// sq (or NULL): also the squared row norms, sq[i] = ||row i||^2, in the same
// read of the block (summed column by column, as row_sq_avx2()).
DPCOV_TARGET_AVX2 inline void pack_panels(const double* X, Index ld, Index b, Index p, double* P, double* sq) {
  if (sq)
    for (Index i = 0; i < b; ++i) sq[i] = 0.0;
  for (Index c0 = 0; c0 < p; c0 += 4) {
    double* out = P + c0 * b;  // panel c0 / 4
    if (c0 + 4 <= p) {
      const double *x0 = X + c0 * ld, *x1 = x0 + ld, *x2 = x1 + ld, *x3 = x2 + ld;
      Index i = 0;
      for (; i + 4 <= b; i += 4) {  // a 4 x 4 transpose
        const __m256d r0 = _mm256_loadu_pd(x0 + i), r1 = _mm256_loadu_pd(x1 + i), r2 = _mm256_loadu_pd(x2 + i),
                      r3 = _mm256_loadu_pd(x3 + i);
        if (sq) {
          __m256d q = _mm256_fmadd_pd(r0, r0, _mm256_loadu_pd(sq + i));
          q = _mm256_fmadd_pd(r1, r1, q);
          q = _mm256_fmadd_pd(r2, r2, q);
          _mm256_storeu_pd(sq + i, _mm256_fmadd_pd(r3, r3, q));
        }
        const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1),
                      t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
        _mm256_storeu_pd(out + 4 * i, _mm256_permute2f128_pd(t0, t2, 0x20));
        _mm256_storeu_pd(out + 4 * i + 4, _mm256_permute2f128_pd(t1, t3, 0x20));
        _mm256_storeu_pd(out + 4 * i + 8, _mm256_permute2f128_pd(t0, t2, 0x31));
        _mm256_storeu_pd(out + 4 * i + 12, _mm256_permute2f128_pd(t1, t3, 0x31));
      }
      for (; i < b; ++i) {
        if (sq) sq[i] = (((sq[i] + x0[i] * x0[i]) + x1[i] * x1[i]) + x2[i] * x2[i]) + x3[i] * x3[i];
        out[4 * i] = x0[i];
        out[4 * i + 1] = x1[i];
        out[4 * i + 2] = x2[i];
        out[4 * i + 3] = x3[i];
      }
    } else {
      for (Index i = 0; i < b; ++i)
        for (Index c = 0; c < 4; ++c) {
          const double v = c0 + c < p ? X[(c0 + c) * ld + i] : 0.0;
          if (sq && c0 + c < p) sq[i] += v * v;
          out[4 * i + c] = v;
        }
    }
  }
}

// G(j0 + 4r + l, k0 + c) += sum_i a[12 i + 4r + l] bq[4 i + c] for r < MR,
// l, c < 4, within G's p x p.
template <int MR>
DPCOV_TARGET_AVX2 inline void outer_tile(const double* a, const double* bq, Index b, double* G, Index p, Index j0,
                                         Index k0) {
  __m256d acc[MR][4];
  DPCOV_UNROLL for (int r = 0; r < MR; ++r) DPCOV_UNROLL for (int c = 0; c < 4; ++c) acc[r][c] = _mm256_setzero_pd();
  for (Index i = 0; i < b; ++i) {
    __m256d ar[MR];
    DPCOV_UNROLL for (int r = 0; r < MR; ++r) ar[r] = _mm256_loadu_pd(a + 12 * i + 4 * r);
    DPCOV_UNROLL for (int c = 0; c < 4; ++c) {
      const __m256d bc = _mm256_broadcast_sd(bq + 4 * i + c);
      DPCOV_UNROLL for (int r = 0; r < MR; ++r) acc[r][c] = _mm256_fmadd_pd(ar[r], bc, acc[r][c]);
    }
  }
  if (k0 + 4 <= p && j0 + 4 * MR <= p) {  // (constant indices keep acc in registers)
    DPCOV_UNROLL for (int c = 0; c < 4; ++c) DPCOV_UNROLL for (int r = 0; r < MR; ++r) {
      double* g = G + (k0 + c) * p + j0 + 4 * r;
      _mm256_storeu_pd(g, _mm256_add_pd(_mm256_loadu_pd(g), acc[r][c]));
    }
    return;
  }
  double t[4][MR][4];  // an edge tile: only the entries within p x p
  DPCOV_UNROLL for (int c = 0; c < 4; ++c) DPCOV_UNROLL for (int r = 0; r < MR; ++r) _mm256_storeu_pd(t[c][r], acc[r][c]);
  for (Index c = 0; c < 4 && k0 + c < p; ++c)
    for (Index r = 0; r < MR; ++r)
      for (Index l = 0; l < 4 && j0 + 4 * r + l < p; ++l) G[(k0 + c) * p + j0 + 4 * r + l] += t[c][r][l];
}

// The packed kernel's G += X' diag(w) X (upper triangle; tiles on the
// diagonal write below it, scratch) and sum += X' f, as gram_update_avx2(),
// from P, the block packed by pack_panels(); a: 12 b doubles. `next` (nb
// rows, column stride ld, or NULL): the next block of X, fetched into cache a
// few lines per tile.
DPCOV_TARGET_AVX2 inline void gram_update_packed(const double* P, Index ld, Index b, Index p, const double* f,
                                                 const double* w, double* a, double* G, double* sum,
                                                 const double* next, Index nb) {
  const Index pp = (p + 3) / 4 * 4;
  // the next block's cache lines (column by column), spread over the tiles
  const Index lines_col = (nb + 7) / 8, lines = next ? lines_col * p : 0;
  Index tiles = 0;
  for (Index j0 = 0; j0 < pp; j0 += 12) tiles += (pp - j0) / 4;
  const Index per_tile = tiles > 0 ? (lines + tiles - 1) / tiles : 0;
  Index line = 0;
  for (Index j0 = 0; j0 < pp; j0 += 12) {
    const Index mr = std::min<Index>(12, pp - j0) / 4;  // panels in this tile row
    for (Index r = 0; r < mr; ++r) {  // weighted copy and column sums
      const double* src = P + (j0 + 4 * r) * b;
      __m256d s = _mm256_setzero_pd();
      if (w) {
        for (Index i = 0; i < b; ++i) {
          const __m256d v = _mm256_loadu_pd(src + 4 * i);
          _mm256_storeu_pd(a + 12 * i + 4 * r, _mm256_mul_pd(_mm256_broadcast_sd(w + i), v));
          s = _mm256_fmadd_pd(_mm256_broadcast_sd(f + i), v, s);
        }
      } else {
        for (Index i = 0; i < b; ++i) {
          const __m256d v = _mm256_loadu_pd(src + 4 * i);
          _mm256_storeu_pd(a + 12 * i + 4 * r, v);
          s = _mm256_add_pd(v, s);
        }
      }
      double t[4];
      _mm256_storeu_pd(t, s);
      for (Index l = 0; l < 4 && j0 + 4 * r + l < p; ++l) sum[j0 + 4 * r + l] += t[l];
    }
    for (Index k0 = j0; k0 < pp; k0 += 4) {
      const Index need = std::min<Index>(mr, (k0 - j0) / 4 + 1);  // panels at or above the diagonal
      const double* bq = P + k0 * b;
      for (Index m = 0; m < per_tile && line < lines; ++m, ++line)
        _mm_prefetch(reinterpret_cast<const char*>(next + (line / lines_col) * ld + 8 * (line % lines_col)), _MM_HINT_T0);
      if (need == 3) outer_tile<3>(a, bq, b, G, p, j0, k0);
      else if (need == 2) outer_tile<2>(a, bq, b, G, p, j0, k0);
      else outer_tile<1>(a, bq, b, G, p, j0, k0);
    }
  }
}

// sq[i] = ||row i||^2 of the b x p block X.
DPCOV_TARGET_AVX2 inline void row_sq_avx2(const double* X, Index ld, Index b, Index p, double* sq) {
  for (Index i = 0; i < b; ++i) sq[i] = 0.0;
  for (Index c = 0; c < p; ++c) {
    const double* xc = X + c * ld;
    Index i = 0;
    for (; i + 4 <= b; i += 4) {
      const __m256d v = _mm256_loadu_pd(xc + i);
      _mm256_storeu_pd(sq + i, _mm256_fmadd_pd(v, v, _mm256_loadu_pd(sq + i)));
    }
    for (; i < b; ++i) sq[i] += xc[i] * xc[i];
  }
}

// The clip factors c[i] = min(1, clip / sqrt(sq[i])) and w[i] = c[i]^2 of rows
// 0 .. b4 - 1 (b4 a multiple of 4), four at a time; returns the number of rows
// with c < counted (the rows beyond the caller's bound; see block_update()),
// and in ok[g] whether the 4 rows of group g were all ordinary (sq
// finite, c >= 1e-100); the others are left to the scalar code.
DPCOV_TARGET_AVX2 inline Index clip_factors_avx2(const double* sq, Index b4, double clip, double counted, double* c,
                                                 double* w, unsigned char* ok) {
  const __m256d inf = _mm256_set1_pd(std::numeric_limits<double>::infinity()), one = _mm256_set1_pd(1.0),
                cl = _mm256_set1_pd(clip), tiny = _mm256_set1_pd(1e-100), cnt = _mm256_set1_pd(counted);
  Index clipped = 0;
  for (Index i = 0; i < b4; i += 4) {
    const __m256d s = _mm256_loadu_pd(sq + i);
    const __m256d norm = _mm256_sqrt_pd(s);
    const __m256d over = _mm256_cmp_pd(norm, cl, _CMP_GT_OQ);
    const __m256d f = _mm256_blendv_pd(one, _mm256_div_pd(cl, norm), over);
    const int good = _mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(s, inf, _CMP_LT_OQ), _mm256_cmp_pd(f, tiny, _CMP_GE_OQ)));
    ok[i / 4] = good == 15;
    _mm256_storeu_pd(c + i, f);
    _mm256_storeu_pd(w + i, _mm256_mul_pd(f, f));
    clipped += __builtin_popcount(_mm256_movemask_pd(_mm256_cmp_pd(f, cnt, _CMP_LT_OQ)));
  }
  return clipped;
}
#endif

inline void row_sq_plain(const double* X, Index ld, Index b, Index p, double* sq) {
  for (Index i = 0; i < b; ++i) sq[i] = 0.0;
  for (Index c = 0; c < p; ++c) {
    const double* xc = X + c * ld;
    for (Index i = 0; i < b; ++i) sq[i] += xc[i] * xc[i];
  }
}

// From this many columns on, the AVX2 path packs each block for the outer-
// product kernel; below, the dot-product one (no packing) was as fast or
// faster (p = 40-60 against 72-150, same process, one thread).
constexpr Index packed_min_p = 80;

// Rows per block: the block (b x p doubles) fits in about 256 KB of cache.
inline Index block_rows(Index p) {
  const Index b = 32768 / std::max<Index>(p, 1);
  return std::max<Index>(128, std::min<Index>(1024, b / 16 * 16));
}

// Records the NaN / Inf entries of row i of the block; false when they are
// all finite (a row whose squares overflowed).
inline bool note_nonfinite_row(const double* X, Index ld, Index p, Index i, Partial& acc) {
  bool found = false;
  for (Index c = 0; c < p; ++c) {
    const double v = X[c * ld + i];
    if (std::isnan(v)) acc.has_nan = found = true;
    else if (std::isinf(v)) acc.has_inf = found = true;
  }
  return found;
}

// Adds the b rows of a column-major block (column c at X + c * ld), clipped
// to norm <= clip, to `acc`: c_i^2 x_i x_i' to the Gram, c_i x_i to the sums.
// The clip factors weight the Gram's dot products (w_i = c_i^2) instead of
// scaling a copy of the rows, except for the rare rows that need the copy:
// rows holding NA/NaN/Inf (zeroed, refused by the caller; the sums stay
// finite meanwhile) and rows whose squares overflow or whose factor is so
// small that c_i^2 would underflow (scaled by c_i first). With AVX2 and
// p >= packed_min_p the block is packed (pack_panels(), which also takes the
// row norms in the same read) for the outer-product kernel, and the copy, if
// any, is packed again. The portable kernel scales a copy and hands it to
// Eigen's rank update.
// `counted`: a row is counted as clipped when its factor is below it, the
// rows beyond the caller's bound (clip is inner_clip() of it: the margin's
// rows are scaled, by a factor in [counted, 1), not counted).
inline void block_update(const double* X, Index ld, Index b, Index p, double clip, double counted, bool avx2,
                         Scratch& s, Partial& acc, const double* next = nullptr, Index nb = 0) {
  const double* f = nullptr;  // clip factors c_i, NULL when all are 1
  const double* w = nullptr;  // their squares
#ifdef DPCOV_GRAM_AVX2
  const Index ld_next = ld;  // X's stride, the next block's too (ld may become the copy's)
  const bool packed = avx2 && p >= packed_min_p;
  if (packed) {
    const size_t need = static_cast<size_t>(b) * ((p + 3) / 4 * 4);
    if (s.packed.size() < need) s.packed.resize(need);
    if (s.apanel.size() < static_cast<size_t>(12 * b)) s.apanel.resize(12 * b);
  }
#endif
  if (std::isfinite(clip)) {
    double* sq = s.sq.data();
    double* c = s.c.data();
    double* w2 = s.w.data();
    Index clipped = 0, from = 0;  // rows from `from` on get the scalar code
    bool special = false;
    auto row_factor = [&](Index i) {
      if (!std::isfinite(sq[i])) {
        special = true;
        if (note_nonfinite_row(X, ld, p, i, acc)) {
          c[i] = w2[i] = 0.0;  // the row is zeroed below
          sq[i] = -1.0;
          return;
        }
        // the squares overflowed: scale by the largest entry before squaring.
        // The norm exceeds 1e154 > clip: clipped, in the copy below as
        // (x / top) * (clip / r), two factors in the normal range (one factor
        // clip / ||x|| underflows for a tiny clip; see clip_row())
        double top = 0.0, t = 0.0;
        for (Index j = 0; j < p; ++j) top = std::max(top, std::abs(X[j * ld + i]));
        for (Index j = 0; j < p; ++j) t += (X[j * ld + i] / top) * (X[j * ld + i] / top);
        s.top[i] = top;
        c[i] = clip / std::sqrt(t);
        sq[i] = -3.0;
        ++clipped;
        w2[i] = 1.0;
        return;
      } else {
        c[i] = clip_scale(std::sqrt(sq[i]), clip);
        if (c[i] < 1e-100) {
          special = true;
          sq[i] = -2.0;
        }
      }
      if (c[i] < counted) ++clipped;
      w2[i] = c[i] * c[i];
    };
#ifdef DPCOV_GRAM_AVX2
    if (avx2) {
      if (packed) pack_panels(X, ld, b, p, s.packed.data(), sq);
      else row_sq_avx2(X, ld, b, p, sq);
      from = b / 4 * 4;
      if (s.ok.size() < static_cast<size_t>(from / 4)) s.ok.resize(from / 4);
      clipped = clip_factors_avx2(sq, from, clip, counted, c, w2, s.ok.data());
      for (Index g = 0; g < from / 4; ++g) {
        if (s.ok[g]) continue;
        for (Index i = 4 * g; i < 4 * g + 4; ++i) {  // redo the group's rows in scalar code
          if (c[i] < counted) --clipped;
          row_factor(i);
        }
      }
    } else
#endif
      row_sq_plain(X, ld, b, p, sq);
    for (Index i = from; i < b; ++i) row_factor(i);
    acc.n_clipped += clipped;
    if (special) {  // copy the block; zero or pre-scale the special rows
      if (s.buf.size() < static_cast<size_t>(b * p)) s.buf.resize(b * p);
      double* buf = s.buf.data();
      for (Index j = 0; j < p; ++j) {
        const double* xj = X + j * ld;
        double* bj = buf + j * b;
        for (Index i = 0; i < b; ++i) {
          bj[i] = sq[i] == -1.0 ? 0.0 : sq[i] == -2.0 ? c[i] * xj[i] : sq[i] == -3.0 ? (xj[i] / s.top[i]) * c[i] : xj[i];
        }
      }
      for (Index i = 0; i < b; ++i)
        if (sq[i] == -2.0 || sq[i] == -3.0) c[i] = w2[i] = 1.0;
      X = buf;
      ld = b;
#ifdef DPCOV_GRAM_AVX2
      if (packed) pack_panels(X, ld, b, p, s.packed.data(), nullptr);
#endif
    }
    // (rows within the margin are scaled though not counted: look for them
    // when no row was counted)
    bool scaled = clipped > 0 || special;
    for (Index i = 0; !scaled && i < b; ++i) scaled = c[i] < 1.0;
    if (scaled) {
      f = c;
      w = w2;
    }
  }
  acc.n += b;
#ifdef DPCOV_GRAM_AVX2
  if (avx2) {
    if (packed) {
      if (!std::isfinite(clip)) pack_panels(X, ld, b, p, s.packed.data(), nullptr);
      gram_update_packed(s.packed.data(), ld_next, b, p, f, w, s.apanel.data(), acc.gram.data(), acc.sum.data(), next, nb);
      return;
    }
    gram_update_avx2(X, ld, b, p, f, w, s.panel.data(), acc.gram.data(), acc.sum.data(), next, ld_next, nb);
    return;
  }
#endif
  static_cast<void>(w);  // the portable kernel scales by f = sqrt(w)
  using Block = Eigen::Map<const MatrixXd, 0, Eigen::OuterStride<>>;
  if (f) {  // the rows scaled by c_i, in the copy
    if (s.buf.size() < static_cast<size_t>(b * p)) s.buf.resize(b * p);
    double* buf = s.buf.data();
    for (Index j = 0; j < p; ++j) {
      const double* xj = X + j * ld;
      double* bj = buf + j * b;
      for (Index i = 0; i < b; ++i) bj[i] = f[i] * xj[i];
    }
    X = buf;
    ld = b;
  }
  const Block B(X, b, p, Eigen::OuterStride<>(ld));
  acc.gram.selfadjointView<Eigen::Upper>().rankUpdate(B.transpose());
  acc.sum += B.colwise().sum().transpose();
}

}  // namespace gram_detail

// Accumulates sum_i c_i^2 x_i x_i' and sum_i c_i x_i with c_i = min(1, clip / ||x_i||)
// (the column sums let a private mean be released from the same pass). Rows may
// arrive in any number of blocks (chunks of a larger data set); only the upper
// triangle is meaningful until result().
//
// Non-finite entries (NA/NaN, +-Inf) are detected in the same pass, so callers
// need no separate scan of the data: a row's squared norm, or a column's
// diagonal entry of the Gram, is non-finite exactly when the row or column
// holds one (or its squares overflow), and only then are its entries looked
// at. has_nan() / has_inf() report them; the statistics are then meaningless
// and the caller must refuse the data.
//
// Speed: AVX2/FMA kernels where the CPU has them (chosen at run time: dot
// products straight from X below packed_min_p columns, a packed outer-product
// kernel from there on; the portable kernel, Eigen's rank update on a scaled
// copy, otherwise or after set_portable()), and add() of a whole matrix on up
// to set_threads() OpenMP threads. The rows are cut into slices that depend
// on n and p only, each slice is summed in row order, and the slices' sums
// are added in slice order, so the result is bitwise the same for any number
// of threads.
class ClippedGram {
 public:
  // (rows are clipped to inner_clip(clip, p): exact norms <= clip)
  ClippedGram(Eigen::Index p, double clip)
      : acc_(p), clip_(inner_clip(clip, p)), counted_(std::isfinite(clip) ? inner_clip(clip, p) / clip : 1.0),
        block_(gram_detail::block_rows(p)) {}

  // Threads for add() of a whole matrix (1 without OpenMP); default 1.
  void set_threads(int threads) { threads_ = std::max(1, threads); }
  // Use the portable kernel even where the AVX2/FMA one could run.
  void set_portable(bool portable) { portable_ = portable; }
  // The kernel add() runs: true for AVX2/FMA.
  bool uses_avx2() const { return !portable_ && gram_detail::cpu_has_avx2_fma(); }

  void add(const Ref<const MatrixXd>& X) {
    using gram_detail::Partial;
    using gram_detail::Scratch;
    const Eigen::Index n = X.rows(), p = X.cols();
    if (n == 0) return;
    const bool avx2 = uses_avx2();
    const Eigen::Index nblocks = (n + block_ - 1) / block_;
    // at least 4 blocks a slice, at most 16 slices; one (no partial sums at
    // all) when two p x p partial sums would not fit in 64 MB
    const Eigen::Index mem_cap = (Eigen::Index(1) << 23) / std::max<Eigen::Index>(1, p * p);
    const Eigen::Index S = mem_cap < 2 ? 1 : std::max<Eigen::Index>(1, std::min(nblocks / 4, Eigen::Index(16)));
    const Eigen::Index b0 = std::min(block_, n);
    int threads = 1;
#ifdef _OPENMP
    threads = static_cast<int>(std::min<Eigen::Index>(threads_, S));
#endif
    std::vector<Scratch> scratch(threads, Scratch(b0));
    bool failed = false;
    auto run_slice = [&](Eigen::Index s, Scratch& sc, Partial& acc) {
      const Eigen::Index first = nblocks * s / S, last = nblocks * (s + 1) / S;
      for (Eigen::Index k = first; k < last; ++k) {
        const Eigen::Index start = k * block_, b = std::min(block_, n - start);
        const double* next = k + 1 < last ? X.data() + start + b : nullptr;
        gram_detail::block_update(X.data() + start, X.outerStride(), b, p, clip_, counted_, avx2, sc, acc, next,
                                  next ? std::min(block_, n - start - b) : 0);
      }
    };
    if (S == 1) {
      run_slice(0, scratch[0], acc_);
    } else {
      // Slices are handed out in order; slice s sums into ring[s % R], and the
      // sums are added to acc_ strictly in slice order as soon as they are
      // complete, so that only R partial Grams exist at once (two per thread,
      // within 64 MB; R >= 2): one p x p sum per slice, allocated and zeroed
      // up front in the serial part, took 5-8% of the samples at p = 200 in
      // page faults.
      const Eigen::Index R = std::min<Eigen::Index>({S, 2 * Eigen::Index(threads), mem_cap});
      std::vector<Partial> ring(R, Partial(p));
      std::vector<unsigned char> done(S, 0);
      std::atomic<Eigen::Index> next_slice(0);
      Eigen::Index added = 0;  // slices 0 .. added - 1 are in acc_ (guarded by `reduce`)
      std::mutex reduce;
      std::condition_variable slot_free;
      auto work = [&](Scratch& sc) {
        for (;;) {
          const Eigen::Index s = next_slice.fetch_add(1);
          if (s >= S) return;
          {  // ring[s % R] is free once slice s - R is in acc_ (a wait, not a spin)
            std::unique_lock<std::mutex> lock(reduce);
            slot_free.wait(lock, [&] { return added > s - R; });
          }
          Partial& part = ring[s % R];
          if (s >= R) part.reset();
          bool ok = true;
          try {
            run_slice(s, sc, part);
          } catch (...) {  // no exception may leave an OpenMP region
            ok = false;
          }
          std::lock_guard<std::mutex> lock(reduce);
          if (!ok) failed = true;
          done[s] = 1;
          const Eigen::Index before = added;
          for (; added < S && done[added]; ++added) acc_.add(ring[added % R]);
          if (added > before) slot_free.notify_all();
        }
      };
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
      work(scratch[omp_get_thread_num()]);
#else
      work(scratch[0]);
#endif
      if (failed) throw std::runtime_error("the clipped Gram pass failed (out of memory?)");
    }
    // with no clip bound, rows are not looked at: x_j'x_j is NaN iff column j
    // holds a NaN, +Inf iff it holds +-Inf or overflows
    if (!std::isfinite(clip_) && !acc_.gram.diagonal().allFinite()) scan_nonfinite(X);
  }

  // The rows of X listed in `rows` (e.g. one cross-validation fold), gathered
  // a block at a time: the subset is never copied whole.
  template <typename Index>
  void add_rows(const Ref<const MatrixXd>& X, const std::vector<Index>& rows) {
    add_rows_where(X, static_cast<Eigen::Index>(rows.size()),
                   [&rows](Eigen::Index i) { return static_cast<Eigen::Index>(rows[i]); });
  }

  MatrixXd result() const {
    MatrixXd G = acc_.gram;
    G.triangularView<Eigen::StrictlyLower>() = G.transpose();
    return G;
  }
  // The accumulator itself: only its upper triangle (i <= j) is meaningful.
  // Readers that walk column j over rows 0..j skip result()'s full copy.
  const MatrixXd& upper() const { return acc_.gram; }
  // Column sums of the clipped rows.
  const Eigen::VectorXd& sum() const { return acc_.sum; }
  Eigen::Index n() const { return acc_.n; }
  Eigen::Index n_clipped() const { return acc_.n_clipped; }
  bool has_nan() const { return acc_.has_nan; }
  bool has_inf() const { return acc_.has_inf; }

  // Adds the clipped rows of B: for callers that gather their own blocks
  // (grouped_grams() below).
  void add_block(const Ref<const MatrixXd>& B) {
    if (B.rows() == 0) return;
    gram_detail::Scratch sc(B.rows());
    gram_detail::block_update(B.data(), B.outerStride(), B.rows(), B.cols(), clip_, counted_, uses_avx2(), sc, acc_);
  }

 private:
  // Rows row_of(0), ..., row_of(n - 1) of X in blocks, gathered column by
  // column (X is column-major: reading it row by row would touch a cache line
  // per entry).
  template <typename RowOf>
  void add_rows_where(const Ref<const MatrixXd>& X, Eigen::Index n, RowOf row_of) {
    if (n == 0) return;
    const Eigen::Index p = acc_.gram.rows();
    const bool avx2 = uses_avx2();
    MatrixXd buf(std::min(block_, n), p);
    gram_detail::Scratch sc(buf.rows());
    for (Eigen::Index start = 0; start < n; start += block_) {
      const Eigen::Index b = std::min(block_, n - start);
      for (Eigen::Index c = 0; c < p; ++c) {
        const double* xc = X.col(c).data();
        double* bc = buf.col(c).data();
        for (Eigen::Index i = 0; i < b; ++i) bc[i] = xc[row_of(start + i)];
      }
      gram_detail::block_update(buf.data(), buf.rows(), b, p, clip_, counted_, avx2, sc, acc_);
    }
    if (!std::isfinite(clip_) && !acc_.gram.diagonal().allFinite()) {
      for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index c = 0; c < p; ++c) note(X(row_of(i), c));
    }
  }

  void scan_nonfinite(const Ref<const MatrixXd>& X) {
    for (Eigen::Index c = 0; c < X.cols(); ++c)
      for (Eigen::Index i = 0; i < X.rows(); ++i) note(X(i, c));
  }
  void note(double v) {
    if (std::isnan(v)) acc_.has_nan = true;
    else if (std::isinf(v)) acc_.has_inf = true;
  }

  gram_detail::Partial acc_;
  double clip_;
  double counted_;  // factors below it count a row as clipped (block_update())
  Eigen::Index block_;
  int threads_ = 1;
  bool portable_ = false;
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
