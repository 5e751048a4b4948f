"""``algorithm: webrl`` in a real two-phase curriculum (tiny VLM, real Chromium, real TRL steps): the phases train
with WebRLTrainer, save and continue the critic, reset the reference to the previous phase's policy, and the critic
predicts the new tasks' success (its values are what the accepted tasks carry)."""

from __future__ import annotations

import json
import math
import os

import pytest

from tests.pipelines.runs import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def test_webrl_phases_train_save_the_critic_and_predict_with_it(tiny_vlm_dir, tmp_path):
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from vcoder.pipelines.curriculum.config import config_from_mapping, parse_train_recipe
    from vcoder.pipelines.curriculum.modes import task_rows
    from vcoder.pipelines.curriculum.policy import prompt_inputs
    from vcoder.pipelines.curriculum.run import run_curriculum
    from vcoder.pipelines.curriculum.webrl_trainer import WebRLCritic, observation_features
    from vcoder.rendering import BrowserPool

    config = config_from_mapping(
        {
            "trainer": "grpo",
            "algorithm": "webrl",
            "train_recipe": os.path.join(ROOT, "configs", "tiny_cpu_grpo.yaml"),
            "model_name_or_path": str(tiny_vlm_dir),
            "train_overrides": {
                "max_steps": 1,
                "per_device_train_batch_size": 4,
                "num_generations": 4,
                "max_completion_length": 16,
                "reward_funcs": ["validity", "block"],
                "reward_weights": [1.0, 1.0],
                "logging_steps": 1,
            },
            "phases": 2,
            "kinds": ["screenshot-0"],
            "initial_pool_size": 2,
            "new_tasks_per_phase": 2,
            "success_reward": "validity",
            "predictor": "critic",
            "band_low": 0.0,
            "band_high": 1.0,  # every prediction is in the band: the accepted tasks carry all of them
            "replay_weight": 0.0,
        }
    )
    run = tmp_path / "run"
    summary = run_curriculum(config, run)
    reports = summary["phases"]
    assert [r["algorithm"] for r in reports] == ["webrl", "webrl"]
    assert reports[0]["reference_model"] == str(tiny_vlm_dir)
    assert reports[1]["reference_model"] == str(run / "phase_0" / "model")
    for k in (0, 1):
        details = json.loads((run / f"phase_{k}" / "details.json").read_text())
        webrl = details["webrl"]
        assert len(webrl["actor_loss"]) == 1 and math.isfinite(webrl["actor_loss"][0])
        assert math.isfinite(webrl["critic_loss"][0])
        assert (run / f"phase_{k}" / "critic.pt").exists()

    # phase 0's accepted tasks carry the critic's value of their prompt under phase 0's reference (its start model)
    details = json.loads((run / "phase_0" / "details.json").read_text())
    accepted = json.loads((run / "phase_0" / "next_pool.jsonl").read_text().splitlines()[-1])
    assert reports[0]["accepted"] == 2 and accepted["predicted_success"] == details["accepted_predictions"][-1]
    critic = WebRLCritic.load(run / "phase_0" / "critic.pt")
    reference = AutoModelForImageTextToText.from_pretrained(tiny_vlm_dir, dtype=torch.float32).eval()
    processor = AutoProcessor.from_pretrained(tiny_vlm_dir)
    script_args = parse_train_recipe(config, model=str(tiny_vlm_dir), output_dir=str(tmp_path / "x"))[0]
    with BrowserPool(max_pages=2) as pool:
        (row,) = task_rows([accepted], trainer="grpo", script_args=script_args, pool=pool)
    value = float(critic.values(observation_features(reference, **prompt_inputs(processor, row)))[0])
    assert accepted["predicted_success"] == pytest.approx(value, abs=1e-4)
    assert 0.0 <= value <= 1.0
