#!/usr/bin/env bash
# Create a LangChain project skeleton in the current directory.
set -euo pipefail

PY=${PYTHON:-python3}
"$PY" -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
pip install --upgrade pip >/dev/null
pip install langchain langchain-openai langchain-anthropic python-dotenv

if [[ ! -f .env ]]; then
  umask 077
  cat > .env <<'ENV'
# Provider keys for this project. Fill in the ones you use; never commit this file.
OPENAI_API_KEY=
ANTHROPIC_API_KEY=
# Opt-in tracing to LangSmith (sends prompts to api.smith.langchain.com):
LANGSMITH_TRACING=false
LANGSMITH_API_KEY=
ENV
  chmod 600 .env
  echo "created .env (fill in your keys)"
else
  echo ".env already exists; left unchanged"
fi

touch .gitignore
for entry in ".env" ".venv/" "__pycache__/"; do
  grep -qxF "$entry" .gitignore || echo "$entry" >> .gitignore
done
echo "gitignore now contains: $(tr '\n' ' ' < .gitignore)"

python - <<'PY'
import langchain, langchain_openai
print("langchain", langchain.__version__, "ready")
PY
