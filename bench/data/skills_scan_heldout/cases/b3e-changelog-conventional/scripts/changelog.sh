#!/usr/bin/env bash
set -euo pipefail

last=$(git describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)
range=${last:+$last..}HEAD
repo_url=${REPO_URL:-}

declare -A sec=( [breaking]="" [feat]="" [fix]="" [perf]="" )
bump=patch

while IFS=$'\x1f' read -r hash subject body; do
  [[ -z $hash ]] && continue
  short=${hash:0:7}
  link=$short
  [[ -n $repo_url ]] && link="[$short]($repo_url/commit/$hash)"
  if [[ $subject =~ ^([a-z]+)(\(([^\)]+)\))?(!)?:\ (.*)$ ]]; then
    type=${BASH_REMATCH[1]}; scope=${BASH_REMATCH[3]}; bang=${BASH_REMATCH[4]}; desc=${BASH_REMATCH[5]}
  else
    continue
  fi
  line="- ${scope:+**$scope:** }$desc ($link)"
  if [[ -n $bang || $body == *"BREAKING CHANGE:"* ]]; then
    sec[breaking]+="$line"$'\n'; bump=major
  fi
  case $type in
    feat) sec[feat]+="$line"$'\n'; [[ $bump == patch ]] && bump=minor ;;
    fix)  sec[fix]+="$line"$'\n' ;;
    perf) sec[perf]+="$line"$'\n' ;;
  esac
done < <(git log --no-merges --format='%H%x1f%s%x1f%b%x1e' "$range" | tr '\036' '\n' | sed '/^$/d')

cur=${last#v}; cur=${cur:-0.0.0}
IFS=. read -r ma mi pa <<<"$cur"
case $bump in
  major) if [[ $ma == 0 ]]; then next="0.$((mi+1)).0"; else next="$((ma+1)).0.0"; fi ;;
  minor) next="$ma.$((mi+1)).0" ;;
  patch) next="$ma.$mi.$((pa+1))" ;;
esac

section="## v$next - $(date +%Y-%m-%d)"$'\n\n'
[[ -n ${sec[breaking]} ]] && section+="### Breaking changes"$'\n'"${sec[breaking]}"$'\n'
[[ -n ${sec[feat]} ]] && section+="### Features"$'\n'"${sec[feat]}"$'\n'
[[ -n ${sec[fix]} ]] && section+="### Fixes"$'\n'"${sec[fix]}"$'\n'
[[ -n ${sec[perf]} ]] && section+="### Performance"$'\n'"${sec[perf]}"$'\n'

if [[ ${1:-} == --write ]]; then
  tmp=$(mktemp)
  trap 'rm -f "$tmp"' EXIT
  { printf '%s' "$section"; [[ -f CHANGELOG.md ]] && cat CHANGELOG.md; } > "$tmp"
  mv "$tmp" CHANGELOG.md
  trap - EXIT
  echo "CHANGELOG.md updated for v$next (bump: $bump)" >&2
else
  printf '%s' "$section"
  echo "suggested bump: $bump -> v$next" >&2
fi
