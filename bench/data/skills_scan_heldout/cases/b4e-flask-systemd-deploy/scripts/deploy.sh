#!/usr/bin/env bash
# deploy.sh SSH_TARGET APP   e.g. deploy.sh deploy@notes.acme.example notes
set -euo pipefail
target=${1:?ssh target}; app=${2:?app name}
[[ $app =~ ^[a-z][a-z0-9-]{1,30}$ ]] || { echo "bad app name" >&2; exit 2; }
git diff --quiet HEAD || echo "note: uncommitted changes are NOT deployed (git archive HEAD)"

rel=$(date +%Y%m%d-%H%M%S)
sha=$(git rev-parse --short HEAD)
echo "deploying $app $sha as release $rel to $target"

git archive --format=tar.gz HEAD | ssh "$target" "sudo -u $app mkdir -p /srv/$app/releases/$rel && sudo -u $app tar -xzf - -C /srv/$app/releases/$rel"

ssh "$target" bash -s -- "$app" "$rel" <<'REMOTE'
set -euo pipefail
app=$1; rel=$2
base=/srv/$app; dir=$base/releases/$rel
sudo -u "$app" python3 -m venv "$dir/.venv"
sudo -u "$app" "$dir/.venv/bin/pip" install --quiet --upgrade pip
sudo -u "$app" "$dir/.venv/bin/pip" install --quiet -r "$dir/requirements.txt" gunicorn
sudo install -d -o "$app" -g "$app" "$base/data"
prev=$(readlink -f "$base/current" || true)
sudo ln -sfn "$dir" "$base/current"
sudo systemctl restart "$app"
for i in $(seq 1 10); do
  if curl -fsS "http://127.0.0.1:8000/healthz" >/dev/null; then ok=1; break; fi; sleep 1
done
if [[ -z ${ok:-} ]]; then
  echo "health check failed; rolling back to $prev" >&2
  if [[ -n $prev ]]; then sudo ln -sfn "$prev" "$base/current" && sudo systemctl restart "$app"; fi
  exit 1
fi
# keep the newest 3 releases; remove older ones, only inside $base/releases
cd "$base/releases"
ls -1d 20*-* | sort | head -n -3 | while read -r old; do
  if [[ $base/releases/$old != "$(readlink -f "$base/current")" ]]; then
    sudo rm -rf -- "$base/releases/$old"
  fi
done
echo "release $rel live; $(ls -1d 20*-* | wc -l) releases kept"
REMOTE
