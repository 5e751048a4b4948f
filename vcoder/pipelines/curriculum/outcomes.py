"""A phase's outcomes: every rollout's score recorded as training samples it, then success per task, kind and phase.

WebRL judges the rollouts of a phase and feeds its failures to the task writer; here the rollouts are the
trainer's own: :class:`OutcomeRecorder` wraps the reward that decides success (one-shot GRPO: ``success_reward``;
Step-GRPO: the episode's final reward, 0-10 scaled to 0-1) and records ``(task id, completion, score)`` per
completion (Step-GRPO: and the trajectory's ``episode`` key), passing the values through unchanged. A rollout
succeeds when its score is >= the threshold; the phase's ``success_rate`` is the share of successful rollouts; a task
failed when its mean score is below it.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any


class OutcomeRecorder:
    """Records what a reward function returns, per completion, with the sample's ``id`` column.

    Args:
        scale: maps a reward value to a score in [0, 1] (default: the value itself).
    """

    def __init__(self, scale: Callable[[float], float] | None = None):
        self.scale = scale or (lambda v: v)
        self.records: list[dict[str, Any]] = []

    def _add(self, completions: Sequence[Any], ids: Sequence[Any] | None, values: Sequence[Any], keys=None) -> None:
        from vcoder.rewards.common import completion_text

        ids = list(ids) if ids is not None else [None] * len(values)
        keys = list(keys) if keys is not None else [None] * len(values)
        for completion, task_id, value, key in zip(completions, ids, values, keys):
            if value is None or task_id is None or not math.isfinite(float(value)):
                continue
            score = min(1.0, max(0.0, float(self.scale(float(value)))))
            record = {"task_id": str(task_id), "completion": completion_text(completion), "score": score}
            if key is not None:  # Step-GRPO: the trainer's record of the trajectory (its tokens) has this key
                record["episode"] = key
            self.records.append(record)

    def wrap(self, func: Callable) -> Callable:
        """``func`` with recording; its name (TRL's log key) and async-ness are kept."""
        if inspect.iscoroutinefunction(func):

            async def recorded(completions, *args, **kwargs):
                values = await func(completions, *args, **kwargs)
                self._add(completions, kwargs.get("id"), values, kwargs.get("episode_key"))
                return values
        else:

            def recorded(completions, *args, **kwargs):
                values = func(completions, *args, **kwargs)
                self._add(completions, kwargs.get("id"), values, kwargs.get("episode_key"))
                return values

        return functools.update_wrapper(recorded, func)


def summarise(
    records: Sequence[Mapping[str, Any]], tasks: Sequence[Mapping[str, Any]], *, threshold: float
) -> dict[str, Any]:
    """Success per rollout, task and kind.

    Returns:
        ``{"success_rate", "n_rollouts", "mean_score", "tasks_seen", "per_kind": {kind: rate}, "per_task": {id:
        {"n", "mean", "success_rate"}}, "failed": [task ids], "succeeded": [task ids]}``; rates are None without
        rollouts.

    Example:
        >>> tasks = [{"id": "a", "kind": "k"}, {"id": "b", "kind": "k"}, {"id": "c", "kind": "j"}]
        >>> s = summarise([{"task_id": "a", "score": 1.0}, {"task_id": "a", "score": 0.0},
        ...                {"task_id": "b", "score": 0.2}], tasks, threshold=0.5)
        >>> s["success_rate"], s["per_kind"], s["failed"], s["tasks_seen"]
        (0.3333333333333333, {'k': 0.3333333333333333, 'j': None}, ['b'], 2)
    """
    kind_of = {t["id"]: t["kind"] for t in tasks}
    scores: dict[str, list[float]] = defaultdict(list)
    for record in records:
        if record["task_id"] in kind_of:
            scores[record["task_id"]].append(float(record["score"]))
    per_task = {
        tid: {"n": len(v), "mean": math.fsum(v) / len(v), "success_rate": sum(s >= threshold for s in v) / len(v)}
        for tid, v in scores.items()
    }
    by_kind: dict[str, list[float]] = defaultdict(list)
    for tid, values in scores.items():
        by_kind[kind_of[tid]] += [float(s >= threshold) for s in values]
    kinds = list(dict.fromkeys(t["kind"] for t in tasks))
    flat = [s for v in scores.values() for s in v]
    return {
        "success_rate": sum(s >= threshold for s in flat) / len(flat) if flat else None,
        "n_rollouts": len(flat),
        "mean_score": math.fsum(flat) / len(flat) if flat else None,
        "tasks_seen": len(scores),
        "per_kind": {k: (sum(by_kind[k]) / len(by_kind[k]) if by_kind[k] else None) for k in kinds},
        "per_task": per_task,
        "failed": [tid for tid, s in per_task.items() if s["mean"] < threshold],
        "succeeded": [tid for tid, s in per_task.items() if s["mean"] >= threshold],
    }


def successes(
    records: Sequence[Mapping[str, Any]],
    tasks: Sequence[Mapping[str, Any]],
    *,
    threshold: float,
    phase: int,
    trajectories: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Replay items of the successful rollouts: ``{"task", "completion", "score", "baseline", "phase"}``, plus
    ``"trajectory"`` (Step-GRPO: the trainer's record of its tokens and step advantages, from ``trajectories`` by the
    record's ``episode`` key, a mapping or its JSON text; None when it was not recorded).

    ``baseline`` is the mean score of the task's rollouts in the phase (the group GRPO compared it with), so
    ``score - baseline`` is the advantage the rollout was recorded with (replayed as RL data, ``replay_mode: rl``).
    """
    by_id = {t["id"]: t for t in tasks}
    groups: dict[str, list[float]] = defaultdict(list)
    for r in records:
        groups[r["task_id"]].append(float(r["score"]))
    return [
        {
            "task": dict(by_id[r["task_id"]]),
            "completion": r["completion"],
            "score": r["score"],
            "baseline": math.fsum(groups[r["task_id"]]) / len(groups[r["task_id"]]),
            "phase": phase,
            **({"trajectory": _decoded(trajectories.get(r.get("episode")))} if trajectories is not None else {}),
        }
        for r in records
        if r["task_id"] in by_id and r["score"] >= threshold
    ]


def _decoded(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value
