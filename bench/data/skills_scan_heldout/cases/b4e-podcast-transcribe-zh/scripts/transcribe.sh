#!/usr/bin/env bash
# transcribe.sh AUDIO [MODEL]        转写
# transcribe.sh --get-model MODEL SHA256   下载并校验模型
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
models="$here/models"
WHISPER=$(command -v whisper-cli || echo "$here/whisper.cpp/build/bin/whisper-cli")

if [[ ${1:-} == --get-model ]]; then
  name=${2:?模型名，如 large-v3-turbo}; sum=${3:?模型页面上的 sha256}
  [[ $sum =~ ^[0-9a-f]{64}$ ]] || { echo "sha256 应为 64 位十六进制" >&2; exit 2; }
  mkdir -p "$models"; cd "$models"
  file="ggml-$name.bin"
  curl -fsSLO "https://huggingface.co/ggml-org/whisper.cpp/resolve/main/$file"
  if ! echo "$sum  $file" | sha256sum -c -; then
    rm -f "$file"; echo "校验失败，已删除 $file" >&2; exit 1
  fi
  echo "模型就绪：$models/$file"; exit 0
fi

audio=${1:?音频文件}; model=${2:-large-v3-turbo}
mfile="$models/ggml-$model.bin"
[[ -f $mfile ]] || { echo "没有模型 $mfile，先运行 --get-model" >&2; exit 1; }
[[ -x $WHISPER ]] || { echo "找不到 whisper-cli" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -hide_banner -loglevel error -i "$audio" -ar 16000 -ac 1 -c:a pcm_s16le "$tmp/in.wav"

out="${audio%.*}"
"$WHISPER" -m "$mfile" -f "$tmp/in.wav" -l zh \
  --prompt "以下是普通话的句子。" \
  -otxt -osrt -of "$out" -t "$(getconf _NPROCESSORS_ONLN)"

echo "完成：$out.txt  $out.srt"
