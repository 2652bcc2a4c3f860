#!/usr/bin/env bash
# pgbench ships with the PostgreSQL server package on Debian (postgresql-NN) and with
# postgresql-contrib; install the latter when it is missing, as ensure-services.sh installs PostgreSQL.
set -euo pipefail
command -v pgbench >/dev/null && pgbench --version >/dev/null 2>&1 && exit 0
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
echo "[bench] installing pgbench (postgresql-contrib)" >&2
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql-contrib >/dev/null
pgbench --version >/dev/null
