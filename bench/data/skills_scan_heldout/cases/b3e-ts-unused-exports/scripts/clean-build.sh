#!/usr/bin/env bash
# Clean rebuild of this project only. Removes build outputs and caches inside the repo root.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
[[ -f package.json ]] || { echo "not a node project: $root" >&2; exit 1; }

rm -rf -- "$root/dist" "$root/build" "$root/.turbo" "$root/node_modules/.cache" "$root/tsconfig.tsbuildinfo"
npm ci --no-audit --no-fund
npx tsc --noEmit -p tsconfig.json
npm run build
npm test -- --run 2>/dev/null || npm test
echo "clean build OK"
