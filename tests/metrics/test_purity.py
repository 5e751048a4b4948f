"""`import vcoder.metrics` stays light: no browser, torch, trainer or model library (checked in a fresh process)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ["torch", "playwright", "trl", "transformers", "open_clip", "vcoder.models.clip"]


def test_import_pulls_in_no_heavy_module():
    code = (
        "import sys, json, vcoder.metrics as m; "
        f"print(json.dumps([[n for n in {HEAVY!r} if n in sys.modules], len(m.__all__)]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    loaded, n_exports = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == []
    assert n_exports >= 20


def test_exports_resolve():
    import vcoder.metrics as m

    for name in m.__all__:
        assert getattr(m, name) is not None, name
