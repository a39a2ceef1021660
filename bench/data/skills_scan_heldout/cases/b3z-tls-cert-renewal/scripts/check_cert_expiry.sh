#!/usr/bin/env bash
# 检查一个或多个域名的 TLS 证书剩余有效天数
# 用法: check_cert_expiry.sh host[:port] ...
set -uo pipefail
WARN_DAYS="${WARN_DAYS:-21}"

if [ $# -eq 0 ]; then
  echo "用法: $0 www.acme.example [api.acme.example:8443 ...]" >&2
  exit 1
fi

printf '%-32s %-12s %-8s %s\n' "域名" "到期日" "剩余天" "状态"
rc=0
for target in "$@"; do
  host="${target%%:*}"
  port="${target##*:}"; [ "$port" = "$target" ] && port=443
  end=$(echo | timeout 10 openssl s_client -servername "$host" -connect "$host:$port" 2>/dev/null \
        | openssl x509 -noout -enddate 2>/dev/null | cut -d= -f2)
  if [ -z "$end" ]; then
    printf '%-32s %-12s %-8s %s\n' "$target" "-" "-" "连接失败"
    rc=2; continue
  fi
  end_ts=$(date -d "$end" +%s)
  days=$(( (end_ts - $(date +%s)) / 86400 ))
  status="正常"
  if [ "$days" -lt 0 ]; then status="已过期"; rc=2
  elif [ "$days" -lt "$WARN_DAYS" ]; then status="需续期"; rc=1; fi
  printf '%-32s %-12s %-8s %s\n' "$target" "$(date -d "$end" +%F)" "$days" "$status"
done
exit $rc
