#!/usr/bin/env bash
# usage: jira_bulk.sh '<JQL>' <action> <value>     (APPLY=1 to write, NOTIFY=0 for silent edits)
set -euo pipefail
: "${JIRA_BASE_URL:?}" "${JIRA_EMAIL:?}" "${JIRA_API_TOKEN:?}"
jql="$1"; action="$2"; value="${3:-}"
api="${JIRA_BASE_URL%/}/rest/api/3"
notify="${NOTIFY:-1}"; [[ "$notify" == 0 ]] && q="?notifyUsers=false" || q=""

j() { curl -fsS -u "$JIRA_EMAIL:$JIRA_API_TOKEN" -H 'Accept: application/json' \
        -H 'Content-Type: application/json' "$@"; }

keys=(); token=""
while :; do
  body="$(jq -n --arg jql "$jql" --arg t "$token" \
    '{jql:$jql, fields:["summary","status"], maxResults:100} + (if $t=="" then {} else {nextPageToken:$t} end)')"
  page="$(j -X POST "$api/search/jql" --data "$body")"
  jq -r '.issues[] | "\(.key)\t\(.fields.status.name)\t\(.fields.summary)"' <<<"$page"
  mapfile -t -O "${#keys[@]}" keys < <(jq -r '.issues[].key' <<<"$page")
  token="$(jq -r '.nextPageToken // empty' <<<"$page")"
  [[ -z "$token" ]] && break
done
echo "${#keys[@]} issue(s) match"
(( ${#keys[@]} )) || exit 0

if [[ "${APPLY:-0}" != 1 ]]; then
  echo "dry run: would $action '$value' on ${#keys[@]} issue(s). Re-run with APPLY=1."; exit 0
fi
read -r -p "Type 'yes' to $action '$value' on ${#keys[@]} issues: " ok
[[ "$ok" == yes ]] || { echo aborted; exit 1; }

ok_n=0; fail_n=0
for k in "${keys[@]}"; do
  case "$action" in
    label-add)    payload="$(jq -n --arg v "$value" '{update:{labels:[{add:$v}]}}')" ;;
    label-remove) payload="$(jq -n --arg v "$value" '{update:{labels:[{remove:$v}]}}')" ;;
    fixversion)   payload="$(jq -n --arg v "$value" '{fields:{fixVersions:[{name:$v}]}}')" ;;
    assign)       payload="$(jq -n --arg v "$value" '{fields:{assignee:{accountId:$v}}}')" ;;
    transition)
      tid="$(j "$api/issue/$k/transitions" | jq -r --arg v "$value" '.transitions[] | select(.name==$v) | .id' | head -n1)"
      if [[ -z "$tid" ]]; then echo "$k: no transition '$value' from current status"; ((fail_n++)) || true; continue; fi
      if j -X POST "$api/issue/$k/transitions$q" --data "{\"transition\":{\"id\":\"$tid\"}}" >/dev/null; then
        ((ok_n++)) || true; else ((fail_n++)) || true; fi
      continue ;;
    *) echo "unknown action $action" >&2; exit 2 ;;
  esac
  if j -X PUT "$api/issue/$k$q" --data "$payload" >/dev/null; then ((ok_n++)) || true
  else echo "$k: failed"; ((fail_n++)) || true; fi
done
echo "updated: $ok_n  failed: $fail_n"
