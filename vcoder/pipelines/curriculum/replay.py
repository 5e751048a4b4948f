"""WebRL's replay: past successes, filtered by the current policy's confidence, trained on again in the phase.

The buffer keeps every rollout of earlier phases whose score reached the success threshold (newest first, at most
``replay_max_items``): ``{"task", "completion", "score", "baseline", "phase"}`` (Step-GRPO: and ``"trajectory"``).
At the start of a phase each one is re-scored by the phase's starting policy (the previous phase's final one): the
per-token geometric-mean probability ``exp(mean log p)`` of its completion (a Step-GRPO trajectory: of the model's
tokens, feedback excluded). WebRL's filter keeps those in ``(0.5, 0.95]``: above 0.95 the policy already does it
(``dropped_easy``, nothing to learn), at or below 0.5 it is too far from what the policy would do now
(``dropped_unlikely``, off-policy enough to hurt).

Two forms (``replay_mode``), both added on every training step over ``replay_batch_size`` kept samples (cycled),
weighted by ``replay_weight`` (:class:`ReplayLossMixin`):

- ``rl`` (WebRL's ``process_data.py`` stage 2: the kept trajectories join the phase's RL data with their recorded
  rewards): each kept sample is an RL sample of the phase's own objective, its advantage taken from what was
  recorded, not re-sampled. Under ``algorithm: grpo`` the recorded GRPO advantage ``score - baseline`` (its score
  minus the mean score of its task's group when it was sampled) weights ``-mean log p`` of its tokens (the
  policy-gradient step GRPO gave it then, ratio 1: the window above bounds how off-policy it is). Under
  ``algorithm: webrl`` the recorded outcome (a success, ``R = 1``) gives WebRL's one-step advantage
  ``binarise(clamp(2R - 0.05))`` = 1, and the sample takes WebRL's actor loss (adaptive beta, log-ratio to the
  reference = the previous phase's policy) like the phase's own rollouts
  (:meth:`~vcoder.pipelines.curriculum.webrl_trainer.WebRLTrainer.replay_actor_loss`).
  Under ``trainer: step_grpo`` a kept item is a recorded multi-turn trajectory
  (:class:`~vcoder.pipelines.step_grpo.recorded.RecordedTrajectory`: its token ids as trained on, the turn of each
  token, its step rewards and Step-GRPO advantages): the term is
  ``-(1/|M|) sum_{t in M} A_turn(t) log p_t`` over the model's tokens M (feedback tokens masked, as ``env_mask``
  masks them), A being the advantage its step was trained with
  (:func:`~vcoder.pipelines.step_grpo.recorded.replay_policy_loss`), log p from the trainer's own forward pass.
- ``sft``: the likelihood term ``replay_weight * NLL(completion | prompt)`` (the policy-gradient step of a positive
  sample with advantage 1 and no baseline; a Step-GRPO trajectory's NLL is over the model's tokens).

GRPO's own batches stay on-policy: a replayed completion is not put into a sampled group, whose rewards the
trainer computes from its own samples.

Example:
    >>> replay_filter([0.97, 0.95, 0.7, 0.5, 0.2, None], low=0.5, high=0.95)
    ([1, 2], {'kept': 2, 'dropped_easy': 1, 'dropped_unlikely': 3})
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def replay_filter(
    probs: Sequence[float | None], *, low: float = 0.5, high: float = 0.95
) -> tuple[list[int], dict[str, int]]:
    """Indices kept by WebRL's window ``(low, high]`` and the counts (None, a completion with no tokens, counts as
    unlikely)."""
    kept, easy, unlikely = [], 0, 0
    for i, p in enumerate(probs):
        if p is None or p <= low:
            unlikely += 1
        elif p > high:
            easy += 1
        else:
            kept.append(i)
    return kept, {"kept": len(kept), "dropped_easy": easy, "dropped_unlikely": unlikely}


def load_buffer(path: str | Path) -> list[dict[str, Any]]:
    """The replay buffer's items (an empty list when the file does not exist)."""
    path = Path(path)
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def grow_buffer(
    items: Sequence[dict[str, Any]], successes: Sequence[dict[str, Any]], *, max_items: int
) -> list[dict[str, Any]]:
    """The buffer with this phase's successes added first (the newest are kept when it overflows); the same
    (task, completion) is kept once."""
    seen, out = set(), []
    for item in [*successes, *items]:
        key = (item["task"]["id"], item["completion"])
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out[:max_items]


def recorded_trajectory(item: dict[str, Any]):
    """A buffer item's recorded Step-GRPO trajectory (None when it has none: a one-shot item, or one written before
    trajectories were recorded)."""
    from vcoder.pipelines.step_grpo.recorded import RecordedTrajectory

    data = item.get("trajectory")
    return RecordedTrajectory.from_dict(data) if data else None


def trajectory_probs(trainer, trajectories: Sequence[Any]) -> list[float | None]:
    """Per-token geometric-mean probability ``exp(mean log p)`` of each recorded Step-GRPO trajectory's model tokens
    under the trainer's policy (feedback tokens excluded; None for a missing trajectory or one without model
    tokens)."""
    import math

    import torch

    model = trainer.model
    was_training = model.training
    model.eval()
    try:
        out = []
        for recorded in trajectories:
            mask = recorded.model_mask() if recorded is not None else []
            if not any(mask):
                out.append(None)
                continue
            with torch.no_grad():
                logps = trainer.recorded_logps(model, recorded).float()
            mine = logps[torch.tensor(mask, dtype=torch.bool, device=logps.device)]
            out.append(math.exp(float(mine.mean())))
        return out
    finally:
        model.train(was_training)


