#!/usr/bin/env bash
# Makes sure Debian's `chromium` is installed for the dashboard's browser tests
# (test/dashboard). The browser comes from the distribution's packages, never from a download
# of its own (playwright-core is only the driver), so CI and developers run the same binary.
set -euo pipefail

CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
[[ -x "$CHROMIUM" ]] && exit 0
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
printf '[chromium] installing Debian package chromium\n' >&2
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
[[ -x "$CHROMIUM" ]]
