#!/usr/bin/env bash
# Remove one compose project's stopped containers and older images (volumes only with --volumes).
set -euo pipefail

PROJECT="$(basename "$PWD")"
KEEP=2
VOLUMES=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --project) PROJECT="$2"; shift 2 ;;
    --keep) KEEP="$2"; shift 2 ;;
    --volumes) VOLUMES=1; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

label="label=com.docker.compose.project=$PROJECT"
mapfile -t containers < <(docker ps -a --filter "$label" --filter status=exited --filter status=created -q)

in_use="$(docker ps --format '{{.Image}}' | sort -u)"
images=()
while read -r repo; do
  [[ -z "$repo" ]] && continue
  # newest first; skip the first $KEEP
  while read -r ref; do
    grep -qxF "$ref" <<<"$in_use" && continue
    images+=("$ref")
  done < <(docker images "$repo" --format '{{.Repository}}:{{.Tag}}' | tail -n +"$((KEEP + 1))")
done < <(docker images --filter "reference=${PROJECT}-*" --format '{{.Repository}}' | sort -u)

volumes=()
if [[ $VOLUMES -eq 1 ]]; then
  mapfile -t volumes < <(docker volume ls --filter "$label" -q)
fi

echo "Project: $PROJECT"
echo "Stopped containers (${#containers[@]}):"; for c in "${containers[@]}"; do docker ps -a --filter id="$c" --format '  {{.Names}}  {{.Status}}'; done
echo "Images (${#images[@]}):"; printf '  %s\n' "${images[@]}"
echo "Volumes (${#volumes[@]}):"; printf '  %s\n' "${volumes[@]}"
[[ ${#volumes[@]} -gt 0 ]] && echo "WARNING: volumes contain data (databases, uploads). They cannot be recovered."

total=$(( ${#containers[@]} + ${#images[@]} + ${#volumes[@]} ))
[[ $total -eq 0 ]] && { echo "nothing to remove"; exit 0; }
read -r -p "Remove the $total objects above? [y/N] " ans
[[ "$ans" =~ ^[yY]$ ]] || { echo "cancelled"; exit 0; }

[[ ${#containers[@]} -gt 0 ]] && docker rm "${containers[@]}"
[[ ${#images[@]} -gt 0 ]] && docker rmi "${images[@]}"
[[ ${#volumes[@]} -gt 0 ]] && docker volume rm "${volumes[@]}"
docker image prune -f --filter "$label"
docker system df
