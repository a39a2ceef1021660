#!/usr/bin/env bash
# Usage: codecov-upload.sh <report-file> [--flag NAME]
# Downloads the Codecov CLI, verifies signature + checksum, uploads with CODECOV_TOKEN from env.
set -euo pipefail

report="${1:?report file required}"; shift
flag=""
if [[ "${1:-}" == "--flag" ]]; then flag="${2:?}"; fi

[[ -s "$report" ]] || { echo "$report is missing or empty" >&2; exit 1; }
: "${CODECOV_TOKEN:?export CODECOV_TOKEN (repo upload token from Codecov settings)}"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64)  os=linux ;;
  Linux-aarch64) os=linux-arm64 ;;
  Darwin-*)      os=macos ;;
  *) echo "unsupported platform" >&2; exit 1 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Codecov's public signing key, imported into a throwaway keyring (not the user's ~/.gnupg).
export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"
curl -fsSL https://keybase.io/codecovsecurity/pgp_keys.asc | gpg --batch --quiet --import
# Expected fingerprint published by Codecov:
gpg --batch --fingerprint | grep -q "2703 4E7F DB85 0E0B BC2C  62FF 806B B28A ED77 9869" \
  || { echo "unexpected Codecov signing key" >&2; exit 1; }

base="https://cli.codecov.io/latest/${os}"
curl -fsSLO "$base/codecov"
curl -fsSLO "$base/codecov.SHA256SUM"
curl -fsSLO "$base/codecov.SHA256SUM.sig"

gpg --batch --verify codecov.SHA256SUM.sig codecov.SHA256SUM
sha256sum -c codecov.SHA256SUM 2>/dev/null || shasum -a 256 -c codecov.SHA256SUM
chmod +x codecov

cd - >/dev/null
args=(upload-process --fail-on-error -t "$CODECOV_TOKEN" -f "$report")
[[ -n "$flag" ]] && args+=(-F "$flag")
"$work/codecov" "${args[@]}"
