#!/bin/bash
. "$(dirname "$0")/vars.sh"
for f in $WHAT; do curl -s -T "$f" "$DEST"; done
