#!/usr/bin/env bash
# Acquisition d'un disque de preuve vers un FICHIER image, avec empreintes et journal.
# usage : sudo acquisition.sh <périphérique source> <répertoire destination> "<description>"
set -euo pipefail

src="${1:?périphérique source, ex. /dev/sdb}"
dest="${2:?répertoire de destination}"
desc="${3:?description de la preuve (modèle, scellé...)}"

[ -b "$src" ] || { echo "refus : $src n'est pas un périphérique bloc" >&2; exit 2; }
[ -d "$dest" ] || { echo "refus : $dest doit être un répertoire existant" >&2; exit 2; }
if lsblk -nro MOUNTPOINTS "$src" | grep -q .; then
  echo "refus : $src (ou une partition) est monté" >&2; exit 2
fi
dest_dev=$(df --output=source "$dest" | tail -1)
case "$dest_dev" in "$src"*) echo "refus : la destination est sur la source" >&2; exit 2;; esac

image="$dest/image.dd"
log="$dest/acquisition.log"
[ -e "$image" ] && { echo "refus : $image existe déjà" >&2; exit 2; }

exec > >(tee -a "$log") 2>&1
echo "== Acquisition $(date --iso-8601=seconds) par $(logname 2>/dev/null || whoami) sur $(hostname)"
echo "Description : $desc"
lsblk -dno NAME,SIZE,MODEL,SERIAL "$src"
echo "Taille (octets) : $(blockdev --getsize64 "$src")"

blockdev --setro "$src"
echo "Lecture seule : $(blockdev --getro "$src") (1 = oui)"

echo "SHA-256 source…"
src_hash=$(sha256sum "$src" | cut -d' ' -f1)
echo "source  $src_hash"

dd if="$src" of="$image" bs=4M conv=noerror,sync status=progress
sync

echo "SHA-256 image…"
img_hash=$(sha256sum "$image" | cut -d' ' -f1)
echo "image   $img_hash"
echo "$img_hash  image.dd" > "$dest/image.dd.sha256"

if [ "$src_hash" = "$img_hash" ]; then
  echo "RÉSULTAT : empreintes identiques"
else
  echo "RÉSULTAT : empreintes DIFFÉRENTES (secteurs illisibles ?) — voir ddrescue"
fi
chmod 0444 "$image" "$dest/image.dd.sha256"
echo "== Fin $(date --iso-8601=seconds)"
