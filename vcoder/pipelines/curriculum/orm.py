"""The ORM in the curriculum: how well it agrees with a phase's graded rollouts, and success predicted for candidates.

Both judge sites the way ``vcoder orm score`` does (``vcoder.orm``'s public API): the completion's HTML rendered
once, full page, in the hermetic pool; :func:`vcoder.orm.page_summary` of it; :func:`vcoder.orm.orm_prompt` with the
task's instruction and cases; P(YES) from :class:`vcoder.orm.OutcomeRewardModel`. A completion without HTML or that
fails to render gets P(YES) 0.0 (the model's fault), as in ``orm_reward``.

- :class:`OrmVerdictGrader`: a Step-GRPO phase's grader. A task without an evaluator (written by the task writer,
  kind ``llm``) gets the ORM's verdict on the site after each step as that step's outcome at rollout time (1.0 when
  P(YES) >= the ORM folder's decision threshold, else 0.0; :attr:`vcoder.sites.grading.SiteGrades.verdict`), so its
  step rewards, Step-GRPO advantages and recorded outcome are the ORM's before the phase's update, as WebRL labels
  its rollouts before it trains on them.
- :func:`orm_agreement`: the ORM's P(YES) against each rollout's graded success (score >= threshold); accuracy and AUC
  from :func:`vcoder.orm.binary_report`, and the majority-class baseline of these labels (the share of the more
  common label), since the ORM's own training labels are not at hand here.
- :class:`OrmPredictor`: the phase's final policy writes ``samples`` one-shot sites per candidate task; a candidate's
  predicted success is the share of them the ORM calls YES (P(YES) >= 0.5, WebRL's binary reward).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
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
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """WebRL's ``--add_reward`` after the fact: mark the ORM-judged rollouts, and check the ORM on the graded ones.

    The rollouts of tasks without an evaluator were judged by the ORM while the phase trained
    (:class:`OrmVerdictGrader`): their ``score`` already is its verdict (1.0 / 0.0); here they get ``label: "orm"``
    and are counted. The phase's summary, replay buffer and failures follow those verdicts, as WebRL's do. Rollouts of
    tasks with an evaluator keep their graded score and give the agreement report (P(YES) against graded success,
    ``score >= threshold``, at the ORM folder's decision threshold).

    Returns:
        ``(records, report)``: the records (marked where the ORM judged; records of tasks not in ``tasks`` dropped)
        and ``{"accuracy", "auc", "majority_baseline", "n", "labelled", "threshold"}`` (accuracy/AUC/baseline None
        when no rollout had an evaluator; everything None/0 without an ORM).
    """
    by_id = {t["id"]: t for t in tasks}
    records = [dict(r) for r in records if r["task_id"] in by_id]
    report = {**EMPTY_REPORT, "labelled": 0, "threshold": None}
    if not orm_dir or not records:
        return records, report
    from vcoder.orm import OutcomeRewardModel, binary_report
    from vcoder.rendering import BrowserPool

    graded = []
    for record in records:
        if has_evaluator(by_id[record["task_id"]]):
            graded.append(record)
        else:
            record["label"] = "orm"
            report["labelled"] += 1
    report["threshold"] = cut = orm_threshold(orm_dir)
    if graded:
        orm = OutcomeRewardModel.load(orm_dir)
        with BrowserPool(max_pages=2) as pool:
            probs = orm_p_yes(orm, [by_id[r["task_id"]] for r in graded], [r["completion"] for r in graded], pool=pool)
        labels = [int(r["score"] >= threshold) for r in graded]
        yes_rate = sum(labels) / len(labels)
        agreement = binary_report(probs, labels, train_yes_rate=yes_rate, threshold=cut)
        report.update(
            accuracy=agreement["accuracy"],
            auc=agreement["auc"],
            majority_baseline=max(yes_rate, 1 - yes_rate),
            n=agreement["n"],
        )
    return records, report


def orm_threshold(orm_dir: str | Path) -> float:
    """The P(YES) at which the ORM folder's verdict is YES (its tuned ``decision_threshold``; 0.5 untuned, WebRL's)."""
    from vcoder.orm.model import ORMConfig

    return ORMConfig.load(orm_dir).decision_threshold


class OrmVerdictGrader:
    """Grades a Step-GRPO phase's sites; a task without an evaluator gets the ORM's verdict as each step's outcome.

    Every site is graded by ``grader`` as the recipe says (the feedback the policy reads is the same for every task);
    for a task whose id is in ``written`` the ORM then judges the rendered entry page (``scorer``: the ``orm``
    reward's site scorer) and the grades carry ``verdict`` = 1.0 when P(YES) >= ``threshold``, else 0.0: the step
    reward is then the verdict times the full weight (:func:`vcoder.sites.episode.step_reward`). A site without an
    entry page or that fails to render is a NO (the model's fault); a browser or ORM failure leaves the step unjudged
    (reward None). The verdict log gets the recipe's grades, never the ORM's own verdict (the ORM trains on it).

    Args:
        grader: the recipe's ``SiteGrader``.
        scorer: ``async (instruction, case dicts, html, visible text blocks, screenshot) -> P(YES) | None``
            (:func:`vcoder.rewards.orm.orm_site_scorer`).
        written: the ids of the tasks without an evaluator.
        threshold: P(YES) at which the verdict is YES (:func:`orm_threshold`).

    Example::

        grader = OrmVerdictGrader(build_grader(args), orm_site_scorer(RewardSettings(orm_model="outputs/orm")),
                                  written={"llm-p0-3"}, threshold=orm_threshold("outputs/orm"))
    """

    def __init__(self, grader: Any, scorer: Any, *, written: Collection[str], threshold: float) -> None:
        self.grader, self.scorer = grader, scorer
        self.written, self.threshold = frozenset(written), threshold

    async def grade(self, files: Mapping[str, str], site_dir: Path | None, task: Any, options: Any, *, history=()):
        """``SiteGrader.grade``'s contract; the grades of a written task carry the ORM's ``verdict``."""
        if task.id not in self.written:
            return await self.grader.grade(files, site_dir, task, options, history=history)
        from vcoder.sites.turns import ENTRY

        grades = await self.grader.assess(files, site_dir, task, options)
        self.grader.log_verdict(files, site_dir, task, grades, history=history)
        return await self.judged(grades, files.get(ENTRY), task)

    async def judged(self, grades: Any, html: str | None, task: Any) -> Any:
        """``grades`` with the ORM's verdict on the site (unjudged, all components None, when it cannot judge)."""
        rendered = grades.rendered
        p: float | None = 0.0
        if rendered is not None and rendered.infrastructure:
            p, why = None, f"the browser failed ({rendered.error})"
        elif html is not None and rendered is not None and rendered.ok:
            cases = [{"task": c.task, "expected_result": c.expected_result} for c in task.test_cases]
            texts = [b.text for b in rendered.layout.text_blocks]
            p, why = await self.scorer(task.instruction, cases, html, texts, rendered.image), "the ORM failed"
        if p is None:
            note = f"outcome not judged: this task has no evaluator and {why}"
            return dataclasses.replace(grades, screenshot=None, gui=None, orm=None, notes=(*grades.notes, note))
        verdict = float(p >= self.threshold)
        note = f"the step reward is the outcome reward model's verdict, {'YES' if verdict else 'NO'} (no evaluator)"
        return dataclasses.replace(grades, verdict=verdict, notes=(*grades.notes, note))


def orm_verdict_grader(orm_dir: str | None, tasks: Sequence[Mapping[str, Any]], grader: Any) -> Any:
    """``grader`` as it is when every task has an evaluator, else an :class:`OrmVerdictGrader` around it.

    Raises:
        ValueError: some task has no evaluator and there is no ORM (``orm_model``).
    """
    written = [t["id"] for t in tasks if not has_evaluator(t)]
    if not written:
        return grader
    if not orm_dir:
        raise ValueError(
            f"{len(written)} task(s) have no evaluator (written by the task writer, e.g. {written[0]!r}) and there is "
            "no ORM to judge them; set orm_model to an ORM folder (vcoder orm train)"
        )
    from vcoder.rewards.orm import orm_site_scorer
    from vcoder.rewards.settings import RewardSettings

    scorer = orm_site_scorer(RewardSettings(orm_model=str(orm_dir)))
    return OrmVerdictGrader(grader, scorer, written=written, threshold=orm_threshold(orm_dir))


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
