#!/usr/bin/env bash
# One command for the whole local system: dependencies, PostgreSQL and Redis, migrations, the
# provider sandbox, a demo vendor with printed tokens, then every app with prefixed logs.
# Ctrl-C stops everything this script started.
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned Node 24 (scripts/node/pinned-node.txt), fetched on first use, runs everything below.
source scripts/node/use-pinned-node.sh

export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/gateway}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export APP_ENV="${APP_ENV:-development}"
export LOG_LEVEL="${LOG_LEVEL:-info}"
# STACK_PORT_OFFSET moves every port (default 0: 3000, 3001, 3002, 3100, 3200, 3300, mail 1025/1080), so a second
# stack (the test of this script, test/stack) can run beside a developer's.
offset=${STACK_PORT_OFFSET:-0}
purchase_port=$((3000 + offset)) payout_port=$((3001 + offset)) worker_port=$((3002 + offset))
sandbox_port=$((3100 + offset)) dashboard_port=$((3200 + offset)) back_office_port=$((3300 + offset))
# The dashboard and the back-office answer /health/* and /metrics only on their operational port.
dashboard_operational_port=$((3201 + offset)) back_office_operational_port=$((3301 + offset))
# STACK_PAYOUT_REVIEW=short: a payout whose outcome stays unknown (the sandbox's suffix 04 stays
# PENDING for ever) reaches needs_review after 2 minutes instead of 72 hours, and is looked up
# again every minute there, so a person can walk the back-office payout queue. Holds still
# become overdue after 10 minutes (PAYOUT_HOLD_MAX_AGE_MS must exceed the review window).
# Explicit PAYOUT_* settings win. docs/BACK-OFFICE.md, "Walking the payout queue locally".
if [[ "${STACK_PAYOUT_REVIEW:-}" == short ]]; then
  export PAYOUT_REVIEW_AFTER_MS="${PAYOUT_REVIEW_AFTER_MS:-120000}"
  export PAYOUT_REVIEW_POLL_INTERVAL_MS="${PAYOUT_REVIEW_POLL_INTERVAL_MS:-60000}"
  export PAYOUT_HOLD_MAX_AGE_MS="${PAYOUT_HOLD_MAX_AGE_MS:-600000}"
elif [[ -n "${STACK_PAYOUT_REVIEW:-}" ]]; then
  printf 'STACK_PAYOUT_REVIEW=%s: the only value is "short"\n' "$STACK_PAYOUT_REVIEW" >&2; exit 2
fi
mail_smtp_port=$((1025 + offset)) mail_http_port=$((1080 + offset))
export PURCHASE_PROVIDER_BASE_URL="${PURCHASE_PROVIDER_BASE_URL:-http://127.0.0.1:$sandbox_port/dvs/v1}"
export PAYOUT_PROVIDER_BASE_URL="${PAYOUT_PROVIDER_BASE_URL:-http://127.0.0.1:$sandbox_port}"
export CALLBACK_BASE_URL="${CALLBACK_BASE_URL:-http://127.0.0.1:$purchase_port/api/v1/provider/callback}"
export DASHBOARD_PUBLIC_URL="${DASHBOARD_PUBLIC_URL:-http://127.0.0.1:$dashboard_port}"
# The apps' mail (invites, password resets, sign-in notices) goes to the local mail catcher below.
export MAIL_SMTP_URL="${MAIL_SMTP_URL:-smtp://127.0.0.1:$mail_smtp_port}"
export MAIL_FROM="${MAIL_FROM:-Payments gateway (local) <no-reply@localhost>}"
log() { printf '\033[1m[stack]\033[0m %s\n' "$*" >&2; }

[[ -d node_modules ]] || { log "installing the locked dependencies"; npm install --no-audit --no-fund; }
bash scripts/ensure-services.sh
log "building"
npm run --silent build
log "migrating $DATABASE_URL"
node dist/libs/database/src/migrate.js --create-database

