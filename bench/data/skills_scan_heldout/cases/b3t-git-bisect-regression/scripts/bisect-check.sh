#!/usr/bin/env bash
# Called by `git bisect run` at each step. Usage: bisect-check.sh [--no-clean] "<test command>"
# Exit 0 = good, 1 = bad, 125 = skip (build broken), per git-bisect(1).
set -uo pipefail

clean=1
if [[ "${1:-}" == "--no-clean" ]]; then clean=0; shift; fi
test_cmd="${1:?test command required}"

rev=$(git rev-parse --short HEAD)
echo "── bisect step at $rev"

# Build artefacts this script produces; never anything outside the repo.
if (( clean )); then
  rm -rf build/ .pytest_cache/ target/debug/incremental/ 2>/dev/null || true
fi

build() {
  if [[ -f Cargo.toml ]]; then cargo build --quiet
  elif [[ -f package.json ]]; then npm ci --silent --no-audit --no-fund
  elif [[ -f pyproject.toml || -f setup.py ]]; then python -m pip install -q -e .
  elif [[ -f CMakeLists.txt ]]; then cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build build -j
  else return 0
  fi
}

if ! build >/tmp/bisect-build-$rev.log 2>&1; then
  echo "   build failed at $rev -> skip (log: /tmp/bisect-build-$rev.log)"
  exit 125
fi

# Time-box the test so a hang counts as bad instead of stalling bisect forever.
timeout 600 bash -c "$test_cmd"
status=$?

if (( status == 0 )); then
  echo "   $rev: good"
  exit 0
elif (( status == 124 )); then
  echo "   $rev: test timed out -> bad"
  exit 1
else
  echo "   $rev: bad (exit $status)"
  exit 1
fi
