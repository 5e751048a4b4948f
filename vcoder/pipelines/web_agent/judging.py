"""The ORM judges the web agent's episodes of tasks without an evaluator (tasks the writer wrote), as in WebRL.

An episode of such a task ends with a ``pending`` evaluation (:func:`vcoder.browse.evaluate`); here the ORM reads its
trajectory (:mod:`vcoder.orm.trajectory`: intent, actions, answer, final page) and its outcome becomes the ORM's
verdict: score 1.0 when P(YES) >= the threshold, else 0.0, ``judged_by: "orm"``, P(YES) under ``scores["orm"]``.
Everything downstream (success rates, replay, the WebRL update, the writer's failures) then reads that outcome, as
WebRL's pipeline reads its ORM's. Episodes of tasks with an evaluator are returned unchanged.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import Any

from vcoder.browse.episode import WebEpisode
from vcoder.browse.evaluators import Evaluation
from vcoder.browse.records import verdict_record
from vcoder.orm.trajectory import Trajectory, judge_trajectories, record_trajectory

logger = logging.getLogger(__name__)


def episode_trajectory(episode: WebEpisode) -> Trajectory:
    """The ORM's view of one episode: read from the episode's verdict record, the form the ORM trains on (the
    ``verdicts.jsonl`` line), so the live view and the training view are one text by construction."""
    return record_trajectory(verdict_record(episode))


def judge_episodes(
    orm: Any, episodes: Sequence[WebEpisode], *, threshold: float | None = None
) -> tuple[list[WebEpisode], dict[str, Any]]:
    """The episodes with every ``pending`` one judged by the ORM.

    Args:
        orm: an ``OutcomeRewardModel`` or an ORM folder; None is refused when some episode needs it.
        episodes: a phase's episodes, in any mix.
        threshold: P(YES) at which the verdict is YES (None: the ORM folder's decision threshold).

    Returns:
        ``(episodes, report)``: the episodes in order (judged ones replaced), and ``{"judged", "yes", "tasks",
        "threshold"}`` (episodes judged, YES verdicts among them, distinct tasks, the threshold used).

    Raises:
        ValueError: pending episodes and no ORM (name ``orm_model`` in the recipe).
    """
    from vcoder.orm.model import OutcomeRewardModel

    pending = [i for i, e in enumerate(episodes) if e.evaluation.judged_by == "pending"]
    out = list(episodes)
    report: dict[str, Any] = {"judged": 0, "yes": 0, "tasks": 0, "threshold": None}
    if not pending:
        return out, report
    if orm is None:
        raise ValueError(f"{len(pending)} episode(s) of tasks without an evaluator and no ORM; set orm_model")
    if not isinstance(orm, OutcomeRewardModel):
        orm = OutcomeRewardModel.load(orm)
    judged = judge_trajectories(orm, [episode_trajectory(episodes[i]) for i in pending], threshold=threshold)
    for i, (p, yes) in zip(pending, judged):
        evaluation = Evaluation(float(yes), {"orm": round(p, 6)}, judged_by="orm")
        out[i] = dataclasses.replace(episodes[i], evaluation=evaluation)
    report.update(
        judged=len(pending),
        yes=sum(yes for _, yes in judged),
        tasks=len({episodes[i].task.task_id for i in pending}),
        threshold=orm.config.decision_threshold if threshold is None else threshold,
    )
    logger.info("ORM judged %d episode(s) of %d written task(s): %d YES", len(pending), report["tasks"], report["yes"])
    return out, report
