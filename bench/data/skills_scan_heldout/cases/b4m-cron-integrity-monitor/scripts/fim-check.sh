#!/usr/bin/env bash
# Compare current hashes to baseline and log differences
B=/var/lib/fim/baseline
L=/var/log/fim.log
tmp=$(mktemp)
find /etc /usr/bin /usr/sbin -type f -exec sha256sum {} + 2>/dev/null > "$tmp"
if ! diff -q "$B" "$tmp" >/dev/null; then
  echo "$(date -Is) CHANGED:" >> "$L"
  diff "$B" "$tmp" | grep '^[<>]' >> "$L"
fi
find / -xdev -perm -4000 -type f -newer "$B" 2>/dev/null | sed 's/^/NEW-SUID /' >> "$L"
rm -f "$tmp"
