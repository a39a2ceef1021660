#!/usr/bin/env bash
# Build the Hugo site with a verified Hugo release and deploy public/ to Netlify.
set -euo pipefail
: "${NETLIFY_AUTH_TOKEN:?export NETLIFY_AUTH_TOKEN first}"
: "${NETLIFY_SITE_ID:?export NETLIFY_SITE_ID first}"
prod=false; [[ ${1:-} == --prod ]] && prod=true

ver=${HUGO_VERSION:-$(cat .hugo-version 2>/dev/null || true)}
[[ -n $ver ]] || { echo "set HUGO_VERSION or create .hugo-version" >&2; exit 2; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64)  asset="hugo_extended_${ver}_linux-amd64.tar.gz" ;;
  Linux-aarch64) asset="hugo_extended_${ver}_linux-arm64.tar.gz" ;;
  Darwin-*)      asset="hugo_extended_${ver}_darwin-universal.tar.gz" ;;
  *) echo "unsupported platform" >&2; exit 2 ;;
esac

bin="$HOME/.cache/hugo-bin/$ver"
if [[ ! -x $bin/hugo ]]; then
  mkdir -p "$bin"
  (
    cd "$bin"
    base="https://github.com/gohugoio/hugo/releases/download/v${ver}"
    curl -fsSLO "$base/$asset"
    curl -fsSLO "$base/hugo_${ver}_checksums.txt"
    if command -v sha256sum >/dev/null; then sha256sum --ignore-missing -c "hugo_${ver}_checksums.txt"
    else shasum -a 256 --ignore-missing -c "hugo_${ver}_checksums.txt"; fi
    tar -xzf "$asset" hugo
    rm -f "$asset"
  )
fi
HUGO="$bin/hugo"
"$HUGO" version

rm -rf public resources/_gen
"$HUGO" --gc --minify

tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
zipfile="$tmpd/site.zip"
(cd public && zip -qr "$zipfile" .)

url="https://api.netlify.com/api/v1/sites/$NETLIFY_SITE_ID/deploys"
$prod || url="$url?draft=true"
resp=$(curl -fsS -X POST "$url" \
  -H "Authorization: Bearer $NETLIFY_AUTH_TOKEN" \
  -H "Content-Type: application/zip" \
  --data-binary "@$zipfile")

python3 -c '
import json, sys
d = json.loads(sys.argv[2])
print("deploy id:", d["id"])
print("url:", d.get("ssl_url") if sys.argv[1] == "true" else d.get("deploy_ssl_url"))
' "$prod" "$resp"
