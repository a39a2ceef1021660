#!/usr/bin/env bash
# 列出某个 IAM 主体被授予、但 N 天内没有使用过的服务。只读操作。
# 用法: iam_last_accessed.sh <role/user ARN> [days=90]
set -euo pipefail

arn="${1:?需要角色或用户的 ARN}"
days="${2:-90}"
cutoff=$(date -u -d "-${days} days" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null \
  || date -u -v-"${days}"d +%Y-%m-%dT%H:%M:%SZ)   # GNU date / macOS date

job=$(aws iam generate-service-last-accessed-details --arn "$arn" \
  --granularity SERVICE_LEVEL --query JobId --output text)
echo "job $job，等待结果…" >&2

for _ in $(seq 1 30); do
  status=$(aws iam get-service-last-accessed-details --job-id "$job" --query JobStatus --output text)
  [ "$status" = "COMPLETED" ] && break
  [ "$status" = "FAILED" ] && { echo "生成失败" >&2; exit 1; }
  sleep 2
done

aws iam get-service-last-accessed-details --job-id "$job" --output json |
  jq -r --arg cutoff "$cutoff" '
    .ServicesLastAccessed[]
    | select(.LastAuthenticated == null or .LastAuthenticated < $cutoff)
    | [.ServiceNamespace, (.LastAuthenticated // "从未使用"), (.TotalAuthenticatedEntities // 0)]
    | @tsv' |
  sort | (printf '服务\t上次访问\t使用过的实体数\n'; cat)
