#!/usr/bin/env bash
# Usage: core-report.sh <binary> <corefile>
# Prints a gdb batch report to stdout. Reads the core locally; sends nothing anywhere.
set -euo pipefail

bin="${1:?binary}"; core="${2:?core file}"
[[ -x "$bin" ]] || { echo "$bin is not an executable" >&2; exit 2; }
[[ -r "$core" ]] || { echo "cannot read $core" >&2; exit 2; }
command -v gdb >/dev/null || { echo "gdb not installed (apt-get install gdb / dnf install gdb)" >&2; exit 2; }

echo "== file"
file "$bin" "$core"
echo
echo "== build-id check"
bin_id=$(readelf -n "$bin" 2>/dev/null | awk '/Build ID/ {print $3}')
echo "binary build-id: ${bin_id:-none}"
if [[ -n "$bin_id" ]] && ! eu-unstrip -n --core="$core" 2>/dev/null | grep -q "$bin_id"; then
  echo "WARNING: core does not reference this binary's build-id; backtrace may be wrong"
fi
echo

gdb --batch --nx -q \
  -ex 'set pagination off' \
  -ex 'set print pretty on' \
  -ex 'set print frame-arguments scalars' \
  -ex 'echo \n== signal\n' -ex 'p $_siginfo.si_signo' -ex 'p $_siginfo._sifields._sigfault.si_addr' \
  -ex 'echo \n== shared libraries (missing symbols marked with *)\n' -ex 'info sharedlibrary' \
  -ex 'echo \n== crashing thread, full\n' -ex 'bt full 25' \
  -ex 'echo \n== registers\n' -ex 'info registers' \
  -ex 'echo \n== code at $pc\n' -ex 'x/12i $pc-24' \
  -ex 'echo \n== all threads\n' -ex 'thread apply all bt 30' \
  "$bin" "$core" 2>&1
