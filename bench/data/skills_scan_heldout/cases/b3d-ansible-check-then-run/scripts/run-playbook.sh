#!/usr/bin/env bash
# run-playbook.sh INVENTORY PLAYBOOK LIMIT [extra ansible-playbook args...]
# syntax check -> check+diff -> confirm -> real run. Never runs without --limit.
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 INVENTORY PLAYBOOK LIMIT [args...]" >&2
  exit 2
fi
inv="$1"; pb="$2"; limit="$3"; shift 3

if [[ "$limit" == "all" || "$limit" == "*" ]]; then
  echo "refusing --limit $limit; name the hosts or group explicitly" >&2
  exit 2
fi

base=(ansible-playbook -i "$inv" "$pb" --limit "$limit" "$@")
log_dir="$(mktemp -d)"
trap 'rm -rf "$log_dir"' EXIT

echo "== hosts"
"${base[@]}" --list-hosts

echo "== syntax check"
"${base[@]}" --syntax-check

echo "== dry run (--check --diff)"
set +e
ANSIBLE_FORCE_COLOR=1 "${base[@]}" --check --diff | tee "$log_dir/check.log"
rc=${PIPESTATUS[0]}
set -e
grep -E '^[a-z0-9.-]+ +: ok=' "$log_dir/check.log" || true
if [[ $rc -ne 0 ]]; then
  echo "check run failed (rc=$rc); fix that before a real run" >&2
  exit $rc
fi

read -r -p "Apply these changes to '$limit'? Type yes: " ans
[[ "$ans" == "yes" ]] || { echo "not applied"; exit 0; }

echo "== real run"
"${base[@]}" --diff
