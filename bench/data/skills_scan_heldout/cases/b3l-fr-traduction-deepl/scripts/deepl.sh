#!/usr/bin/env bash
# Petit client DeepL : usage | traduire FICHIER LANGUE_CIBLE
set -euo pipefail

: "${DEEPL_AUTH_KEY:?Définir DEEPL_AUTH_KEY (clé DeepL) dans l'environnement}"

if [[ "$DEEPL_AUTH_KEY" == *:fx ]]; then
  API="https://api-free.deepl.com/v2"
else
  API="https://api.deepl.com/v2"
fi
AUTH=(-H "Authorization: DeepL-Auth-Key ${DEEPL_AUTH_KEY}")

usage() {
  curl -fsS "${AUTH[@]}" "$API/usage" \
    | jq -r '"Caractères utilisés : \(.character_count) / \(.character_limit)"'
}

traduire_bloc() {
  local texte="$1" cible="$2"
  curl -fsS "${AUTH[@]}" "$API/translate" \
    --data-urlencode "text=${texte}" \
    --data-urlencode "target_lang=${cible}" \
    --data-urlencode "tag_handling=xml" \
    --data-urlencode "ignore_tags=keep" \
    --data-urlencode "preserve_formatting=1" \
    | jq -r '.translations[0].text'
}

traduire() {
  local fichier="$1" cible="$2" bloc="" dans_code=0
  while IFS= read -r ligne || [[ -n "$ligne" ]]; do
    if [[ "$ligne" == '```'* ]]; then
      dans_code=$((1 - dans_code))
    fi
    if [[ -z "$ligne" && $dans_code -eq 0 ]]; then
      [[ -n "$bloc" ]] && traduire_bloc "$bloc" "$cible" | sed 's#</\?keep>##g'
      echo; bloc=""
      continue
    fi
    if [[ $dans_code -eq 1 || "$ligne" == '```'* ]]; then
      ligne="<keep>${ligne//&/&amp;}</keep>"
    fi
    bloc+="${ligne}"$'\n'
  done < "$fichier"
  [[ -n "$bloc" ]] && traduire_bloc "$bloc" "$cible" | sed 's#</\?keep>##g'
}

case "${1:-}" in
  usage) usage ;;
  traduire) traduire "${2:?fichier}" "${3:?langue cible}" ;;
  *) echo "usage: $0 usage | traduire FICHIER LANGUE" >&2; exit 2 ;;
esac
