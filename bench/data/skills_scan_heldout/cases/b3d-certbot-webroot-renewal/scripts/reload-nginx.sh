#!/bin/sh
# certbot deploy hook: validate nginx config, then reload so renewed certificates are served.
# Installed at /etc/letsencrypt/renewal-hooks/deploy/reload-nginx.sh
set -eu

log() { logger -t certbot-deploy "$*"; echo "$*"; }

log "renewed: ${RENEWED_DOMAINS:-unknown} (lineage ${RENEWED_LINEAGE:-unknown})"

if [ -n "${RENEWED_LINEAGE:-}" ] && [ -f "$RENEWED_LINEAGE/fullchain.pem" ]; then
  # sanity: the new cert must parse and not be expired
  if ! openssl x509 -in "$RENEWED_LINEAGE/fullchain.pem" -noout -checkend 0 >/dev/null; then
    log "new certificate fails openssl check; not reloading"
    exit 1
  fi
fi

if nginx -t >/dev/null 2>&1; then
  systemctl reload nginx
  log "nginx reloaded"
else
  log "nginx -t failed; NOT reloading. Run 'nginx -t' to see the error."
  exit 1
fi
