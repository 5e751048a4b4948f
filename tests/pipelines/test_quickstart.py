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
    from vcoder.pipelines.quickstart import GRPO_RECIPE

    out = tmp_path / "qs"
    threads = torch.get_num_threads()
    try:
        assert main(["quickstart", "--fast", "--out", str(out), "--seed", "3"]) == 0
    finally:
        torch.set_num_threads(threads)
    printed = capsys.readouterr().out
    total = sum(GRPO_RECIPE["reward_weights"])  # validity, the four Design2Code components and SSIM: 6
    assert (
        f"GRPO reward (of {total:g}) on the same 16 training pages, greedy: SFT" in printed
        and "Design2Code on the test split (digest" in printed
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3 and summary["fast"] is True
    # the summary says what it was measured on: the test split's pages (by content) and their digest
    from vcoder.data.splits import split_digest
    from vcoder.data.synthetic import content_key, split_pages

    assert summary["split"] == "test"
    assert summary["split_digest"] == split_digest(content_key(p) for p in split_pages(8, seed=3 + 7919, split="test"))
    assert summary["train_digest"] == split_digest(content_key(p) for p in split_pages(32, seed=3, split="train"))
    assert set(summary["holdout"]) == {"untrained", "sft", "grpo"}
    for metrics in summary["holdout"].values():
        assert set(metrics) >= {"block_match", "text", "position", "color", "overall"}
        # every held-out page was scored (n counts the scored pages; the metrics are means in [0, 1])
        assert metrics["n"] == 8
        assert all(0.0 <= metrics[m] <= 1.0 for m in ("block_match", "text", "position", "color", "overall"))
    reward = summary["grpo_reward"]
    # the probe: the reward mix of greedy completions on the same 16 training pages, SFT model vs GRPO model
    assert reward["pages"] == 16 and 0.0 <= reward["start"] <= total and 0.0 <= reward["end"] <= total
    assert reward["weights"] == dict(zip(GRPO_RECIPE["reward_funcs"], GRPO_RECIPE["reward_weights"]))
    assert reward["delta"] == pytest.approx(reward["end"] - reward["start"])
    assert set(reward["components"]["start"]) == {f"{name}_reward" for name in reward["weights"]}
    # 4 optimizer steps, each generation used for two of them: two logged rewards, one per window
    assert reward["sampled"]["steps"] == 2 and reward["sampled"]["window"] == 1
    for name in ("untrained", "sft", "grpo"):
        pages = json.loads((out / "eval" / f"{name}_eval.json").read_text())["pages"]
        assert len(pages) == summary["n_holdout"] == 8
    for model in ("model-init", "sft", "grpo"):
        assert (out / model / "config.json").exists()
    assert (out / "grpo" / "trainer_state.json").exists() and os.listdir(out / "grpo" / "completions")
    report = (out / "curves" / "report.html").read_text()
    assert report.count("data:image/png;base64,") >= 5
    assert str(out / "curves" / "report.html") in printed


@pytest.mark.slow
@pytest.mark.browser
def test_sft_only_stops_after_sft_with_the_curricula_start(tmp_path, capsys):
    """`vcoder quickstart --sft-only`: the SFT model the CPU curricula start from, and nothing after it."""
    import torch

    from vcoder.cli import main

    out = tmp_path / "qs"
    threads = torch.get_num_threads()
    try:
        assert main(["quickstart", "--fast", "--sft-only", "--out", str(out), "--seed", "1", "--threads", "1"]) == 0
    finally:
        torch.set_num_threads(threads)
    summary = json.loads(capsys.readouterr().out)
    assert summary["sft_only"] is True and summary["paths"]["sft"] == str(out / "sft")
    assert list(summary["timings_s"]) == ["build_model", "synthetic_data", "sft"]
    state = json.loads((out / "sft" / "trainer_state.json").read_text())
    assert state["global_step"] == 10  # FAST["sft_steps"]
    assert (out / "sft" / "model.safetensors").exists()
    assert sorted(os.listdir(out)) == ["model-init", "sft", "summary.json"]  # no GRPO, evaluation or curves


def _state(tmp_path, rewards):
    path = tmp_path / "trainer_state.json"
    # a reward-less row (the final summary TRL logs) must be skipped
    rows = [{"reward": r, "step": i + 1} for i, r in enumerate(rewards)] + [{"train_runtime": 1.0}]
    path.write_text(json.dumps({"log_history": rows}))
    return str(path)


def test_the_quickstarts_score_only_test_or_validation(tmp_path):
    from vcoder.pipelines.agent_quickstart import run_agent_quickstart
    from vcoder.pipelines.quickstart import run_quickstart

    for run in (run_quickstart, run_agent_quickstart):
        with pytest.raises(ValueError, match="split 'train' cannot be scored; choose among test, validation"):
            run(str(tmp_path / "x"), split="train")
    assert not (tmp_path / "x").exists()  # refused before any work


def test_reward_window_compares_whole_windows(tmp_path):
    from vcoder.pipelines.quickstart import reward_window

    path = _state(tmp_path, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    assert reward_window(path, window=2) == {"start": 1.5, "end": 7.5, "delta": 6.0, "window": 2, "steps": 8}
    # default: a fifth of the logged steps, at least one
    assert reward_window(path)["window"] == 1
    # a window can never overlap the other one
    assert reward_window(path, window=10)["window"] == 4


def test_reward_window_refuses_a_run_without_rewards(tmp_path):
    from vcoder.pipelines.quickstart import reward_window

    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"log_history": [{"loss": 1.0}]}))
    with pytest.raises(ValueError, match="logged no 'reward'"):
        reward_window(str(path))


def test_auto_threads_stays_within_the_cores():
    from vcoder.pipelines.quickstart import auto_threads

    threads = auto_threads(sample_s=0.1)
    assert 1 <= threads <= min(4, os.cpu_count() or 1)
