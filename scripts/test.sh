#!/usr/bin/env bash
# Runs vcoder's test suite on a fresh machine: set-up first (idempotent), then pytest.
# pytest's exit code 5 (no tests collected) fails like any other non-zero code.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=${PYTHON:-python3}
exec $PY -m pytest -q "$@"
