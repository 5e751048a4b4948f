"""Per-sample results of an evaluation run: the append-only results.jsonl, resume, and the summary.

``results.jsonl`` is written one flushed line per sample, so an interrupted run loses nothing already scored and a
re-run skips what is there. When an id appears on several lines (a retried reference failure), the last one wins.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

BLOCK_METRICS = ("block_match", "text", "position", "color")
METRICS = (*BLOCK_METRICS, "clip")
FIELDS = ("id", *METRICS, "overall", "error")
#: how the errors of the rows that summaries count apart begin: a missing prediction (scored 0), and a reference
#: that could not be rendered (not the model's fault: left out of the means and retried by the next run)
MISSING_PREDICTION = "missing prediction"
REFERENCE_FAILED = "reference failed to render"


def overall(row: dict[str, Any], metrics: tuple[str, ...]) -> float | None:
    """Mean of ``metrics`` in ``row`` (None when any of them is None)."""
    values = [row.get(m) for m in metrics]
    if not values or any(v is None for v in values):
        return None
    return float(sum(values) / len(values))


def make_row(
    sample_id: str,
    scores: dict[str, float | None],
    *,
    metrics: tuple[str, ...],
    error: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One results.jsonl line: the contract's fields in order, then ``extra`` (n_ref, n_pred, note, ...).

    Args:
        sample_id: the sample's id (the file stem).
        scores: metric values by name; absent or None metrics are null in the row.
        metrics: the metrics ``overall`` averages (None when any of them is None).
        error: what went wrong with the sample, None when nothing did.
        extra: further fields after the contract's.
    """
    row: dict[str, Any] = {"id": sample_id}
    for m in METRICS:
        value = scores.get(m)
        row[m] = None if value is None else float(value)
    row["overall"] = overall(row, metrics)
    row["error"] = error
    row.update(extra or {})
    return row


def zero_row(
    sample_id: str, error: str, *, metrics: tuple[str, ...], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A prediction that is missing or cannot be rendered: 0 on every metric that is computed."""
    return make_row(sample_id, dict.fromkeys(metrics, 0.0), metrics=metrics, error=error, extra=extra)


def read_results(path: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """Rows of a results.jsonl by id (last line per id wins); a truncated last line (crash mid-write) is ignored."""
    rows: dict[str, dict[str, Any]] = {}
    p = Path(path)
    if not p.is_file():
        return rows
    with p.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and "id" in row:
                rows[str(row["id"])] = row
    return rows


def is_done(row: dict[str, Any]) -> bool:
    """Whether a stored row is final (reference failures are retried)."""
    return not str(row.get("error") or "").startswith(REFERENCE_FAILED)


class ResultsWriter:
    """Appends rows to results.jsonl, one flushed and fsynced line per sample.

    Args:
        path: the results.jsonl file.
        overwrite: start a fresh file instead of appending.
    """

    def __init__(self, path: str | os.PathLike, *, overwrite: bool = False):
        self.path = Path(path)
        if not overwrite and self.path.is_file() and self.path.stat().st_size:
            with self.path.open("rb") as fh:  # a crash may have left a partial last line: start on a new one
                fh.seek(-1, os.SEEK_END)
                needs_newline = fh.read(1) != b"\n"
        else:
            needs_newline = False
        self._fh = self.path.open("w" if overwrite else "a", encoding="utf-8")
        if needs_newline:
            self._fh.write("\n")

    def write(self, row: dict[str, Any]) -> None:
        self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def summarise(rows: dict[str, dict[str, Any]], ids: list[str], *, metrics: tuple[str, ...]) -> dict[str, Any]:
    """The run's summary over ``ids`` (the testset): means, counts, and the ids that were missing or failed.

    Missing and failed predictions are in the means as zeros; samples whose reference could not be rendered (or
    that have no row yet) are left out of the means and listed.

    Returns:
        ``{"n", "missing", "failed", <metric means>, "overall", "overall_of", "missing_ids", "failed_ids",
        "reference_failed_ids", "not_scored_ids"}``; a metric's mean is None when no sample has it.
    """
    scored, missing, failed, ref_failed, not_scored = [], [], [], [], []
    for sample_id in ids:
        row = rows.get(sample_id)
        if row is None:
            not_scored.append(sample_id)
            continue
        error = str(row.get("error") or "")
        if error.startswith(REFERENCE_FAILED):
            ref_failed.append(sample_id)
            continue
        if error.startswith(MISSING_PREDICTION):
            missing.append(sample_id)
        elif error:
            failed.append(sample_id)
        scored.append(row)
    summary: dict[str, Any] = {"n": len(ids), "missing": len(missing), "failed": len(failed)}
    for m in (*METRICS, "overall"):
        values = [r[m] for r in scored if r.get(m) is not None and math.isfinite(r[m])]
        summary[m] = float(sum(values) / len(values)) if values else None
    summary.update(
        overall_of=list(metrics),
        n_scored=len(scored),
        missing_ids=missing,
        failed_ids=failed,
        reference_failed_ids=ref_failed,
        not_scored_ids=not_scored,
    )
    return summary
