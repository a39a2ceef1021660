#!/usr/bin/env bash
# Push selected Pi folders to the NAS as a dated, hard-linked snapshot.
# Usage: pi-backup.sh [--dry-run]
set -euo pipefail

NAS=${NAS:-backup@10.0.0.10}
KEY=${KEY:-/root/.ssh/pi_backup}
SOURCES=(${SOURCES:-/etc /home/pi /opt})
EXCLUDES=(--exclude='*.tmp' --exclude='.cache/' --exclude='node_modules/' --exclude='/home/pi/Downloads/')

today=$(date +%F)
yesterday=$(date -d yesterday +%F)
dry=()
[[ ${1:-} == --dry-run ]] && dry=(--dry-run --itemize-changes)

# A live SQLite DB may be copied mid-write; say so rather than stopping the user's containers.
if command -v docker >/dev/null && docker ps --format '{{.Names}}' | grep -qx homeassistant; then
  echo "note: homeassistant is running; its SQLite DB is copied live (use HA's own backup for a consistent DB)"
fi

status=0
echo "[$(date -Is)] backup to $NAS:$today (link-dest $yesterday) ${dry[*]:-}"
rsync -aHAX --numeric-ids --delete --delete-excluded \
  "${dry[@]}" "${EXCLUDES[@]}" \
  --relative \
  --link-dest="../$yesterday" \
  -e "ssh -i $KEY -o BatchMode=yes -o ConnectTimeout=20" \
  "${SOURCES[@]}" "$NAS:$today/" || status=$?

echo "[$(date -Is)] rsync exit $status"
exit $status
