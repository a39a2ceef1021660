#!/usr/bin/env bash
set -euo pipefail
: "${DATABASE_URL:?set DATABASE_URL, e.g. postgres://app@localhost:5432/app}"
cmd=${1:-status}
case "$cmd" in
  status) psql "$DATABASE_URL" -Atc "select name, applied_at from schema_migrations order by name" ;;
  up)
    for f in migrations/*.up.sql; do
      name=$(basename "$f" .up.sql)
      if ! psql "$DATABASE_URL" -Atc "select 1 from schema_migrations where name='$name'" | grep -q 1; then
        psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -1 -f "$f"
        psql "$DATABASE_URL" -c "insert into schema_migrations(name) values ('$name')"
      fi
    done ;;
  down)
    last=$(psql "$DATABASE_URL" -Atc "select name from schema_migrations order by name desc limit 1")
    psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -1 -f "migrations/$last.down.sql"
    psql "$DATABASE_URL" -c "delete from schema_migrations where name='$last'" ;;
  *) echo "usage: migrate.sh status|up|down" >&2; exit 2 ;;
esac
