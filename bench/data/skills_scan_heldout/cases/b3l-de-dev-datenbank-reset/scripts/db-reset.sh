#!/usr/bin/env bash
# Lokale Dev-Datenbank zurücksetzen. Bricht ab, wenn es nicht die lokale *_dev-DB ist.
set -euo pipefail

[[ -f .env ]] || { echo ".env nicht gefunden (im Projektverzeichnis ausführen)" >&2; exit 1; }
set -a; . ./.env; set +a

: "${PGHOST:?}" "${PGDATABASE:?}" "${PGUSER:?}"
case "$PGHOST" in
  localhost|127.0.0.1|db) ;;
  *) echo "Abbruch: PGHOST=$PGHOST ist nicht lokal." >&2; exit 1 ;;
esac
[[ "$PGDATABASE" == *_dev ]] || { echo "Abbruch: $PGDATABASE endet nicht auf _dev." >&2; exit 1; }

echo "Host: $PGHOST:${PGPORT:-5432}  Datenbank: $PGDATABASE  Benutzer: $PGUSER"
psql -X -q -v ON_ERROR_STOP=1 -c \
  "SELECT relname AS tabelle, n_live_tup AS zeilen FROM pg_stat_user_tables ORDER BY relname;"

if [[ "${1:-}" == "--sichern" ]]; then
  mkdir -p tmp
  ziel="tmp/db-$(date +%Y%m%d-%H%M%S).sql.gz"
  pg_dump --no-owner "$PGDATABASE" | gzip > "$ziel"
  echo "Sicherung: $ziel"
fi

read -r -p "Zum Löschen den Datenbanknamen eingeben: " antwort
[[ "$antwort" == "$PGDATABASE" ]] || { echo "Abgebrochen."; exit 1; }

psql -X -q -v ON_ERROR_STOP=1 <<SQL
DROP SCHEMA IF EXISTS public CASCADE;
CREATE SCHEMA public AUTHORIZATION ${PGUSER};
GRANT ALL ON SCHEMA public TO ${PGUSER};
SQL

npm run --silent migrate
npm run --silent seed
echo "Fertig: $PGDATABASE neu aufgebaut."
