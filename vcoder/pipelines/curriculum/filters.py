"""The checks every candidate task passes before it joins the pool (WebRL's curriculum filter), pure functions.

In order, each rejection counted under its reason:

- ``schema``: the candidate is not a mapping with a non-empty ``instruction`` and valid test cases (WebGen-Bench's
  ``ui_instruct`` or ``test_cases``; structured ``steps``/``expect`` checked by :func:`vcoder.gui.policy.parse_cases`)
  — unparseable writer replies are counted as ``unparseable`` by the writer before they get here;
- ``duplicate``: the same id as a pool task (a generator task: same kind and seed), or, for a written task, more
  than ``max_overlap`` of its word n-grams already in one pool task's instruction (or an earlier candidate's). The
  generators' own tasks are not n-gram checked: one template with other names and numbers is what they are made to
  give, and they differ in what the tests check;
- ``unpredicted``: the predictor could not judge it (None);
- ``too_hard`` / ``too_easy``: predicted success below ``low`` / above ``high`` (WebRL keeps [0.05, 0.75]).

Example:
    >>> in_band(0.05, low=0.05, high=0.75), in_band(0.76, low=0.05, high=0.75)
    (True, False)
    >>> round(ngram_overlap("add a todo item to the list", "add a todo item to my list", n=2), 3)
    0.667
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

REASONS = ("unparseable", "schema", "duplicate", "unpredicted", "too_hard", "too_easy")
_WORD = re.compile(r"[a-z0-9]+")


def ngrams(text: str, n: int) -> set[tuple[str, ...]]:
    """Lower-cased word n-grams of ``text`` (the whole text as one gram when it is shorter than ``n`` words)."""
    words = _WORD.findall(text.lower())
    if len(words) < n:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def ngram_overlap(candidate: str, other: str, *, n: int = 3) -> float:
    """Share of the candidate's n-grams found in ``other`` (0 when the candidate has none)."""
    mine = ngrams(candidate, n)
    return len(mine & ngrams(other, n)) / len(mine) if mine else 0.0


def in_band(p: float, *, low: float, high: float) -> bool:
    """True when a predicted success ``p`` lies in the closed band ``[low, high]``."""
    return low <= p <= high


def band_reason(p: float | None, *, low: float, high: float) -> str | None:
    """None when ``p`` is in the band, else the rejection reason (``unpredicted``, ``too_hard``, ``too_easy``).

    Example:
        >>> [band_reason(p, low=0.05, high=0.75) for p in (None, 0.0, 0.049, 0.05, 0.5, 0.75, 0.8)]
        ['unpredicted', 'too_hard', 'too_hard', None, None, None, 'too_easy']
    """
    if p is None:
        return "unpredicted"
    if p < low:
        return "too_hard"
    if p > high:
        return "too_easy"
    return None


def normalise_candidate(raw: Any, *, task_id: str) -> dict[str, Any] | None:
    """A writer's candidate as a task mapping, or None when it breaks the schema.

    Accepts WebGen-Bench's form (``instruction`` + ``ui_instruct`` of ``{task, expected_result, task_category}``)
    or vcoder's (``test_cases``), cases optionally structured with ``steps`` / ``expect``; at least one case.
    """
    from vcoder.gui.policy import CaseError, parse_cases

    if not isinstance(raw, Mapping):
        return None
    instruction = raw.get("instruction")
    if not isinstance(instruction, str) or len(instruction.split()) < 3:
        return None
    cases = raw.get("ui_instruct", raw.get("test_cases"))
    if not isinstance(cases, list) or not cases:
        return None
    try:
        parse_cases(cases)
    except (CaseError, TypeError, ValueError, AttributeError):
        return None
    return {
        "id": task_id,
        "kind": "llm",
        "source": "llm",
        "instruction": instruction.strip(),
        "test_cases": [dict(case) for case in cases],
        "seed": None,
    }


def filter_candidates(
    candidates: Sequence[dict[str, Any]],
    pool: Sequence[Mapping[str, Any]],
    predict: Callable[[list[dict[str, Any]]], Sequence[float | None]],
    *,
    low: float,
    high: float,
    n: int = 3,
    max_overlap: float = 0.6,
) -> tuple[list[dict[str, Any]], Counter, list[float | None]]:
    """Keep the candidates that are new and whose predicted success lies in the band.

    Args:
        candidates: normalised task mappings (schema already checked).
        pool: the current pool.
        predict: predicted success per task (in [0, 1] or None), called once on the candidates that are not dups.
        low, high: the band.
        n, max_overlap: the near-duplicate check (more than ``max_overlap`` of the n-grams in one earlier text).

    Returns:
        ``(accepted, rejected counts by reason, predictions of the accepted)``.
    """
    rejected: Counter = Counter()
    ids = {t["id"] for t in pool}
    texts = [t["instruction"] for t in pool if t.get("test_cases")]
    fresh = []
    for cand in candidates:
        dup = cand["id"] in ids
        if not dup and cand.get("source") == "llm":
            dup = any(ngram_overlap(cand["instruction"], t, n=n) > max_overlap for t in texts)
        if dup:
            rejected["duplicate"] += 1
            continue
        ids.add(cand["id"])
        if cand.get("test_cases"):
            texts.append(cand["instruction"])
        fresh.append(cand)
    predictions = list(predict(fresh)) if fresh else []
    if len(predictions) != len(fresh):
        raise RuntimeError(f"the predictor returned {len(predictions)} values for {len(fresh)} candidates")
    accepted, kept_p = [], []
    for cand, p in zip(fresh, predictions):
        reason = band_reason(p, low=low, high=high)
        if reason:
            rejected[reason] += 1
        else:
            accepted.append({**cand, "predicted_success": p})
            kept_p.append(p)
    return accepted, rejected, kept_p
