"""VisionCoder's README commands, run as it spells them on the CPU: its training line (model, data and sizes aside:
the session's tiny VLM, a WebSight-shaped local parquet, a tiny CLIP, 4 pages, 2 steps) through
``vcoder/pipelines/training.py``, then its two ``experiments/plot_run.py`` lines, and the plot files they make."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.data.parquet import write_parquet
from tests.pipelines.runs import ROOT, read_state, run_env

TRAINING = os.path.join(ROOT, "vcoder", "pipelines", "training.py")
PLOT_RUN = os.path.join(ROOT, "experiments", "plot_run.py")
PNG = b"\x89PNG\r\n\x1a\n"


def _seed_line(model: str) -> list[str]:
    """The README's line after `accelerate launch --config_file configs/accelerate_4gpu.yaml` (4 GPUs: a size)."""
    return [
        TRAINING,
        *("--model_id", model),
        *("--output_dir", "outputs/vcoder-grpo-clip"),
        *("--max_samples", "4"),
        *("--num_train_epochs", "1"),
        *("--batch_size", "4"),
        *("--num_generations", "4"),
        *("--max_completion_length", "32"),
    ]


@pytest.mark.slow
@pytest.mark.browser
def test_the_seed_training_and_plot_commands_run_as_written(tiny_vlm_dir, tmp_path):
    write_parquet(tmp_path / "websight.parquet", 4)
    # an older run under outputs/: `plot_run.py` with no arguments must pick the newest one
    old = tmp_path / "outputs" / "older-run"
    old.mkdir(parents=True)
    (old / "trainer_state.json").write_text(json.dumps({"global_step": 1, "log_history": [{"step": 1, "loss": 1.0}]}))
    os.utime(old / "trainer_state.json", (1, 1))

    # the machine's data and CLIP (no hub here), and a checkpoint a step for --checkpoint N; the rest is the seed's
    local = ["--dataset_source", "websight.parquet", "--clip_tiny", "true", "--save_steps", "1"]
    cmd = [sys.executable, *_seed_line(str(tiny_vlm_dir)), *local]
    proc = subprocess.run(cmd, cwd=tmp_path, env=run_env(), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    mapping = [line for line in proc.stderr.splitlines() if "VisionCoder command line" in line]
    assert len(mapping) == 1, proc.stderr[-3000:]
    for said in (
        "configs/grpo/visioncoder_qwen3_vl_2b.yaml",
        "--model_id -> --model_name_or_path",
        "--batch_size -> --per_device_train_batch_size",
        "no CUDA device: added --use_cpu true",
    ):
        assert said in mapping[0]

    run = tmp_path / "outputs" / "vcoder-grpo-clip"
    state = read_state(run / "trainer_state.json")
    # 4 completions a device x 2 accumulation steps = 8 completions = 2 pages of 4 a step: 4 pages, one epoch
    assert state["global_step"] == 2
    row = state["log_history"][0]
    means = {name: row[f"rewards/{name}_reward/mean"] for name in ("format", "validity", "dom", "clip")}
    assert all(value is not None and 0.0 <= value <= 1.0 for value in means.values()), means
    # the seed's mix: CLIP counts three times in the total reward
    total = means["format"] + means["validity"] + means["dom"] + 3.0 * means["clip"]
    assert row["reward"] == pytest.approx(total, rel=1e-3, abs=1e-6)

    plot = subprocess.run([sys.executable, PLOT_RUN], cwd=tmp_path, env=run_env(), capture_output=True, text=True)
    assert plot.returncode == 0, plot.stderr[-3000:]
    latest = json.loads(plot.stdout)
    assert latest["html"] == os.path.join("outputs", "vcoder-grpo-clip", "plots", "report.html")
    names = {os.path.basename(p) for p in latest["pngs"]}
    assert {"reward.png", "reward_clip_reward.png", "reward_dom_reward.png", "completion_length.png"} <= names
    for path in latest["pngs"]:
        assert (tmp_path / path).read_bytes()[:8] == PNG
    assert not (old / "plots").exists()

    chosen = subprocess.run(
        [sys.executable, PLOT_RUN, "--run_dir", "outputs/vcoder-grpo-clip", "--checkpoint", "1"],
        cwd=tmp_path,
        env=run_env(),
        capture_output=True,
        text=True,
    )
    assert chosen.returncode == 0, chosen.stderr[-3000:]
    assert json.loads(chosen.stdout)["states"] == [
        os.path.join("outputs/vcoder-grpo-clip/checkpoint-1", "trainer_state.json")
    ]
    assert (run / "plots" / "reward.png").read_bytes()[:8] == PNG
