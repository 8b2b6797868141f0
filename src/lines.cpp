// Byte helpers of csv_reader()'s line blocks (R/database.R). In R, a part of
// a raw vector, x[i:j], builds an index of four bytes per byte taken, and
// dropping the CRs of CRLF line ends (x[-r]) a logical index of the whole
// block: at a 40 MB block those indices were most of the reader's memory.
#include <Rcpp.h>
#include <algorithm>
#include <cstring>

// Bytes [from, from + len) of x (0-based), copied once.
// [[Rcpp::export(rng = false)]]
Rcpp::RawVector raw_part_cpp(const Rcpp::RawVector& x, double from, double len) {
  if (from < 0 || len < 0 || from + len > static_cast<double>(x.size()))
    Rcpp::stop("internal error: raw_part_cpp() outside its vector");
  Rcpp::RawVector out(static_cast<R_xlen_t>(len));
  if (len > 0) std::memcpy(RAW(out), RAW(x) + static_cast<R_xlen_t>(from), static_cast<size_t>(len));
  return out;
}

// CRLF to LF and a lone CR to LF (as readLines() reads them); x itself when
// it holds no CR.
// [[Rcpp::export(rng = false)]]
Rcpp::RawVector normalise_line_ends_cpp(const Rcpp::RawVector& x) {
  const R_xlen_t n = x.size();
  const Rbyte* in = RAW(x);
  if (n == 0 || std::memchr(in, 13, static_cast<size_t>(n)) == nullptr) return x;
  R_xlen_t crlf = 0;
  for (R_xlen_t i = 0; i + 1 < n; ++i)
    if (in[i] == 13 && in[i + 1] == 10) ++crlf;
  Rcpp::RawVector out(n - crlf);
  Rbyte* o = RAW(out);
  R_xlen_t k = 0;
  for (R_xlen_t i = 0; i < n; ++i) {
    if (in[i] == 13) {
      o[k++] = 10;
      if (i + 1 < n && in[i + 1] == 10) ++i;  // the LF of a CRLF: already written
    } else {
      o[k++] = in[i];
    }
  }
  return out;
}

// The first `len` bytes of the parts (raw vectors) joined, copied once: a
// block is the carry of the last one and the head of the reads since.
// [[Rcpp::export(rng = false)]]
Rcpp::RawVector raw_join_cpp(const Rcpp::List& parts, double len) {
  Rcpp::RawVector out(static_cast<R_xlen_t>(len));
  R_xlen_t k = 0;
  const R_xlen_t total = out.size();
  for (R_xlen_t i = 0; i < parts.size() && k < total; ++i) {
    const Rcpp::RawVector part = parts[i];
    const R_xlen_t take = std::min<R_xlen_t>(part.size(), total - k);
    if (take > 0) std::memcpy(RAW(out) + k, RAW(part), static_cast<size_t>(take));
    k += take;
  }
  if (k != total) Rcpp::stop("internal error: raw_join_cpp() asked for more bytes than its parts hold");
  return out;
}
