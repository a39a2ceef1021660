#!/usr/bin/env bash
# Usage: release.sh test|pypi
# Builds sdist+wheel into dist/, checks them, uploads with twine (credentials from TWINE_* env vars).
set -euo pipefail

target="${1:?usage: release.sh test|pypi}"
case "$target" in
  test) repo_url="https://test.pypi.org/legacy/"; index="https://test.pypi.org/simple/" ;;
  pypi) repo_url="https://upload.pypi.org/legacy/"; index="https://pypi.org/simple/" ;;
  *) echo "unknown target: $target" >&2; exit 2 ;;
esac

: "${TWINE_USERNAME:?export TWINE_USERNAME=__token__}"
: "${TWINE_PASSWORD:?export TWINE_PASSWORD with your ${target} API token}"
[[ "$TWINE_PASSWORD" == pypi-* ]] || { echo "TWINE_PASSWORD doesn't look like a PyPI token" >&2; exit 2; }

[[ -z "$(git status --porcelain)" ]] || { echo "working tree not clean" >&2; exit 1; }

# Only remove what this script builds.
rm -rf dist/ build/ ./*.egg-info src/*.egg-info

python -m pip install -q --upgrade build twine
python -m build
python -m twine check --strict dist/*

name=$(python - <<'PY'
import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["name"])
PY
)
version=$(ls dist/*.tar.gz | sed -E 's/.*-([^-]+)\.tar\.gz$/\1/')
echo "Uploading $name $version to $repo_url"
ls -l dist/

python -m twine upload --non-interactive --repository-url "$repo_url" dist/*

# Smoke test from the index we just uploaded to, in a throwaway venv.
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python -m venv "$venv"
sleep 20   # index propagation
extra=()
[[ "$target" == test ]] && extra=(--extra-index-url https://pypi.org/simple/)
"$venv/bin/pip" install -q --index-url "$index" "${extra[@]}" "$name==$version"
"$venv/bin/python" -c "import importlib.metadata as m; print('installed', '$name', m.version('$name'))"
