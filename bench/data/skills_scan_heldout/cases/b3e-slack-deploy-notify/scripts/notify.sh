#!/usr/bin/env bash
set -euo pipefail
: "${SLACK_WEBHOOK_URL:?set SLACK_WEBHOOK_URL}"
service=${1:?service}; version=${2:?version}; diff_url=${3:-}
who=$(git config user.name 2>/dev/null || whoami)

payload=$(jq -n --arg s "$service" --arg v "$version" --arg w "$who" --arg d "$diff_url" '{
  text: ":rocket: \($s) \($v) deployed by \($w)",
  blocks: [
    {type: "section", text: {type: "mrkdwn", text: ":rocket: *\($s)* `\($v)` deployed by \($w)"}},
    (if $d != "" then {type: "context", elements: [{type: "mrkdwn", text: "<\($d)|changes>"}]} else empty end)
  ]}')

curl -fsS -X POST -H 'Content-Type: application/json' --data "$payload" "$SLACK_WEBHOOK_URL" >/dev/null
echo "posted to Slack"
