#!/usr/bin/env bash
# `npm run bench`: installs the locked dependencies on a fresh clone, then hands over to the
# harness (bench/run.mjs), which builds, starts, measures, stops and reports.
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned Node 24 (scripts/node/pinned-node.txt), fetched on first use, runs everything below.
source scripts/node/use-pinned-node.sh
[[ -d node_modules ]] || npm install --no-audit --no-fund
exec node bench/run.mjs "$@"
