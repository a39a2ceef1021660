#!/usr/bin/env bash
# 等保 2.0 Linux 基线只读检查。不修改任何配置。
set -u
ok()   { echo "[符合]     $*"; }
bad()  { echo "[不符合]   $*"; }
ask()  { echo "[人工确认] $*"; }

[ "$(id -u)" -eq 0 ] || { echo "请使用 sudo 运行"; exit 1; }
echo "== 主机: $(hostname)  系统: $(. /etc/os-release; echo "$PRETTY_NAME")  时间: $(date '+%F %T')"

# 1 空口令与 UID 0 账号（只统计，不输出哈希）
empty=$(awk -F: '($2==""){print $1}' /etc/shadow | paste -sd, -)
[ -z "$empty" ] && ok "1 无空口令账号" || bad "1 空口令账号: $empty"
uid0=$(awk -F: '($3==0 && $1!="root"){print $1}' /etc/passwd | paste -sd, -)
[ -z "$uid0" ] && ok "1 无其他 UID 0 账号" || bad "1 UID 0 非 root 账号: $uid0"

# 2 口令有效期
maxd=$(awk '/^PASS_MAX_DAYS/{print $2}' /etc/login.defs)
[ "${maxd:-99999}" -le 90 ] && ok "2 PASS_MAX_DAYS=$maxd" || bad "2 PASS_MAX_DAYS=${maxd:-未设置}（应 ≤ 90）"

# 3 口令复杂度
pwq=/etc/security/pwquality.conf
if grep -Eq '^\s*minlen\s*=\s*([89]|[1-9][0-9])' "$pwq" 2>/dev/null; then
  ok "3 pwquality minlen: $(grep -E '^\s*minlen' "$pwq" | tr -d ' ')"
else
  bad "3 未在 $pwq 中设置 minlen ≥ 8"
fi

# 4 登录失败处理
if grep -Rqs -E 'pam_faillock|pam_tally2' /etc/pam.d/; then ok "4 已配置登录失败锁定"; else bad "4 未配置 pam_faillock/pam_tally2"; fi

# 5 会话超时
tmout=$(grep -hs -E '^\s*(export\s+)?TMOUT=' /etc/profile /etc/profile.d/*.sh /etc/bashrc /etc/bash.bashrc | tail -1 | sed 's/.*TMOUT=//')
[ -n "$tmout" ] && [ "$tmout" -le 600 ] && ok "5 TMOUT=$tmout" || bad "5 TMOUT 未设置或大于 600"

# 6 SSH 配置
sshd_eff=$(sshd -T 2>/dev/null)
echo "$sshd_eff" | grep -qi '^permitrootlogin no' && ok "6 PermitRootLogin no" || bad "6 允许 root 直接 SSH 登录"
systemctl is-active --quiet telnet.socket 2>/dev/null && bad "6 telnet 服务运行中" || ok "6 未运行 telnet"

# 7 关键文件权限
for f in /etc/passwd:644 /etc/group:644 /etc/shadow:0 /etc/gshadow:0; do
  p=${f%%:*}; want=${f##*:}; have=$(stat -c %a "$p")
  if [ "$want" = 0 ]; then [ "$have" -le 600 ] && ok "7 $p 权限 $have" || bad "7 $p 权限 $have（应 ≤ 600）"
  else [ "$have" = "$want" ] && ok "7 $p 权限 $have" || bad "7 $p 权限 $have（应为 $want）"; fi
done

# 8 审计
systemctl is-active --quiet auditd && ok "8 auditd 运行中" || bad "8 auditd 未运行"
grep -Rqs -E '^\s*\*\.\*\s+@' /etc/rsyslog.conf /etc/rsyslog.d/ && ok "8 rsyslog 已转发到日志服务器" || ask "8 未发现 rsyslog 远程转发，请确认是否有其他日志采集方式"

# 9 监听端口
ask "9 监听端口清单如下，请确认均为业务必需："
ss -tulnpH 2>/dev/null | awk '{print "           " $1, $5, $7}'

# 10 安全更新
if command -v yum >/dev/null; then n=$(yum -q updateinfo list security 2>/dev/null | wc -l)
elif command -v apt-get >/dev/null; then n=$(apt-get -s upgrade 2>/dev/null | grep -ci security)
else n=unknown; fi
[ "$n" = 0 ] && ok "10 无待安装安全更新" || ask "10 待安装安全更新: $n"
