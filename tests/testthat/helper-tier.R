# Two tiers. The fast tier runs everywhere, R CMD check on CRAN included: unit
# tests, small audits and sweeps. The extended tier (long audits, the full
# hostile-input sweep, reproductions, the database server) runs only when
# DPCOV_EXTENDED is true; tools/check.sh and .ci/run turn it on.
extended_tests <- function() isTRUE(as.logical(Sys.getenv("DPCOV_EXTENDED", "false")))

skip_if_not_extended <- function() {
  if (!extended_tests()) testthat::skip("extended tier (set DPCOV_EXTENDED=true; tools/check.sh does)")
}
