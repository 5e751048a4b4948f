"""``bench/rewards.py --small`` runs (the bench's small mode in the suite) and reports the ratio and the profile."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.browser
@pytest.mark.slow
def test_rewards_bench_small_mode_reports_the_ratio_and_the_profile(tmp_path):
    from bench.reward_profile import STAGES

    out = tmp_path / "rewards.json"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "rewards.py"), "--small", "--json-out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["batch"] == "2 references x 4 completions"
    assert result["full_set_over_render_only"] > 0
    assert set(result["completions_per_s"]) == {"render_only", "full_set"}
    profile = result["profile"]["ms_per_completion"]
    assert set(profile) == set(STAGES)
    assert all(math.isfinite(v) for v in profile.values())
    # the stages that always do work on a rendered page took measurable time
    assert min(profile[s] for s in ("decode_png", "ink", "ssim", "clip_preprocess")) > 0
