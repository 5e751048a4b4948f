"""results.jsonl rows, resume and the summary: the CLI contract's fields, and who counts in the means."""

from __future__ import annotations

import json

import pytest

from vcoder.eval.results import (
    BLOCK_METRICS,
    FIELDS,
    METRICS,
    ResultsWriter,
    is_done,
    make_row,
    read_results,
    summarise,
    zero_row,
)


def test_rows_follow_the_contract():
    assert FIELDS == ("id", "block_match", "text", "position", "color", "clip", "overall", "error")
    assert METRICS == (*BLOCK_METRICS, "clip")
    row = make_row(
        "2",
        {"block_match": 1, "text": 0.5, "position": 0.25, "color": 0.25},
        metrics=BLOCK_METRICS,
        extra={"n_ref": 3},
    )
    assert row == {
        "id": "2",
        "block_match": 1.0,
        "text": 0.5,
        "position": 0.25,
        "color": 0.25,
        "clip": None,
        "overall": 0.5,
        "error": None,
        "n_ref": 3,
    }
    assert make_row("2", {"block_match": 1.0}, metrics=BLOCK_METRICS)["overall"] is None  # a metric is missing
    zero = zero_row("3", "missing prediction", metrics=METRICS)
    assert [zero[m] for m in (*METRICS, "overall")] == [0.0] * 6 and zero["error"] == "missing prediction"


def test_writer_appends_and_reader_keeps_the_last_line_per_id(tmp_path):
    path = tmp_path / "results.jsonl"
    with ResultsWriter(path) as writer:
        writer.write(make_row("1", {}, metrics=BLOCK_METRICS, error="reference failed to render: timeout"))
        writer.write(zero_row("2", "missing prediction", metrics=BLOCK_METRICS))
    with path.open("a") as fh:
        fh.write('{"id": "3", "block')  # a crash mid-line
    with ResultsWriter(path) as writer:  # resumes on a new line
        writer.write(zero_row("1", "prediction failed to render: x", metrics=BLOCK_METRICS))
    rows = read_results(path)
    assert list(rows) == ["1", "2"] and rows["1"]["error"] == "prediction failed to render: x"
    assert len(path.read_text().splitlines()) == 4
    assert not is_done(json.loads(path.read_text().splitlines()[0])) and is_done(rows["1"]) and is_done(rows["2"])
    with ResultsWriter(path, overwrite=True) as writer:
        writer.write(zero_row("9", "missing prediction", metrics=BLOCK_METRICS))
    assert list(read_results(path)) == ["9"] and read_results(tmp_path / "none.jsonl") == {}


def test_summary_counts_missing_and_failed_as_zero_and_leaves_reference_failures_out():
    rows = {
        "1": make_row("1", dict.fromkeys(BLOCK_METRICS, 1.0), metrics=BLOCK_METRICS),
        "2": zero_row("2", "missing prediction", metrics=BLOCK_METRICS),
        "3": zero_row("3", "prediction failed to render: timeout", metrics=BLOCK_METRICS),
        "4": make_row("4", {}, metrics=BLOCK_METRICS, error="reference failed to render: crashed"),
    }
    summary = summarise(rows, ["1", "2", "3", "4", "5"], metrics=BLOCK_METRICS)
    assert summary == {
        "n": 5,
        "missing": 1,
        "failed": 1,
        **dict.fromkeys(BLOCK_METRICS, pytest.approx(1 / 3)),
        "clip": None,
        "overall": pytest.approx(1 / 3),
        "overall_of": list(BLOCK_METRICS),
        "n_scored": 3,
        "missing_ids": ["2"],
        "failed_ids": ["3"],
        "reference_failed_ids": ["4"],
        "not_scored_ids": ["5"],
    }
