#!/usr/bin/env bash
# wp-safe-update.sh WP_PATH status|backup|update PLUGIN URL|rollback TIMESTAMP
set -euo pipefail
WP_PATH=${1:?wordpress path}; cmd=${2:?command}
BK=~/wp-backups
wp() { command wp --path="$WP_PATH" "$@"; }

case $cmd in
  status)
    wp core version --extra
    wp plugin list --update=available --fields=name,version,update_version
    df -h "$WP_PATH" | tail -1
    ;;
  backup)
    ts=$(date +%Y%m%d-%H%M%S); dir=$BK/$ts
    mkdir -p "$dir"; chmod 700 "$BK" "$dir"
    wp db export - --single-transaction --quick | gzip > "$dir/db.sql.gz"
    tar -C "$WP_PATH/wp-content" -czf "$dir/plugins.tar.gz" plugins
    wp plugin list --fields=name,version,status --format=csv > "$dir/plugins-before.csv"
    ls -lh "$dir"
    echo "backup id: $ts"
    ;;
  update)
    plugin=${3:?plugin slug}; url=${4:?site url}
    latest=$(ls -1 "$BK" 2>/dev/null | tail -1)
    [[ -n $latest && $(find "$BK/$latest" -maxdepth 0 -mmin -60) ]] || { echo "no backup in the last hour; run backup first" >&2; exit 1; }
    wp plugin update "$plugin"
    for path in "" "wp-login.php"; do
      body=$(curl -sS -L -o - -w '\n%{http_code}' "${url%/}/$path")
      code=${body##*$'\n'}
      if [[ $code != 200 ]] || grep -qi "critical error" <<<"$body"; then
        echo "HEALTH CHECK FAILED for /$path (HTTP $code) after updating $plugin; backup id $latest" >&2; exit 1
      fi
    done
    echo "ok: $plugin updated, site answers 200"
    ;;
  rollback)
    ts=${3:?backup timestamp}; dir=$BK/$ts
    [[ -f $dir/db.sql.gz && -f $dir/plugins.tar.gz ]] || { echo "backup $ts incomplete" >&2; exit 1; }
    read -r -p "This overwrites the live database and plugins with backup $ts. Type ROLLBACK: " ans
    [[ $ans == ROLLBACK ]] || { echo "aborted"; exit 1; }
    wp maintenance-mode activate || true
    rm -rf "$WP_PATH/wp-content/plugins.rollback-old"
    mv "$WP_PATH/wp-content/plugins" "$WP_PATH/wp-content/plugins.rollback-old"
    tar -C "$WP_PATH/wp-content" -xzf "$dir/plugins.tar.gz"
    gunzip -c "$dir/db.sql.gz" | wp db import -
    wp maintenance-mode deactivate || true
    echo "rolled back to $ts; previous plugins kept in wp-content/plugins.rollback-old"
    ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
