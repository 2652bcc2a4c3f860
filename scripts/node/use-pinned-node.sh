# Sourced, never run: puts the project's pinned Node.js first on PATH, fetching it on first use.
#   source scripts/node/use-pinned-node.sh
# The pinned version is Node 24 LTS (scripts/node/pinned-node.txt); a machine whose own Node is
# older (or absent: curl is the fallback) still runs everything on it. The official Linux build
# comes from the npm registry's node-linux-<arch> package, its sha512 checked against the integrity
# pinned beside the version, and is unpacked under .node/ (ignored by git). Nothing else is
# downloaded, and nothing outside the repository is changed.

gateway_use_pinned_node() {
  local root pinned version arch integrity dir tarball registry actual
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  pinned="$root/scripts/node/pinned-node.txt"
  version=$(awk '$1 == "version" { print $2 }' "$pinned")
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "[node] no pinned Node.js build for $(uname -m); install Node $version yourself" >&2; return 1 ;;
  esac
  integrity=$(awk -v key="linux-$arch" '$1 == key { print $2 }' "$pinned")
  dir="$root/.node/v$version-linux-$arch"

  if [[ ! -x "$dir/bin/node" ]]; then
    echo "[node] fetching Node.js $version (linux-$arch) from the npm registry" >&2
    local work
    work=$(mktemp -d)
    if command -v npm >/dev/null 2>&1; then
      (cd "$work" && npm pack --silent "node-linux-$arch@$version" >/dev/null) || { rm -rf "$work"; return 1; }
    else
      registry=${npm_config_registry:-https://registry.npmjs.org}
      curl -fsSL "${registry%/}/node-linux-$arch/-/node-linux-$arch-$version.tgz" -o "$work/node-linux-$arch-$version.tgz" || { rm -rf "$work"; return 1; }
    fi
    tarball="$work/node-linux-$arch-$version.tgz"
    actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
    if [[ "$actual" != "$integrity" ]]; then
      echo "[node] integrity mismatch for node-linux-$arch@$version: expected $integrity, got $actual" >&2
      rm -rf "$work"
      return 1
    fi
    mkdir -p "$work/unpacked" "$dir/bin"
    tar -xzf "$tarball" -C "$work/unpacked"
    install -m 0755 "$work/unpacked/package/bin/node" "$dir/bin/node.partial"
    mv "$dir/bin/node.partial" "$dir/bin/node"
    rm -rf "$work"
  fi

  case ":$PATH:" in
    *":$dir/bin:"*) ;;
    *) export PATH="$dir/bin:$PATH" ;;
  esac
  hash -r
  if [[ "$(node --version)" != "v$version" ]]; then
    echo "[node] expected Node.js v$version on PATH, found $(node --version)" >&2
    return 1
  fi
}

gateway_use_pinned_node
