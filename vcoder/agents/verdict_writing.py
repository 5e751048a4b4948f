"""Graders append what they decided to a verdict log: the records the GUI-agent reward, the screenshot judge, Step-GRPO
site grading and the WebGen-Bench evaluation write (:mod:`vcoder.agents.verdicts` holds the record and the file).

Screenshots go beside the log, ``screens/<first 16 hex of the PNG's sha256>.png``, and records keep that relative path,
so a log and its folder move together. Writing is best effort: a disk error is a warning, never a failed grade.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vcoder.agents.verdicts import VerdictLog, VerdictRecord, case_verdict, site_hash

logger = logging.getLogger(__name__)

#: the folder beside the log that holds its screenshots
SCREENS = "screens"


def keep_screenshot(log: str | Path, png: bytes | None) -> str | None:
    """Write ``png`` under ``screens/`` beside the log; its path relative to the log's folder (None: no image)."""
    if not png:
        return None
    name = f"{SCREENS}/{hashlib.sha256(png).hexdigest()[:16]}.png"
    path = Path(log).parent / name
    try:
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png)
    except OSError as exc:
        logger.warning("could not keep a screenshot for the verdict log %s: %s", log, exc)
        return None
    return name


def site_record(
    *,
    task_id: str | None,
    instruction: str,
    source: str,
    score: float,
    files: Mapping[str, str] | None = None,
    site_dir: str | Path | None = None,
    cases: Sequence[Any] = (),
    results: Sequence[Any] = (),
    screenshot: str | None = None,
    page_text: Sequence[str] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> VerdictRecord:
    """One record for a graded site.

    Args:
        task_id: the task's id; None or empty: ``site-<hash>`` (each site its own task in held-out splits).
        instruction: what the site was asked to do.
        source: who graded (``gui_agent``, ``judge``, ``site_grading``, ``eval``).
        score: the site's score in [0, 1].
        files: the site's files (kept inline unless ``site_dir`` is given; hashed either way).
        site_dir: the folder holding the files (kept instead of the files; absolute).
        cases: the ``TestCase`` objects that ran, paired in order with ``results`` (``CaseResult``).
        results: their results.
        screenshot: the screenshot's path (from :func:`keep_screenshot`).
        page_text: the rendered page's visible text blocks, when known.
        meta: free-form details (reward name, training step, grade components...).
    """
    files = dict(files or {})
    digest = site_hash(files)
    return VerdictRecord(
        task_id=task_id or f"site-{digest.split(':')[1][:12]}",
        instruction=" ".join(instruction.split()) or "(no instruction)",
        site_hash=digest,
        score=min(1.0, max(0.0, float(score))),
        source=source,
        test_cases=tuple(c.to_dict() for c in cases),
        site_dir=str(Path(site_dir).resolve()) if site_dir is not None else None,
        site_files=None if site_dir is not None else files,
        screenshot=screenshot,
        page_text=None if page_text is None else tuple(page_text),
        cases=tuple(case_verdict(c, r) for c, r in zip(cases, results, strict=True)),
        meta=dict(meta or {}),
    )


def append_record(log: str | Path, make: Any) -> None:
    """Build a record with ``make()`` and append it to ``log``; a failure to build or write is a warning only."""
    try:
        record = make()
    except Exception:
        logger.warning("could not build a verdict record for %s", log, exc_info=True)
        return
    VerdictLog(log).append_or_warn(record)


def grades_record(
    log: str | Path,
    task: Any,
    grades: Any,
    *,
    files: Mapping[str, str],
    site_dir: str | Path | None,
    source: str,
    meta: Mapping[str, Any] | None = None,
) -> VerdictRecord | None:
    """The record of a site graded by :class:`vcoder.agents.site_grading.SiteGrader` (None when neither component
    could judge it, or the site has no files to point at).

    The score is the test cases' mean verdict when they ran (what the ORM predicts), else the appearance grade;
    ``meta`` keeps both components (``gui``, ``screenshot``) and which one the score is (``score_from``). The site is
    kept by its folder (``site_dir``, absolute) and hash; the screenshot beside the log.
    """
    score = grades.gui if grades.gui is not None else grades.screenshot
    if score is None or not files:
        return None
    rendered = grades.rendered
    ok = rendered is not None and rendered.ok
    extra = {
        "gui": grades.gui,
        "screenshot": grades.screenshot,
        "score_from": "gui" if grades.gui is not None else "judge",
    }
    if grades.judge_reply:
        extra["judge_reply"] = grades.judge_reply[:600]
    if grades.error:
        extra["error"] = grades.error[:300]
    by_task = {r.task: r for r in grades.cases}
    ran = [c for c in task.test_cases if c.task in by_task]
    return site_record(
        task_id=task.id or None,
        instruction=task.instruction,
        source=source,
        score=score,
        files=files,
        site_dir=site_dir,
        cases=ran,
        results=[by_task[c.task] for c in ran],
        screenshot=keep_screenshot(log, rendered.png) if ok else None,
        page_text=[b.text for b in rendered.layout.text_blocks] if ok and rendered.layout is not None else None,
        meta={**extra, **(meta or {})},
    )
