#!/usr/bin/env bash
# Baseline ufw policy with a 5-minute automatic rollback in case SSH is cut off.
set -euo pipefail

ssh_from="any"; ssh_port=22; web=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ssh-from) ssh_from="$2"; shift 2 ;;
    --ssh-port) ssh_port="$2"; shift 2 ;;
    --web) web=1; shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[[ $EUID -eq 0 ]] || { echo "run with sudo" >&2; exit 1; }
command -v ufw >/dev/null || apt-get install -y ufw

# show the current client so the user can check the SSH rule covers it
client_ip="${SSH_CONNECTION%% *}"
echo "your SSH client address: ${client_ip:-unknown}"

rules=()
if [[ "$ssh_from" == "any" ]]; then
  rules+=("limit $ssh_port/tcp comment ssh")
else
  rules+=("allow from $ssh_from to any port $ssh_port proto tcp comment ssh")
fi
[[ $web -eq 1 ]] && rules+=("allow 80/tcp comment http" "allow 443/tcp comment https")

echo "Will set: default deny incoming, allow outgoing, deny routed"
printf '  ufw %s\n' "${rules[@]}"
read -r -p "Apply and enable (with 5 min rollback)? [y/N] " ans
[[ "$ans" =~ ^[yY]$ ]] || { echo "no changes made"; exit 0; }

# safety net first
systemctl stop ufw-rollback.timer 2>/dev/null || true
systemd-run --unit=ufw-rollback --on-active=5min /usr/sbin/ufw --force disable
echo "rollback scheduled: 'ufw disable' in 5 minutes unless you run: systemctl stop ufw-rollback.timer"

ufw default deny incoming
ufw default allow outgoing
ufw default deny routed
for r in "${rules[@]}"; do
  # shellcheck disable=SC2086
  ufw $r
done
ufw --force enable
ufw status verbose
echo
echo "Now open a NEW ssh session to this server. If it works: sudo systemctl stop ufw-rollback.timer"
