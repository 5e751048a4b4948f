"""The greedy (self-critical) advantage baseline in a real TRL GRPO step on the tiny offline VLM: the baseline is the
reward of the policy's own greedy completion for each prompt, and the advantages the loss sees are computed from it."""

from __future__ import annotations

import pytest
import torch

from vcoder.pipelines.grpo.greedy_baseline import greedy_advantages


def test_greedy_advantages_by_hand():
    rewards = torch.tensor([1.0, 2.0, 4.0, float("nan")])
    greedy = torch.tensor([2.0, 2.0, 2.0, 2.0])
    # worse than greedy is pushed down, equal stays, better is pushed up; an unscorable sample gives 0
    assert greedy_advantages(rewards, greedy, scale=False).tolist() == [-1.0, 0.0, 2.0, 0.0]
    std = torch.tensor([1.0, 2.0, 4.0]).std().item()  # of the batch's sampled rewards (1.528)
    scaled = greedy_advantages(rewards, greedy, scale=True).tolist()
    assert scaled == pytest.approx([-1.0 / (std + 1e-4), 0.0, 2.0 / (std + 1e-4), 0.0])
    # a baseline that could not be scored gives no signal either
    assert greedy_advantages(torch.tensor([1.0]), torch.tensor([float("nan")]), scale=False).tolist() == [0.0]


def test_recipe_refuses_an_unknown_baseline():
    from vcoder.pipelines.grpo.args import VCoderScriptArguments

    with pytest.raises(ValueError, match="advantage_baseline='mean'; give 'group' or 'greedy'"):
        VCoderScriptArguments(dataset="synthetic", advantage_baseline="mean")


def _length_reward(completions, **_):
    """A deterministic reward of the text alone: its length in hundreds of characters."""
    return [len(c[0]["content"]) / 100 for c in completions]


@pytest.mark.slow
def test_a_grpo_step_uses_the_greedy_completions_reward_as_baseline(tmp_path, tiny_vlm_dir):
    from datasets import Dataset
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor
    from trl import GRPOTrainer

    from tests.trainers import cpu_grpo_config
    from vcoder.pipelines.grpo.greedy_baseline import GreedyBaselineMixin
    from vcoder.pipelines.grpo.heldout import generate_html

    model_dir = str(tiny_vlm_dir)  # the session's tiny Qwen2.5-VL (size tiny), built once
    rows = [
        {
            "prompt": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": f"Write page {i}."}]}],
            "image": Image.new("RGB", (64, 48), colour),
            "html": f"<p>page {i}</p>",
        }
        for i, colour in enumerate(("white", "navy"))
    ]
    # what the untrained policy answers greedily: the baselines of the first (and only) generation batch
    processor = AutoProcessor.from_pretrained(model_dir)
    greedy_texts = generate_html(
        AutoModelForImageTextToText.from_pretrained(model_dir), processor, rows, max_new_tokens=16
    )

    seen = {}

    class Recording(GreedyBaselineMixin, GRPOTrainer):
        def _greedy_rewards(self, inputs):
            seen["greedy_per_func"] = super()._greedy_rewards(inputs)
            seen["html"] = [row["html"] for row in inputs]
            return seen["greedy_per_func"]

        def _generate_and_score_completions(self, inputs):
            output = super()._generate_and_score_completions(inputs)
            seen["sampled_per_func"], seen["advantages"] = self._sampled_rewards, output["advantages"]
            return output

    args = cpu_grpo_config(tmp_path / "run", max_completion_length=16, seed=0)
    trainer = Recording(
        model=model_dir,
        reward_funcs=[_length_reward],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=processor,
    )
    trainer.train()

    by_page = {row["html"]: len(text) / 100 for row, text in zip(rows, greedy_texts)}
    expected_greedy = torch.tensor([by_page[html] for html in seen["html"]])
    assert seen["greedy_per_func"][:, 0].tolist() == pytest.approx(expected_greedy.tolist())
    sampled = seen["sampled_per_func"][:, 0]
    assert seen["advantages"].tolist() == pytest.approx(
        greedy_advantages(sampled, expected_greedy, scale=True).tolist(), abs=1e-5
    )
    # the group baseline would have given each group advantages that sum to 0; this one need not
    logged = next(entry for entry in trainer.state.log_history if "greedy_baseline/reward" in entry)
    assert logged["greedy_baseline/reward"] == pytest.approx(expected_greedy.mean().item(), abs=1e-5)
    beats = (sampled > expected_greedy).float().mean().item()
    assert logged["greedy_baseline/beats_greedy"] == pytest.approx(beats)
