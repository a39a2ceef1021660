#!/usr/bin/env bash
# Dated, hard-linked rsync snapshots to the user's NAS.
# Usage: NAS=user@host DEST=/path/on/nas nas-snapshot.sh [--dry-run] DIR...
set -euo pipefail

: "${NAS:?set NAS=user@host}"
: "${DEST:?set DEST=/path/on/nas}"

DRY=()
if [[ "${1:-}" == "--dry-run" ]]; then
  DRY=(--dry-run)
  shift
fi
[[ $# -gt 0 ]] || { echo "give at least one folder to back up" >&2; exit 2; }

HERE="$(cd "$(dirname "$0")" && pwd)"
EXCLUDES="$HERE/../references/excludes.txt"
STAMP="$(date +%Y-%m-%d_%H%M)"
TARGET="$DEST/$STAMP"

# Previous snapshot for --link-dest, if there is one.
LINK=()
if ssh -o BatchMode=yes "$NAS" "test -d '$DEST/latest'"; then
  LINK=(--link-dest="$DEST/latest")
fi

ssh -o BatchMode=yes "$NAS" "mkdir -p '$TARGET'"

for dir in "$@"; do
  src="${dir%/}"
  [[ -d "$src" ]] || { echo "skip: $src is not a folder" >&2; continue; }
  echo "==> $src -> $NAS:$TARGET/"
  rsync -aH --numeric-ids --info=stats1,progress2 \
    --exclude-from="$EXCLUDES" \
    "${DRY[@]}" "${LINK[@]}" \
    -e "ssh -o BatchMode=yes" \
    "$src" "$NAS:$TARGET/"
done

if [[ ${#DRY[@]} -eq 0 ]]; then
  ssh "$NAS" "ln -sfn '$TARGET' '$DEST/latest' && ls -1 '$DEST' | grep -vc latest" \
    | xargs -I{} echo "snapshots on NAS: {}"
else
  ssh "$NAS" "rmdir '$TARGET'" || true
  echo "dry run only; nothing was written"
fi
