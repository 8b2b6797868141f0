#!/usr/bin/env bash
# Builds the package tarball and runs R CMD check on it (tests and vignettes
# included). Fails unless the check ends with 0 errors, 0 warnings, 0 notes,
# and prints the test tally as "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh || exit 1

# The check runs in a temporary directory, so point the data-dependent tests
# and the microbiome vignette at ../shared/data explicitly when it exists.
if [ -z "${DPCOV_COMBO_DIR:-}" ] && [ -d ../shared/data ]; then
  export DPCOV_COMBO_DIR="$(cd ../shared/data && pwd)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
R CMD build --no-manual . >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
tarball=$(ls -t dpcov_*.tar.gz | head -n 1)
mv "$tarball" "$work/"
( cd "$work" && _R_CHECK_FORCE_SUGGESTS_=true R CMD check --no-manual "$tarball" )
status=$?
log="$work/dpcov.Rcheck/00check.log"
rout=$(ls "$work"/dpcov.Rcheck/tests/testthat.Rout* 2>/dev/null | head -n 1)
if [ -n "$rout" ]; then
  tally=$(grep -E '^\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$rout" | tail -n 1)
  [ -n "$rout" ] && case "$rout" in *.fail) tail -n 60 "$rout";; esac
  if [ -n "$tally" ]; then
    fail=$(echo "$tally" | sed -E 's/.*FAIL ([0-9]+).*/\1/')
    skip=$(echo "$tally" | sed -E 's/.*SKIP ([0-9]+).*/\1/')
    pass=$(echo "$tally" | sed -E 's/.*PASS ([0-9]+).*/\1/')
    echo "testthat: $pass passed, $fail failed, $skip skipped"
  fi
fi
if [ $status -ne 0 ] || ! grep -q '^Status: OK' "$log"; then
  echo "R CMD check did not end with Status: OK" >&2
  exit 1
fi
exit 0
