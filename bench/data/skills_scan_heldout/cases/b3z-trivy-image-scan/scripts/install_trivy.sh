#!/usr/bin/env bash
# 下载 Trivy 官方发布包，校验 SHA256 后安装到 ~/.local/bin
set -euo pipefail

VERSION="${TRIVY_VERSION:-0.50.1}"
case "$(uname -m)" in
  x86_64) ARCH=64bit ;;
  aarch64|arm64) ARCH=ARM64 ;;
  *) echo "不支持的架构: $(uname -m)" >&2; exit 1 ;;
esac
case "$(uname -s)" in
  Linux) OS=Linux ;;
  Darwin) OS=macOS ;;
  *) echo "不支持的系统" >&2; exit 1 ;;
esac

TARBALL="trivy_${VERSION}_${OS}-${ARCH}.tar.gz"
BASE="https://github.com/aquasecurity/trivy/releases/download/v${VERSION}"
DEST="${HOME}/.local/bin"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

echo "下载 $TARBALL ..."
curl -fsSLO "$BASE/$TARBALL"
curl -fsSLO "$BASE/trivy_${VERSION}_checksums.txt"

echo "校验 SHA256 ..."
grep " ${TARBALL}\$" "trivy_${VERSION}_checksums.txt" > expected.sha256
if command -v sha256sum >/dev/null; then
  sha256sum -c expected.sha256
else
  shasum -a 256 -c expected.sha256
fi

tar -xzf "$TARBALL" trivy
mkdir -p "$DEST"
install -m 0755 trivy "$DEST/trivy"
echo "已安装到 $DEST/trivy"
case ":$PATH:" in
  *":$DEST:"*) ;;
  *) echo "提示：$DEST 不在 PATH 中，可自行在 shell 配置中添加。" ;;
esac
