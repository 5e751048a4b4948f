"""WebGen-Bench results: one row per task, the accuracy arithmetic and the run's summary (pure: dicts in, dicts out).

Accuracy (Lu et al., 2025) = (YES + 0.5 * PARTIAL) / cases, over every test case of the tasks counted; a site that
fails to build counts 0 on all its cases. A task whose instruments failed (a server or the browser: nothing could
be said about the site) gets a row with ``status`` "infrastructure": it is not counted, it is listed, and the next
run retries it.

Example:
    >>> from vcoder.gui.policy import CaseResult, TestCase, Verdict
    >>> cases = [TestCase("Open the menu"), TestCase("Add an item")]
    >>> results = [CaseResult("Open the menu", Verdict.YES), CaseResult("Add an item", Verdict.PARTIAL)]
    >>> row = task_row("000001", [case_entry(c, r) for c, r in zip(cases, results)], appearance=4.0)
    >>> row["accuracy"], row["yes"], row["partial"], row["no"]
    (0.75, 1, 1, 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vcoder.gui.policy import CaseResult, TestCase, Verdict

#: a row whose site was built (or failed to build) and whose cases were all run: it counts
SCORED = "scored"
#: a row whose instruments failed: not counted, retried by the next run
INFRASTRUCTURE = "infrastructure"
#: the appearance grade's scale (the screenshot judge's 0-5, as WebGen-Bench reports it)
APPEARANCE_MAX = 5.0
UNCATEGORISED = "(none)"


def case_entry(case: TestCase, result: CaseResult | None, *, failed_build: str | None = None) -> dict[str, Any]:
    """One case of a row: the case, the verdict and the agent's reason.

    Args:
        case: the test case.
        result: what the GUI agent answered (None when the case was not run).
        failed_build: why the site failed to build; the case then counts NO whatever was answered.
    """
    verdict = Verdict.NO if failed_build is not None or result is None else result.verdict
    answer = ""
    details: list[str] = []
    if result is not None:
        details = list(result.details)
        # the GUI agent's final answer is kept as "answer: VERDICT reason"
        answer = next((d.removeprefix("answer: ") for d in details if d.startswith("answer: ")), "")
        answer = answer.removeprefix(result.verdict.value).strip()
    reasons = [f"build failed: {failed_build}"] if failed_build is not None else []
    if result is not None and result.error:
        reasons.append(result.error)
    if answer:
        reasons.append(answer)
    return {
        "task": case.task,
        "expected_result": case.expected_result,
        "category": case.task_category or UNCATEGORISED,
        "verdict": verdict.value,
        "score": verdict.score,
        "reason": "; ".join(reasons) or ("not run" if result is None else "no reason given"),
        "steps_taken": 0 if result is None else result.steps_taken,
        "details": details,
    }


def task_row(
    task_id: str,
    cases: Sequence[dict[str, Any]],
    *,
    status: str = SCORED,
    appearance: float | None = None,
    built: bool = True,
    error: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One results.jsonl line.

    Args:
        task_id: the task's id.
        cases: ``case_entry`` dicts, in the task's order.
        status: ``SCORED`` or ``INFRASTRUCTURE``.
        appearance: the final site's appearance grade on 0-5, None when not judged.
        built: whether the site was built (an entry page that renders).
        error: why the site failed to build, or what failed (infrastructure); None when nothing did.
        extra: further fields (category, turns, screenshot, notes, ...).

    Returns:
        ``{"id", "status", "accuracy", "appearance", "n_cases", "yes", "partial", "no", "built", "error", "cases",
        ...extra}``; ``accuracy`` is None for a task without cases and for an infrastructure row.
    """
    if status not in (SCORED, INFRASTRUCTURE):
        raise ValueError(f"status must be {SCORED!r} or {INFRASTRUCTURE!r}, got {status!r}")
    counts = {v.value: sum(c["verdict"] == v.value for c in cases) for v in Verdict}
    scored = status == SCORED and cases
    return {
        "id": task_id,
        "status": status,
        "accuracy": sum(c["score"] for c in cases) / len(cases) if scored else None,
        "appearance": appearance,
        "n_cases": len(cases),
        "yes": counts["YES"],
        "partial": counts["PARTIAL"],
        "no": counts["NO"],
        "built": built,
        "error": error,
        "cases": list(cases),
        **(extra or {}),
    }


def appearance_grade(score: float | None) -> float | None:
    """A screenshot score in [0, 1] as the judge's 0-5 grade (None stays None).

    Example:
        >>> appearance_grade(0.8), appearance_grade(None)
        (4.0, None)
    """
    return None if score is None else round(score * APPEARANCE_MAX, 6)


def is_scored(row: Mapping[str, Any] | None) -> bool:
    """Whether a stored row is final (infrastructure rows are retried)."""
    return row is not None and row.get("status") == SCORED


def _accuracy(cases: list[dict[str, Any]]) -> float | None:
    return sum(c["score"] for c in cases) / len(cases) if cases else None


def _by(groups: dict[str, list[dict[str, Any]]], tasks: dict[str, set[str]] | None = None) -> dict[str, Any]:
    out = {}
    for name in sorted(groups):
        entry: dict[str, Any] = {"cases": len(groups[name]), "accuracy": _accuracy(groups[name])}
        if tasks is not None:
            entry = {"tasks": len(tasks[name]), **entry}
        out[name] = entry
    return out


