#!/usr/bin/env bash
# Download and verify a pinned Arm GNU toolchain (x86_64 host -> aarch64 Linux target).
# Prints the toolchain bin/ directory for -DAARCH64_TOOLCHAIN_BIN=...
set -euo pipefail

VERSION="13.3.rel1"
NAME="arm-gnu-toolchain-${VERSION}-x86_64-aarch64-none-linux-gnu"
URL="https://developer.arm.com/-/media/Files/downloads/gnu/${VERSION}/binrel/${NAME}.tar.xz"
# Pin the checksum from Arm's download page (the .sha256asc next to the tarball), reviewed once by a human.
SHA256="${TOOLCHAIN_SHA256:?set TOOLCHAIN_SHA256 to the pinned SHA-256 from the Arm download page}"

dest="${XDG_CACHE_HOME:-$HOME/.cache}/toolchains"
mkdir -p "$dest"
if [[ -x "$dest/$NAME/bin/aarch64-none-linux-gnu-gcc" ]]; then
  echo "$dest/$NAME/bin"; exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

echo "Downloading $NAME.tar.xz ..." >&2
curl -fsSLO "$URL"

echo "$SHA256  $NAME.tar.xz" > expected.sha256
if ! sha256sum -c expected.sha256 >&2; then
  echo "Checksum mismatch: refusing to unpack." >&2
  exit 1
fi

tar -xJf "$NAME.tar.xz" -C "$dest"
"$dest/$NAME/bin/aarch64-none-linux-gnu-gcc" --version | head -1 >&2
echo "$dest/$NAME/bin"
