"""A real TRL GRPOTrainer step on the tiny offline VLM with vcoder's full reward set."""

from __future__ import annotations

import json

import pytest

from tests.rewards.pages import make_page, to_html

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAMES = ["format", "validity", "dom", "ssim", "clip", "block", "text", "position", "color", "visual"]


def test_grpo_step_with_every_reward(tmp_path):
    from datasets import Dataset
    from transformers import AutoProcessor
    from trl import GRPOConfig, GRPOTrainer

    from vcoder.models.tiny import build_tiny_vlm
    from vcoder.rendering import get_default_pool
    from vcoder.rewards import build_rewards

    model_dir = build_tiny_vlm(tmp_path / "tiny", arch="qwen2_5_vl", size="tiny")
    pages = [to_html(make_page(s, n_blocks=3)) for s in range(4)]
    shots = [r.pil().resize((128, 96)) for r in get_default_pool().render_many(pages)]
    prompt = [
        {
            "role": "user",
            "content": [{"type": "image"}, {"type": "text", "text": "Write the HTML of this page."}],
        }
    ]
    data = Dataset.from_dict({"prompt": [prompt] * 4, "image": shots, "html": pages})

    args = GRPOConfig(
        output_dir=str(tmp_path / "run"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=24,
        max_steps=1,
        logging_steps=1,
        learning_rate=1e-5,
        bf16=False,
        use_cpu=True,
        report_to=[],
        save_strategy="no",
        gradient_checkpointing=False,
    )
    trainer = GRPOTrainer(
        model=str(model_dir),
        reward_funcs=build_rewards(NAMES, clip_tiny=True, render_timeout_ms=10000),
        args=args,
        train_dataset=data,
        processing_class=AutoProcessor.from_pretrained(model_dir),
    )
    trainer.train()

    logs = trainer.state.log_history
    keys = {k for entry in logs for k in entry}
    for name in NAMES:
        assert f"rewards/{name}_reward/mean" in keys, sorted(keys)
    assert "vcoder/renders" in keys, "render counters reach TRL's logs through log_metric"
    (tmp_path / "log.json").write_text(json.dumps(logs))
