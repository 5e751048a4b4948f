"""Is the curriculum learning? Success on a FIXED held-out task set, before and after each phase.

The held-out set is drawn once from the recipe's task kinds with its own seed range (``heldout_seed``, far from the
training pools' seeds: the initial pool uses ``task_seed + i``, phase ``p`` adds ``task_seed + 10_000 (p + 1) + i``),
so it never depends on the run's ``--seed``, the phase or what the policy did, and no held-out task is trained on.
Each held-out task gets one greedy completion (deterministic: the same policy scores the same), scored by the
recipe's success reward; success is ``score >= success_threshold``, exactly as for the phase's training rollouts.

A phase reports ``heldout_success_before`` (the policy it starts from: phase 0 measures the start model, phase k > 0
takes phase k-1's ``heldout_success``, the same weights decoded the same way) and ``heldout_success`` (its trained
policy). One-shot GRPO only: the agent's held-out success would need whole episodes.
"""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any

from vcoder.pipelines.curriculum.tasks import offline_task


def heldout_tasks(kinds: Sequence[str], n: int, *, seed: int) -> list[dict[str, Any]]:
    """``n`` held-out tasks cycling through ``kinds`` (task ``i``: seed ``seed + i // len(kinds)``), ids prefixed
    ``heldout-``.

    Example:
        >>> [t["id"] for t in heldout_tasks(["screenshot-0", "screenshot-1"], 3, seed=900000)]
        ['heldout-screenshot-0-900000', 'heldout-screenshot-1-900000', 'heldout-screenshot-0-900001']
    """
    tasks = []
    for i in range(n):
        task = offline_task(kinds[i % len(kinds)], seed + i // len(kinds))
        tasks.append({**task, "id": f"heldout-{task['id']}", "source": "heldout"})
    return tasks


def score_completions(reward: Callable, rows: Sequence[dict[str, Any]], texts: Sequence[str]) -> list[float | None]:
    """The reward of each text as TRL calls it (conversational completions, the rows' columns as keywords)."""
    completions = [[{"role": "assistant", "content": text}] for text in texts]
    columns = {key: [row.get(key) for row in rows] for key in rows[0] if key != "prompt"} if rows else {}
    values = reward(prompts=[row["prompt"] for row in rows], completions=completions, **columns)
    if inspect.isawaitable(values):  # vcoder's rendering rewards are async
        values = asyncio.run(values)
    return [None if v is None or math.isnan(float(v)) else float(v) for v in values]


def heldout_success(
    model, processor, rows: Sequence[dict[str, Any]], reward: Callable, *, threshold: float, max_new_tokens: int
) -> dict[str, Any]:
    """Greedy completions of ``model`` on the held-out rows, scored by the success reward.

    Returns:
        ``{"success", "mean_score", "n", "unjudged", "per_kind"}``; an unjudged completion (reward None) counts as a
        failure in ``success`` (the measurement never drops a task) and is counted in ``unjudged``.
    """
    from vcoder.pipelines.grpo.heldout import generate_html

    rows = list(rows)
    texts = generate_html(model, processor, rows, max_new_tokens=max_new_tokens)
    scores = score_completions(reward, rows, texts)
    wins = [s is not None and s >= threshold for s in scores]
    per_kind: dict[str, list[bool]] = {}
    for row, win in zip(rows, wins):
        per_kind.setdefault(row["kind"], []).append(win)
    judged = [s for s in scores if s is not None]
    return {
        "success": sum(wins) / len(rows),
        "mean_score": sum(judged) / len(judged) if judged else None,
        "n": len(rows),
        "unjudged": len(rows) - len(judged),
        "per_kind": {kind: sum(v) / len(v) for kind, v in sorted(per_kind.items())},
    }
