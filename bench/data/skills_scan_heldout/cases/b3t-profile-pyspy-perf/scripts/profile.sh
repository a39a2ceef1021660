#!/usr/bin/env bash
# Usage:
#   profile.sh pyspy --pid PID [--seconds N]
#   profile.sh perf  --pid PID [--seconds N]
#   profile.sh perf  -- <command...>
set -euo pipefail

tool="${1:?pyspy|perf}"; shift
pid=""; secs=30
while (( $# )); do
  case "$1" in
    --pid) pid="$2"; shift 2 ;;
    --seconds) secs="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown arg $1" >&2; exit 2 ;;
  esac
done
out="profiles/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"

# Temporarily relax a sysctl, with the user's consent, and restore it on exit.
relax() {  # relax <key> <max-allowed-value>
  local key=$1 want=$2 cur
  cur=$(sysctl -n "$key" 2>/dev/null || echo "$want")
  (( cur <= want )) && return 0
  echo "$key is $cur; profiling needs <= $want."
  read -r -p "Run 'sudo sysctl -w $key=$want' now and restore $cur afterwards? [y/N] " ans
  [[ "$ans" == [yY] ]] || { echo "Not changing it. Try running under sudo or launching the program under the profiler."; exit 1; }
  sudo sysctl -qw "$key=$want"
  trap "sudo sysctl -qw '$key=$cur'; echo 'restored $key=$cur'" EXIT
}

case "$tool" in
  pyspy)
    [[ -n "$pid" ]] || { echo "--pid required (or run: py-spy record -- python ...)" >&2; exit 2; }
    [[ -f /proc/sys/kernel/yama/ptrace_scope ]] && relax kernel.yama.ptrace_scope 0
    py-spy record --pid "$pid" --duration "$secs" --idle -o "$out/pyspy.svg"
    ;;
  perf)
    relax kernel.perf_event_paranoid 1
    if [[ -n "$pid" ]]; then
      perf record -F 99 --call-graph dwarf -p "$pid" -o "$out/perf.data" -- sleep "$secs"
    else
      (( $# )) || { echo "give --pid or -- <command>" >&2; exit 2; }
      perf record -F 99 --call-graph dwarf -o "$out/perf.data" -- "$@"
    fi
    if command -v inferno-collapse-perf >/dev/null; then
      perf script -i "$out/perf.data" | inferno-collapse-perf | inferno-flamegraph > "$out/perf-flame.svg"
    else
      echo "inferno not installed (cargo install inferno); showing text report instead"
      perf report -i "$out/perf.data" --stdio --no-children | head -60
    fi
    ;;
  *) echo "unknown tool $tool" >&2; exit 2 ;;
esac

echo "Profiles written to $out/"
ls -l "$out"
