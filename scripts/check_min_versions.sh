#!/usr/bin/env bash
# Checks that vcoder works on the LOWEST versions pyproject.toml declares for its torch-independent training stack
# (transformers, trl, accelerate, peft, datasets): installs exactly those into a fresh virtual environment, then
# validates every recipe under configs/ and runs the fast tests (-m "not slow") there.
#
#   scripts/check_min_versions.sh                      # every fast test
#   scripts/check_min_versions.sh tests/pipelines      # recipes, then only these tests
#
# When to run it: after changing a dependency bound in pyproject.toml, after adding a key to a recipe or to the
# quickstart's embedded recipes (a training argument newer than the lowest transformers is what refused every
# recipe on transformers 5.17-5.22), and before a release. It takes minutes (pip downloads the old releases once,
# then its cache serves them), so it is not part of every CI run.
#
# torch, torchvision and everything else come from the interpreter's own site-packages (the venv is created with
# --system-site-packages), so no CUDA torch is downloaded; the pinned packages installed in the venv shadow them.
# Environment: PYTHON (default python3), VCODER_MIN_VENV (default $TMPDIR/vcoder-min-versions, recreated each run).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=${VCODER_MIN_VENV:-${TMPDIR:-/tmp}/vcoder-min-versions}
PACKAGES=(transformers trl accelerate peft datasets)

mapfile -t PINS < <($PY scripts/min_versions.py "${PACKAGES[@]}")
echo "[min-versions] lowest declared: ${PINS[*]}" >&2

rm -rf "$VENV"
$PY -m venv --system-site-packages "$VENV"
VPY="$VENV/bin/python"
pip_log=$(mktemp)
if ! "$VPY" -m pip install -q --disable-pip-version-check "${PINS[@]}" >"$pip_log" 2>&1; then
  grep -v "^WARNING: Location" "$pip_log" >&2
  echo "[min-versions] pip could not install the lowest declared versions together (log above)" >&2
  exit 1
fi
rm -f "$pip_log"
echo "[min-versions] installed in $VENV:" >&2
"$VPY" scripts/min_versions.py --verify "${PACKAGES[@]}" >&2

# this checkout's vcoder, not an installed copy
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
echo "[min-versions] every recipe under configs/ (parse, build the configs, resolve the rewards)" >&2
"$VPY" -m pytest -q -p no:cacheprovider tests/test_configs.py tests/pipelines/grpo/test_args.py
echo "[min-versions] fast tests" >&2
"$VPY" -m pytest -q -p no:cacheprovider -m "not slow" "${@:-tests}"
echo "[min-versions] OK: recipes and fast tests pass on ${PINS[*]}" >&2
