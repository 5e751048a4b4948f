"""The verdict log's records: one JSON line per graded site, appended by whoever grades (GUI agent, judge, evaluators).

WebRL (Qi et al., 2024) trains its outcome reward model on the outcomes its own runs produced; vcoder keeps those
outcomes as an append-only JSONL file that the GUI-agent reward, the judge and the evaluators write to when given a
path, and that ``vcoder orm train`` reads. A line holds what the ORM needs to see (the instruction, the test cases,
the site or its hash and folder, a screenshot, what the agent did and saw per case) and what it must predict (the
per-case verdicts and the score).

This module holds the records and their validation; :mod:`vcoder.verdicts.log` appends them to the file
(safe with several writers) and reads them back.

Example:
    >>> import tempfile, os
    >>> from vcoder.verdicts.log import VerdictLog, read_verdicts
    >>> path = os.path.join(tempfile.mkdtemp(), "verdicts.jsonl")
    >>> rec = VerdictRecord(task_id="counter-1", instruction="A counter", site_hash=site_hash({"index.html": "<p>"}),
    ...                     site_files={"index.html": "<p>"}, cases=(CaseVerdict("Click +", "YES"),), score=1.0,
    ...                     source="gui_agent")
    >>> VerdictLog(path).append(rec)
    >>> [r.task_id for r in read_verdicts(path)]
    ['counter-1']
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
VERDICTS = ("YES", "PARTIAL", "NO")
#: a reason or observation longer than this is cut (the log stays compact; the ORM prompt is shorter still)
MAX_TEXT = 600


class VerdictLogError(ValueError):
    """A verdict log (or record) that cannot be used; the message names the file, line and field."""


@dataclass(frozen=True)
class CaseVerdict:
    """One test case's outcome, with what the agent did and saw, in brief.

    Attributes:
        task: the case's task text.
        verdict: ``YES`` / ``PARTIAL`` / ``NO``.
        reason: the agent's reason (its error, unmet expectations, its final answer); None when it gave none.
        trace: the actions taken, one short line each (``click #inc``, ``step 2 failed: ...``).
        observed: what the page showed afterwards, in brief (e.g. the visible text that changed); None if unknown.
    """

    task: str
    verdict: str
    reason: str | None = None
    trace: tuple[str, ...] = ()
    observed: str | None = None

    @property
    def score(self) -> float:
        """YES 1, PARTIAL 0.5, NO 0 (WebGen-Bench)."""
        return {"YES": 1.0, "PARTIAL": 0.5, "NO": 0.0}[self.verdict]


@dataclass(frozen=True)
class VerdictRecord:
    """One graded site: one line of the verdict log.

    Attributes:
        task_id: the task's id; several records (variants, seeds, training steps) may share it, and held-out
            splits are made by it.
        instruction: what the site was asked to do.
        site_hash: ``site_hash(files)`` of the site's files.
        test_cases: the case dicts (``TestCase.to_dict`` form); empty for a judge verdict without cases.
        site_dir: folder holding the site's files (``entry`` inside it); absolute or relative to the log's folder.
        site_files: the files inline, ``{relative path: text}`` (for single pages: ``{"index.html": html}``).
        entry: the page to open, relative to the site.
        screenshot: PNG of the site as rendered; absolute or relative to the log's folder; None if none was kept.
        page_text: the rendered site's visible text blocks in document order (``Layout.text_blocks``); None if
            not recorded (a reader may render the site to get them).
        cases: per-case verdicts.
        score: the site's score in [0, 1] (mean case score for the GUI agent; the grade for a judge).
        source: who graded: ``gui_agent``, ``judge``, ``eval``, ...
        time: ISO 8601 time of the verdict (UTC).
        history: the turns of a site-building episode, in brief, oldest first (empty for single pages).
        meta: free-form details (page kind, broken variant, seed, policy name, ...).
    """

    task_id: str
    instruction: str
    site_hash: str
    score: float
    source: str
    test_cases: tuple[dict[str, Any], ...] = ()
    site_dir: str | None = None
    site_files: dict[str, str] | None = None
    entry: str = "index.html"
    screenshot: str | None = None
    page_text: tuple[str, ...] | None = None
    cases: tuple[CaseVerdict, ...] = ()
    time: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    history: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        validate(self.to_dict(), where="VerdictRecord")

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of one log line (``version`` first; tuples become lists)."""
        return json.loads(json.dumps({"version": SCHEMA_VERSION, **dataclasses.asdict(self)}))

    @staticmethod
    def from_dict(data: Any, *, where: str = "record") -> VerdictRecord:
        """Validate a decoded line and build the record; ``VerdictLogError`` names ``where`` and the wrong field."""
        validate(data, where=where)
        known = {f.name for f in dataclasses.fields(VerdictRecord)}
        values = {k: v for k, v in data.items() if k in known and v is not None}
        cases = tuple(
            CaseVerdict(c["task"], c["verdict"], c.get("reason"), tuple(c.get("trace") or ()), c.get("observed"))
            for c in data.get("cases") or ()
        )
        tuples = {k: tuple(values[k]) for k in ("test_cases", "history", "page_text") if k in values}
        return VerdictRecord(**{**values, **tuples, "cases": cases, "score": float(data["score"])})

    def site_html(self, base: str | Path | None = None) -> str | None:
        """The entry page's HTML: inline, or read from ``site_dir`` (resolved against ``base``); None if gone."""
        if self.site_files and self.entry in self.site_files:
            return self.site_files[self.entry]
        if self.site_dir is None:
            return None
        path = resolve(self.site_dir, base) / self.entry
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def case_verdict(case: Any, result: Any, *, observed: str | None = None) -> CaseVerdict:
    """A ``CaseVerdict`` from a ``TestCase`` and the ``CaseResult`` a policy returned for it.

    The trace lists the case's structured steps up to the one that failed (``"step 2: ..."`` errors of the scripted
    policy), then that failure; the reason is the result's error and details.
    """
    error = result.error or ""
    head = error.split(":", 1)[0]
    failed = int(head[5:]) if head.startswith("step ") and head[5:].isdigit() else None
    steps = case.steps if failed is None else case.steps[: failed + 1]
    trace = [short(f"{s.action} {s.target or ''} {'' if s.value is None else repr(s.value)}", 80) for s in steps]
    if failed is not None:
        trace.append(short(f"step {failed} failed: {error.split(':', 1)[1]}", 160))
    reason = "; ".join(x for x in (error, *result.details) if x) or None
    return CaseVerdict(case.task, result.verdict.value, short(reason), tuple(trace), short(observed))


def site_hash(files: dict[str, str]) -> str:
    """``sha256:<hex>`` over the site's files (sorted paths and contents): equal sites, equal hashes."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode("utf-8") + b"\0" + files[name].encode("utf-8", "replace") + b"\0")
    return "sha256:" + digest.hexdigest()


def resolve(path: str, base: str | Path | None) -> Path:
    """A record's path (site folder, screenshot): absolute as is, relative against ``base`` (the log's folder)."""
    p = Path(path)
    return p if p.is_absolute() or base is None else Path(base) / p


def short(text: Any, limit: int = MAX_TEXT) -> str | None:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis; None stays None."""
    if text is None:
        return None
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_KINDS = {"str": (str,), "num": (int, float), "dict": (dict,), "list": (list,)}
_WANT = {"str": "a string", "num": "a number in [0, 1]", "dict": "an object", "list": "a list"}
# field -> (kind, required); required strings must also be non-empty
_FIELDS = {
    **{name: ("str", True) for name in ("task_id", "instruction", "site_hash", "source", "time")},
    "score": ("num", True),
    **{name: ("str", False) for name in ("site_dir", "entry", "screenshot")},
    **{name: ("dict", False) for name in ("site_files", "meta")},
    **{name: ("list", False) for name in ("test_cases", "history", "cases", "page_text")},
}
_CASE_FIELDS = {"task": ("str", True), "reason": ("str", False), "observed": ("str", False), "trace": ("list", False)}


