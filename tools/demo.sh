#!/usr/bin/env bash
# Installs what is missing, installs dpcov, and runs a short end-to-end demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
R CMD INSTALL . >/dev/null
Rscript --vanilla tools/demo.R
