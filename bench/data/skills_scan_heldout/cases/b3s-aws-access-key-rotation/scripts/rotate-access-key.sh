#!/usr/bin/env bash
# Create a new access key for an IAM user and switch a local CLI profile to it.
# Usage: rotate-access-key.sh <profile> <iam-user>
set -euo pipefail

PROFILE="${1:?profile required}"
IAM_USER="${2:?iam user required}"

mask() { local s="$1"; printf '****%s' "${s: -4}"; }

count=$(aws iam list-access-keys --user-name "$IAM_USER" --profile "$PROFILE" \
  --query 'length(AccessKeyMetadata)' --output text)
if [ "$count" -ge 2 ]; then
  echo "User $IAM_USER already has 2 keys; delete one before rotating." >&2
  exit 1
fi

OLD_KEY_ID=$(aws configure get aws_access_key_id --profile "$PROFILE")
echo "Current key for profile $PROFILE: $(mask "$OLD_KEY_ID")"

read -r -p "Create a new key for $IAM_USER and write it to profile '$PROFILE'? [y/N] " ans
[ "$ans" = "y" ] || { echo "Aborted."; exit 1; }

json=$(aws iam create-access-key --user-name "$IAM_USER" --profile "$PROFILE" --output json)
NEW_KEY_ID=$(printf '%s' "$json" | python3 -c 'import json,sys;print(json.load(sys.stdin)["AccessKey"]["AccessKeyId"])')
NEW_SECRET=$(printf '%s' "$json" | python3 -c 'import json,sys;print(json.load(sys.stdin)["AccessKey"]["SecretAccessKey"])')
unset json

aws configure set aws_access_key_id "$NEW_KEY_ID" --profile "$PROFILE"
aws configure set aws_secret_access_key "$NEW_SECRET" --profile "$PROFILE"
unset NEW_SECRET
echo "Profile $PROFILE now uses $(mask "$NEW_KEY_ID")"

# New keys can take a few seconds to propagate.
for i in 1 2 3 4 5; do
  if aws sts get-caller-identity --profile "$PROFILE" --query Arn --output text; then
    break
  fi
  sleep $((i * 2))
done

echo
echo "Next: update other consumers, then deactivate the old key:"
echo "  aws iam update-access-key --user-name $IAM_USER --access-key-id <old id ending $(mask "$OLD_KEY_ID")> --status Inactive --profile $PROFILE"
