#!/usr/bin/env bash
# Makes sure podman can build and run the project's images on this Debian machine: installs
# podman, runc, debootstrap and podman-compose from Debian's packages when missing, and sets
# the two engine options this kind of machine needs (runc instead of crun, which fails on its
# cgroups; no default rlimits, which the sandbox refuses to set).
set -euo pipefail

missing=()
for command in podman runc debootstrap podman-compose; do
  command -v "$command" >/dev/null 2>&1 || missing+=("$command")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "installing from Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || true
  apt-get install -y -qq --no-install-recommends podman runc debootstrap podman-compose uidmap >/dev/null
fi

conf=/etc/containers/containers.conf
if ! grep -q '^runtime *= *"runc"' "$conf" 2>/dev/null; then
  mkdir -p /etc/containers
  cat >"$conf" <<'CONF'
# Written by scripts/containers/ensure-podman.sh.
[containers]
default_ulimits = []

[engine]
runtime = "runc"
CONF
fi
podman --version
