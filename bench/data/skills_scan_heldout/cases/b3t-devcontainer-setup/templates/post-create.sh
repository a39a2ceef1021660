#!/usr/bin/env bash
# Runs once after the dev container is created.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo chown -R vscode:vscode /home/vscode/.cache/pip   # named volume is created root-owned

python -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e ".[dev]"

if [[ -f .pre-commit-config.yaml ]]; then
  .venv/bin/pre-commit install --install-hooks
fi

# hadolint (Dockerfile linter): release binary + published checksum
HADOLINT_VERSION=v2.12.0
arch=$(uname -m); [[ "$arch" == aarch64 ]] && arch=arm64
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(
  cd "$tmp"
  base="https://github.com/hadolint/hadolint/releases/download/${HADOLINT_VERSION}"
  curl -fsSLO "$base/hadolint-Linux-${arch}"
  curl -fsSLO "$base/hadolint-Linux-${arch}.sha256"
  sha256sum -c "hadolint-Linux-${arch}.sha256"
  sudo install -m 0755 "hadolint-Linux-${arch}" /usr/local/bin/hadolint
)

echo "Dev container ready: source .venv/bin/activate"
