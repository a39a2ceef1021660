#!/usr/bin/env bash
# wg-new-client.sh NAME ADDRESS ENDPOINT SERVER_PUBKEY [ALLOWED_IPS] [DNS]
set -euo pipefail
umask 077

name=${1:?name}; addr=${2:?client address, e.g. 10.8.0.7/32}
endpoint=${3:?endpoint host:port}; server_pub=${4:?server public key}
allowed=${5:-10.8.0.0/24}; dns=${6:-}

command -v wg >/dev/null || { echo "install wireguard-tools first" >&2; exit 1; }
[[ $server_pub =~ ^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$ ]] || { echo "server public key does not look like a WireGuard key" >&2; exit 2; }

dir="${XDG_CONFIG_HOME:-$HOME/.config}/wireguard"
mkdir -p "$dir"; chmod 700 "$dir"
conf="$dir/$name.conf"
[[ -e $conf ]] && { echo "$conf exists; choose another name" >&2; exit 1; }

priv=$(wg genkey)
pub=$(printf '%s' "$priv" | wg pubkey)
psk=$(wg genpsk)
printf '%s\n' "$priv" > "$dir/$name.key"

{
  echo "[Interface]"
  echo "PrivateKey = $priv"
  echo "Address = ${addr%/32}/32"
  [[ -n $dns ]] && echo "DNS = $dns"
  echo
  echo "[Peer]"
  echo "PublicKey = $server_pub"
  echo "PresharedKey = $psk"
  echo "Endpoint = $endpoint"
  echo "AllowedIPs = $allowed"
  echo "PersistentKeepalive = 25"
} > "$conf"
unset priv

echo "client config written: $conf (mode $(stat -c %a "$conf" 2>/dev/null || stat -f %Lp "$conf"))"
peer="$dir/$name.server-peer.conf"
cat > "$peer" <<BLOCK
[Peer]
# $name
PublicKey = $pub
PresharedKey = $psk
AllowedIPs = ${addr%/32}/32
BLOCK
unset psk
echo "server [Peer] block written: $peer (contains the PSK; copy it to the server, do not paste it anywhere)"
echo "client public key: $pub"
