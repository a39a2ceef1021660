#!/usr/bin/env bash
# fetch_gguf.sh <repo> <file> [revision] - download from huggingface.co and verify sha256.
set -euo pipefail

repo="${1:?repo, e.g. Qwen/Qwen2.5-0.5B-Instruct-GGUF}"
file="${2:?file name inside the repo}"
rev="${3:-main}"
dest_dir="${MODELS_DIR:-$HOME/.cache/models}/$repo"
auth=()
[[ -n "${HF_TOKEN:-}" ]] && auth=(-H "Authorization: Bearer $HF_TOKEN")

for bin in curl jq sha256sum; do
  command -v "$bin" >/dev/null || { echo "need $bin" >&2; exit 1; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "looking up published sha256 for $file @ $rev"
expected="$(curl -fsS "${auth[@]}" "https://huggingface.co/api/models/$repo/tree/$rev" \
  | jq -r --arg f "$file" '.[] | select(.path == $f) | .lfs.oid // empty')"
size="$(curl -fsS "${auth[@]}" "https://huggingface.co/api/models/$repo/tree/$rev" \
  | jq -r --arg f "$file" '.[] | select(.path == $f) | .size // empty')"
if [[ -z "$expected" ]]; then
  echo "no LFS sha256 found for $file in $repo@$rev; refusing to download unverifiable file" >&2
  exit 1
fi
echo "expected sha256: $expected ($(numfmt --to=iec "${size:-0}" 2>/dev/null || echo "$size bytes"))"

cd "$tmp"
curl -fSL --retry 3 "${auth[@]}" -o "$file" \
  "https://huggingface.co/$repo/resolve/$rev/$file"

actual="$(sha256sum "$file" | awk '{print $1}')"
if [[ "$actual" != "$expected" ]]; then
  echo "CHECKSUM MISMATCH: got $actual" >&2
  exit 1
fi
echo "checksum OK"

mkdir -p "$dest_dir"
mv "$file" "$dest_dir/$file"
echo "saved $dest_dir/$file"
