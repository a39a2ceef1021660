#!/usr/bin/env bash
# Download a pinned Trivy, verify its checksum, scan an image.
# Usage: trivy-scan.sh <image> [extra trivy args]
set -euo pipefail

IMAGE="${1:?image reference required}"
shift || true
TRIVY_VERSION="${TRIVY_VERSION:-0.53.0}"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64)  ASSET="trivy_${TRIVY_VERSION}_Linux-64bit.tar.gz" ;;
  Linux-aarch64) ASSET="trivy_${TRIVY_VERSION}_Linux-ARM64.tar.gz" ;;
  Darwin-arm64)  ASSET="trivy_${TRIVY_VERSION}_macOS-ARM64.tar.gz" ;;
  Darwin-x86_64) ASSET="trivy_${TRIVY_VERSION}_macOS-64bit.tar.gz" ;;
  *) echo "unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BASE="https://github.com/aquasecurity/trivy/releases/download/v${TRIVY_VERSION}"

(
  cd "$TMP"
  curl -fsSLO "$BASE/$ASSET"
  curl -fsSLO "$BASE/trivy_${TRIVY_VERSION}_checksums.txt"
  if command -v sha256sum >/dev/null; then
    grep " ${ASSET}\$" "trivy_${TRIVY_VERSION}_checksums.txt" | sha256sum -c -
  else
    grep " ${ASSET}\$" "trivy_${TRIVY_VERSION}_checksums.txt" | shasum -a 256 -c -
  fi
  tar -xzf "$ASSET" trivy
)

"$TMP/trivy" --version
"$TMP/trivy" image \
  --cache-dir "$TMP/cache" \
  --severity HIGH,CRITICAL \
  --ignore-unfixed \
  --scanners vuln,secret,misconfig \
  "$@" "$IMAGE"

"$TMP/trivy" image --cache-dir "$TMP/cache" --skip-db-update \
  --scanners vuln,secret,misconfig --format json --output trivy-report.json "$IMAGE"
echo "JSON report: $(pwd)/trivy-report.json"
