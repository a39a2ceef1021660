#!/bin/bash
set -euo pipefail
name="$1"; port="$2"
mkdir -p config
cat > "config/$name.yaml" <<EOF
service: $name
listen: 0.0.0.0:$port
log:
  level: info
  format: json
EOF
python3 - "$name" <<'PY'
import sys, yaml
print(yaml.safe_load(open(f"config/{sys.argv[1]}.yaml")))
PY
