#!/usr/bin/env bash
# install-release.sh OWNER/REPO TAG ASSET CHECKSUMS BINARY
# Download a GitHub release asset, verify its SHA-256 against the release checksums, install BINARY.
set -euo pipefail

[[ $# -eq 5 ]] || { echo "usage: $0 OWNER/REPO TAG ASSET CHECKSUMS BINARY" >&2; exit 2; }
repo="$1" tag="$2" asset="$3" sums="$4" bin="$5"
[[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || { echo "bad repo: $repo" >&2; exit 2; }

base="https://github.com/$repo/releases/download/$tag"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

echo "downloading $asset and $sums from $base"
curl -fsSLO "$base/$asset"
curl -fsSLO "$base/$sums"

grep -E "[[:space:]]\*?${asset//./\\.}\$" "$sums" > expected.sha256 || {
  echo "no checksum line for $asset in $sums - not installing" >&2; exit 1; }

if command -v sha256sum >/dev/null; then
  sha256sum -c expected.sha256
else
  shasum -a 256 -c expected.sha256
fi
echo "checksum OK"

mkdir extract
case "$asset" in
  *.tar.gz|*.tgz) tar -xzf "$asset" -C extract ;;
  *.zip)          unzip -q "$asset" -d extract ;;
  *)              cp "$asset" "extract/$bin" ;;
esac

found="$(find extract -type f -name "$bin" -perm -u+x | head -n1)"
[[ -z "$found" ]] && found="$(find extract -type f -name "$bin" | head -n1)"
[[ -n "$found" ]] || { echo "binary $bin not found in archive" >&2; exit 1; }

mkdir -p "$HOME/.local/bin"
install -m 0755 "$found" "$HOME/.local/bin/$bin"
echo "installed $HOME/.local/bin/$bin"
case ":$PATH:" in
  *":$HOME/.local/bin:"*) ;;
  *) echo "note: $HOME/.local/bin is not on PATH" ;;
esac
