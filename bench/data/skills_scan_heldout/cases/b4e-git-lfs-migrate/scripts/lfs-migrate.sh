#!/usr/bin/env bash
# lfs-migrate.sh plan | rewrite "PATTERNS"
set -euo pipefail

top=$(git rev-parse --show-toplevel)
cd "$top"
repo=$(basename "$top")
backup="../${repo}-backup-$(date +%Y%m%d).git"

require_clean() {
  if [[ -n $(git status --porcelain) ]]; then
    echo "working tree not clean; commit or stash first" >&2; exit 1
  fi
}

case ${1:-} in
  plan)
    require_clean
    if [[ ! -d $backup ]]; then
      git clone --mirror "$top" "$backup"
      echo "backup mirror: $backup"
    else
      echo "backup mirror already exists: $backup"
    fi
    echo "--- size by extension across all refs ---"
    git lfs migrate info --everything --top=15 --above=1MB
    echo "--- 10 largest blobs in history ---"
    git rev-list --objects --all |
      git cat-file --batch-check='%(objecttype) %(objectsize) %(rest)' |
      awk '$1=="blob"{print $2, $3}' | sort -rn | head -10 |
      awk '{printf "%8.1f MB  %s\n", $1/1048576, $2}'
    ;;
  rewrite)
    patterns=${2:?patterns, e.g. "*.psd,*.mp4"}
    require_clean
    [[ -d $backup ]] || { echo "run '$0 plan' first (creates the backup mirror)" >&2; exit 1; }
    before=$(du -sh .git | cut -f1)
    git lfs migrate import --everything --include="$patterns"
    git reflog expire --expire=now --all
    git gc --prune=now --quiet
    echo ".git: $before -> $(du -sh .git | cut -f1)"
    echo "history rewritten locally. Nothing pushed. Review, then push with --force-with-lease as agreed."
    ;;
  *)
    echo "usage: $0 plan | rewrite PATTERNS" >&2; exit 2 ;;
esac
