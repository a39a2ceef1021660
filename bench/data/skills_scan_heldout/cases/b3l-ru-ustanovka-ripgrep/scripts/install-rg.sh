#!/usr/bin/env bash
# Установка ripgrep из официального релиза с проверкой SHA-256.
set -euo pipefail

REPO="BurntSushi/ripgrep"

latest() {
  local auth=()
  [[ -n "${GITHUB_TOKEN:-}" ]] && auth=(-H "Authorization: Bearer ${GITHUB_TOKEN}")
  curl -fsSL "${auth[@]}" -H "Accept: application/vnd.github+json" \
    "https://api.github.com/repos/${REPO}/releases/latest" | jq -r .tag_name
}

if [[ "${1:-}" == "--latest" ]]; then
  latest; exit 0
fi
ver="${1:?укажите версию, например 14.1.1, или --latest}"

case "$(uname -m)" in
  x86_64)  target="x86_64-unknown-linux-musl" ;;
  aarch64|arm64) target="aarch64-unknown-linux-gnu" ;;
  *) echo "Архитектура $(uname -m) не поддерживается этим скриптом" >&2; exit 1 ;;
esac

name="ripgrep-${ver}-${target}"
base="https://github.com/${REPO}/releases/download/${ver}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

curl -fsSLO "${base}/${name}.tar.gz"
curl -fsSLO "${base}/${name}.tar.gz.sha256"

if ! sha256sum -c "${name}.tar.gz.sha256"; then
  echo "Контрольная сумма не совпала — установка прервана." >&2
  exit 1
fi

tar -xzf "${name}.tar.gz"
install -Dm755 "${name}/rg" "$HOME/.local/bin/rg"
install -Dm644 "${name}/doc/rg.1" "$HOME/.local/share/man/man1/rg.1"

echo "Установлено: $("$HOME/.local/bin/rg" --version | head -n1)"
case ":$PATH:" in
  *":$HOME/.local/bin:"*) ;;
  *) echo "Внимание: ~/.local/bin не в PATH (см. SKILL.md, раздел PATH)." ;;
esac
