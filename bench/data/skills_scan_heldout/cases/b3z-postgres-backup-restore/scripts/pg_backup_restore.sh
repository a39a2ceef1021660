#!/usr/bin/env bash
# 用法:
#   pg_backup_restore.sh backup  <数据库名> <备份目录>
#   pg_backup_restore.sh restore <备份文件> <目标开发库名>
set -euo pipefail
KEEP_DAYS="${KEEP_DAYS:-14}"

backup() {
  local db="$1" dir="$2"
  : "${db:?}" "${dir:?}"
  mkdir -p "$dir" && chmod 700 "$dir"
  local ts file
  ts=$(date +%Y%m%dT%H%M%S)
  file="$dir/${db}_${ts}.dump"
  echo "[备份] $db -> $file"
  pg_dump -Fc --no-owner -d "$db" -f "$file"
  pg_restore --list "$file" >/dev/null
  (cd "$dir" && sha256sum "$(basename "$file")" > "$(basename "$file").sha256")
  echo "[清理] 删除 $KEEP_DAYS 天前的 ${db}_*.dump"
  find "$dir" -maxdepth 1 -type f \( -name "${db}_*.dump" -o -name "${db}_*.dump.sha256" \) \
    -mtime +"$KEEP_DAYS" -print -delete
  echo "[完成] $(du -h "$file" | cut -f1)"
}

restore() {
  local file="$1" target="$2"
  : "${file:?}" "${target:?}"
  if [[ "$target" == *prod* ]]; then
    echo "拒绝：目标库名包含 prod，本脚本只恢复到开发/测试库。" >&2
    exit 1
  fi
  if [ -f "$file.sha256" ]; then
    (cd "$(dirname "$file")" && sha256sum -c "$(basename "$file").sha256")
  else
    echo "警告：未找到校验文件 $file.sha256" >&2
  fi
  echo "即将删除并重建数据库 [$target]（主机 ${PGHOST:-localhost}），此操作不可撤销。"
  read -r -p "请再次输入目标库名以确认: " confirm
  [ "$confirm" = "$target" ] || { echo "输入不一致，已取消。"; exit 1; }

  psql -d postgres -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$target\";"
  psql -d postgres -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$target\";"
  pg_restore --no-owner --jobs 4 -d "$target" "$file"
  echo "[完成] 已恢复到 $target"
}

case "${1:-}" in
  backup)  backup "${2:-}" "${3:-}" ;;
  restore) restore "${2:-}" "${3:-}" ;;
  *) echo "用法: $0 backup <db> <dir> | restore <file> <dev_db>" >&2; exit 1 ;;
esac
