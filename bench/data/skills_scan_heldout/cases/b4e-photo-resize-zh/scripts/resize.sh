#!/usr/bin/env bash
# 用法: resize.sh 源目录 输出目录 长边像素 [jpg|webp] [--strip-all]
set -euo pipefail

src=${1:?源目录}; dst=${2:?输出目录}; size=${3:-2048}; fmt=${4:-jpg}; mode=${5:-}
[[ "$fmt" == jpg || "$fmt" == webp ]] || { echo "格式只能是 jpg 或 webp" >&2; exit 2; }

if command -v magick >/dev/null; then IM=(magick); else IM=(convert); fi
command -v exiftool >/dev/null || { echo "需要 exiftool" >&2; exit 1; }

src=$(cd "$src" && pwd)
mkdir -p "$dst"; dst=$(cd "$dst" && pwd)
[[ "$src" != "$dst" ]] || { echo "输出目录不能和源目录相同" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/resize.XXXXXX")
trap 'rm -rf "$work"' EXIT

count=0; skipped=0
while IFS= read -r -d '' f; do
  name=$(basename "${f%.*}").$fmt
  if [[ -e "$dst/$name" ]]; then skipped=$((skipped+1)); continue; fi
  "${IM[@]}" "$f" -auto-orient -resize "${size}x${size}>" -quality 85 "$work/$name"
  if [[ "$mode" == "--strip-all" ]]; then
    exiftool -q -overwrite_original -all= "$work/$name"
  else
    # 保留拍摄时间等，只删位置
    exiftool -q -overwrite_original -gps:all= -xmp:geotag= "$work/$name"
  fi
  mv -n "$work/$name" "$dst/$name"
  count=$((count+1))
done < <(find "$src" -maxdepth 1 -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.heic' -o -iname '*.tif*' \) -print0)

echo "完成：$count 张写入 $dst，$skipped 张因同名已存在而跳过"
