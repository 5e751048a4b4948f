"""WebRL's replay: past successes, filtered by the current policy's confidence, mixed into the update as SFT samples.

The buffer keeps every rollout of earlier phases whose score reached the success threshold (newest first, at most
``replay_max_items``): ``{"task", "completion", "score", "phase"}``. At the start of a phase each one is re-scored
by the phase's starting policy (the previous phase's final one): the per-token geometric-mean probability
``exp(mean log p)`` of its completion. WebRL's filter keeps those in ``(0.5, 0.95]``: above 0.95 the policy already
does it (``dropped_easy``, nothing to learn), at or below 0.5 it is too far from what the policy would do now
(``dropped_unlikely``, off-policy enough to hurt).

Form: SFT samples, not prompts with recorded rewards. GRPO learns only from completions it samples itself, so a
replayed prompt with its recorded reward would throw the recorded completion away and re-sample; the thing worth
replaying is the successful completion. Its reward was at or above the threshold, which in WebRL's binary-reward
setting is a positive outcome, and the likelihood term ``replay_weight * NLL(completion | prompt)`` is the
policy-gradient step such a sample gets with a positive advantage and no baseline. So every training step of the
phase adds that term over ``replay_batch_size`` kept samples (cycled) to the GRPO loss (:class:`ReplayLossMixin`).

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


def save_buffer(path: str | Path, items: Sequence[dict[str, Any]]) -> None:
    """Write the buffer (one JSON line per item)."""
    Path(path).write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")


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


class ReplayLossMixin:
    """Adds ``replay_weight * mean NLL`` of replay samples to a GRPO trainer's loss (put it before the trainer class).

    Set ``replay_rows`` (rows ``{"prompt", "image"?}``), ``replay_completions`` and ``replay_weight`` after building;
    an empty list or a weight of 0 leaves the loss untouched. ``replay_nll`` collects the values added.
    """

    replay_rows: list = []
    replay_completions: list = []
    replay_weight: float = 0.0
    replay_batch_size: int = 2

    def set_replay(self, rows: list, completions: list, *, weight: float, batch_size: int) -> None:
        """The kept replay samples and how much of them each step adds."""
        self.replay_rows, self.replay_completions = list(rows), list(completions)
        self.replay_weight, self.replay_batch_size = weight, batch_size
        self.replay_nll: list[float] = []
        self._replay_order = itertools.cycle(range(len(rows))) if rows else None

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        loss = super().compute_loss(
            model, inputs, return_outputs=return_outputs, num_items_in_batch=num_items_in_batch
        )
        order = getattr(self, "_replay_order", None)
        if order is None or self.replay_weight <= 0 or self.replay_batch_size <= 0 or not model.training:
            return loss
        from vcoder.pipelines.curriculum.policy import completion_token_logps

        terms = []
        for _ in range(min(self.replay_batch_size, len(self.replay_rows))):
            i = next(order)
            logps = completion_token_logps(
                model, self.processing_class, self.replay_rows[i], self.replay_completions[i], grad=True
            )
            if logps.numel():
                terms.append(-logps.mean())
        if not terms:
            return loss
        nll = sum(terms) / len(terms)
        self.replay_nll.append(float(nll.detach()))
        return loss + self.replay_weight * nll.to(loss.device)
