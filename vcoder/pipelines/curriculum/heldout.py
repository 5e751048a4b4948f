"""Is the curriculum learning? Success on a FIXED held-out task set, before and after each phase.

The held-out set is drawn once from the recipe's task kinds and split (``heldout_split``: ``test`` for reported
figures, ``validation`` for pilots and tuning) with its own seed range (``heldout_seed``), one task per content: its
pages are of another split than every training pool's (:func:`vcoder.pipelines.curriculum.tasks.task_split`: split
by the page's heading, block labels and columns, as the one-shot quickstart whose SFT model the CPU curricula start
from), so it never depends on the run's ``--seed``, the phase or what the policy did, and no held-out page's content
is trained on.
Each held-out task gets one greedy completion (deterministic: the same policy scores the same), scored by the
recipe's success reward; success is ``score >= success_threshold``, exactly as for the phase's training rollouts.

A phase reports ``heldout_success_before`` (the policy it starts from: phase 0 measures the start model, phase k > 0
takes phase k-1's ``heldout_success``, the same weights decoded the same way) and ``heldout_success`` (its trained
policy). One-shot GRPO only: the agent's held-out success would need whole episodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from vcoder.pipelines.curriculum.tasks import offline_task, task_content, task_split


def heldout_tasks(kinds: Sequence[str], n: int, *, seed: int, split: str = "test") -> list[dict[str, Any]]:
    """``n`` held-out tasks of ``split`` cycling through ``kinds``: each kind's tasks are the first seeds from
    ``seed`` on whose content is in ``split`` and new; ids prefixed ``heldout-``, ``split`` and ``content_key`` set.

    Raises:
        ValueError: an unknown split, ``train``, or too few contents in the seeds tried.

    Example:
        >>> [t["kind"] for t in heldout_tasks(["screenshot-0", "screenshot-1"], 3, seed=900000)]
        ['screenshot-0', 'screenshot-1', 'screenshot-0']
    """
    from vcoder.data.splits import check_split

    split = check_split(split, where="heldout_split")
    if split == "train":
        raise ValueError("heldout_split='train' would score training content; choose test or validation")
    per_kind: dict[str, list[dict[str, Any]]] = {}
    for kind in dict.fromkeys(kinds):
        need = sum(1 for i in range(n) if kinds[i % len(kinds)] == kind)
        rows, seen, s = [], set(), seed
        while len(rows) < need:
            if s - seed > 400 * need + 1000:
                raise ValueError(f"kind {kind!r} has only {len(rows)} {split} contents in seeds {seed}..{s}")
            key = task_content(kind, s)
            if key not in seen and task_split(kind, s) == split:
                seen.add(key)
                task = offline_task(kind, s)
                rows.append({**task, "id": f"heldout-{task['id']}", "source": "heldout", "split": split})
                rows[-1]["content_key"] = key
            s += 1
        per_kind[kind] = rows
    return [per_kind[kinds[i % len(kinds)]][i // len(kinds)] for i in range(n)]


def heldout_success(
    model, processor, rows: Sequence[dict[str, Any]], reward: Callable, *, threshold: float, max_new_tokens: int
) -> dict[str, Any]:
    """Greedy completions of ``model`` on the held-out rows, scored by the success reward.

    Returns:
        ``{"success", "mean_score", "n", "unjudged", "per_kind"}``; an unjudged completion (reward None) counts as a
        failure in ``success`` (the measurement never drops a task) and is counted in ``unjudged``.
    """
    from vcoder.pipelines.grpo.heldout import generate_html
    from vcoder.rewards import score_completions

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
