#!/bin/sh
set -eu
mkdir -p backups
pg_dump "$DATABASE_URL" | gzip > "backups/$(date +%F).sql.gz"
find backups -name '*.sql.gz' -mtime +14 -delete