def _bad(where: str, name: str, want: str, value: Any) -> VerdictLogError:
    return VerdictLogError(f"{where}: field {name!r} must be {want}, got {value!r:.80}")


def _fields(data: dict, spec: dict, where: str) -> None:
    for name, (kind, required) in spec.items():
        value = data.get(name)
        if value is None and required:
            raise VerdictLogError(f"{where}: field {name!r} is missing (it must be {_WANT[kind]})")
        if value is not None and (isinstance(value, bool) or not isinstance(value, _KINDS[kind]) or value == ""):
            raise _bad(where, name, _WANT[kind], value)


def _strings(value: Any) -> bool:
    return all(isinstance(v, str) for v in value)


def validate(data: Any, *, where: str) -> None:
    """Check one decoded log line against the schema; raise ``VerdictLogError`` naming the first wrong field."""
    if not isinstance(data, dict):
        raise VerdictLogError(f"{where}: a verdict line must be a JSON object, got {type(data).__name__}")
    if data.get("version", SCHEMA_VERSION) != SCHEMA_VERSION:
        raise _bad(where, "version", f"{SCHEMA_VERSION} (the schema this vcoder reads)", data["version"])
    _fields(data, _FIELDS, where)
    try:
        _dt.datetime.fromisoformat(data["time"])
    except ValueError:
        raise _bad(where, "time", "an ISO 8601 time like 2025-01-31T12:00:00+00:00", data["time"]) from None
    if not math.isfinite(data["score"]) or not 0.0 <= data["score"] <= 1.0:
        raise _bad(where, "score", "a number in [0, 1]", data["score"])
    files = data.get("site_files")
    if files is not None and not (_strings(files) and _strings(files.values())):
        raise _bad(where, "site_files", "an object of {path: text} strings", files)
    if data.get("site_dir") is None and not files:
        raise VerdictLogError(f"{where}: field 'site_files' (inline files) or 'site_dir' (a folder) is missing")
    for name in ("history", "page_text"):
        if not _strings(data.get(name) or ()):
            raise _bad(where, name, "a list of strings", data[name])
    for i, case in enumerate(data.get("test_cases") or ()):
        if not isinstance(case, dict) or not isinstance(case.get("task"), str):
            raise _bad(where, f"test_cases[{i}]", "a case object with a 'task' string", case)
    for i, case in enumerate(data.get("cases") or ()):
        if not isinstance(case, dict):
            raise _bad(where, f"cases[{i}]", "an object {task, verdict, reason, trace, observed}", case)
        _fields(case, _CASE_FIELDS, f"{where}: cases[{i}]")
        if case.get("verdict") not in VERDICTS:
            raise _bad(where, f"cases[{i}].verdict", f"one of {', '.join(VERDICTS)}", case.get("verdict"))
        if not _strings(case.get("trace") or ()):
            raise _bad(where, f"cases[{i}].trace", "a list of strings", case["trace"])
