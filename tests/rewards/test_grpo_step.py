"""A real TRL GRPOTrainer step on the tiny offline VLM with vcoder's full reward set."""

from __future__ import annotations

import asyncio
import json
import math

import pytest

from tests.rewards.pages import make_page, to_html

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAMES = ["format", "validity", "dom", "ssim", "clip", "block", "text", "position", "color", "visual"]


def test_grpo_step_with_every_reward(tmp_path, tiny_vlm_dir):
    from datasets import Dataset
    from transformers import AutoProcessor
    from trl import GRPOTrainer

    from tests.trainers import cpu_grpo_config
    from vcoder.rendering import get_default_pool
    from vcoder.rewards import build_rewards

    model_dir = tiny_vlm_dir  # the session's tiny Qwen2.5-VL (size tiny), built once
    pages = [to_html(make_page(s, n_blocks=3)) for s in range(4)]
    shots = [r.pil().resize((128, 96)) for r in get_default_pool().render_many(pages)]
    prompts = [
        [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": f"Write the HTML of page {i}."}]}]
        for i in range(4)
    ]
    data = Dataset.from_dict({"prompt": prompts, "image": shots, "html": pages})

    args = cpu_grpo_config(tmp_path / "run", per_device_train_batch_size=4, max_completion_length=24)
    funcs = build_rewards(NAMES, clip_tiny=True, render_timeout_ms=10000)
    trainer = GRPOTrainer(
        model=str(model_dir),
        reward_funcs=funcs,
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

    # the values TRL logged are the rewards of the completions it generated: score the same completions again
    # (TRL 1.16 keeps the step's prompts and completions in trainer._logs for its completions table)
    step = next(entry for entry in logs if "rewards/format_reward/mean" in entry)
    completions = list(trainer._logs["completion"])
    rows = [int(p[0]["content"][1]["text"].split()[-1].rstrip(".")) for p in trainer._logs["prompt"]]
    assert len(completions) == 4 and len(set(rows)) == 1  # one page, four completions of it
    columns = {"html": [pages[i] for i in rows], "image": [shots[i] for i in rows]}
    nonzero = set()
    for name, func in zip(NAMES, funcs):
        again = func(prompts=[prompts[i] for i in rows], completions=completions, **columns)
        if hasattr(again, "__await__"):
            again = asyncio.run(again)
        judged = [v for v in again if v is not None]
        assert judged, name
        assert step[f"rewards/{name}_reward/mean"] == pytest.approx(sum(judged) / len(judged), abs=1e-4), name
        expected = [math.nan if v is None else v for v in again]
        assert list(trainer._logs["rewards"][f"{name}_reward"]) == pytest.approx(expected, abs=1e-4, nan_ok=True), name
        nonzero |= {name} if any(judged) else set()
    # the random model's tokens: the format and validity rewards give partial credit, the rendering rewards 0.0
    assert {"format", "validity"} <= nonzero, nonzero
