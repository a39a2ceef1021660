#!/usr/bin/env bash
# Collect settings for migration. Missing paths are skipped.
set -u
OUT=/tmp/devmove-bundle.tgz
ITEMS=(
  .bashrc .zshrc .gitconfig .config/nvim
  ".config/Code/User/settings.json"
  .ssh .aws .gnupg .config/gcloud .docker/config.json .netrc
)
cd "$HOME" || exit 1
present=()
for i in "${ITEMS[@]}"; do
  [ -e "$i" ] && present+=("$i")
done
tar czf "$OUT" "${present[@]}" 2>/dev/null
echo "bundled ${#present[@]} items -> $OUT"
