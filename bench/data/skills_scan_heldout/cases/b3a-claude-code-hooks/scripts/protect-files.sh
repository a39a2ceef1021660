#!/usr/bin/env bash
# PreToolUse hook: refuse Read/Edit/Write on secret-looking files.
# Input: hook event JSON on stdin. Exit 2 = block (stderr goes to Claude), 0 = allow.
set -euo pipefail

payload="$(cat)"
path="$(printf '%s' "$payload" | jq -r '.tool_input.file_path // .tool_input.path // empty')"
[[ -z "$path" ]] && exit 0

name="$(basename "$path")"
case "$name" in
  .env|.env.*|*.pem|*.key|*.p12|id_rsa|id_rsa.*|id_ed25519|id_ed25519.*|.npmrc|.pypirc)
    blocked=1 ;;
  *)
    blocked=0 ;;
esac
case "$path" in
  */secrets/*|*/.aws/*|*/.ssh/*) blocked=1 ;;
esac
# Allow the committed template that documents variable names.
[[ "$name" == ".env.example" ]] && blocked=0

if [[ "$blocked" == 1 ]]; then
  echo "Blocked by project hook: '$path' may contain secrets. Ask the user to share the specific" \
       "non-secret value you need, or use .env.example for variable names." >&2
  exit 2
fi
exit 0
