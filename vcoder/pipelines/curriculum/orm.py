"""The ORM in the curriculum: how well it agrees with a phase's graded rollouts, and success predicted for candidates.

Both judge sites the way ``vcoder orm score`` does (``vcoder.orm``'s public API): the completion's HTML rendered
once, full page, in the hermetic pool; :func:`vcoder.orm.page_summary` of it; :func:`vcoder.orm.orm_prompt` with the
task's instruction and cases; P(YES) from :class:`vcoder.orm.OutcomeRewardModel`. A completion without HTML or that
fails to render gets P(YES) 0.0 (the model's fault), as in ``orm_reward``.

- :func:`orm_agreement`: the ORM's P(YES) against each rollout's graded success (score >= threshold); accuracy and AUC
  from :func:`vcoder.orm.binary_report`, and the majority-class baseline of these labels (the share of the more
  common label), since the ORM's own training labels are not at hand here.
- :class:`OrmPredictor`: the phase's final policy writes ``samples`` one-shot sites per candidate task; a candidate's
  predicted success is the share of them the ORM calls YES (P(YES) >= 0.5, WebRL's binary reward).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

EMPTY_REPORT = {"accuracy": None, "auc": None, "majority_baseline": None, "n": 0}


def orm_p_yes(orm, tasks: Sequence[Mapping[str, Any]], completions: Sequence[str], *, pool) -> list[float]:
    """P(YES) of each (task, completion) pair."""
    from vcoder.metrics.extract import extract_html
    from vcoder.orm import ORMInput, orm_prompt, page_summary

    htmls = [extract_html(c) or "" for c in completions]
    rendered = pool.render_many([h or "<html></html>" for h in htmls], full_page=True)
    inputs, where = [], []
    for i, (task, html, result) in enumerate(zip(tasks, htmls, rendered)):
        if not html or not result.ok:
            continue
        summary = page_summary(html, [b.text for b in result.layout.text_blocks])
        inputs.append(
            ORMInput(orm_prompt(task["instruction"], list(task.get("test_cases") or []), summary), result.pil())
        )
        where.append(i)
    out = [0.0] * len(htmls)
    for i, p in zip(where, orm.p_yes(inputs) if inputs else []):
        out[i] = float(p)
    return out


def orm_agreement(
    orm_dir: str | None, records: Sequence[Mapping[str, Any]], tasks: Sequence[Mapping[str, Any]], *, threshold: float
) -> dict[str, Any]:
    """``{"accuracy", "auc", "majority_baseline", "n"}`` of the ORM on the phase's rollouts (all None/0 without an
    ORM or rollouts)."""
    if not orm_dir or not records:
        return dict(EMPTY_REPORT)
    from vcoder.orm import OutcomeRewardModel, binary_report
    from vcoder.rendering import BrowserPool

    by_id = {t["id"]: t for t in tasks}
    records = [r for r in records if r["task_id"] in by_id]
    labels = [int(r["score"] >= threshold) for r in records]
    orm = OutcomeRewardModel.load(orm_dir)
    with BrowserPool(max_pages=2) as pool:
        probs = orm_p_yes(orm, [by_id[r["task_id"]] for r in records], [r["completion"] for r in records], pool=pool)
    yes_rate = sum(labels) / len(labels)
    report = binary_report(probs, labels, train_yes_rate=yes_rate)
    return {
        "accuracy": report["accuracy"],
        "auc": report["auc"],
        "majority_baseline": max(yes_rate, 1 - yes_rate),
        "n": report["n"],
    }


def has_evaluator(task: Mapping[str, Any]) -> bool:
    """True for a generator task (a reference page or scripted test cases grade it); False for a task written by the
    LLM (kind ``llm``), which only the ORM can judge, as in WebRL."""
    from vcoder.pipelines.curriculum.tasks import LLM_KIND

    return task.get("kind") != LLM_KIND


def orm_label_records(
    orm_dir: str | None,
    records: Sequence[Mapping[str, Any]],
    tasks: Sequence[Mapping[str, Any]],
    *,
    threshold: float,
    orm_threshold: float | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """WebRL's ``--add_reward``: the ORM labels the rollouts of tasks without an evaluator, and is checked on the rest.

    A labelled rollout's ``score`` becomes the ORM's verdict (1.0 when P(YES) >= ``orm_threshold``, else 0.0; the
    ORM folder's tuned threshold when None, see :class:`vcoder.orm.ORMConfig`), its graded score is kept as
    ``graded_score`` and ``label`` says ``"orm"``; the phase's summary, replay buffer and failures then follow the
    ORM's verdicts, as WebRL's do. Rollouts of tasks with an evaluator keep their graded score and give the agreement
    report (P(YES) against graded success, ``score >= threshold``).

    Returns:
        ``(records, report)``: the records (labelled where needed; records of tasks not in ``tasks`` dropped) and
        ``{"accuracy", "auc", "majority_baseline", "n", "labelled", "threshold"}`` (accuracy/AUC/baseline None when no
        rollout had an evaluator; everything None/0 without an ORM).
    """
    by_id = {t["id"]: t for t in tasks}
    records = [dict(r) for r in records if r["task_id"] in by_id]
    report = {**EMPTY_REPORT, "labelled": 0, "threshold": None}
    if not orm_dir or not records:
        return records, report
    from vcoder.orm import OutcomeRewardModel, binary_report
    from vcoder.rendering import BrowserPool

    orm = OutcomeRewardModel.load(orm_dir)
    cut = orm.config.decision_threshold if orm_threshold is None else orm_threshold
    with BrowserPool(max_pages=2) as pool:
        probs = orm_p_yes(orm, [by_id[r["task_id"]] for r in records], [r["completion"] for r in records], pool=pool)
    graded_p, graded_y = [], []
    for record, p in zip(records, probs):
        if has_evaluator(by_id[record["task_id"]]):
            graded_p.append(p)
            graded_y.append(int(record["score"] >= threshold))
        else:
            record.update(graded_score=record["score"], score=float(p >= cut), label="orm", p_yes=p)
            report["labelled"] += 1
    report["threshold"] = cut
    if graded_y:
        yes_rate = sum(graded_y) / len(graded_y)
        agreement = binary_report(graded_p, graded_y, train_yes_rate=yes_rate, threshold=cut)
        report.update(
            accuracy=agreement["accuracy"],
            auc=agreement["auc"],
            majority_baseline=max(yes_rate, 1 - yes_rate),
            n=agreement["n"],
        )
    return records, report


class OrmPredictor:
    """Predicted success of candidate tasks: the share of the policy's sampled sites the ORM calls YES.

    Args:
        orm_dir: an ORM folder.
        model, processor: the policy (the phase's final one).
        samples: sites sampled per candidate.
        max_new_tokens: budget of one sampled site.
        pool: a ``BrowserPool``.
        threshold: a site is a success when its P(YES) >= this (None: the ORM folder's tuned decision threshold,
            0.5 for an untuned one as in WebRL).
    """

    def __init__(
        self,
        orm_dir: str,
        model,
        processor,
        *,
        samples: int,
        max_new_tokens: int,
        pool,
        threshold: float | None = None,
    ) -> None:
        from vcoder.orm import OutcomeRewardModel

        self.orm = OutcomeRewardModel.load(orm_dir)
        self.model, self.processor, self.pool = model, processor, pool
        self.samples, self.max_new_tokens = samples, max_new_tokens
        self.threshold = self.orm.config.decision_threshold if threshold is None else threshold

    def __call__(self, tasks: list[dict[str, Any]]) -> list[float | None]:
        from vcoder.data.prompts import make_site_conversation
        from vcoder.pipelines.curriculum.policy import sample_completions

        rows = [{"prompt": make_site_conversation(t["instruction"])} for t in tasks]
        sampled = sample_completions(
            self.model, self.processor, rows, n=self.samples, max_new_tokens=self.max_new_tokens
        )
        return self.shares(tasks, sampled)

    def shares(self, tasks: list[dict[str, Any]], sampled: Sequence[Sequence[str]]) -> list[float | None]:
        """Per task, the share of its sampled completions the ORM calls YES (None for a task without samples)."""
        out: list[float | None] = []
        for task, completions in zip(tasks, sampled, strict=True):
            probs = orm_p_yes(self.orm, [task] * len(completions), list(completions), pool=self.pool)
            out.append(sum(p >= self.threshold for p in probs) / len(probs) if probs else None)
        return out
