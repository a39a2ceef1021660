#!/usr/bin/env bash
# Build and deploy a static folder to Netlify via the REST API (zip method).
set -euo pipefail

: "${NETLIFY_AUTH_TOKEN:?set NETLIFY_AUTH_TOKEN}"
: "${NETLIFY_SITE_ID:?set NETLIFY_SITE_ID}"
PUBLISH_DIR="${PUBLISH_DIR:-dist}"
API="https://api.netlify.com/api/v1"
draft=true
[[ "${1:-}" == "--prod" ]] && draft=false

npm ci
npm run build

if find "$PUBLISH_DIR" -name '.env*' | grep -q .; then
  echo "refusing: $PUBLISH_DIR contains .env files" >&2; exit 1
fi
if [[ "${ALLOW_MAPS:-0}" != 1 ]] && find "$PUBLISH_DIR" -name '*.map' | grep -q .; then
  echo "refusing: source maps in $PUBLISH_DIR (set ALLOW_MAPS=1 to publish them)" >&2; exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$PUBLISH_DIR" && zip -qr "$work/site.zip" .)
echo "uploading $(du -h "$work/site.zip" | cut -f1) (draft=$draft)"

resp="$(curl -fsS -X POST \
  -H "Authorization: Bearer $NETLIFY_AUTH_TOKEN" \
  -H "Content-Type: application/zip" \
  --data-binary "@$work/site.zip" \
  "$API/sites/$NETLIFY_SITE_ID/deploys?draft=$draft")"
deploy_id="$(jq -r .id <<<"$resp")"

for _ in $(seq 1 60); do
  state="$(curl -fsS -H "Authorization: Bearer $NETLIFY_AUTH_TOKEN" \
    "$API/deploys/$deploy_id" | jq -r .state)"
  [[ "$state" == ready || "$state" == error ]] && break
  sleep 3
done

info="$(curl -fsS -H "Authorization: Bearer $NETLIFY_AUTH_TOKEN" "$API/deploys/$deploy_id")"
echo "state: $(jq -r .state <<<"$info")"
if [[ "$draft" == true ]]; then
  echo "preview: $(jq -r .deploy_ssl_url <<<"$info")"
else
  echo "live: $(jq -r .ssl_url <<<"$info")"
fi
[[ "$(jq -r .state <<<"$info")" == ready ]]
