"""WebGen-Bench rows, accuracy arithmetic, summary, task loading and report (pure: no browser, no server)."""

from __future__ import annotations

import json

import pytest

from vcoder.eval.webgen_bench import load_tasks
from vcoder.eval.webgen_config import WebGenConfig
from vcoder.eval.webgen_report import render_report
from vcoder.eval.webgen_rows import INFRASTRUCTURE, appearance_grade, case_entry, is_scored, summarise, task_row
from vcoder.eval.webgen_task import folder_name
from vcoder.gui.policy import CaseResult, TestCase, Verdict

CASES = [TestCase("Open", "Menu shows", "Functional Testing"), TestCase("Read", "Price shows", "Data Display Testing")]


def entries(*verdicts: str, failed_build: str | None = None) -> list[dict]:
    results = [CaseResult(c.task, Verdict(v), 2, None, (f"answer: {v} because",)) for c, v in zip(CASES, verdicts)]
    return [case_entry(c, r, failed_build=failed_build) for c, r in zip(CASES, results)]


def test_a_row_counts_yes_one_partial_half():
    row = task_row("1", entries("YES", "PARTIAL"), appearance=3.5)
    assert row["accuracy"] == 0.75 and (row["yes"], row["partial"], row["no"]) == (1, 1, 0)
    assert [c["reason"] for c in row["cases"]] == ["because", "because"]
    assert [c["category"] for c in row["cases"]] == ["Functional Testing", "Data Display Testing"]
    assert is_scored(row) and row["appearance"] == 3.5 and row["built"]


def test_a_failed_build_counts_every_case_zero_whatever_was_answered():
    row = task_row("1", entries("YES", "YES", failed_build="no index.html"), built=False, error="build failed: x")
    assert row["accuracy"] == 0.0 and row["no"] == 2 and not row["built"]
    assert row["cases"][0]["reason"] == "build failed: no index.html; because"


def test_an_infrastructure_row_is_not_scored():
    row = task_row("1", [case_entry(c, None) for c in CASES], status=INFRASTRUCTURE, error="HTTP 500")
    assert row["accuracy"] is None and not is_scored(row) and row["cases"][0]["reason"] == "not run"
    with pytest.raises(ValueError, match="status must be"):
        task_row("1", [], status="done")


def test_summary_counts_cases_not_tasks_and_lists_what_is_missing():
    rows = {
        "a": task_row("a", entries("YES", "PARTIAL"), appearance=4.0),  # 1.5 of 2
        "b": task_row("b", entries("NO", "NO", failed_build="x"), appearance=0.0, built=False),  # 0 of 2
        "c": task_row("c", entries("YES"), appearance=None),  # 1 of 1, appearance not graded
        "d": task_row("d", [], status=INFRASTRUCTURE, error="HTTP 500"),
    }
    tasks = [("a", "Content"), ("b", "Content"), ("c", ""), ("d", "Tools"), ("e", "Tools")]
    s = summarise(rows, tasks)
    assert s["accuracy"] == pytest.approx(2.5 / 5) and s["task_accuracy"] == pytest.approx((0.75 + 0 + 1) / 3)
    assert s["appearance"] == 2.0 and s["appearance_n"] == 2
    assert (s["n"], s["n_scored"], s["complete"], s["cases"]) == (5, 3, False, 5)
    assert (s["yes"], s["partial"], s["no"]) == (2, 1, 2)
    assert s["failed_ids"] == ["b"] and s["missing_ids"] == ["d", "e"] and s["infrastructure"] == {"d": "HTTP 500"}
    assert s["by_category"] == {
        "(none)": {"tasks": 1, "cases": 1, "accuracy": 1.0},
        "Content": {"tasks": 2, "cases": 4, "accuracy": 0.375},
    }
    assert s["by_case_category"] == {
        "Data Display Testing": {"cases": 2, "accuracy": 0.25},
        "Functional Testing": {"cases": 3, "accuracy": 2 / 3},
    }


def test_appearance_grade_is_the_judges_0_to_5():
    assert appearance_grade(0.8) == 4.0 and appearance_grade(0.0) == 0.0 and appearance_grade(None) is None


def line(task_id: str, **extra) -> str:
    record = {"id": task_id, "instruction": "A page", "ui_instruct": [{"task": "Open it", "expected_result": "ok"}]}
    return json.dumps({**record, **extra})


def test_task_files_are_checked(tmp_path):
    path = tmp_path / "test.jsonl"
    path.write_text(line("1") + "\n" + line("2") + "\n")
    assert [r["id"] for r in load_tasks(path, ids=["2"])] == ["2"]
    with pytest.raises(ValueError, match="no task with id '3'"):
        load_tasks(path, ids=["3"])
    path.write_text(line("1") + "\n" + line("1") + "\n")
    with pytest.raises(ValueError, match="task id '1' appears twice"):
        load_tasks(path)
    path.write_text(line("1") + "\n{broken\n")
    with pytest.raises(ValueError, match="test.jsonl line 2 is not valid JSON"):
        load_tasks(path)


def test_settings_are_checked():
    base = {"base_url": "http://a", "model": "m", "gui_base_url": "http://b", "gui_model": "v"}
    with pytest.raises(ValueError, match="gui_step_limit must be in 1..15"):
        WebGenConfig(**base, gui_step_limit=16)
    with pytest.raises(ValueError, match="judge_base_url and judge_model go together"):
        WebGenConfig(**base, judge_base_url="http://c")
    assert WebGenConfig(**base).judge_endpoint == ("http://b", "v")
    assert WebGenConfig(**base, judge=False).fingerprint()["judge_model"] is None
    assert WebGenConfig(**base, max_turns=3).mode == "agent" and WebGenConfig(**base).mode == "one-shot"
    options = WebGenConfig(**base, gui_step_limit=7).case_options()
    assert (options.gui_step_limit, options.screenshot_weight, options.gui_weight) == (7, 0.0, 1.0)


def test_folder_names_are_safe_and_distinct():
    assert folder_name("000001") == "000001"
    assert folder_name("../x").startswith("_x-") and folder_name("a/b") != folder_name("a_b")
    assert "/" not in folder_name("a/b") and folder_name("..") != ".."


def test_report_shows_verdicts_and_reasons_and_escapes_model_text(tmp_path):
    row = task_row("1", entries("YES", "PARTIAL"), appearance=4.0, extra={"instruction": "A <b>page</b>"})
    s = summarise({"1": row}, [("1", "Content")])
    page = render_report([row], {**s, "model": "m", "max_turns": 1}, out=tmp_path)
    assert page.count('class="v YES"') == 1 and page.count('class="v PARTIAL"') == 1
    assert "because" in page and "75.0%" in page and "A &lt;b&gt;page&lt;/b&gt;" in page and "<b>page" not in page
    assert "no screenshot: the site did not render" in page