pids=()
stopped=0
cleanup() {
  [[ $stopped -eq 1 ]] && return
  stopped=1
  log "stopping"
  # Each app runs in its own session (process group) with its log pipeline. SIGTERM goes to the
  # app's node process first, so it drains on its own grace period while pino-pretty still reads
  # its last lines; the pipeline then ends by itself. Whatever is left after 30 s is killed.
  for pid in "${pids[@]}"; do pkill -TERM -g "$pid" -f 'dist/apps/|mail-catcher' 2>/dev/null || true; done
  for _ in $(seq 1 60); do
    alive=0
    for pid in "${pids[@]}"; do pgrep -g "$pid" >/dev/null 2>&1 && alive=1; done
    [[ $alive -eq 0 ]] && break
    sleep 0.5
  done
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wait_for() { # name url
  for _ in $(seq 1 60); do curl -fsS "$2" >/dev/null 2>&1 && return 0; sleep 0.5; done
  log "$1 did not become healthy at $2"; return 1
}

# Readable, prefixed logs: each app's JSON lines go through pino-pretty.
run_app() { # name entry port [operational port]
  local name=$1 entry=$2 port=$3 operational=${4:-}
  env PORT=$port ${operational:+OPERATIONAL_PORT=$operational} setsid bash -c "node '$entry' 2>&1 | node_modules/.bin/pino-pretty --singleLine --colorize --ignore pid,hostname,service \
      | sed -u 's/^/[$name] /'" &
  pids+=($!)
}

# The local mail catcher (smtp-server): prints each mail and shows them all at its HTTP page.
setsid bash -c "node scripts/mail-catcher/mail-catcher.mjs $mail_smtp_port $mail_http_port 2>&1 | sed -u 's/^/[mail] /'" &
pids+=($!)
run_app sandbox dist/apps/provider-sandbox/src/main.js "$sandbox_port"
wait_for sandbox http://127.0.0.1:$sandbox_port/health/live
if node dist/apps/ops/src/main.js --help | grep -q 'catalogue:sync'; then
  node dist/apps/ops/src/main.js catalogue:sync >/dev/null
fi
seed_urls=()
if [[ $offset -ne 0 ]]; then
  seed_urls=(--purchase-base-url "http://127.0.0.1:$purchase_port/api/v1" --payout-base-url "http://127.0.0.1:$payout_port" --dashboard-url "http://127.0.0.1:$dashboard_port")
fi
seed=$(node dist/apps/ops/src/main.js demo:seed "${seed_urls[@]}")

run_app purchase dist/apps/purchase-gateway/src/main.js "$purchase_port"
run_app payout dist/apps/payout-gateway/src/main.js "$payout_port"
run_app worker dist/apps/reconciliation-worker/src/main.js "$worker_port"
run_app dashboard dist/apps/vendor-dashboard/src/main.js "$dashboard_port" "$dashboard_operational_port"
run_app back-office dist/apps/back-office/src/main.js "$back_office_port" "$back_office_operational_port"
wait_for purchase-gateway http://127.0.0.1:$purchase_port/health/ready
wait_for payout-gateway http://127.0.0.1:$payout_port/health/ready
wait_for worker http://127.0.0.1:$worker_port/health/ready || true
wait_for vendor-dashboard http://127.0.0.1:$dashboard_operational_port/health/ready
wait_for back-office http://127.0.0.1:$back_office_operational_port/health/ready
# A demo staff admin each time: the setup link (shown once) sets a password and an authenticator.
staff=$(node dist/apps/ops/src/main.js staff:create --email "admin-$(date +%s)@staff.example" --role admin --base-url "http://127.0.0.1:$back_office_port")

cat >&2 <<MSG

$(printf '\033[1m')The stack is up.$(printf '\033[0m')
  purchase API  base_url http://127.0.0.1:$purchase_port/api/v1, paths /services, /quotes, ...   (docs http://127.0.0.1:$purchase_port/docs)
  payout API    base_url http://127.0.0.1:$payout_port, paths /api/v1/payouts, ...          (docs http://127.0.0.1:$payout_port/docs)
  worker        http://127.0.0.1:$worker_port/health/ready
  sandbox       http://127.0.0.1:$sandbox_port
  dashboard     http://127.0.0.1:$dashboard_port   sign in as $(echo "$seed" | node -e 'const d=JSON.parse(require("fs").readFileSync(0,"utf8")).dashboard;console.log(d.email + "  password: " + d.password)')
  mail          http://127.0.0.1:$mail_http_port   every mail the apps sent (SMTP catcher on port $mail_smtp_port)
  back-office   http://127.0.0.1:$back_office_port   staff; set up $(echo "$staff" | node -e 'const d=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log(d.email + " at " + d.setup_url)')
Demo vendor (tokens and the dashboard password are shown once):
$(echo "$seed" | node -e 'const s=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log(JSON.stringify(s,null,2))')

Try: curl -H "Authorization: Bearer $(echo "$seed" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).purchase.token)')" "$(echo "$seed" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0,"utf8")).purchase.base_url)')/services"
Ctrl-C stops everything.
MSG
# The demo vendor for scripts and docs that read it (not for a second stack run beside this one).
[[ $offset -ne 0 ]] || echo "$seed" > .stack-demo-vendor.json
# Until Ctrl-C (or an app ends); the EXIT trap then stops everything.
wait
