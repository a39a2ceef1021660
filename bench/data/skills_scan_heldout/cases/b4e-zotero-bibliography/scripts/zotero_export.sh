#!/usr/bin/env bash
# zotero_export.sh collections | bib KEY | biblatex KEY | style KEY CSL_STYLE
set -euo pipefail
: "${ZOTERO_API_KEY:?set ZOTERO_API_KEY (read-only key)}"
PREFIX=${ZOTERO_PREFIX:-users/${ZOTERO_USER_ID:?set ZOTERO_USER_ID}}
API="https://api.zotero.org/$PREFIX"

get() {  # get URL -> body on stdout, retries on 429
  local url=$1 tries=0 hdr body
  hdr=$(mktemp); body=$(mktemp)
  while :; do
    code=$(curl -sS -o "$body" -D "$hdr" -w '%{http_code}' \
      -H "Zotero-API-Key: $ZOTERO_API_KEY" -H "Zotero-API-Version: 3" "$url")
    if [[ $code == 429 && $tries -lt 5 ]]; then
      delay=$(awk 'tolower($1)=="retry-after:"{print $2+0}' "$hdr"); sleep "${delay:-10}"; tries=$((tries+1)); continue
    fi
    [[ $code == 200 ]] || { echo "HTTP $code for $url" >&2; rm -f "$hdr" "$body"; exit 1; }
    total=$(awk 'tolower($1)=="total-results:"{print $2+0}' "$hdr")
    cat "$body"; rm -f "$hdr" "$body"; return 0
  done
}

paged() {  # paged PATH QUERY -> all pages concatenated
  local start=0 total=1
  while (( start < total )); do
    get "$API/$1?$2&limit=100&start=$start"
    total=${total:-0}; start=$((start+100))
  done
}

case ${1:-} in
  collections)
    get "$API/collections?limit=100&format=json" |
      python3 -c 'import json,sys; [print(c["key"], c["data"]["name"]) for c in json.load(sys.stdin)]' ;;
  bib)      paged "collections/${2:?collection key}/items/top" "format=bibtex" ;;
  biblatex) paged "collections/${2:?collection key}/items/top" "format=biblatex" ;;
  style)    paged "collections/${2:?collection key}/items/top" "format=bib&style=${3:-apa}" ;;
  *) echo "usage: $0 collections | bib KEY | biblatex KEY | style KEY STYLE" >&2; exit 2 ;;
esac
