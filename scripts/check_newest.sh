#!/usr/bin/env bash
# Shows tomorrow's breakage before users see it: installs the NEWEST versions pyproject.toml's ranges allow into a
# throwaway virtual environment, reports which packages moved from requirements/lock.txt, then runs the suite there.
#
#   bash scripts/check_newest.sh                         # the whole suite (as long as CI's run)
#   bash scripts/check_newest.sh -m "not slow"           # pytest arguments pass through: a quicker look
#
# When to run it: before every change of the lock file (then `python scripts/lock.py` from the environment that
# passed), and now and then to see what the registry will hand a user tomorrow. Not part of the gating CI: a new
# release must not turn main red on a day nobody changed anything.
#
# The venv is created with --system-site-packages so torch/torchvision come from the interpreter (no CUDA download;
# this machine caps them); every other dependency of vcoder[train,dev] is upgraded eagerly inside the venv.
# Writes $REPORT (default $TMPDIR/vcoder-newest/report.md): the moved packages, pytest's summary and its failures.
# Environment: PYTHON (default python3), VCODER_NEWEST_DIR (default $TMPDIR/vcoder-newest, recreated each run).
set -uo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
DIR=${VCODER_NEWEST_DIR:-${TMPDIR:-/tmp}/vcoder-newest}
REPORT=${REPORT:-$DIR/report.md}
rm -rf "$DIR" && mkdir -p "$DIR"
$PY -m venv --system-site-packages "$DIR/venv" || exit 1
VPY="$DIR/venv/bin/python"
echo "[newest] pip install --upgrade --upgrade-strategy eager -e .[train,dev] (no lock)" >&2
if ! "$VPY" -m pip install -q --disable-pip-version-check --upgrade --upgrade-strategy eager -e ".[train,dev]" \
    >"$DIR/pip.log" 2>&1; then
  grep -v "^WARNING: Location" "$DIR/pip.log" >&2
  echo "[newest] pip could not install the newest allowed versions (log above)" >&2
  exit 1
fi
"$VPY" -m pip freeze --exclude-editable >"$DIR/freeze.txt" 2>/dev/null
moved=$($PY scripts/lock.py --moved "$DIR/freeze.txt")

export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # this checkout's vcoder, not an installed copy
echo "[newest] moved from the lock: $moved" >&2
# the one test that checks this environment IS the locked one cannot pass here, by design
"$VPY" -m pytest -q -p no:cacheprovider -rf --deselect tests/test_lock.py::test_this_environment_is_the_locked_one \
  "${@:-tests}" >"$DIR/pytest.log" 2>&1
status=$?
{
  echo "# Newest allowed versions: $(date -u +%Y-%m-%d)"
  echo
  echo "## Packages that moved from requirements/lock.txt"
  echo '```'
  echo "$moved"
  echo '```'
  echo
  echo "## pytest ${*:-tests} (exit $status)"
  echo '```'
  grep -E "^(FAILED|ERROR) |^=+ .*(passed|failed|error).* =+$|^[0-9]+ (passed|failed)" "$DIR/pytest.log" || tail -n 20 "$DIR/pytest.log"
  echo '```'
} >"$REPORT"
cat "$REPORT"
echo "[newest] full log: $DIR/pytest.log; report: $REPORT" >&2
exit $status
