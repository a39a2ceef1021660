#!/usr/bin/env bash
# Install a pinned buf release into ./.tools/bin, verifying the release's sha256.txt.
set -euo pipefail

BUF_VERSION="${BUF_VERSION:-1.34.0}"
os=$(uname -s); arch=$(uname -m)
case "$arch" in x86_64|amd64) arch=x86_64 ;; arm64|aarch64) arch=$([[ $os == Darwin ]] && echo arm64 || echo aarch64) ;; esac
asset="buf-${os}-${arch}"
base="https://github.com/bufbuild/buf/releases/download/v${BUF_VERSION}"

dest="$(pwd)/.tools/bin"
if [[ -x "$dest/buf" ]] && [[ "$("$dest/buf" --version)" == "$BUF_VERSION" ]]; then
  echo "buf $BUF_VERSION already installed in $dest"; exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
curl -fsSLO "$base/$asset"
curl -fsSLO "$base/sha256.txt"
grep " ${asset}\$" sha256.txt > expected.txt || { echo "$asset not listed in sha256.txt" >&2; exit 1; }
if command -v sha256sum >/dev/null; then sha256sum -c expected.txt; else shasum -a 256 -c expected.txt; fi

mkdir -p "$dest"
install -m 0755 "$asset" "$dest/buf"
echo "installed $("$dest/buf" --version) to $dest"
