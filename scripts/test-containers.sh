#!/usr/bin/env bash
# `npm run test:containers`: builds every image of docker/Dockerfile with podman and runs the
# system from them (test/containers). Installs podman from Debian's packages when missing and
# builds the local base image the Dockerfile starts from (scripts/containers/build-base-image.sh),
# since this machine can pull no image. Ends with one line `tests: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
# The pinned Node 24 (scripts/node/pinned-node.txt), fetched on first use, runs everything below.
source scripts/node/use-pinned-node.sh
TARGETS=(purchase-gateway payout-gateway reconciliation-worker vendor-dashboard back-office provider-sandbox ops migrate)
TAG=${CONTAINER_IMAGE_TAG:-test}
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
fail() { echo "$1" >&2; echo "tests: 0 passed, 1 failed"; exit 1; }

bash scripts/ensure-services.sh >/dev/null || fail "PostgreSQL or Redis is not available"
bash scripts/containers/ensure-podman.sh || fail "podman could not be installed"
bash scripts/containers/build-base-image.sh || fail "the base image could not be built"

started=$(date +%s)
for target in "${TARGETS[@]}"; do
  printf 'building %-22s ' "$target"
  t0=$(date +%s)
  podman build --pull=never --network host --format docker -f docker/Dockerfile --target "$target" \
    -t "localhost/za-payments/$target:$TAG" . >"$results/build-$target.log" 2>&1 || {
    tail -30 "$results/build-$target.log" >&2
    fail "image $target failed to build"
  }
  echo "$(($(date +%s) - t0)) s"
done
echo "all images built in $(($(date +%s) - started)) s"
podman images --filter "reference=localhost/za-payments/*:$TAG" --format '{{.Repository}}:{{.Tag}}  {{.Size}}'

CONTAINER_IMAGE_TAG=$TAG node --experimental-vm-modules node_modules/jest/bin/jest.js --config test/jest-containers.config.cjs \
  --runInBand --json --outputFile="$results/containers.json"
status=$?
read -r passed failed < <(node -e '
  const fs = require("fs");
  const file = process.argv[1];
  if (!fs.existsSync(file)) { console.log("0 1"); process.exit(0); }
  const report = JSON.parse(fs.readFileSync(file, "utf8"));
  console.log(report.numPassedTests + " " + (report.numFailedTests + report.numRuntimeErrorTestSuites));
' "$results/containers.json")
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
echo "tests: ${passed} passed, ${failed} failed"
[[ $status -eq 0 && $failed -eq 0 ]]
