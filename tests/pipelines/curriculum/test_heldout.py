"""The curriculum's held-out measurement: a fixed task set apart from every training seed, and success of greedy
completions of the real tiny VLM as the success reward judges them (unjudged counts as a failure)."""

from __future__ import annotations

import pytest
from PIL import Image

from vcoder.data.prompts import make_conversation
from vcoder.pipelines.curriculum.heldout import heldout_success, heldout_tasks
from vcoder.pipelines.curriculum.tasks import initial_pool, new_offline_tasks


def test_heldout_set_is_fixed_and_apart_from_training_tasks():
    kinds = ["screenshot-0", "screenshot-1", "screenshot-2"]
    a, b = heldout_tasks(kinds, 24, seed=900_000), heldout_tasks(kinds, 24, seed=900_000)
    assert a == b and len({t["id"] for t in a}) == 24
    assert [t["kind"] for t in a[:4]] == [*kinds, "screenshot-0"]
    training = {(t["kind"], t["seed"]) for t in initial_pool(kinds, 64, seed=0)}
    for phase in range(60):
        training |= {(t["kind"], t["seed"]) for t in new_offline_tasks(kinds * 8, phase=phase, base_seed=0)}
    assert not training & {(t["kind"], t["seed"]) for t in a}


def test_heldout_success_counts_greedy_completions_at_the_threshold(tiny_vlm_dir):
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from vcoder.pipelines.grpo.heldout import generate_html

    model = AutoModelForImageTextToText.from_pretrained(tiny_vlm_dir, dtype=torch.float32)
    processor = AutoProcessor.from_pretrained(tiny_vlm_dir)
    colours = ["white", "navy", "red", "green"]
    rows = [
        {"prompt": make_conversation(), "image": Image.new("RGB", (64, 48), c), "kind": f"k{i % 2}", "html": c}
        for i, c in enumerate(colours)
    ]
    texts = generate_html(model, processor, rows, max_new_tokens=6)
    seen = []

    def length_reward(completions, html, **_):
        seen.append(list(html))
        # an independent verdict per page: the first page's text is unjudged, the others score by parity
        return [None if i == 0 else float(len(c[0]["content"]) % 2) for i, c in enumerate(completions)]

    result = heldout_success(model, processor, rows, length_reward, threshold=0.5, max_new_tokens=6)
    wins = [i > 0 and len(t) % 2 == 1 for i, t in enumerate(texts)]
    assert seen == [colours]  # the rows' columns reach the reward
    assert result["n"] == 4 and result["unjudged"] == 1
    assert result["success"] == pytest.approx(sum(wins) / 4)
    assert result["per_kind"] == {"k0": sum(wins[0::2]) / 2, "k1": sum(wins[1::2]) / 2}
    again = heldout_success(model, processor, rows, length_reward, threshold=0.5, max_new_tokens=6)
    assert again == result  # greedy: the same policy scores the same
