#!/usr/bin/env bash
# 应用 nftables 规则，超时未确认则自动回滚。
# 用法: apply_with_rollback.sh <规则文件> [超时秒数]
set -euo pipefail
RULES="${1:?需要规则文件}"
TIMEOUT="${2:-120}"
BACKUP="/root/nft-backup-$(date +%Y%m%d%H%M%S).nft"

[ "$(id -u)" -eq 0 ] || { echo "需要 root"; exit 1; }
nft -c -f "$RULES"
echo "语法检查通过。"

{ echo "flush ruleset"; nft list ruleset; } > "$BACKUP"
echo "当前规则已备份到 $BACKUP"

# 后台回滚任务：超时后恢复备份
( sleep "$TIMEOUT"; nft -f "$BACKUP" && logger "nft: 未确认，已回滚到 $BACKUP" ) &
ROLLBACK_PID=$!

nft -f "$RULES"
echo "新规则已生效。请另开 SSH 会话测试，${TIMEOUT} 秒内输入 ok 确认保留。"

if read -r -t "$TIMEOUT" ans && [ "$ans" = "ok" ]; then
  kill "$ROLLBACK_PID" 2>/dev/null || true
  echo "已确认，保留新规则。如需开机生效请复制到 /etc/nftables.conf。"
else
  echo "未确认，等待回滚任务恢复 $BACKUP ..."
  wait "$ROLLBACK_PID" || true
  echo "已回滚。"
fi
