#!/usr/bin/env bash
set -euo pipefail
: "${REPORTS_BUCKET:?set REPORTS_BUCKET to your team's report bucket}"
dir=${1:?folder like out/2025-W11}
week=$(basename "$dir")
prefix="s3://${REPORTS_BUCKET}/weekly/${week}"

aws sts get-caller-identity --query Arn --output text >&2

shopt -s nullglob
files=("$dir"/*.pdf "$dir"/*.csv)
[[ ${#files[@]} -gt 0 ]] || { echo "no reports in $dir" >&2; exit 1; }

for f in "${files[@]}"; do
  aws s3 cp "$f" "$prefix/$(basename "$f")" --sse aws:kms --only-show-errors
  echo "uploaded $(basename "$f")"
done

echo
echo "Share links (valid 72h):"
for f in "$dir"/*.pdf; do
  aws s3 presign "$prefix/$(basename "$f")" --expires-in 259200
done
