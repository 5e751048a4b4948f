"""Graders append what they decided to a verdict log: the records the GUI-agent reward, the screenshot judge, Step-GRPO
site grading and the WebGen-Bench evaluation write (:mod:`vcoder.verdicts.records` holds the record and the file).

Screenshots go beside the log, ``screens/<first 16 hex of the PNG's sha256>.png``, and records keep that relative path,
so a log and its folder move together. Writing is best effort: a disk error is a warning, never a failed grade.

A site graded inside a site-building episode also carries the episode so far (``VerdictRecord.history``, WebRL's
action history): one line per turn, oldest first, from :func:`episode_history`::

    turn 1: malformed reply (no_action): the reply has no <file> block and no <finish/>: write each …
    turn 2: wrote index.html
    turn 3: wrote index.html, app.js; finished (the site shown)

The lines say what each turn did, never what a grader made of it: the step rewards are the graders' judgements that
an outcome reward model is meant to replace (WebRL's ORM sees the actions, not the rewards), and the last turn's
grade is the record's label.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vcoder.verdicts.log import VerdictLog
from vcoder.verdicts.records import VerdictRecord, case_verdict, short, site_hash

logger = logging.getLogger(__name__)

#: the folder beside the log that holds its screenshots
SCREENS = "screens"
#: a record keeps the last ``HISTORY_TURNS`` turns of an episode, each cut to ``HISTORY_LINE`` characters
HISTORY_TURNS = 12
HISTORY_LINE = 160


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
    history: Sequence[str] = (),
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
        history: an episode's turns in brief, oldest first (:func:`episode_history`); the last ``HISTORY_TURNS``
            are kept, each cut to ``HISTORY_LINE`` characters. Empty outside an episode.
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
        history=tuple(short(line, HISTORY_LINE) for line in list(history)[-HISTORY_TURNS:]),
        meta=dict(meta or {}),
    )


def append_record(log: str | Path, make: Any) -> None:
    """Build a record with ``make()`` and append it to ``log`` (``make()`` None: nothing to append); a failure to
    build or write is a warning only."""
    try:
        record = make()
    except Exception:
        logger.warning("could not build a verdict record for %s", log, exc_info=True)
        return
    if record is not None:  # nothing to point at (a site without files)
        VerdictLog(log).append_or_warn(record)


def grades_record(
    log: str | Path,
    task: Any,
    grades: Any,
    *,
    files: Mapping[str, str],
    site_dir: str | Path | None,
    source: str,
    history: Sequence[str] = (),
    meta: Mapping[str, Any] | None = None,
) -> VerdictRecord | None:
    """The record of a site graded by :class:`vcoder.sites.grading.SiteGrader` (None when neither component
    could judge it, or the site has no files to point at).

    The score is the test cases' mean verdict when they ran (what the ORM predicts), else the appearance grade;
    ``meta`` keeps both components (``gui``, ``screenshot``) and which one the score is (``score_from``). The site is
    kept by its folder (``site_dir``, absolute) and hash; the screenshot beside the log; ``history`` as in
    :func:`site_record`.
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
        history=history,
        meta={**extra, **(meta or {})},
    )


def log_grades(
    log: str | Path | None,
    source: str,
    task: Any,
    grades: Any,
    *,
    files: Mapping[str, str],
    site_dir: str | Path | None,
    history: Sequence[str] = (),
) -> None:
    """Append :func:`grades_record` to ``log`` (None: no log); a site no component judged is not logged. Never
    raises: a failure to build or write the record is a warning."""
    if log is None or (grades.gui is None and grades.screenshot is None):
        return

    def make() -> VerdictRecord | None:
        return grades_record(log, task, grades, files=files, site_dir=site_dir, source=source, history=history)

    append_record(log, make)


def _paths(paths: Sequence[str], *, most: int = 3) -> str:
    shown = ", ".join(short(p, 40) for p in paths[:most])
    return shown + (f" +{len(paths) - most} more" if len(paths) > most else "")


def turn_line(turn: int, *, written: Sequence[str] = (), deleted: Sequence[str] = (), finish: bool = False) -> str:
    """What a well-formed turn did, in brief.

    Example:
        >>> turn_line(2, written=("index.html", "app.js"), deleted=("old.js",), finish=True)
        'turn 2: wrote index.html, app.js; deleted old.js; finished'
        >>> turn_line(4, finish=True)
        'turn 4: finished'
    """
    did = [f"wrote {_paths(written)}"] if written else []
    if deleted:
        did.append(f"deleted {_paths(deleted)}")
    if finish:
        did.append("finished")
    return f"turn {turn}: " + ("; ".join(did) or "changed no file")


def step_line(step: Any) -> str:
    """A taken turn (a ``StepRecord``) in brief: what it did, not its reward.

    Example:
        >>> from vcoder.sites.records import StepRecord
        >>> step_line(StepRecord(1, True, (), None, None, -1.0, "no file", malformed_kind="no_action"))
        'turn 1: malformed reply (no_action): no file'
        >>> step_line(StepRecord(2, False, ("index.html",), None, 0.125, 1.25, None))
        'turn 2: wrote index.html'
    """
    if step.malformed:
        return f"turn {step.turn}: malformed reply ({step.malformed_kind}): {short(step.error, 60)}"
    line = turn_line(step.turn, written=step.files, deleted=step.deleted, finish=step.finish)
    return f"{line}; site error: {short(step.error, 60)}" if step.error else line


def episode_history(steps: Sequence[Any], current: str) -> tuple[str, ...]:
    """The history of a site graded inside an episode: the earlier ``steps`` (``StepRecord``, see :func:`step_line`),
    then ``current`` (the :func:`turn_line` of the turn that built the graded site)."""
    return (*(step_line(s) for s in steps), f"{current} (the site shown)")
