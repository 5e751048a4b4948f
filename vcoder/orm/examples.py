"""Verdict records as ORM examples: the label, the prompt (per view) and the screenshot, plus a split by task.

Label: a site is YES when its score is at least ``label_threshold`` (default 0.5: at least half of the test-case
credit, WebGen-Bench's (YES + 0.5 PARTIAL) / cases). The ORM's P(YES) thresholded at 0.5 is then WebRL's binary
reward and predicts the GUI agent's score rounded to 0 or 1. The per-case verdicts stay in the log, so another
label (every case YES, per case) can be derived later.

Views: ``site`` shows the ORM the task and the page alone (what ``orm_reward`` has at training time, when no agent
ran); ``agent`` adds the GUI agent's runs (actions and visible change per case), as WebRL's ORM sees the action
history. A record without recorded runs has only the site view. A browsing episode's record (source ``web_agent``) is seen
in the ``trajectory`` view only (:mod:`vcoder.orm.trajectory`: intent, actions, answer, final page text; no image),
whatever ``views`` says: its site is a script-built app whose source says nothing of the episode.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcoder.orm.prompt import AgentRun, orm_prompt, page_summary
from vcoder.verdicts.records import VerdictLogError, VerdictRecord, resolve

logger = logging.getLogger(__name__)

VIEWS = ("site", "agent")


@dataclass(frozen=True)
class Example:
    """One ORM example: ``text`` + ``image`` in, ``label`` (1 = YES) out; ``task_id`` and ``view`` for reports."""

    text: str
    image: Any
    label: int
    task_id: str
    view: str


def label_of(record: VerdictRecord, threshold: float) -> int:
    """1 when the site's score reaches ``threshold``, else 0."""
    return int(record.score >= threshold)


def agent_runs(record: VerdictRecord) -> list[AgentRun]:
    """The record's per-case runs, when the agent's actions or observations were recorded."""
    if not any(c.trace or c.observed for c in record.cases):
        return []
    return [AgentRun(c.task, c.trace, c.observed) for c in record.cases]


def record_text(record: VerdictRecord, page_text: Sequence[str], html: str, *, view: str) -> str:
    """The prompt text of ``record`` in ``view`` (see :func:`vcoder.orm.prompt.orm_prompt`)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
    runs = agent_runs(record) if view == "agent" else []
    return orm_prompt(
        record.instruction, record.test_cases, page_summary(html, page_text), runs=runs, history=record.history
    )


def split_by_task(
    records: Sequence[VerdictRecord], *, holdout: float, seed: int = 0
) -> tuple[list[VerdictRecord], list[VerdictRecord]]:
    """Split records so that every record of a held-out task is held out (variants of one page never straddle).

    Args:
        records: the log's records.
        holdout: share of task ids held out, in (0, 1); at least one task on each side.
        seed: shuffle seed of the task ids.

    Returns:
        ``(train, heldout)``.
    """
    if not 0.0 < holdout < 1.0:
        raise ValueError(f"holdout must be a fraction in (0, 1), got {holdout!r}")
    tasks = sorted({r.task_id for r in records})
    if len(tasks) < 2:
        raise VerdictLogError(
            f"the log has {len(tasks)} task id(s); a held-out split by task needs at least 2 (collect more verdicts)"
        )
    random.Random(seed).shuffle(tasks)
    n_out = min(len(tasks) - 1, max(1, round(holdout * len(tasks))))
    held = set(tasks[:n_out])
    return [r for r in records if r.task_id not in held], [r for r in records if r.task_id in held]


def build_examples(
    records: Sequence[VerdictRecord],
    *,
    base_dir: str | Path,
    views: Sequence[str] = VIEWS,
    threshold: float = 0.5,
    image_width: int = 320,
    pool: Any = None,
) -> list[Example]:
    """Examples of ``records`` in each of ``views`` (the agent view only where runs were recorded).

    The screenshot is read from the record's path (relative to ``base_dir``, the log's folder); a record without a
    usable screenshot or page text is rendered once with ``pool`` (a ``BrowserPool``, started on demand).

    Raises:
        VerdictLogError: a record whose site cannot be found (its files are neither inline nor in ``site_dir``).
    """
    from vcoder.orm.model import prepare_image
    from vcoder.orm.trajectory import SOURCE, record_trajectory, trajectory_prompt

    sites = [r for r in records if r.source != SOURCE]
    pages = iter(_pages(sites, base_dir, image_width, pool))
    out = []
    for record in records:
        label = label_of(record, threshold)
        if record.source == SOURCE:
            out.append(
                Example(trajectory_prompt(record_trajectory(record)), None, label, record.task_id, "trajectory")
            )
            continue
        html, text, image = next(pages)
        if image is None and image_width > 0:  # the site did not render: a blank page is what there is to see
            from PIL import Image

            image = Image.new("RGB", (1280, 720), "white")
        image = prepare_image(image, image_width)
        for view in views:
            if view == "agent" and not agent_runs(record):
                continue
            out.append(Example(record_text(record, text, html, view=view), image, label, record.task_id, view))
    return out


def _pages(records: Sequence[VerdictRecord], base_dir, image_width: int, pool) -> list[tuple[str, list, Any]]:
    """(html, visible text blocks, screenshot or None) per record, rendering those that miss text or screenshot."""
    from vcoder.images import to_pil

    found, todo = [], []
    for i, record in enumerate(records):
        html = record.site_html(base_dir)
        if html is None:
            raise VerdictLogError(
                f"record {i} (task {record.task_id!r}): its site is neither inline nor in site_dir="
                f"{record.site_dir!r} (resolved against {str(base_dir)!r})"
            )
        shot = resolve(record.screenshot, base_dir) if record.screenshot else None
        wanted = image_width > 0 and shot is not None and shot.is_file()
        image = to_pil(shot) if wanted else None
        if record.page_text is None or (image is None and image_width > 0):
            todo.append(i)
        found.append((html, list(record.page_text or ()), image))
    if todo:
        logger.info("rendering %d site(s) whose page text or screenshot the log does not hold", len(todo))
        from vcoder.rendering import pool_or_private

        with pool_or_private(pool, max_pages=2) as renderer:
            rendered = renderer.render_many([found[i][0] for i in todo], full_page=True)
        for i, r in zip(todo, rendered):
            html, text, image = found[i]
            if r.ok:
                found[i] = (html, text or [b.text for b in r.layout.text_blocks], image or r.pil())
    return found
