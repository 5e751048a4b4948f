"""The verdict log: records round-trip, appends from many threads stay whole, bad lines are named precisely."""

from __future__ import annotations

import json
import threading

import pytest

from vcoder.gui.policy import CaseResult, TestCase, Verdict
from vcoder.verdicts.log import VerdictLog, read_verdicts
from vcoder.verdicts.records import (
    CaseVerdict,
    VerdictLogError,
    VerdictRecord,
    case_verdict,
    site_hash,
)


def record(i: int = 0, **over) -> VerdictRecord:
    files = {"index.html": f"<button id='b{i}'>Go</button>"}
    fields = dict(
        task_id=f"task-{i % 3}",
        instruction="A page with a Go button",
        site_hash=site_hash(files),
        site_files=files,
        score=0.5,
        source="gui_agent",
        test_cases=({"task": "Click Go", "expected_result": "It says done"},),
        cases=(CaseVerdict("Click Go", "PARTIAL", "1 of 2 expectations unmet", ("click #go",), 'shows "done"'),),
        screenshot="screens/x.png",
        page_text=("Go",),
        meta={"kind": "demo", "i": i},
    )
    return VerdictRecord(**{**fields, **over})


def good_line(**over) -> str:
    data = record().to_dict()
    data.update(over)
    return json.dumps(data)


def test_a_record_round_trips_through_the_log(tmp_path):
    log = VerdictLog(tmp_path / "sub" / "verdicts.jsonl")
    original = record(7)
    log.append(original)
    (back,) = read_verdicts(log.path)
    assert back == original
    assert back.cases[0].score == 0.5 and back.site_html() == "<button id='b7'>Go</button>"
    assert back.to_dict()["version"] == 1 and list(back.to_dict())[:3] == ["version", "task_id", "instruction"]


def test_site_hash_depends_on_names_and_contents_only():
    assert site_hash({"a.html": "x", "b.css": "y"}) == site_hash({"b.css": "y", "a.html": "x"})
    assert site_hash({"a.html": "x"}) != site_hash({"a.html": "y"}) != site_hash({"b.html": "x"})
    assert site_hash({"a": "x"}).startswith("sha256:") and len(site_hash({"a": "x"})) == 7 + 64


def test_many_threads_and_logs_append_whole_lines(tmp_path):
    path = tmp_path / "verdicts.jsonl"
    # two VerdictLog objects on one file, four threads each: the per-file lock serialises them all
    logs = [VerdictLog(path), VerdictLog(str(path))]
    big = "x" * 20_000  # lines far larger than a pipe buffer, so an unlocked write could interleave

    def write(t: int) -> None:
        for i in range(25):
            logs[t % 2].append(record(t * 100 + i, instruction=big))

    threads = [threading.Thread(target=write, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records = read_verdicts(path)
    assert len(records) == 200
    assert sorted(r.meta["i"] for r in records) == sorted(t * 100 + i for t in range(8) for i in range(25))


def test_a_torn_last_line_is_skipped_by_the_reader_and_cut_by_the_next_writer(tmp_path, caplog):
    path = tmp_path / "verdicts.jsonl"
    log = VerdictLog(path)
    log.append(record(1))
    with open(path, "a") as handle:
        handle.write(good_line()[:50])  # a writer died mid-line
    assert [r.meta["i"] for r in read_verdicts(path)] == [1]
    assert "torn last line" in caplog.text
    log.append(record(2))
    assert [r.meta["i"] for r in read_verdicts(path)] == [1, 2]
    assert path.read_text().count("\n") == 2


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            json.dumps({k: v for k, v in record().to_dict().items() if k != "instruction"}),
            "field 'instruction' is missing",
        ),
        (good_line(score="0.5"), "field 'score' must be a number in [0, 1], got '0.5'"),
        (good_line(score=1.5), "field 'score' must be a number in [0, 1], got 1.5"),
        (good_line(score=True), "field 'score' must be a number"),
        (good_line(task_id=""), "field 'task_id' must be a string"),
        (good_line(time="yesterday"), "field 'time' must be an ISO 8601 time"),
        (good_line(site_files=None, site_dir=None), "'site_files' (inline files) or 'site_dir' (a folder) is missing"),
        (good_line(site_files={"index.html": 3}), "field 'site_files' must be an object of {path: text} strings"),
        (
            good_line(cases=[{"task": "t", "verdict": "MAYBE"}]),
            "field 'cases[0].verdict' must be one of YES, PARTIAL, NO",
        ),
        (good_line(cases=[{"verdict": "YES"}]), "cases[0]: field 'task' is missing"),
        (good_line(cases=[{"task": "t", "verdict": "NO", "trace": [1]}]), "field 'cases[0].trace' must be a list"),
        (good_line(test_cases=[{"steps": []}]), "field 'test_cases[0]' must be a case object with a 'task' string"),
        (good_line(history="turn 1"), "field 'history' must be a list"),
        (good_line(version=2), "field 'version' must be 1"),
        ("[1, 2]", "a verdict line must be a JSON object, got list"),
        ("{not json", "not a JSON object"),
    ],
    ids=lambda value: value if len(value) < 80 else "line",  # the lines hold the time; ids must not (pytest-xdist)
)
def test_a_bad_line_is_named_by_line_and_field(tmp_path, line, message):
    path = tmp_path / "verdicts.jsonl"
    path.write_text(good_line() + "\n\n" + line + "\n" + good_line() + "\n")
    with pytest.raises(VerdictLogError) as info:
        read_verdicts(path)
    assert f"{path}:3: " in str(info.value)
    assert message in str(info.value)


def test_missing_and_empty_logs(tmp_path):
    with pytest.raises(VerdictLogError, match="does not exist; create one with `vcoder orm collect`"):
        read_verdicts(tmp_path / "none.jsonl")
    (tmp_path / "empty.jsonl").write_text("")
    assert read_verdicts(tmp_path / "empty.jsonl") == []


def test_a_bad_record_is_refused_when_built():
    with pytest.raises(VerdictLogError, match="VerdictRecord: field 'score' must be a number in"):
        record(score=-0.1)


def test_case_verdict_keeps_the_steps_up_to_the_failure():
    case = TestCase.from_dict(
        {
            "task": "Fill and send",
            "steps": [
                {"action": "type", "target": "#email", "value": "a@b.c"},
                {"action": "click", "target": "#send"},
                {"action": "click", "target": "#close"},
            ],
            "expect": [{"target": "#out", "text": "Sent"}],
        }
    )
    failed = CaseResult("Fill and send", Verdict.NO, 2, "step 1: click '#send' failed: Timeout 3000ms exceeded")
    v = case_verdict(case, failed, observed="no visible change")
    assert v.trace == (
        "type #email 'a@b.c'",
        "click #send",
        "step 1 failed: click '#send' failed: Timeout 3000ms exceeded",
    )
    assert v.verdict == "NO" and v.observed == "no visible change" and v.reason.startswith("step 1: click")
    passed = CaseResult("Fill and send", Verdict.YES, 3, None, ("met: #out text='Sent'",))
    v = case_verdict(case, passed)
    assert v.trace == ("type #email 'a@b.c'", "click #send", "click #close")
    assert v.reason == "met: #out text='Sent'" and v.observed is None
