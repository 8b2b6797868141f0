#!/usr/bin/env bash
# Installs what dpcov needs to build, test and knit, and nothing that is
# already there: a second run costs a few seconds. Debian's prebuilt r-cran-*
# packages are used where the machine is Debian and we are root (fast); any R
# package still missing afterwards comes from CRAN, built from source.
set -euo pipefail

R_PKGS="Rcpp RcppEigen future future.apply progressr testthat knitr rmarkdown MASS callr DBI RSQLite RPostgreSQL generics palmerpenguins"

missing_r_pkgs() {
  Rscript --vanilla -e 'p <- commandArgs(TRUE); ok <- vapply(p, requireNamespace, logical(1), quietly = TRUE); cat(p[!ok])' $R_PKGS
}

need_pandoc=0
command -v pandoc >/dev/null 2>&1 || need_pandoc=1
# R CMD check --as-cran warns without qpdf (it checks vignette PDFs' size)
need_qpdf=0
command -v qpdf >/dev/null 2>&1 || need_qpdf=1
# the extended tier's database tests start a throwaway PostgreSQL server
# (tests/testthat/helper-postgres.R): initdb and pg_ctl from Debian's package
need_postgres=0
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || need_postgres=1
missing=$(missing_r_pkgs)

if [ -z "$missing" ] && [ "$need_pandoc" = 0 ] && [ "$need_qpdf" = 0 ] && [ "$need_postgres" = 0 ]; then
  echo "install-deps: everything is already installed"
  exit 0
fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if command -v apt-get >/dev/null 2>&1; then
  debs=""
  [ "$need_pandoc" = 1 ] && debs="pandoc"
  [ "$need_qpdf" = 1 ] && debs="$debs qpdf"
  [ "$need_postgres" = 1 ] && debs="$debs postgresql"
  for p in $missing; do
    debs="$debs r-cran-$(echo "$p" | tr 'A-Z' 'a-z')"
  done
  echo "install-deps: apt-get install $debs"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq || true
  # one package at a time so that one unavailable name does not block the rest
  for d in $debs; do
    $SUDO apt-get install -y -qq --no-install-recommends "$d" >/dev/null 2>&1 || echo "install-deps: apt could not install $d"
  done
fi

missing=$(missing_r_pkgs)
if [ -n "$missing" ]; then
  echo "install-deps: from CRAN: $missing"
  Rscript --vanilla -e 'install.packages(commandArgs(TRUE), repos = "https://cloud.r-project.org", Ncpus = 2)' $missing
fi
missing=$(missing_r_pkgs)
if [ -n "$missing" ]; then
  echo "install-deps: still missing: $missing" >&2
  exit 1
fi
command -v pandoc >/dev/null 2>&1 || { echo "install-deps: pandoc is missing (vignettes need it)" >&2; exit 1; }
echo "install-deps: done"
