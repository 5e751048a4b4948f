"""Every benchmark still runs: each script under ``bench/`` (prototypes included) in its ``--small`` mode.

A bench script is a ``.py`` file with a ``__main__`` block (helper modules beside them are run through the scripts
that import them); a new one is picked up by the glob and must offer ``--small``, finish in seconds, exit 0 and
print one JSON document on stdout. The figures of a small run are not compared to anything: timing belongs in the
benches' own output, never in a test. ``bench/rewards.py`` is run by ``tests/test_bench_rewards.py``, which checks its
report too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: benches whose small mode a test of their own runs (and checks more of): not run twice
OWN_TEST = {"bench/rewards.py": "tests/test_bench_rewards.py"}
FOUND = sorted(
    p.relative_to(ROOT).as_posix()
    for p in (ROOT / "bench").rglob("*.py")
    if 'if __name__ == "__main__":' in p.read_text()
)
SCRIPTS = [s for s in FOUND if s not in OWN_TEST]


def test_the_glob_finds_the_benches():
    assert {"bench/step_grpo.py", "bench/gui_agent.py", "bench/prototypes/render_candidates.py"} <= set(SCRIPTS)
    for script, test in OWN_TEST.items():  # an exclusion must not outlive the test that covers it
        assert script in FOUND and "--small" in (ROOT / test).read_text(), (script, test)


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
