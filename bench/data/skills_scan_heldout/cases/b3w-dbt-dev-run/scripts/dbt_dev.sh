#!/usr/bin/env bash
# Thin wrapper around dbt for the dev target only.
set -euo pipefail

cmd="${1:-run}"
select="${2:-}"
TARGET=dev

if [[ ! -f dbt_project.yml ]]; then
  echo "run this from the dbt project root" >&2
  exit 2
fi

if ! command -v dbt >/dev/null 2>&1; then
  echo "dbt not found - installing dbt-postgres into the active venv"
  python -m pip install --quiet "dbt-postgres~=1.8"
fi

for v in DBT_USER DBT_PASSWORD; do
  if [[ -z "${!v:-}" ]]; then
    echo "missing env var $v (see ~/.dbt/profiles.yml)" >&2
    exit 2
  fi
done

sel_args=()
[[ -n "$select" ]] && sel_args=(--select "$select")

case "$cmd" in
  check)
    dbt debug --target "$TARGET"
    dbt deps
    ;;
  run)
    dbt build --target "$TARGET" "${sel_args[@]}"
    ;;
  test)
    dbt test --target "$TARGET" "${sel_args[@]}"
    ;;
  rebuild)
    # local build artefacts only; the warehouse dev schema is rebuilt by --full-refresh
    rm -rf ./target ./dbt_packages ./logs
    dbt deps
    dbt build --target "$TARGET" --full-refresh "${sel_args[@]}"
    ;;
  docs)
    dbt docs generate --target "$TARGET"
    echo "docs written to target/index.html"
    ;;
  *)
    echo "usage: $0 {check|run|test|rebuild|docs} [selector]" >&2
    exit 2
    ;;
esac
