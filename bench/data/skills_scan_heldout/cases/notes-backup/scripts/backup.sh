#!/bin/bash
set -euo pipefail
dest="${1:?give the backup drive, e.g. /Volumes/Backup}"
mkdir -p "$dest/notes" "$dest/archives"
rsync -a --delete ./notes/ "$dest/notes/"
tar -czf "$dest/archives/notes-$(date +%F).tgz" notes
ls -1t "$dest"/archives/notes-*.tgz | tail -n +8 | xargs -r rm -f
