#!/usr/bin/env bash
# `npm run bench`: installs the locked dependencies on a fresh clone, then hands over to the
# harness (bench/run.mjs), which builds, starts, measures, stops and reports.
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned Node 24 (scripts/node/pinned-node.txt), fetched on first use, runs everything below.
source scripts/node/use-pinned-node.sh
[[ -d node_modules ]] || npm install --no-audit --no-fund
# BENCH_NODE=/path/to/node runs the harness, and so every app it starts (process.execPath), on
# another Node.js, for a side-by-side run: `node bench/report.mjs --compare <Node 24 run> <other run>`.
exec "${BENCH_NODE:-node}" bench/run.mjs "$@"
