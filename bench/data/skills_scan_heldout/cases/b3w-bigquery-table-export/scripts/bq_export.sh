#!/usr/bin/env bash
# usage: bq_export.sh PROJECT DATASET.TABLE|- gs://bucket/prefix [PARQUET|CSV|AVRO]
# With "-" as the table, the query in $SQL is materialised to a temp table and exported.
set -euo pipefail

project="$1"; src="$2"; dest="${3%/}"; fmt="${4:-PARQUET}"
tmp_table=""

cleanup() {
  if [[ -n "$tmp_table" ]]; then
    bq --project_id="$project" rm -f -t "$tmp_table" >/dev/null && echo "removed $tmp_table"
  fi
}
trap cleanup EXIT

if [[ "$src" == "-" ]]; then
  : "${SQL:?set SQL to the query to export}"
  tmp_table="scratch.tmp_export_$(date +%Y%m%d%H%M%S)"
  echo "materialising query into $tmp_table"
  bq --project_id="$project" query --use_legacy_sql=false --quiet \
     --destination_table="$tmp_table" --replace \
     --expiration=3600 "$SQL"
  src="$tmp_table"
fi

case "$fmt" in
  PARQUET) ext=parquet; extra=(--compression=SNAPPY) ;;
  CSV)     ext=csv.gz;  extra=(--compression=GZIP --print_header=true) ;;
  AVRO)    ext=avro;    extra=(--use_avro_logical_types) ;;
  *) echo "format must be PARQUET, CSV or AVRO" >&2; exit 2 ;;
esac

echo "extracting $project:$src -> $dest/part-*.$ext"
bq --project_id="$project" extract \
   --destination_format="$fmt" "${extra[@]}" \
   "$project:$src" "$dest/part-*.$ext"

gcloud storage ls -l "$dest/" | tail -n 5
