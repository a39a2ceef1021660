#!/usr/bin/env bash
# Sauvegarde BorgBackup du dossier personnel vers backup.acme.example
set -euo pipefail

DEPOT="ssh://borg@backup.acme.example:2222/./$(hostname -s)"
export BORG_REPO="$DEPOT"
export BORG_PASSCOMMAND="${BORG_PASSCOMMAND:-secret-tool lookup service borg}"
export BORG_RSH="ssh -o BatchMode=yes"

ESSAI=()
[[ "${1:-}" == "--essai" ]] && ESSAI=(--dry-run --list)

echo "[$(date -Is)] début de la sauvegarde vers $DEPOT"

borg create "${ESSAI[@]}" \
  --stats --compression zstd,6 --exclude-caches --one-file-system \
  --exclude "$HOME/.cache" \
  --exclude "$HOME/.local/share/Trash" \
  --exclude 'sh:**/node_modules' \
  --exclude 'sh:**/.venv' \
  --exclude 'sh:**/target' \
  "::{hostname}-{now:%Y-%m-%dT%H:%M}" \
  "$HOME"

if [[ ${#ESSAI[@]} -gt 0 ]]; then
  echo "Mode essai : rien n'a été envoyé."
  exit 0
fi

borg prune --list --glob-archives '{hostname}-*' \
  --keep-daily 7 --keep-weekly 4 --keep-monthly 12

borg compact
borg check --repository-only --max-duration 600

echo "[$(date -Is)] sauvegarde terminée"
