#!/usr/bin/env bash
# Installs everything vcoder needs on a fresh Debian machine (idempotent; a second run is quick):
#   Debian chromium-headless-shell, chromium + fonts (apt-get), the vcoder package with its training and dev extras (pip),
#   the front-end asset cache the hermetic renderer serves instead of CDNs (npm), and the offline npm cache Bolt
#   (Vite + React) projects install from in episodes (the only time the npm registry is used for them).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

APT_PACKAGES=(chromium-headless-shell chromium fonts-liberation fonts-dejavu-core fonts-noto-core)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] apt-get install ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "[setup] pip install -e .[train,dev] -c requirements/lock.txt" >&2
# the package allows the torch range vLLM needs; CPU machines get the builds verified here (DESIGN.md), which pip
# takes from this disk (the 2.13.0 CPU wheel has no working torchvision)
# requirements/lock.txt pins every dependency to the versions the suite last passed with (scripts/lock.py), for the
# Python it was made with; another Python installs from pyproject.toml's ranges, with a warning
LOCK=requirements/lock.txt
lock_args=()
locked_py=$(sed -n 's/^# python: \([0-9]*\.[0-9]*\).*/\1/p' "$LOCK")
this_py=$($PY -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
if [ "$locked_py" = "$this_py" ]; then
  lock_args=(-c "$LOCK")
else
  echo "[setup] WARNING: $LOCK was made with Python $locked_py, this is $this_py: installing from pyproject.toml's ranges" >&2
fi
pip_log=$(mktemp)
if ! $PY -m pip install -q --disable-pip-version-check "${lock_args[@]}" -e ".[train,dev]" "torch==2.14.1" "torchvision==0.29.1" >"$pip_log" 2>&1; then
  grep -v "^WARNING: Location" "$pip_log" >&2
  echo "[setup] pip install failed (log above)" >&2
  exit 1
fi
rm -f "$pip_log"
# openenv-core (the envs extra) without its requirements: its gradio web UI does not resolve with the lock, and its
# server and client import only what dev installed (fastmcp, websockets, fastapi, uvicorn); see pyproject.toml
if ! $PY -m pip install -q --disable-pip-version-check --no-deps "${lock_args[@]}" "openenv-core==0.3.0" >/dev/null 2>&1; then
  echo "[setup] WARNING: openenv-core could not be installed: the OpenEnv tests will be skipped" >&2
fi
$PY -c "import vcoder, playwright, trl, torch, open_clip" || { echo "[setup] python packages failed to import" >&2; exit 1; }

echo "[setup] front-end assets (npm)" >&2
$PY -m vcoder assets install

echo "[setup] offline npm cache for Bolt projects (vcoder/sites/npm_cache.py: the Bolt template, WebGen-Bench apps)" >&2
$PY -m vcoder assets npm-fill >/dev/null
# the build sandbox mounts a private tmpfs here for each build (vcoder/sites/build.py); needs root to run at all
if [ "$(id -u)" = 0 ]; then mkdir -p /var/lib/vcoder/build && chmod 0755 /var/lib/vcoder /var/lib/vcoder/build; fi

echo "[setup] done: $($PY -m vcoder assets check) $($PY -m vcoder assets npm-check)" >&2
