#!/usr/bin/env bash
# One command for the whole local system: dependencies, PostgreSQL and Redis, migrations, the
# provider sandbox, a demo vendor with printed tokens, then every app with prefixed logs.
# Ctrl-C stops everything this script started.
set -euo pipefail
cd "$(dirname "$0")/.."

export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gateway}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export APP_ENV="${APP_ENV:-development}"
export LOG_LEVEL="${LOG_LEVEL:-info}"
log() { printf '\033[1m[stack]\033[0m %s\n' "$*" >&2; }

[[ -d node_modules ]] || { log "installing the locked dependencies"; npm install --no-audit --no-fund; }
bash scripts/ensure-services.sh
log "building"
npm run --silent build
log "migrating $DATABASE_URL"
node dist/libs/database/src/migrate.js --create-database

pids=()
cleanup() {
  log "stopping"
  # Each app runs in its own session, so one signal reaches node and its log pipeline alike.
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

wait_for() { # name url
  for _ in $(seq 1 60); do curl -fsS "$2" >/dev/null 2>&1 && return 0; sleep 0.5; done
  log "$1 did not become healthy at $2"; return 1
}

# Readable, prefixed logs: each app's JSON lines go through pino-pretty.
run_app() { # name entry
  local name=$1 entry=$2
  setsid bash -c "node '$entry' 2>&1 | node_modules/.bin/pino-pretty --singleLine --colorize --ignore pid,hostname,service \
      | sed -u 's/^/[$name] /'" &
  pids+=($!)
}

run_app sandbox dist/apps/provider-sandbox/src/main.js
wait_for sandbox http://127.0.0.1:3100/health/live
if node dist/apps/ops/src/main.js --help | grep -q 'catalogue:sync'; then
  node dist/apps/ops/src/main.js catalogue:sync >/dev/null
fi
seed=$(node dist/apps/ops/src/main.js demo:seed)

run_app purchase dist/apps/purchase-gateway/src/main.js
run_app payout dist/apps/payout-gateway/src/main.js
run_app worker dist/apps/reconciliation-worker/src/main.js
run_app dashboard dist/apps/vendor-dashboard/src/main.js
run_app back-office dist/apps/back-office/src/main.js
wait_for purchase-gateway http://127.0.0.1:3000/health/ready
wait_for payout-gateway http://127.0.0.1:3001/health/ready
wait_for worker http://127.0.0.1:3002/health/ready || true
wait_for vendor-dashboard http://127.0.0.1:3200/health/ready
wait_for back-office http://127.0.0.1:3300/health/ready
# A demo staff admin each time: the setup link (shown once) sets a password and an authenticator.
staff=$(node dist/apps/ops/src/main.js staff:create --email "admin-$(date +%s)@staff.example" --role admin)

cat >&2 <<MSG

$(printf '\033[1m')The stack is up.$(printf '\033[0m')
  purchase API  base_url http://127.0.0.1:3000/api/v1, paths /services, /quotes, ...   (docs http://127.0.0.1:3000/docs)
  payout API    base_url http://127.0.0.1:3001, paths /api/v1/payouts, ...          (docs http://127.0.0.1:3001/docs)
  worker        http://127.0.0.1:3002/health/ready
  sandbox       http://127.0.0.1:3100
  dashboard     http://127.0.0.1:3200   sign in as $(echo "$seed" | node -e 'const d=JSON.parse(require("fs").readFileSync(0,"utf8")).dashboard;console.log(d.email + "  password: " + d.password)')
  back-office   http://127.0.0.1:3300   staff; set up $(echo "$staff" | node -e 'const d=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log(d.email + " at " + d.setup_url)')
Demo vendor (tokens and the dashboard password are shown once):
$(echo "$seed" | node -e 'const s=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log(JSON.stringify(s,null,2))')

Try: curl -H "Authorization: Bearer $(echo "$seed" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).purchase.token)')" "$(echo "$seed" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).purchase.base_url)')/services"
Ctrl-C stops everything.
MSG
echo "$seed" > .stack-demo-vendor.json
wait