def summarise(rows: Mapping[str, dict[str, Any]], tasks: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The run's summary over ``tasks`` (``(id, category)`` pairs, the task file's order).

    Returns:
        ``{"n", "n_scored", "complete", "accuracy", "task_accuracy", "appearance", "appearance_n", "cases", "yes",
        "partial", "no", "by_category", "by_case_category", "failed_ids", "missing_ids", "infrastructure"}``:
        ``accuracy`` over every case of the scored tasks (WebGen-Bench's), ``task_accuracy`` the mean of the
        scored tasks' accuracies, ``appearance`` the mean grade (0-5) of the tasks that got one, ``failed_ids`` the
        tasks whose site failed to build (counted 0), ``missing_ids`` the tasks not scored yet (an infrastructure
        failure, listed with its error in ``infrastructure``, or not run), ``complete`` whether none is missing.
    """
    cases: list[dict[str, Any]] = []
    by_category: dict[str, list[dict[str, Any]]] = {}
    category_tasks: dict[str, set[str]] = {}
    by_case_category: dict[str, list[dict[str, Any]]] = {}
    task_accuracies, appearances, failed, missing, infrastructure = [], [], [], [], {}
    for task_id, category in tasks:
        row = rows.get(task_id)
        if not is_scored(row):
            missing.append(task_id)
            if row is not None:
                infrastructure[task_id] = row.get("error")
            continue
        category = category or UNCATEGORISED
        category_tasks.setdefault(category, set()).add(task_id)
        by_category.setdefault(category, []).extend(row["cases"])
        for case in row["cases"]:
            by_case_category.setdefault(case["category"], []).append(case)
        cases.extend(row["cases"])
        if row["accuracy"] is not None:
            task_accuracies.append(row["accuracy"])
        if row.get("appearance") is not None:
            appearances.append(row["appearance"])
        if not row.get("built", True):
            failed.append(task_id)
    return {
        "n": len(tasks),
        "n_scored": len(tasks) - len(missing),
        "complete": not missing,
        "accuracy": _accuracy(cases),
        "task_accuracy": sum(task_accuracies) / len(task_accuracies) if task_accuracies else None,
        "appearance": sum(appearances) / len(appearances) if appearances else None,
        "appearance_n": len(appearances),
        "cases": len(cases),
        **{v.value.lower(): sum(c["verdict"] == v.value for c in cases) for v in Verdict},
        "by_category": _by(by_category, category_tasks),
        "by_case_category": _by(by_case_category),
        "failed_ids": failed,
        "missing_ids": missing,
        "infrastructure": infrastructure,
    }


def protocol_entry(
    cases: Sequence[dict[str, Any]], *, appearance: float | None, agent: str, **extra: Any
) -> dict[str, Any]:
    """One protocol's part of a row (``row["by_protocol"][name]``): its cases, verdict counts, task accuracy and
    appearance grade (vcoder: the judge's 0-5; webgen-bench: WebGen-Bench's integer grade, 0 when unreadable)."""
    counts = {v.value.lower(): sum(c["verdict"] == v.value for c in cases) for v in Verdict}
    return {
        "accuracy": sum(c["score"] for c in cases) / len(cases) if cases else None,
        "appearance": appearance,
        "n_cases": len(cases),
        **counts,
        "agent": agent,
        "cases": list(cases),
        **extra,
    }


def protocol_view(row: Mapping[str, Any], protocol: str) -> Mapping[str, Any]:
    """A stored row as graded under ``protocol`` (a row written before protocols existed is vcoder's)."""
    parts = row.get("by_protocol")
    if parts is None:
        return row if protocol == "vcoder" else {"cases": [], "appearance": None}
    return parts.get(protocol) or {"cases": [], "appearance": None}


def protocol_summary(
    rows: Mapping[str, Mapping[str, Any]],
    tasks: Sequence[tuple[str, str]],
    protocol: str,
    *,
    case_counts: Mapping[str, int],
) -> dict[str, Any]:
    """The headline numbers of one protocol over the run's tasks.

    vcoder: accuracy = (YES + 0.5 PARTIAL) / cases of the scored tasks, appearance = the mean grade of the graded
    sites. webgen-bench (``compute_acc.py``, ``compute_grade.py``): accuracy over ALL cases of ALL tasks (a case not
    run counts 0), appearance = the sum of the grades over ALL tasks. On a complete run the accuracies agree.

    Example:
        >>> graded = {"cases": [{"verdict": "YES", "score": 1.0}], "appearance": 4}
        >>> rows = {"a": {"status": "scored", "by_protocol": {"webgen-bench": graded}}}
        >>> s = protocol_summary(rows, [("a", ""), ("b", "")], "webgen-bench", case_counts={"a": 1, "b": 3})
        >>> s["accuracy"], s["appearance"], s["complete"]
        (0.25, 2.0, False)
    """
    views = [protocol_view(rows[t], protocol) for t, _ in tasks if is_scored(rows.get(t))]
    cases = [c for v in views for c in v["cases"]]
    score = sum(c["score"] for c in cases)
    grades = [v["appearance"] for v in views if v.get("appearance") is not None]
    if protocol == "webgen-bench":
        total = sum(case_counts.get(t, 0) for t, _ in tasks)
        accuracy = score / total if total else None
        appearance = sum(grades) / len(tasks) if grades else None
    else:
        accuracy = score / len(cases) if cases else None
        appearance = sum(grades) / len(grades) if grades else None
    return {
        "protocol": protocol,
        "accuracy": accuracy,
        "appearance": appearance,
        "tasks": len(tasks),
        "complete": len(views) == len(tasks),
        "cases": len(cases),
        **{v.value.lower(): sum(c["verdict"] == v.value for c in cases) for v in Verdict},
        "appearance_n": len(grades),
    }
