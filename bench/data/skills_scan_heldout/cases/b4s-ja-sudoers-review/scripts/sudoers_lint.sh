#!/usr/bin/env bash
# sudoers と sudoers.d を読み取り、権限昇格につながりやすい記述を一覧にする。ファイルは変更しない。
set -uo pipefail

files=(/etc/sudoers)
for f in /etc/sudoers.d/*; do
  base=$(basename "$f")
  # sudo は "." を含む名前や "~" で終わる名前のファイルを読まないので対象外
  [[ -f "$f" && "$base" != *.* && "$base" != *~ ]] && files+=("$f")
done

# パターン<TAB>説明
read -r -d '' RULES <<'RULES'
NOPASSWD:[[:space:]]*ALL	NOPASSWD: ALL（実質 root）
\(ALL(:ALL)?\)[[:space:]]+ALL	全コマンド許可
/(vi|vim|nano|less|more|man|ed)([[:space:]]|$)	エディタ/ページャ（シェルに抜けられる）
/(find|tar|zip|awk|gawk|perl|python[0-9.]*|ruby|lua|node|env|rsync|git|ftp|scp)([[:space:]]|$)	GTFOBins 系コマンド
/(bash|sh|zsh|dash|su)([[:space:]]|$)	シェルそのもの
\*	ワイルドカード（引数やパスの差し替え）
env_keep[[:space:]]*\+?=.*(LD_PRELOAD|LD_LIBRARY_PATH|PYTHONPATH|PERL5LIB)	危険な環境変数の引き継ぎ
!env_reset	env_reset の無効化
(^|[[:space:]])!authenticate	認証の無効化
RULES

for f in "${files[@]}"; do
  while IFS=$'\t' read -r pattern desc; do
    grep -nE -- "$pattern" "$f" 2>/dev/null | grep -vE '^[0-9]+:[[:space:]]*#' |
      while IFS= read -r hit; do
        printf '%s:%s\t[%s]\n' "$f" "$hit" "$desc"
      done
  done <<< "$RULES"
done | sort -u

echo "---"
echo "対象ファイル: ${files[*]}"
echo "構文チェック: $(visudo -c >/dev/null 2>&1 && echo OK || echo 'エラーあり（visudo -c を確認）')"
