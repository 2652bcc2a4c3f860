#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer on 127.0.0.1, starting them, or installing them from
# Debian packages, when they do not. Used by `npm run stack` and by CI. Skipped for a service
# whose URL (DATABASE_URL / REDIS_URL) points somewhere other than this machine.
set -euo pipefail

log() { printf '[services] %s\n' "$*" >&2; }
is_local() { [[ -z "${1:-}" || "$1" == *"127.0.0.1"* || "$1" == *"localhost"* ]]; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  if [[ $apt_updated -eq 0 ]]; then as_root apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

postgres_ready() { command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432; }
redis_ready() { command -v redis-cli >/dev/null && [[ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" == "PONG" ]]; }

ensure_postgres() {
  postgres_ready && return 0
  if ! command -v pg_ctlcluster >/dev/null; then
    log "installing PostgreSQL from Debian packages"
    apt_install postgresql
  fi
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  log "starting PostgreSQL $version"
  # Local development trusts loopback connections, as the configuration defaults (README) assume.
  local hba="/etc/postgresql/$version/main/pg_hba.conf"
  if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    as_root sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  fi
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || as_root pg_ctlcluster "$version" main start
  for _ in $(seq 1 30); do postgres_ready && return 0; sleep 1; done
  log "PostgreSQL did not become ready"; return 1
}

ensure_redis() {
  redis_ready && return 0
  if ! command -v redis-server >/dev/null; then
    log "installing Redis from Debian packages"
    apt_install redis-server
  fi
  log "starting Redis (noeviction, no persistence: PostgreSQL is the system of record)"
  mkdir -p /tmp/redis-gateway
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --maxmemory-policy noeviction --dir /tmp/redis-gateway --logfile /tmp/redis-gateway/redis.log
  for _ in $(seq 1 30); do redis_ready && return 0; sleep 1; done
  log "Redis did not become ready"; return 1
}

is_local "${DATABASE_URL:-}" && ensure_postgres
is_local "${REDIS_URL:-}" && ensure_redis
log "PostgreSQL and Redis are ready"
