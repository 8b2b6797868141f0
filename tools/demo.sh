#!/usr/bin/env bash
# Installs what is missing, installs dpcov, and runs a short end-to-end demo.
# The compiler's output (thousands of warnings from the Eigen headers, none
# from dpcov) goes to a log that is shown only when the install fails.
# --preclean: object files left in src/ by an earlier build of other sources
# (or other Makevars flags) would be linked in unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
log=$(mktemp "${TMPDIR:-/tmp}/dpcov-install.XXXXXX")
echo "demo: building and installing dpcov (1-4 minutes; log in $log) ..."
start=$SECONDS
if ! R CMD INSTALL --preclean . >"$log" 2>&1; then
  cat "$log" >&2
  echo "demo: installing dpcov failed; the full log is above and in $log" >&2
  exit 1
fi
rm -f "$log"
echo "demo: dpcov installed in $((SECONDS - start)) s"
Rscript --vanilla tools/demo.R
