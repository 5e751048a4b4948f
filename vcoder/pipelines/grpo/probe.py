"""A reward probe: a run's own reward mix on greedy completions for a fixed set of pages, before and after training.

The mean reward GRPO logs is of SAMPLED completions on whatever pages a step drew, so on varied pages a run's first
and last logged rewards differ by the pages as much as by the policy (measured in the quickstart: +-0.4 of 5 from
step to step). The probe holds everything but the model fixed: the same pages, greedy decoding (one deterministic
answer per page, as the held-out evaluation decodes) and the run's reward functions and weights.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["reward_probe"]


def _name(func: Callable) -> str:
    return getattr(func, "__name__", type(func).__name__)


def reward_probe(
    model_dir: str,
    rows: Sequence[dict[str, Any]],
    *,
    reward_funcs: Sequence[Callable],
    reward_weights: Sequence[float] | None = None,
    max_new_tokens: int = 48,
) -> dict[str, Any]:
    """Score a saved model's greedy completions on ``rows`` with a list of TRL reward functions.

    Args:
        model_dir: a saved image-text-to-text model and its processor.
        rows: dataset rows with ``prompt`` and ``image`` plus whatever columns the rewards read (e.g. ``html``).
        reward_funcs: reward callables as TRL calls them (``prompts``, ``completions``, row columns), sync or
            async; call from outside a running event loop.
        reward_weights: one weight per reward (default: all 1.0), as GRPOConfig's ``reward_weights``.
        max_new_tokens: generation budget per page.

    Returns:
        ``{"reward": weighted sum averaged over pages, "components": {reward name: mean}, "pages": n}``. A reward
        that could not judge a page (None) counts 0 in that page's weighted sum, as TRL's nansum does, and is left
        out of its component mean.
    """
    from vcoder.models.loading import load_policy
    from vcoder.pipelines.grpo.heldout import generate_html
    from vcoder.rewards import score_completions

    rows = list(rows)
    if not rows:
        raise ValueError("reward_probe got no rows; pass the pages to score (e.g. the first 16 training rows)")
    weights = [1.0] * len(reward_funcs) if reward_weights is None else list(reward_weights)
    if len(weights) != len(reward_funcs):
        raise ValueError(f"{len(weights)} reward_weights for {len(reward_funcs)} reward_funcs; give one per reward")
    model, processor = load_policy(model_dir)
    texts = generate_html(model, processor, rows, max_new_tokens=max_new_tokens)
    totals = [0.0] * len(rows)
    components: dict[str, float | None] = {}
    for func, weight in zip(reward_funcs, weights):
        values = score_completions(func, rows, texts)
        judged = [v for v in values if v is not None]
        components[_name(func)] = sum(judged) / len(judged) if judged else None
        for i, value in enumerate(values):
            if value is not None:
                totals[i] += weight * value
    return {"reward": sum(totals) / len(rows), "components": components, "pages": len(rows)}
