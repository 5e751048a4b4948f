"""A greedy baseline for GRPO's advantages (self-critical sequence training, Rennie et al., 2017).

GRPO's advantage of a sampled completion is its reward minus the mean reward of its group. When the policy is
peaked (an SFT warm start), most samples are worse than the greedy answer, so a sample that is merely less bad
than its siblings is pushed up even though the answer the model gives when decoded greedily (how Design2Code and
vcoder's held-out scoring decode) is better. Measured in the quickstart (seed 2): the sampled reward rose while the
greedy reward on the training pages fell, and the held-out score with it.

With ``advantage_baseline: greedy`` each prompt's baseline is the reward of the policy's own greedy completion,
generated and scored with the same reward functions each time a batch is generated: advantage = (reward − greedy
reward) / (standard deviation of the batch's rewards, unless ``scale_rewards: none``). A sample better than greedy
is pushed up, one worse is pushed down, so the greedy answer moves only towards samples that beat it. The cost is
one greedy generation (transformers ``generate`` on the training model, also when vLLM samples) and one scoring
per prompt per generation batch (the sampled completions are G per prompt).

Measured in the quickstart (2M parameters, 40 steps, held-out Design2Code overall, GRPO minus SFT, seeds 0-4): the
greedy baseline +0.021, +0.062, -0.008, -0.256, -0.077; TRL's group baseline +0.156, -0.012, -0.101, -0.017, +0.045.
It is an option to measure at scale, not the default.
"""

from __future__ import annotations

import math
from typing import Any

import torch


def greedy_advantages(rewards, greedy, *, scale: bool):
    """``(rewards − greedy) / (std(rewards) + 1e-4)``; NaN (an unscorable completion or baseline) gives 0.

    Example:
        >>> import torch
        >>> greedy_advantages(torch.tensor([1.0, 3.0]), torch.tensor([2.0, 2.0]), scale=False).tolist()
        [-1.0, 1.0]
        >>> greedy_advantages(torch.tensor([1.0, float("nan")]), torch.tensor([0.5, 0.5]), scale=False).tolist()
        [0.5, 0.0]
    """
    advantages = rewards - greedy
    if scale:
        finite = rewards[~torch.isnan(rewards)]
        std = finite.std() if finite.numel() > 1 else torch.tensor(0.0, device=rewards.device)
        advantages = advantages / (std + 1e-4)
    return torch.nan_to_num(advantages, nan=0.0)


def _key(row: dict[str, Any]) -> str:
    """Rows of one prompt (TRL repeats a row once per generation) share this key."""
    return repr((row.get("html"), row.get("prompt")))


class GreedyBaselineMixin:
    """Mixed in before ``trl.GRPOTrainer``: training batches get greedy-baseline advantages (see the module)."""

    _scoring_greedy = False
    _sampled_rewards = None

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        if not self._scoring_greedy:
            self._sampled_rewards = rewards_per_func
        return rewards_per_func

    def _generate_and_score_completions(self, inputs):
        output = super()._generate_and_score_completions(inputs)
        if not self.model.training:
            return output
        weights = self.reward_weights.to(self._sampled_rewards.device).unsqueeze(0)
        rewards = self._weighted(self._sampled_rewards, weights)
        greedy = self._weighted(self._greedy_rewards(inputs), weights)
        n = len(inputs)
        local = slice(self.accelerator.process_index * n, (self.accelerator.process_index + 1) * n)
        advantages = greedy_advantages(rewards, greedy, scale=self.scale_rewards != "none")
        output["advantages"] = advantages[local].to(output["advantages"].dtype)
        judged = ~(torch.isnan(rewards) | torch.isnan(greedy))
        metrics = self._metrics["train"]
        if judged.any():
            metrics["greedy_baseline/reward"].append(float(greedy[judged].mean()))
            metrics["greedy_baseline/beats_greedy"].append(float((rewards[judged] > greedy[judged]).float().mean()))
        return output

    @staticmethod
    def _weighted(rewards_per_func, weights):
        unscorable = torch.isnan(rewards_per_func).all(dim=1)
        rewards = (rewards_per_func * weights).nansum(dim=1)
        rewards[unscorable] = math.nan
        return rewards

    def _greedy_rewards(self, inputs: list[dict[str, Any]]):
        """Rewards (one row per completion slot of ``inputs``, gathered like the sampled ones) of the policy's greedy
        completion for each slot's prompt: one generation per distinct prompt."""
        from trl.models import unwrap_model_for_generation

        from vcoder.pipelines.grpo.heldout import generate_html

        distinct: dict[str, dict[str, Any]] = {}
        for row in inputs:
            distinct.setdefault(_key(row), row)
        rows = list(distinct.values())
        with unwrap_model_for_generation(self.model_wrapped, self.accelerator) as model:
            texts = generate_html(
                model, self.processing_class, rows, max_new_tokens=self.max_completion_length, batch_size=len(rows)
            )
        text_of = dict(zip(distinct, texts))
        completions = [[{"role": "assistant", "content": text_of[_key(row)]}] for row in inputs]
        self._scoring_greedy = True
        try:
            return self._calculate_rewards(inputs, [row["prompt"] for row in inputs], completions, [[]] * len(inputs))
        finally:
            self._scoring_greedy = False
