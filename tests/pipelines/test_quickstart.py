"""`vcoder quickstart --fast` end to end: every stage runs for real (shrunk) and leaves its files behind."""

from __future__ import annotations

import json
import os

import pytest


@pytest.mark.slow
@pytest.mark.browser
def test_fast_quickstart_writes_everything(tmp_path, capsys):
    import torch

    from vcoder.cli import main

    out = tmp_path / "qs"
    threads = torch.get_num_threads()
    try:
        assert main(["quickstart", "--fast", "--out", str(out), "--seed", "3"]) == 0
    finally:
        torch.set_num_threads(threads)
    printed = capsys.readouterr().out
    assert "GRPO mean reward: start" in printed and "Held-out Design2Code" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3 and summary["fast"] is True
    assert set(summary["holdout"]) == {"untrained", "sft", "grpo"}
    for metrics in summary["holdout"].values():
        assert set(metrics) >= {"block_match", "text", "position", "color", "overall"}
        assert all(0.0 <= v <= 1.0 for v in metrics.values())
    reward = summary["grpo_reward"]
    assert reward["steps"] == 3 and 0.0 <= reward["start"] <= 5.0
    for name in ("untrained", "sft", "grpo"):
        pages = json.loads((out / "eval" / f"{name}_eval.json").read_text())["pages"]
        assert len(pages) == summary["n_holdout"] == 8
    for model in ("model-init", "sft", "grpo"):
        assert (out / model / "config.json").exists()
    assert (out / "grpo" / "trainer_state.json").exists() and os.listdir(out / "grpo" / "completions")
    report = (out / "curves" / "report.html").read_text()
    assert report.count("data:image/png;base64,") >= 5
    assert str(out / "curves" / "report.html") in printed
