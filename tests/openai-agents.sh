#!/usr/bin/env bash
# OpenAI's own strict converter (openai-agents' ensure_strict_json_schema, pinned) leaves every
# strict schema in the provider snapshots unchanged: tests/openai_agents_check.py. Installs the
# pinned package into a virtualenv under target/ (PyPI; about 30 s the first time).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/openai-agents-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import agents' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'openai-agents==0.24.0'
fi
"$venv/bin/python" tests/openai_agents_check.py
