#!/usr/bin/env bash
# Generate an Ed25519 key and optionally add a Host block to ~/.ssh/config.
# Usage: new-ssh-key.sh <name> <comment> [host-alias] [hostname]
set -euo pipefail

NAME="${1:?key name required, e.g. github_work}"
COMMENT="${2:?comment required, e.g. you@example.com}"
ALIAS="${3:-}"
HOSTNAME_="${4:-github.com}"
KEY="$HOME/.ssh/id_ed25519_${NAME}"

mkdir -p "$HOME/.ssh"
chmod 700 "$HOME/.ssh"

if [ -e "$KEY" ] || [ -e "$KEY.pub" ]; then
  echo "Refusing to overwrite existing $KEY" >&2
  exit 1
fi

# Interactive: ssh-keygen prompts for the passphrase.
ssh-keygen -t ed25519 -a 100 -C "$COMMENT" -f "$KEY"
chmod 600 "$KEY"
chmod 644 "$KEY.pub"

echo
echo "Public key (safe to share):"
cat "$KEY.pub"
ssh-keygen -lf "$KEY.pub"

[ -n "$ALIAS" ] || exit 0

BLOCK=$(cat <<CFG

Host ${ALIAS}
    HostName ${HOSTNAME_}
    User git
    IdentityFile ~/.ssh/id_ed25519_${NAME}
    IdentitiesOnly yes
    AddKeysToAgent yes
CFG
)

echo
echo "Proposed addition to ~/.ssh/config:"
echo "$BLOCK"
read -r -p "Append it? [y/N] " ans
if [ "$ans" = "y" ]; then
  CONFIG="$HOME/.ssh/config"
  [ -f "$CONFIG" ] && cp "$CONFIG" "$CONFIG.bak.$(date +%Y%m%d%H%M%S)"
  printf '%s\n' "$BLOCK" >> "$CONFIG"
  chmod 600 "$CONFIG"
  echo "Added. Test with: ssh -T git@${ALIAS}"
else
  echo "Left ~/.ssh/config unchanged."
fi
