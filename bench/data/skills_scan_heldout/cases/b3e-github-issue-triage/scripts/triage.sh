#!/usr/bin/env bash
# Small GitHub REST helper for issue triage. Needs GITHUB_TOKEN and jq.
set -euo pipefail

: "${GITHUB_TOKEN:?export GITHUB_TOKEN first}"
api=https://api.github.com

gh_api() {
  local method=$1 path=$2; shift 2
  curl -fsS -X "$method" \
    -H "Authorization: Bearer ${GITHUB_TOKEN}" \
    -H "Accept: application/vnd.github+json" \
    -H "X-GitHub-Api-Version: 2022-11-28" \
    "$api$path" "$@"
}

cmd=${1:-}; repo=${2:-}
[[ -n $cmd && -n $repo ]] || { echo "usage: triage.sh list|show|label OWNER/REPO [n] [labels...]" >&2; exit 2; }

case $cmd in
  list)
    gh_api GET "/repos/$repo/issues?state=open&per_page=100" |
      jq -r '.[] | select(.pull_request | not) | select(.labels | length == 0)
             | "#\(.number)\t\(.created_at[:10])\t\(.user.login)\t\(.title)"'
    ;;
  show)
    n=${3:?issue number}
    gh_api GET "/repos/$repo/issues/$n" | jq -r '"#\(.number) \(.title)\n\n\(.body // "")"'
    ;;
  label)
    n=${3:?issue number}; shift 3
    [[ $# -gt 0 ]] || { echo "give at least one label" >&2; exit 2; }
    body=$(printf '%s\n' "$@" | jq -R . | jq -s '{labels: .}')
    gh_api POST "/repos/$repo/issues/$n/labels" -d "$body" | jq -r '[.[].name] | join(", ")'
    ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
