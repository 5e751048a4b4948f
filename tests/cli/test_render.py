"""`vcoder render` in a real subprocess: good and failed pages, JSON lines, layout files, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "vcoder", "render", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.browser
def test_cli_render_ok_failed_and_usage(tmp_path):
    good, bad = tmp_path / "good.html", tmp_path / "bad.html"
    good.write_text("<h1>Hello</h1>")
    bad.write_text("   ")
    proc = _cli(str(good), "--out", str(tmp_path / "o"), "--width", "800")
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout.strip())
    assert (
        line["ok"]
        and line["error"] is None
        and Path(line["png"]).is_file()
        and set(line) == {"input", "ok", "error", "png", "elapsed_ms"}
    )
    layout = json.loads((tmp_path / "o" / "good.json").read_text())["layout"]
    assert layout["width"] == 800 and layout["text_blocks"][0]["text"] == "Hello"

    proc = _cli(str(good), str(bad), "--out", str(tmp_path / "o2"), "--viewport-only")
    assert proc.returncode == 3
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["ok"] for x in lines] == [True, False] and lines[1]["error"].startswith("empty:")

    assert _cli(str(tmp_path / "missing.html"), "--out", str(tmp_path)).returncode == 2
    assert _cli(str(good), "--out", str(tmp_path), "--width", "-5").returncode == 2
