#!/bin/sh
# Build-time only (docker/Dockerfile, stage runtime-root): a minimal root filesystem for the apps:
# the node binary and exactly the shared libraries it links against (glibc, libstdc++, libgcc_s,
# the loader), and those of every native addon in the production dependencies (argon2 needs
# librt), tini, the nss and loader configuration, and the node user. No shell, package manager,
# npm or other Debian userland: nothing an attacker could use and nothing to patch.
#   sh docker/runtime-root.sh <dest> <production node_modules>
set -eu
dest=$1
modules=$2
mkdir -p "$dest/usr/local/bin" "$dest/usr/bin" "$dest/etc" "$dest/app" "$dest/home/node" "$dest/tmp"
chmod 1777 "$dest/tmp"
cp /usr/local/bin/node "$dest/usr/local/bin/node"
cp /usr/bin/tini-static "$dest/usr/bin/tini"
# Addons built for another libc (musl) are skipped: they are never loaded on this one.
for binary in /usr/local/bin/node $(find "$modules" -name '*.node' ! -path '*musl*'); do
  for lib in $(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    [ -e "$dest$lib" ] || cp -L --parents "$lib" "$dest"
  done
done
cp /etc/ld.so.cache /etc/nsswitch.conf "$dest/etc/"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnode:x:1000:1000::/home/node:/usr/sbin/nologin\n' >"$dest/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$dest/etc/group"
chown 1000:1000 "$dest/home/node"
# The loader finds every library, and node runs, in the new root alone.
chroot "$dest" /usr/local/bin/node --version
