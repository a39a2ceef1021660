#!/usr/bin/env bash
# Transcription locale d'un enregistrement avec ffmpeg + whisper.cpp
set -euo pipefail

entree="${1:?usage: transcrire.sh FICHIER_AUDIO}"
modele="${WHISPER_MODEL:-$HOME/.local/share/whisper/ggml-medium.bin}"
whisper="${WHISPER_BIN:-whisper-cli}"

command -v ffmpeg >/dev/null || { echo "ffmpeg introuvable" >&2; exit 1; }
command -v "$whisper" >/dev/null || { echo "$whisper introuvable (whisper.cpp)" >&2; exit 1; }
[[ -f "$modele" ]] || { echo "Modèle absent : $modele" >&2; exit 1; }

tmp="$(mktemp -d -t transcription-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

ffmpeg -hide_banner -loglevel error -i "$entree" -ar 16000 -ac 1 -c:a pcm_s16le \
  -f segment -segment_time 600 "$tmp/tranche-%03d.wav"

for tranche in "$tmp"/tranche-*.wav; do
  "$whisper" -m "$modele" -l fr -nt -otxt -of "${tranche%.wav}" -f "$tranche" >/dev/null 2>&1
  cat "${tranche%.wav}.txt"
done
