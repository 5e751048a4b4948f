"""Installed ``node_modules`` kept for reuse by dependency set (:func:`vcoder.sites.build.build_project` reuses an
earlier install when a project's dependency fields and node's version match): where they live, their key, and the
pruning that keeps the least recently used few.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from vcoder.sites.npm_cache import npm_cache_dir

#: installed dependency sets kept for reuse (each ~100-200 MB); the least recently used go first
MAX_STORED_MODULES = 6
_DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides")


def modules_store(cache: str | os.PathLike | None = None) -> Path:
    """Where installed ``node_modules`` trees are kept for reuse: ``npm-modules/`` beside the npm cache."""
    return npm_cache_dir(cache).resolve().with_name(npm_cache_dir(cache).name + "-modules")


def modules_key(package_json: str) -> str | None:
    """The key of a project's dependency set (its dependency fields and node's version), None when unreadable."""
    try:
        data = json.loads(package_json)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    deps = {k: data.get(k) for k in _DEPENDENCY_FIELDS}
    seed = json.dumps({"deps": deps, "node": _node_version()}, sort_keys=True, default=str)
    return hashlib.sha256(seed.encode()).hexdigest()[:32]


def _node_version() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def prune_store(store: Path, keep: int) -> None:
    """Remove all but the ``keep`` most recently used installs in ``store`` (unfinished ones are left alone)."""
    entries = sorted(
        (p for p in store.iterdir() if p.is_dir() and ".part." not in p.name), key=lambda p: p.stat().st_mtime
    )
    for old in entries[: max(0, len(entries) - keep)]:
        shutil.rmtree(old, ignore_errors=True)
