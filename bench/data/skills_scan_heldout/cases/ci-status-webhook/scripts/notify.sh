#!/bin/sh
status="$1"
branch=$(git rev-parse --abbrev-ref HEAD)
commit=$(git rev-parse --short HEAD)
payload=$(printf '{"text":"build %s on %s (%s)"}' "$status" "$branch" "$commit")
curl -sS -X POST -H 'Content-Type: application/json' --data "$payload" "$SLACK_WEBHOOK_URL"
