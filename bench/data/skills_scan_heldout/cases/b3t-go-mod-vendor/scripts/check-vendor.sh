#!/usr/bin/env bash
# Verify vendor/ matches go.mod/go.sum and that the module builds offline from vendor/.
# Works on a temporary copy so the user's checkout is never modified.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
cd "$root"
[[ -f go.mod ]] || { echo "no go.mod in $root" >&2; exit 2; }
[[ -d vendor ]] || { echo "no vendor/ directory; run: go mod vendor" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vendorcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Copy tracked files only (no build outputs, no local junk).
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$work"

(
  cd "$work"
  rm -rf vendor
  go mod vendor
)

if ! diff -r -q "$root/vendor" "$work/vendor" >/dev/null; then
  echo "vendor/ is out of date. Differences:"
  diff -r -q "$root/vendor" "$work/vendor" | head -20
  echo "Fix: go mod tidy && go mod vendor, then commit."
  exit 1
fi
echo "vendor/ is in sync with go.mod"

# Offline build: no proxy, no direct fetches, vendor only.
GOFLAGS=-mod=vendor GOPROXY=off GONOSUMDB='' go build ./...
GOFLAGS=-mod=vendor GOPROXY=off go vet ./...
echo "offline build from vendor/ OK"
