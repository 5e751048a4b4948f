"""Every benchmark still runs: each script under ``bench/`` (prototypes included) in its ``--small`` mode.

A bench script is a ``.py`` file with a ``__main__`` block (helper modules beside them are run through the scripts
that import them); a new one is picked up by the glob and must offer ``--small``, finish in seconds, exit 0 and
print one JSON document on stdout. The figures of a small run are not compared to anything: timing belongs in the
benches' own output, never in a test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(
    p.relative_to(ROOT).as_posix()
    for p in (ROOT / "bench").rglob("*.py")
    if 'if __name__ == "__main__":' in p.read_text()
)


def test_the_glob_finds_the_benches():
    assert {"bench/step_grpo.py", "bench/gui_agent.py", "bench/prototypes/render_candidates.py"} <= set(SCRIPTS)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(600)
@pytest.mark.parametrize("script", SCRIPTS)
def test_bench_runs_small(script, request, tmp_path):
    argv = [sys.executable, script, "--small"]
    if script == "bench/step_grpo.py":  # building the tiny model is most of its run: share the suite's
        argv += ["--model", str(request.getfixturevalue("tiny_vlm_dir"))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.setdefault("HF_HUB_OFFLINE", "1")
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, f"{script} --small exited {done.returncode}:\n{done.stderr[-3000:]}"
    try:
        out = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(
            f"{script} --small did not print one JSON document ({exc}):\n{done.stdout[-2000:]}"
        ) from None
    assert isinstance(out, dict) and out, out
