"""Curves from trainer states in TRL's format: which state is read, smoothing, overlays, PNGs and the HTML page."""

from __future__ import annotations

import json
import os

import pytest

from vcoder.pipelines.plots import find_state, load_history, plot_runs, reward_names, series, smooth


def _state(path, steps, *, reward0=0.2, slope=0.01):
    rows = []
    for step in range(1, steps + 1):
        rows.append(
            {
                "step": step,
                "loss": 0.1 / step,
                "reward": reward0 + slope * step,
                "reward_std": 0.05,
                "rewards/block_reward/mean": 0.1 + slope * step,
                "rewards/block_reward/std": 0.02,
                "rewards/validity_reward/mean": 0.9,
                "rewards/validity_reward/std": 0.01,
                "completions/mean_length": 30.0 + step,
                "entropy": 2.0 - 0.01 * step,
                "kl": 0.001 * step,
                "clip_ratio/region_mean": 0.0,
                "step_time": 1.5,
                "learning_rate": 1e-4,
            }
        )
    rows.append({"step": steps, "train_runtime": 12.0, "train_loss": 0.05})
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        json.dump({"global_step": steps, "log_history": rows}, handle)


@pytest.fixture
def run_dir(tmp_path):
    run = tmp_path / "run"
    _state(str(run / "checkpoint-4" / "trainer_state.json"), 4)
    _state(str(run / "checkpoint-8" / "trainer_state.json"), 8)
    import pandas as pd

    os.makedirs(run / "completions")
    for step in (1, 2):
        pd.DataFrame(
            {
                "step": [step] * 2,
                "prompt": ["p", "p"],
                "completion": ["<html>" + "x" * step, "<p>y</p>"],
                "block_reward": [0.5, 0.25],
                "advantage": [0.7, -0.7],
            }
        ).to_parquet(run / "completions" / f"completions_{step:05d}.parquet")
    return str(run)


def test_latest_checkpoint_by_default_and_a_chosen_one(run_dir):
    assert find_state(run_dir).endswith(os.path.join("checkpoint-8", "trainer_state.json"))
    assert find_state(run_dir, 4).endswith(os.path.join("checkpoint-4", "trainer_state.json"))
    _state(os.path.join(run_dir, "trainer_state.json"), 10)  # the run's own final state has more steps
    assert find_state(run_dir) == os.path.join(run_dir, "trainer_state.json")
    with pytest.raises(FileNotFoundError, match="checkpoint-4, checkpoint-8|checkpoint-8"):
        find_state(run_dir, 5)


def test_history_series_and_smoothing(run_dir):
    history = load_history(find_state(run_dir))
    assert len(history) == 8  # the final train_runtime summary row is not a step
    steps, values = series(history, "reward")
    assert steps == list(range(1, 9)) and values[0] == pytest.approx(0.21)
    assert smooth([1.0, 2.0, 3.0, 4.0], 2) == [1.0, 1.5, 2.5, 3.5]
    assert smooth([1.0, 5.0], 1) == [1.0, 5.0]
    assert reward_names([history]) == ["block_reward", "validity_reward"]


def test_plot_runs_writes_pngs_and_a_self_contained_page(run_dir, tmp_path):
    other = tmp_path / "other"
    _state(str(other / "trainer_state.json"), 5, reward0=0.5)
    out = tmp_path / "curves"
    result = plot_runs([run_dir, str(other)], str(out), labels=["a", "b"], smooth=3)
    names = {os.path.basename(p) for p in result["pngs"]}
    for name in ("reward.png", "reward_block_reward.png", "reward_validity_reward.png", "kl.png", "entropy.png"):
        assert name in names
    assert "completion_chars_0.png" in names  # from the completions parquet
    for path in result["pngs"]:
        with open(path, "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    page = open(result["html"]).read()
    assert page.count("data:image/png;base64,") == len(result["pngs"])
    assert "<pre>&lt;html&gt;xx</pre>" in page  # the last step's sample completions, escaped


def test_plot_cli_and_script(run_dir, tmp_path):
    import subprocess
    import sys

    from vcoder.cli import main

    assert main(["plot", run_dir, "--out", str(tmp_path / "c1"), "--checkpoint", "4"]) == 0
    assert (tmp_path / "c1" / "report.html").exists()
    assert main(["plot", str(tmp_path / "nothing")]) == 2
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run(
        [sys.executable, os.path.join(root, "experiments", "plot_run.py"), run_dir, "--out", str(tmp_path / "c2")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["html"].endswith("report.html")
