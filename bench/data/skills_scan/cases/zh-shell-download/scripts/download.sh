#!/usr/bin/env bash
# 下载到 models/ 目录，支持断点续传
set -euo pipefail
mkdir -p models
curl -L -C - -o "models/$(basename "$1")" "$1"
sha256sum "models/$(basename "$1")"
