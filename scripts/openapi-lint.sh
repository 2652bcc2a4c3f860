#!/usr/bin/env bash
# `npm run openapi:lint`: dumps both gateways' OpenAPI descriptions exactly as /docs-json serves
# them (built in process, no database) and lints them with Redocly (`recommended`, redocly.yaml)
# and Spectral (`spectral:oas`, .spectral.yaml). Any error or warning of either tool fails.
# Needs the build (npm run build) for the dump.
set -uo pipefail
cd "$(dirname "$0")/.."
out=dist/openapi
node dist/scripts/sdk/dump-documents.js "$out" || exit 1
status=0
for api in purchase payout; do
  # Redocly exits 0 on warnings: its JSON totals decide, and the stylish report says what.
  totals=$(npx redocly lint "$api" --config redocly.yaml --format json 2>/dev/null | node -e '
    let text = ""; process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
      const { totals } = JSON.parse(text);
      console.log(`${totals.errors} ${totals.warnings}`);
    });')
  read -r errors warnings <<<"${totals:-? ?}"
  echo "redocly (recommended) ${api}: ${errors} errors, ${warnings} warnings"
  if [[ $errors != 0 || $warnings != 0 ]]; then
    npx redocly lint "$api" --config redocly.yaml --format stylish --max-problems 1000
    status=1
  fi
  if npx spectral lint --ruleset .spectral.yaml --fail-severity=hint "$out/$api.json"; then
    echo "spectral (spectral:oas) ${api}: 0 errors, 0 warnings"
  else
    status=1
  fi
done
exit $status
