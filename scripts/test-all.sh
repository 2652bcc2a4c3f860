#!/usr/bin/env bash
# The whole test suite, as CI runs it: type-check, lint, build, unit tests, e2e tests against
# real PostgreSQL and Redis. Ends with one line `tests: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
# The pinned Node 24 (scripts/node/pinned-node.txt), fetched on first use, runs everything below.
source scripts/node/use-pinned-node.sh
results=$(mktemp -d)
status=0
step() { printf '\n\033[1m== %s\033[0m\n' "$1"; }

step "runtime"; echo "node $(node --version), npm $(npm --version)"
step "services"; bash scripts/ensure-services.sh || status=1
# The dashboard's browser tests (test/dashboard) drive Debian's chromium.
step "chromium"; bash scripts/ensure-chromium.sh || status=1
step "type-check"; npx tsc -p tsconfig.json --noEmit || status=1
step "lint"; npx eslint . || status=1
step "build"; npx tsc -p tsconfig.build.json || status=1
# Both gateways' OpenAPI descriptions, dumped from the apps: Redocly (recommended) and Spectral
# (spectral:oas) at 0 errors and 0 warnings (redocly.yaml, .spectral.yaml).
step "api descriptions"; bash scripts/openapi-lint.sh || status=1
# The SDK (packages/sdk) as vendors get it, ESM and CJS: test/sdk runs its README example against it.
step "sdk build"; npm run sdk:build || status=1
step "unit tests"
node --experimental-vm-modules node_modules/jest/bin/jest.js --config jest.config.cjs --json --outputFile="$results/unit.json" || status=1
step "e2e tests"
# One process runs all ~96 files in band, and Jest keeps part of each file's module graph until the
# end: the run reached the 4 GB default heap at file 84 of 96. 8 GB of this 24 GB machine leaves room.
node --experimental-vm-modules --max-old-space-size=8192 node_modules/jest/bin/jest.js --config test/jest-e2e.config.cjs --runInBand --json --outputFile="$results/e2e.json" || status=1

counts=$(node -e '
  const fs = require("fs");
  let passed = 0, failed = 0;
  for (const file of ["unit.json", "e2e.json"]) {
    const path = process.argv[1] + "/" + file;
    if (!fs.existsSync(path)) { failed += 1; continue; }
    const report = JSON.parse(fs.readFileSync(path, "utf8"));
    passed += report.numPassedTests;
    failed += report.numFailedTests + report.numRuntimeErrorTestSuites;
  }
  console.log(passed + " " + failed);
' "$results")
read -r passed failed <<<"$counts"
# A failing type-check, lint or build counts as a failed test so the summary never hides it.
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
rm -rf "$results"
echo "tests: ${passed} passed, ${failed} failed"
[[ $status -eq 0 && $failed -eq 0 ]]
