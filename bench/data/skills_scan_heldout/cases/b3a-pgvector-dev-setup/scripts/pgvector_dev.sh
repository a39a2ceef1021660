#!/usr/bin/env bash
# Local pgvector helper: init | reset | stats
set -euo pipefail

: "${DATABASE_URL:?set DATABASE_URL to the local dev database}"
TABLE=doc_chunks

local_only() {
  case "$DATABASE_URL" in
    *@127.0.0.1:*|*@localhost:*|*@127.0.0.1/*|*@localhost/*) ;;
    *) echo "refusing: DATABASE_URL is not a local database" >&2; exit 1 ;;
  esac
}

psql_q() { psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -q "$@"; }

case "${1:-}" in
  init)
    dim="${2:-1536}"
    [[ "$dim" =~ ^[0-9]+$ ]] || { echo "dimension must be a number" >&2; exit 1; }
    psql_q <<SQL
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS ${TABLE} (
  id bigserial PRIMARY KEY,
  source text NOT NULL,
  content text NOT NULL,
  embedding vector(${dim}) NOT NULL
);
CREATE INDEX IF NOT EXISTS ${TABLE}_embedding_hnsw ON ${TABLE} USING hnsw (embedding vector_cosine_ops);
SQL
    echo "initialised ${TABLE} with vector(${dim})"
    ;;
  reset)
    local_only
    rows=$(psql "$DATABASE_URL" -tAc "SELECT count(*) FROM ${TABLE}" 2>/dev/null || echo 0)
    echo "This will DROP TABLE ${TABLE} (${rows} rows) on ${DATABASE_URL%%:*}://…@${DATABASE_URL#*@}"
    read -r -p "Type the table name to confirm: " answer
    [[ "$answer" == "$TABLE" ]] || { echo "not confirmed; nothing changed"; exit 1; }
    psql_q -c "DROP TABLE IF EXISTS ${TABLE};"
    echo "dropped ${TABLE}; run '$0 init <dim>' to recreate"
    ;;
  stats)
    psql_q -c "SELECT count(*) AS rows, pg_size_pretty(pg_total_relation_size('${TABLE}')) AS size FROM ${TABLE};"
    ;;
  *)
    echo "usage: $0 init [dim] | reset | stats" >&2; exit 2 ;;
esac
