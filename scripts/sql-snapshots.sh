#!/usr/bin/env bash
# Regenerates the SQL snapshots (test/queries/<lib>/<repository>.sql, docs/ARCHITECTURE.md):
# runs the e2e suite with every statement the repositories issue recorded, and writes them.
#   npm run sql:snapshots                      the whole suite; the snapshots become exactly its statements
#   npm run sql:snapshots -- test/payout/...   only these files; their statements are added, none removed
# Review the diff: it shows every statement a change added, altered or no longer issues.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/node/use-pinned-node.sh
mode=rewrite
if [[ $# -gt 0 ]]; then mode=update; set -- "$@" test/queries/query-snapshots.e2e-spec.ts; fi
SQL_SNAPSHOTS=$mode node --experimental-vm-modules --max-old-space-size=8192 node_modules/jest/bin/jest.js --config test/jest-e2e.config.cjs --runInBand "$@"
