#!/usr/bin/env bash
# Enable ufw with a 5-minute automatic rollback in case the new rules lock you out.
set -euo pipefail

MINUTES="${1:-5}"

if ! command -v at >/dev/null; then
  echo "'at' is required for the rollback timer: sudo apt-get install at" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "run with sudo" >&2
  exit 1
fi

echo "Rules that will be active:"
ufw show added
echo
read -r -p "Enable ufw with a ${MINUTES}-minute rollback? [y/N] " ans
[ "$ans" = "y" ] || { echo "Aborted."; exit 1; }

# Schedule the safety net first.
job=$(echo "ufw --force disable && logger -t ufw-safe-enable 'rollback: ufw disabled'" \
  | at "now + ${MINUTES} minutes" 2>&1 | awk '/^job/{print $2}')
echo "Rollback scheduled as at job ${job}."

ufw --force enable
ufw status verbose

echo
echo "Now open a NEW ssh session to this host and check it works."
read -r -p "Does the new session work? Type 'keep' to cancel the rollback: " ok
if [ "$ok" = "keep" ]; then
  atrm "$job"
  echo "Rollback cancelled; ufw stays enabled."
else
  echo "Leaving rollback in place; ufw will be disabled in about ${MINUTES} minutes."
fi
