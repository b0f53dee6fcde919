#!/usr/bin/env bash
# Runs a command under the Node.js LTS named in .nvmrc, whatever node the machine has:
#   scripts/with-node-lts.sh npm test
# The binary comes from the npm registry (the node-linux-<arch> package), kept in
# node_modules/.cache/node-<version> so a second run downloads nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
wanted="$(tr -d ' \n' < "$root/.nvmrc")"
case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) echo "no Node.js package for $(uname -m)" >&2; exit 1 ;; esac
cache="$root/node_modules/.cache/node-$wanted-$arch"
if [ ! -x "$cache/bin/node" ]; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$wanted" >/dev/null && tar xzf node-linux-*.tgz)
  mkdir -p "$(dirname "$cache")" && rm -rf "$cache" && mv "$tmp/package" "$cache" && rm -rf "$tmp"
fi
export PATH="$cache/bin:$PATH"
exec "$@"
