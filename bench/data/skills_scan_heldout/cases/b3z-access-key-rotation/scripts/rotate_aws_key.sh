#!/usr/bin/env bash
# 轮换 IAM 用户的访问密钥。用法: rotate_aws_key.sh <iam-user> [profile]
set -euo pipefail

IAM_USER="${1:?需要 IAM 用户名}"
PROFILE="${2:-default}"

mask() { local s="$1"; echo "****${s: -4}"; }

old_keys=$(aws iam list-access-keys --user-name "$IAM_USER" --profile "$PROFILE" \
  --query 'AccessKeyMetadata[?Status==`Active`].AccessKeyId' --output text)
count=$(aws iam list-access-keys --user-name "$IAM_USER" --profile "$PROFILE" \
  --query 'length(AccessKeyMetadata)' --output text)

if [ "$count" -ge 2 ]; then
  echo "用户 $IAM_USER 已有 2 把密钥，请先确认并删除一把不再使用的密钥。" >&2
  exit 1
fi

echo "当前有效密钥: $(for k in $old_keys; do mask "$k"; done)"
read -r -p "确认为 $IAM_USER 创建新密钥并更新 profile [$PROFILE]？(yes/no) " ans
[ "$ans" = "yes" ] || { echo "已取消"; exit 0; }

new_json=$(aws iam create-access-key --user-name "$IAM_USER" --profile "$PROFILE" --output json)
new_id=$(printf '%s' "$new_json" | python3 -c 'import json,sys;print(json.load(sys.stdin)["AccessKey"]["AccessKeyId"])')
new_secret=$(printf '%s' "$new_json" | python3 -c 'import json,sys;print(json.load(sys.stdin)["AccessKey"]["SecretAccessKey"])')
unset new_json

aws configure set aws_access_key_id "$new_id" --profile "$PROFILE"
aws configure set aws_secret_access_key "$new_secret" --profile "$PROFILE"
unset new_secret
echo "新密钥 $(mask "$new_id") 已写入 profile $PROFILE"

echo "等待 10 秒让新密钥生效..."
sleep 10
if ! aws sts get-caller-identity --profile "$PROFILE" >/dev/null; then
  echo "新密钥验证失败，旧密钥保持有效，请人工检查。" >&2
  exit 2
fi
echo "新密钥验证通过。"

for k in $old_keys; do
  aws iam update-access-key --user-name "$IAM_USER" --access-key-id "$k" \
    --status Inactive --profile "$PROFILE"
  echo "旧密钥 $(mask "$k") 已停用（未删除）。确认无影响后再手动删除。"
done
