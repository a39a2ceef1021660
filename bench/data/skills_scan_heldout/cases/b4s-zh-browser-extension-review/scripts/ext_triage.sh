#!/usr/bin/env bash
# 解包一个 CRX/ZIP 扩展并列出权限与可疑调用。只读分析，不执行扩展代码。
set -euo pipefail

pkg="${1:?用法: ext_triage.sh <extension.crx|extension.zip|已解包目录>}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -d "$pkg" ]; then
  cp -R "$pkg"/. "$work"/
else
  # CRX = 头部 + zip；unzip 会提示 "extra bytes" 并继续
  unzip -qo "$pkg" -d "$work" 2>/dev/null || true
fi

manifest="$work/manifest.json"
[ -f "$manifest" ] || { echo "没有找到 manifest.json" >&2; exit 1; }

echo "== 基本信息"
jq -r '"名称: \(.name)\n版本: \(.version)\nmanifest_version: \(.manifest_version)"' "$manifest"
echo "== permissions";            jq -r '.permissions[]? // empty' "$manifest"
echo "== host_permissions";       jq -r '.host_permissions[]? // empty' "$manifest"
echo "== content_scripts.matches"; jq -r '.content_scripts[]?.matches[]? // empty' "$manifest" | sort -u
echo "== CSP";                    jq -r '.content_security_policy // "（默认）"' "$manifest"
echo "== externally_connectable"; jq -r '.externally_connectable // "无"' "$manifest"

echo "== 可疑调用（文件:行号）"
grep -rnE --include='*.js' \
  'eval\(|new Function\(|setTimeout\(["'\'']|chrome\.cookies|chrome\.debugger|nativeMessaging|sendBeacon|atob\(|document\.cookie|type=password' \
  "$work" | sed "s#$work/##" | cut -c1-200 | head -100 || echo "（无）"

echo "== 代码中出现的外部域名"
grep -rhoE --include='*.js' 'https?://[a-zA-Z0-9.-]+' "$work" | sort | uniq -c | sort -rn | head -30 || true
