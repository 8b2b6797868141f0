// Thin export of the one-pass clipped Gram matrix.
#include <dpcov/gram.h>

// [[Rcpp::export(rng = false)]]
Rcpp::List clipped_gram_cpp(const Eigen::Map<Eigen::MatrixXd> X, double clip) {
  dpcov::ClippedGram acc(X.cols(), clip);
  acc.add(X);
  return Rcpp::List::create(Rcpp::Named("gram") = acc.result(),
                            Rcpp::Named("n") = static_cast<double>(acc.n()),
                            Rcpp::Named("n_clipped") = static_cast<double>(acc.n_clipped()));
}
