#!/usr/bin/env bash
# Runs vcoder's test suite on a fresh machine: set-up first (idempotent), then pytest.
# pytest's exit code 5 (no tests collected) fails like any other non-zero code.
# Tests run on one pytest-xdist worker per core (`-n auto`; tests marked xdist_group share a worker); pass `-n 0` to
# run them in one process, `-n N` for N workers.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=${PYTHON:-python3}
exec $PY -m pytest -q -n auto --dist loadgroup "$@"
