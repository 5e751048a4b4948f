"""Importing the rendering package is light: no browser, no Playwright, no exit or fork hook before a pool exists."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

PROBE = """
import atexit, json, logging, sys  # logging registers its own exit hook when imported
before = atexit._ncallbacks()
import vcoder.rendering
from vcoder.rendering import FailureKind, Rendered
light = sorted(m for m in sys.modules if m.startswith(("playwright", "psutil", "asyncio", "vcoder.rendering.")))
hooks_on_import = atexit._ncallbacks() - before
from vcoder.rendering import AsyncBrowserPool, BrowserPool, get_default_pool
classes = sorted(m for m in sys.modules if m.startswith("playwright"))
hooks_with_classes = atexit._ncallbacks() - before
pool = get_default_pool()
hooks_with_pool = atexit._ncallbacks() - before
pool.close()
print(json.dumps([light, hooks_on_import, classes, hooks_with_classes, hooks_with_pool]))
"""


def test_import_is_light_and_hooks_come_with_the_shared_pool():
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, cwd=ROOT, check=True
    ).stdout
    light, hooks_on_import, classes, hooks_with_classes, hooks_with_pool = json.loads(out.splitlines()[-1])
    assert light == ["vcoder.rendering.types"] and hooks_on_import == 0
    assert classes == [] and hooks_with_classes == 0  # the pool classes are loaded, nothing is started
    assert hooks_with_pool == 1  # the shared pool is closed at exit