class ReplayLossMixin:
    """Adds the replay term to a GRPO trainer's loss (put it before the trainer class in the bases).

    Call :meth:`set_replay` after building; an empty list or a weight of 0 leaves the loss untouched.
    ``replay_nll`` collects the replayed samples' mean NLL per step (both modes), ``replay_used`` the indices of the
    samples that entered a loss.
    """

    replay_rows: list = []
    replay_completions: list = []
    replay_advantages: list = []
    replay_weight: float = 0.0
    replay_batch_size: int = 2
    replay_mode: str = "sft"
    replay_trajectories: list = []

    def set_replay(
        self,
        rows: list,
        completions: list,
        *,
        weight: float,
        batch_size: int,
        mode: str = "sft",
        advantages: list | None = None,
        trajectories: list | None = None,
    ) -> None:
        """The kept replay samples and how much of them each step adds.

        Args:
            rows: training rows of the samples' tasks.
            completions: the recorded completions.
            weight: weight of the replay term (0: off).
            batch_size: samples per training step.
            mode: ``rl`` or ``sft`` (module docstring).
            advantages: ``rl`` under GRPO: each sample's recorded advantage (``score - baseline``).
            trajectories: Step-GRPO: each sample's ``RecordedTrajectory`` (its tokens and per-step advantages are
                what is replayed; ``completions`` then only name the samples).
        """
        if mode not in ("rl", "sft"):
            raise ValueError(f"replay mode={mode!r}: choose rl or sft")
        self.replay_rows, self.replay_completions = list(rows), list(completions)
        self.replay_advantages = list(advantages) if advantages is not None else [1.0] * len(rows)
        if len(self.replay_advantages) != len(self.replay_rows):
            raise ValueError(f"{len(self.replay_advantages)} advantages for {len(self.replay_rows)} replay samples")
        self.replay_trajectories = list(trajectories) if trajectories is not None else []
        if self.replay_trajectories and len(self.replay_trajectories) != len(self.replay_rows):
            raise ValueError(
                f"{len(self.replay_trajectories)} trajectories for {len(self.replay_rows)} replay samples"
            )
        self.replay_weight, self.replay_batch_size, self.replay_mode = weight, batch_size, mode
        self.replay_nll: list[float] = []
        self.replay_used: set[int] = set()
        self._replay_order = itertools.cycle(range(len(rows))) if rows else None

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        loss = super().compute_loss(
            model, inputs, return_outputs=return_outputs, num_items_in_batch=num_items_in_batch
        )
        order = getattr(self, "_replay_order", None)
        if order is None or self.replay_weight <= 0 or self.replay_batch_size <= 0 or not model.training:
            return loss
        from vcoder.pipelines.curriculum.policy import completion_token_logps

        picked = [next(order) for _ in range(min(self.replay_batch_size, len(self.replay_rows)))]
        if self.replay_trajectories:  # Step-GRPO: recorded multi-turn trajectories
            return loss + self.replay_weight * self._trajectory_term(model, picked).to(loss.device)
        logps = {
            i: completion_token_logps(
                model, self.processing_class, self.replay_rows[i], self.replay_completions[i], grad=True
            )
            for i in picked
        }
        picked = [i for i in picked if logps[i].numel()]
        if not picked:
            return loss
        self.replay_nll.append(float(sum(-logps[i].detach().mean() for i in picked) / len(picked)))
        self.replay_used.update(picked)
        if self.replay_mode == "sft":
            term = sum(-logps[i].mean() for i in picked) / len(picked)
        elif getattr(self, "webrl_success_index", None) is not None:  # a WebRLTrainer: WebRL's actor loss
            rows = [self.replay_rows[i] for i in picked]
            term = self.replay_actor_loss(
                rows, [self.replay_completions[i] for i in picked], [logps[i] for i in picked]
            )
        else:  # GRPO: the recorded advantage on the recorded completion
            term = sum(-self.replay_advantages[i] * logps[i].mean() for i in picked) / len(picked)
        return loss + self.replay_weight * term.to(loss.device)

    def _trajectory_term(self, model, picked: list[int]):
        """The replay term of recorded Step-GRPO trajectories (mean over ``picked``; module docstring)."""
        import torch

        from vcoder.pipelines.step_grpo.recorded import replay_policy_loss

        terms, nll = [], []
        for i in picked:
            recorded = self.replay_trajectories[i]
            mask = recorded.model_mask()
            if not any(mask):
                continue
            logps = self.recorded_logps(model, recorded)
            mask = torch.tensor(mask, dtype=logps.dtype, device=logps.device)
            nll.append(float(-(mask * logps.detach()).sum() / mask.sum()))
            if self.replay_mode == "sft":
                terms.append(replay_policy_loss(logps, torch.ones_like(logps), mask))
            else:
                advantages = torch.tensor(recorded.token_advantages(), dtype=logps.dtype, device=logps.device)
                terms.append(replay_policy_loss(logps, advantages, mask))
            self.replay_used.add(i)
        if not terms:
            return torch.zeros(())
        self.replay_nll.append(sum(nll) / len(nll))
        return sum(terms) / len(terms)
