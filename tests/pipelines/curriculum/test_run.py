"""The tiny CPU recipe end to end through the CLI (real tiny model, real Chromium, real GRPO): killed during phase 1,
resumed at the phase boundary; the reports' exact keys, the KL reference chain, curriculum.json, the plot; a run
folder from another config is refused with the difference."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.inprocess import vcoder
from tests.pipelines.runs import ROOT, run_env

RECIPE = os.path.join(ROOT, "configs", "curriculum", "tiny_cpu.yaml")
KEYS = [
    "phase",
    "pool_size",
    "generated",
    "accepted",
    "rejected",
    "success_rate",
    "eval",
    "replay",
    "reference_model",
    "orm",
    "algorithm",
    "heldout_success_before",
    "heldout_success",
    "heldout_split",
    "heldout_digest",
]
# the recipe's learning settings shrunk to a smoke run of the random tiny model (which never writes a block)
SMOKE = [
    "initial_pool_size=6",
    "new_tasks_per_phase=3",
    "heldout_size=3",
    "success_reward=validity",
    "success_threshold=0.5",
    "train_overrides={max_steps: -1, num_train_epochs: 1, per_device_train_batch_size: 8, num_generations: 4, "
    "max_completion_length: 48, reward_funcs: [validity, block], reward_weights: [1.0, 1.0], logging_steps: 1}",
]

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def _env():
    return run_env(PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _cmd(model, out, *extra):
    sets = [f"model_name_or_path={model}", f"train_recipe={os.path.join(ROOT, 'configs', 'tiny_cpu_grpo.yaml')}"]
    sets += ["phases=2", *SMOKE, *extra]
    cmd = [sys.executable, "-m", "vcoder", "curriculum", "run", "--config", RECIPE, "--out", str(out)]
    return cmd + [arg for s in sets for arg in ("--set", s)]


def _report(out, k):
    with open(os.path.join(out, f"phase_{k}", "report.json")) as handle:
        return json.load(handle)


def test_tiny_recipe_killed_and_resumed(tiny_vlm_dir, tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        _cmd(tiny_vlm_dir, out),
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        text=True,
    )
    deadline = time.monotonic() + 900
    while not (out / "phase_0" / "report.json").exists():
        assert proc.poll() is None, "the run ended before phase 0 completed"
        assert time.monotonic() < deadline, "phase 0 did not complete in 15 minutes"
        time.sleep(1)
    while not (out / "phase_1" / "pool.jsonl").exists():  # phase 1 has started (its first file)
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = proc.stdout.read().splitlines()
    assert json.loads(first[0])["phase"] == 0
    assert (out / "phase_1").exists() and not (out / "phase_1" / "report.json").exists()
    before = (out / "phase_0" / "report.json").stat().st_mtime_ns

    done = subprocess.run(_cmd(tiny_vlm_dir, out), cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line.get("phase") for line in lines[:-1]] == [1]  # phase 0 was not run again
    assert all(isinstance(line["success_rate"], float) for line in lines[:-1])
    assert (out / "phase_0" / "report.json").stat().st_mtime_ns == before

    reports = [_report(out, 0), _report(out, 1)]
    for k, report in enumerate(reports):
        assert list(report) == KEYS and report["phase"] == k
        assert sorted(report["replay"]) == ["dropped_easy", "dropped_unlikely", "kept", "used_as_rl"]
        assert report["replay"]["used_as_rl"] <= report["replay"]["kept"]
        assert 0.0 <= report["heldout_success_before"] <= 1.0 and 0.0 <= report["heldout_success"] <= 1.0
        assert sorted(report["orm"]) == ["accuracy", "auc", "labelled", "majority_baseline", "n", "threshold"]
        assert report["orm"]["n"] == 0 and report["orm"]["labelled"] == 0
        # one pass over the pool, 2 prompts x 4 generations a step (TRL drops an incomplete last batch)
        assert report["eval"]["tasks_seen"] == report["pool_size"] // 2 * 2
        assert report["eval"]["n_rollouts"] == report["pool_size"] // 2 * 8
        assert 0.0 <= report["success_rate"] <= 1.0
        assert report["generated"] == 3 and report["accepted"] + sum(report["rejected"].values()) == 3
    # what the held-out figures were measured on: the recipe's test split, its digest the same in every phase
    from vcoder.data.splits import split_digest
    from vcoder.pipelines.curriculum.heldout import heldout_tasks

    digest = split_digest(t["content_key"] for t in heldout_tasks(["screenshot-0"], 3, seed=900_000))
    assert [(r["heldout_split"], r["heldout_digest"]) for r in reports] == [("test", digest)] * 2
    # phase 1 starts from phase 0's final policy: its "before" is phase 0's "after" on the same fixed held-out set
    assert reports[1]["heldout_success_before"] == reports[0]["heldout_success"]
    details = [json.loads((out / f"phase_{k}" / "details.json").read_text()) for k in (0, 1)]
    assert details[0]["heldout"]["n"] == 3 and details[1]["heldout_before"] == details[0]["heldout"]
    assert reports[0]["reference_model"] == str(tiny_vlm_dir)
    assert reports[1]["reference_model"] == str(out / "phase_0" / "model")  # reset to the previous phase's policy
    assert reports[1]["pool_size"] == 6 + reports[0]["accepted"]
    phase0_successes = sum(1 for line in open(out / "phase_0" / "outcomes.jsonl") if json.loads(line)["score"] >= 0.5)
    replay = reports[1]["replay"]
    assert replay["kept"] + replay["dropped_easy"] + replay["dropped_unlikely"] == phase0_successes

    summary = json.loads((out / "curriculum.json").read_text())
    assert summary["complete"] and summary["phases"] == reports
    assert summary["final_model"] == str(out / "phase_1" / "model")

    plot = vcoder("plot", str(out))
    assert plot.returncode == 0, plot.stderr
    result = json.loads(plot.stdout)
    assert result["phases"] == [0, 1] and result["pool_size"] == [6, reports[1]["pool_size"]]
    assert open(result["png"], "rb").read(8) == b"\x89PNG\r\n\x1a\n"

    # refused before any work: in this process (a subprocess cost seconds of imports; the kill above needed one)
    other = vcoder(*_cmd(tiny_vlm_dir, out, "band_high=0.6")[3:])
    assert other.returncode == 2
    assert "made by another curriculum config (band_high: 0.75 -> 0.6)" in other.stderr


def test_step_grpo_phase_records_episodes(tiny_vlm_dir, tmp_path):
    """The Step-GRPO backend in process: one phase of episodes on generated interactive tasks. The random tiny
    model never writes a well-formed turn (final reward -1), so every rollout scores 0.0 and every task failed."""
    from vcoder.pipelines.curriculum.config import config_from_mapping
    from vcoder.pipelines.curriculum.run import run_curriculum

    config = config_from_mapping(
        {
            "trainer": "step_grpo",
            "train_recipe": os.path.join(ROOT, "configs", "step_grpo", "tiny_cpu.yaml"),
            "model_name_or_path": str(tiny_vlm_dir),
            "train_overrides": {
                "max_steps": 1,
                "max_turns": 1,
                "per_device_train_batch_size": 2,
                "num_generations": 2,
            },
            "phases": 2,
            "kinds": ["counter", "todo"],
            "initial_pool_size": 2,
            "new_tasks_per_phase": 2,
            "replay_weight": 0.0,
        }
    )
    summary = run_curriculum(config, tmp_path / "run", stop_after=1)
    (report,) = summary["phases"]
    assert not summary["complete"] and report["reference_model"] == str(tiny_vlm_dir)
    assert report["eval"]["n_rollouts"] == 2 and report["eval"]["tasks_seen"] == 1
    assert report["success_rate"] == 0.0 and report["eval"]["mean_score"] == 0.0
    # the untried kind is predicted at the phase's overall rate (0.0): both new tasks are too hard
    assert report["generated"] == 2 and report["accepted"] == 0 and report["rejected"] == {"too_hard": 2}
    outcomes = [json.loads(line) for line in open(tmp_path / "run" / "phase_0" / "outcomes.jsonl")]
    assert len(outcomes) == 2 and all(o["completion"] for o in outcomes)
