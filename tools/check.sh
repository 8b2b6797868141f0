#!/usr/bin/env bash
# Builds the package tarball and runs R CMD check --as-cran on it (tests and
# vignettes included). Fails unless the check ends with 0 errors, 0 warnings
# and no NOTE other than the ones a machine without network access or a first
# submission always produces (listed below), and prints the test tally as
# "N passed, N failed".
#
# Tolerated NOTEs (and only these, with exactly this content):
#   * "checking CRAN incoming feasibility": only the lines "Maintainer: ..."
#     and "New submission" (dpcov has never been on CRAN).
#   * "checking for future file timestamps": "unable to verify current time"
#     (the check asks a time server; offline machines cannot answer).
# Any other NOTE, any WARNING or ERROR fails the script. Without network
# access the remote parts of the incoming check (URLs, DOIs, arXiv ids, the
# CRAN package database) cannot run and are switched off
# (_R_CHECK_CRAN_INCOMING_REMOTE_=false); the script says so when it does.
#
# The tests have two tiers (tests/testthat/helper-tier.R). This script runs
# both: it sets DPCOV_EXTENDED=true unless the caller set it. The fast tier
# alone (what R CMD check runs on CRAN) is `bash tools/check.sh --fast`, the
# same as `DPCOV_EXTENDED=false bash tools/check.sh`.
set -uo pipefail
cd "$(dirname "$0")/.."
for a in "$@"; do
  case "$a" in
    --fast) export DPCOV_EXTENDED=false ;;
    *) echo "usage: bash tools/check.sh [--fast]" >&2; exit 2 ;;
  esac
done
export DPCOV_EXTENDED="${DPCOV_EXTENDED:-true}"
bash tools/install-deps.sh || exit 1

# The check runs in a temporary directory, so point the data-dependent tests
# and the microbiome vignette at ../shared/data explicitly when it exists.
if [ -z "${DPCOV_COMBO_DIR:-}" ] && [ -d ../shared/data ]; then
  export DPCOV_COMBO_DIR="$(cd ../shared/data && pwd)"
fi
# The remote incoming checks verify links against the hosts the package
# cites; where any of them is unreachable (CI may reach CRAN only) the
# result would describe the network, not the package, so they are skipped.
hosts='c("https://cran.r-project.org/", "https://doi.org/", "https://arxiv.org/", "https://github.com/")'
if ! Rscript --vanilla -e "options(timeout = 10); for (u in $hosts) invisible(readLines(url(u), n = 1L))" >/dev/null 2>&1; then
  echo "check.sh: CRAN, doi.org, arxiv.org or github.com unreachable: remote incoming checks (URLs, DOIs, arXiv ids, CRAN database) are skipped"
  export _R_CHECK_CRAN_INCOMING_REMOTE_=false
fi

# the pkgdown reference index must list every topic (pkgdown is optional)
if Rscript --vanilla -e 'quit(status = !requireNamespace("pkgdown", quietly = TRUE))' >/dev/null 2>&1; then
  Rscript --vanilla -e 'pkgdown::check_pkgdown()' || { echo "check.sh: _pkgdown.yml is out of date" >&2; exit 1; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
R CMD build --no-manual . >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
tarball=$(ls -t dpcov_*.tar.gz | head -n 1)
mv "$tarball" "$work/"
case "$DPCOV_EXTENDED" in
  true|TRUE|True|T) echo "check.sh: all tests (fast and extended tier, DPCOV_EXTENDED=true)" ;;
  *) echo "check.sh: fast tier of the tests only (DPCOV_EXTENDED=$DPCOV_EXTENDED)" ;;
esac
start=$SECONDS
( cd "$work" && _R_CHECK_FORCE_SUGGESTS_=true R CMD check --as-cran --no-manual "$tarball" )
status=$?
check_secs=$((SECONDS - start))
log="$work/dpcov.Rcheck/00check.log"
rout=$(ls "$work"/dpcov.Rcheck/tests/testthat.Rout* 2>/dev/null | head -n 1)
if [ -n "$rout" ]; then
  tally=$(grep -E '^\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]' "$rout" | tail -n 1)
  case "$rout" in *.fail) tail -n 60 "$rout";; esac
  if [ -n "$tally" ]; then
    fail=$(echo "$tally" | sed -E 's/.*FAIL ([0-9]+).*/\1/')
    skip=$(echo "$tally" | sed -E 's/.*SKIP ([0-9]+).*/\1/')
    pass=$(echo "$tally" | sed -E 's/.*PASS ([0-9]+).*/\1/')
    echo "testthat: $pass passed, $fail failed, $skip skipped"
  fi
fi
[ -f "$log" ] || { echo "R CMD check wrote no log" >&2; exit 1; }
# R CMD check's own timing of the tests, "[CPU/elapsed]" in s (or m when
# over 10 minutes); --as-cran prints it when the tests take over 10 s.
timing=$(grep -E "Running .{1,3}testthat\.R.{1,3} \[[0-9]+[sm]/[0-9]+[sm]\]" "$log" | sed -E 's/.*\[([0-9]+)([sm])\/([0-9]+)([sm])\].*/\1 \2 CPU, \3 \4 elapsed/')
[ -n "$timing" ] && echo "tests: $timing"
echo "R CMD check: $check_secs s elapsed"

# Every NOTE / WARNING / ERROR block of the log: the "* checking ..." line and
# the lines up to the next "* " line. Tolerated blocks are dropped; anything
# left fails the script.
offending=$(awk '
  function flush() {
    if (head == "") return
    ok = 0
    if (head ~ /checking CRAN incoming feasibility \.\.\. NOTE$/) {
      ok = 1
      n = split(body, lines, "\n")
      for (i = 1; i <= n; i++) {
        l = lines[i]
        if (l ~ /^[[:space:]]*$/ || l ~ /^Maintainer: / || l ~ /^New submission$/) continue
        ok = 0
      }
    } else if (head ~ /checking for future file timestamps \.\.\. NOTE$/) {
      ok = (body ~ /^\n?unable to verify current time\n?$/)
    }
    if (!ok) printf "%s%s\n", head, body
    head = ""; body = ""
  }
  /^\* / { flush(); if ($0 ~ /\.\.\. (NOTE|WARNING|ERROR)$/) head = $0; next }
  /^Status: / { flush(); next }
  { if (head != "") body = body "\n" $0 }
  END { flush() }
' "$log")
if [ $status -ne 0 ] || [ -n "$offending" ] || grep -qE '^Status: .*(ERROR|WARNING)' "$log"; then
  [ -n "$offending" ] && printf 'Not tolerated:\n%s\n' "$offending" >&2
  echo "R CMD check --as-cran did not pass (see the list above and $log)" >&2
  exit 1
fi
grep '^Status:' "$log"
exit 0
