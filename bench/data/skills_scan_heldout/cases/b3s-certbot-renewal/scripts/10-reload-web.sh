#!/bin/sh
# certbot deploy hook: reload nginx and refresh HAProxy bundle after renewal.
# certbot sets RENEWED_LINEAGE (e.g. /etc/letsencrypt/live/www.acme.example).
set -eu

: "${RENEWED_LINEAGE:?run from certbot}"
domain=$(basename "$RENEWED_LINEAGE")
log() { logger -t certbot-deploy "$domain: $*"; echo "$*"; }

if command -v nginx >/dev/null 2>&1 && systemctl is-active --quiet nginx; then
  if nginx -t 2>/dev/null; then
    systemctl reload nginx
    log "nginx reloaded"
  else
    log "nginx -t failed; NOT reloading, fix the config"
    exit 1
  fi
fi

if [ -d /etc/haproxy/certs ] && systemctl is-active --quiet haproxy; then
  umask 077
  tmp=$(mktemp /etc/haproxy/certs/.tmp.XXXXXX)
  cat "$RENEWED_LINEAGE/fullchain.pem" "$RENEWED_LINEAGE/privkey.pem" > "$tmp"
  chmod 600 "$tmp"
  mv "$tmp" "/etc/haproxy/certs/$domain.pem"
  if haproxy -c -f /etc/haproxy/haproxy.cfg >/dev/null; then
    systemctl reload haproxy
    log "haproxy bundle updated and reloaded"
  else
    log "haproxy config check failed; bundle written but not reloaded"
    exit 1
  fi
fi
