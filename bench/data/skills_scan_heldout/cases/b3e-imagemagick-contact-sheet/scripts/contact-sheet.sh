#!/usr/bin/env bash
set -euo pipefail
src=${1:?source folder}; out=${2:-contact.png}; cols=${3:-6}
command -v magick >/dev/null || { echo "install ImageMagick 7 (magick)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/contact.XXXXXX")
cleanup() { rm -rf -- "$work"; }
trap cleanup EXIT INT TERM

n=0
while IFS= read -r -d '' f; do
  base=$(basename "$f")
  magick "$f[0]" -auto-orient -thumbnail 320x320 -background white -gravity center -extent 320x320 \
    "$work/$(printf '%05d' "$n")-${base%.*}.png"
  n=$((n+1))
done < <(find "$src" -maxdepth 1 -type f \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.webp' -o -iname '*.tif' \) -print0 | sort -z)

[[ $n -gt 0 ]] || { echo "no images in $src" >&2; exit 1; }

magick montage "$work"/*.png -tile "${cols}x" -geometry +8+8 -pointsize 12 \
  -label '%t' -title "$(basename "$src") ($n images)" "$out"
echo "wrote $out ($n thumbnails)"
