#!/bin/sh
set -eu
version="$1"
work=$(mktemp -d "${TMPDIR:-/tmp}/release.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
git archive --format=tar HEAD | tar -x -C "$work"
( cd "$work" && python -m build --sdist --outdir dist )
mkdir -p dist
cp "$work"/dist/*.tar.gz "dist/app-$version.tar.gz"
rm -rf ./build ./*.egg-info
echo "built dist/app-$version.tar.gz"
