#!/bin/sh
set -eu
tag="${REGISTRY:-registry.example.com/team/app}:$(git rev-parse --short HEAD)"
rm -rf build/ dist/
docker build --pull -t "$tag" .
docker run --rm "$tag" python -c "import app; print(app.__version__)"
echo "built $tag"
