"""``orm_reward`` inside a real TRL GRPOTrainer step on the tiny offline VLM (the ORM judging rendered sites)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.timeout(900)
def test_grpo_step_with_the_orm_reward(tmp_path, tiny_vlm_dir, untrained_orm):
    from datasets import Dataset
    from PIL import Image
    from transformers import AutoProcessor
    from trl import GRPOTrainer

    from tests.trainers import cpu_grpo_config
    from vcoder.data.site_kinds.pages import generate
    from vcoder.rewards import build_reward

    rows = list(generate(2, seed=3))
    # the tiny policy's tokenizer is HTML: about 5 in 8 of its random completions hold a tag, so of 8 completions
    # some reach the ORM (asserted below through the vcoder/orm_judged metric)
    prompt = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Write the page."}]}]
    data = Dataset.from_dict(
        {
            "prompt": [prompt] * 2,
            "image": [Image.new("RGB", (96, 64), "white")] * 2,
            "instruction": [r["instruction"] for r in rows],
            "test_cases": [r["test_cases"] for r in rows],
        }
    )
    args = cpu_grpo_config(tmp_path / "run")
    trainer = GRPOTrainer(
        model=str(tiny_vlm_dir),
        # by its registered name, as a recipe's reward_funcs: [orm] with orm_model: ... would build it
        reward_funcs=[build_reward("orm", orm_model=str(untrained_orm), orm_binary=True, render_timeout_ms=10000)],
        args=args,
        train_dataset=data,
        processing_class=AutoProcessor.from_pretrained(tiny_vlm_dir),
    )
    trainer.train()

    logs = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    assert "rewards/orm_reward/mean" in logs, sorted(logs)
    assert 0.0 <= logs["rewards/orm_reward/mean"] <= 1.0
    assert logs.get("vcoder/orm_judged", 0) >= 1, "no completion held HTML: the ORM never ran inside the step"
