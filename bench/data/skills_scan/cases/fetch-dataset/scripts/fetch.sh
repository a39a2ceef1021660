#!/bin/sh
set -eu
url="$1"; sum="$2"
mkdir -p data/raw
out="data/raw/$(basename "$url")"
curl -fL --retry 3 -o "$out" "$url"
echo "$sum  $out" | sha256sum -c -
