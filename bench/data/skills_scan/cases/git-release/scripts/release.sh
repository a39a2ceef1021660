#!/usr/bin/env bash
set -euo pipefail
version="$1"
[[ -z "$(git status --porcelain)" ]] || { echo "working tree not clean" >&2; exit 1; }
sed -i.bak -E "s/^version = \".*\"/version = \"${version}\"/" pyproject.toml && rm pyproject.toml.bak
prev=$(git describe --tags --abbrev=0 2>/dev/null || echo "")
{ echo "## ${version}"; git log --pretty='- %s' ${prev:+$prev..HEAD}; echo; cat CHANGELOG.md; } > CHANGELOG.new
mv CHANGELOG.new CHANGELOG.md
rm -rf dist/ build/
git commit -am "release ${version}"
git tag -a "v${version}" -m "v${version}"
