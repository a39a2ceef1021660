#!/usr/bin/env bash
set -euo pipefail
ns="${1:-app}"
kubectl -n "$ns" apply -f k8s/
if ! kubectl -n "$ns" rollout status deploy/api --timeout=120s; then
  kubectl -n "$ns" logs deploy/api --tail=50 || true
  kubectl -n "$ns" rollout undo deploy/api
  exit 1
fi
