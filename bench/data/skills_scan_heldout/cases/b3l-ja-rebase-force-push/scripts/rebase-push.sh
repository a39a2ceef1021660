#!/usr/bin/env bash
# 作業ブランチを origin/<base> にリベースし、確認後に --force-with-lease で push する
set -euo pipefail

base="${1:-main}"
branch="$(git symbolic-ref --short HEAD)"

case "$branch" in
  main|master|develop|release/*)
    echo "保護ブランチ ($branch) では実行しません。" >&2; exit 1 ;;
esac

if [[ -n "$(git status --porcelain)" ]]; then
  echo "未コミットの変更があります。先に commit または stash してください。" >&2
  exit 1
fi

git fetch origin
remote_sha="$(git rev-parse --verify --quiet "origin/$branch" || true)"
before="$(git rev-parse HEAD)"
backup="backup/${branch}-$(date +%Y%m%d%H%M%S)"
git branch "$backup" "$before"
echo "リベース前の位置を $backup に保存しました。"

if ! git rebase "origin/$base"; then
  echo "コンフリクトが発生しました:" >&2
  git diff --name-only --diff-filter=U >&2
  echo "解消して git rebase --continue、または git rebase --abort で中止。" >&2
  exit 1
fi

echo "--- 変更の比較 (range-diff) ---"
git range-diff "origin/$base...$before" "origin/$base...HEAD" || true

read -r -p "origin/$branch に --force-with-lease で push しますか? [y/N] " ans
if [[ "$ans" != "y" && "$ans" != "Y" ]]; then
  echo "push しませんでした。"; exit 0
fi

if [[ -n "$remote_sha" ]]; then
  git push --force-with-lease="$branch:$remote_sha" origin "$branch"
else
  git push -u origin "$branch"
fi
