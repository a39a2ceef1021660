#!/usr/bin/env bash
# Symbolicate the app's frames in a .crash report with atos. macOS + Xcode command-line tools.
# usage: symbolicate.sh report.crash [--dsyms DIR] [--redact]
set -euo pipefail

crash="$1"; shift
extra_dirs=(); redact=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dsyms) extra_dirs+=("$2"); shift 2 ;;
    --redact) redact=1; shift ;;
    *) echo "unknown arg $1" >&2; exit 2 ;;
  esac
done

# App binary = first image after "Binary Images:" (the main executable)
img_line="$(awk '/^Binary Images:/{getline; print; exit}' "$crash")"
load_addr="$(awk '{print $1}' <<<"$img_line")"
app_name="$(awk '{print $4}' <<<"$img_line")"
arch="$(awk '{print $5}' <<<"$img_line")"
uuid="$(grep -oE '<[0-9a-fA-F]{32}>' <<<"$img_line" | tr -d '<>' | tr 'a-f' 'A-F')"
uuid_dashed="$(sed -E 's/(.{8})(.{4})(.{4})(.{4})(.{12})/\1-\2-\3-\4-\5/' <<<"$uuid")"
echo "app=$app_name arch=$arch load=$load_addr uuid=$uuid_dashed" >&2

search=("$HOME/Library/Developer/Xcode/Archives" "$HOME/Library/Developer/Xcode/DerivedData" "${extra_dirs[@]}")
dwarf=""
while IFS= read -r -d '' d; do
  if xcrun dwarfdump --uuid "$d" 2>/dev/null | grep -q "$uuid_dashed"; then
    dwarf="$d"; break
  fi
done < <(find "${search[@]}" -path "*${app_name}.app.dSYM/Contents/Resources/DWARF/*" -type f -print0 2>/dev/null)

if [[ -z "$dwarf" ]]; then
  echo "no dSYM with UUID $uuid_dashed found; download it from App Store Connect" >&2
  exit 1
fi
echo "using $dwarf" >&2

while IFS= read -r line; do
  if [[ "$line" =~ ^([0-9]+)[[:space:]]+${app_name}[[:space:]]+(0x[0-9a-f]+) ]]; then
    addr="${BASH_REMATCH[2]}"
    sym="$(xcrun atos -arch "$arch" -o "$dwarf" -l "$load_addr" "$addr")"
    printf '%-4s %-30s %s %s\n' "${BASH_REMATCH[1]}" "$app_name" "$addr" "$sym"
  elif (( redact )) && [[ "$line" =~ ^(Incident\ Identifier|CrashReporter\ Key|Beta\ Identifier|Device\ Name): ]]; then
    echo "${BASH_REMATCH[1]}: REDACTED"
  else
    echo "$line"
  fi
done < "$crash"
