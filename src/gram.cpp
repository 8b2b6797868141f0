// Thin exports of the one-pass clipped Gram matrices.
#include <dpcov/gram.h>

// `nonfinite`: 0 when every entry of X is finite, 1 when one is NA/NaN (which
// wins, as anyNA() is checked first in R), 2 when one is +-Inf. The statistics
// are then meaningless and the caller refuses X (abort_nonfinite() in R).
// `threads`: OpenMP threads (the result does not depend on it); `portable`:
// the portable kernel even where the AVX2/FMA one runs (for tests). `kernel`
// says which ran.
// [[Rcpp::export(rng = false)]]
Rcpp::List clipped_gram_cpp(const Eigen::Map<Eigen::MatrixXd> X, double clip, int threads = 1,
                            bool portable = false) {
  dpcov::ClippedGram acc(X.cols(), clip);
  acc.set_threads(threads);
  acc.set_portable(portable);
  acc.add(X);
  return Rcpp::List::create(Rcpp::Named("gram") = acc.result(),
                            Rcpp::Named("sum") = Rcpp::NumericVector(acc.sum().data(), acc.sum().data() + acc.sum().size()),
                            Rcpp::Named("n") = static_cast<double>(acc.n()),
                            Rcpp::Named("n_clipped") = static_cast<double>(acc.n_clipped()),
                            Rcpp::Named("nonfinite") = acc.has_nan() ? 1 : acc.has_inf() ? 2 : 0,
                            Rcpp::Named("kernel") = acc.uses_avx2() ? "avx2" : "portable");
}

// [[Rcpp::export(rng = false)]]
Rcpp::List grouped_grams_cpp(const Eigen::Map<Eigen::MatrixXd> X, std::vector<int> group, int K,
                             double clip, int rows_per_group) {
  if (static_cast<Eigen::Index>(group.size()) != X.rows()) Rcpp::stop("one group index per row");
  for (int g : group)
    if (g < 0 || g >= K) Rcpp::stop("group index out of range");
  const std::vector<dpcov::ClippedGram> grams = dpcov::grouped_grams(X, group, K, clip, rows_per_group);
  Rcpp::List out(K);
  for (int k = 0; k < K; ++k)
    out[k] = Rcpp::List::create(Rcpp::Named("gram") = grams[k].result(),
                                Rcpp::Named("n") = static_cast<double>(grams[k].n()),
                                Rcpp::Named("n_clipped") = static_cast<double>(grams[k].n_clipped()));
  return out;
}
