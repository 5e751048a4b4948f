"""`vcoder agent test` through the real CLI in a subprocess: JSON shape, verdicts, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PAGES = Path(__file__).parents[1] / "gui" / "pages"


def agent_test(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vcoder", "agent", "test", *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_json_result_for_a_working_page():
    proc = agent_test(str(PAGES / "todo.html"), "--cases", str(PAGES / "todo_cases.json"), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"cases", "score"} and out["score"] == 1.0
    assert len(out["cases"]) == 5
    assert [case["steps_taken"] for case in out["cases"]] == [2, 2, 1, 1, 4]  # every step of every case ran
    for case in out["cases"]:
        assert set(case) == {"task", "verdict", "steps_taken", "error"}
        assert case["verdict"] == "YES" and case["error"] is None


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_hanging_handler_and_navigation_away_are_contained():
    proc = agent_test(
        str(PAGES / "spin.html"), "--cases", str(PAGES / "spin_cases.json"), "--json", "--action-timeout-ms", "1000"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    verdicts = [(c["verdict"], (c["error"] or "").split(":")[:2]) for c in out["cases"]]
    assert verdicts[0] == ("NO", ["step 0", " page hung"])
    assert verdicts[1] == ("NO", ["step 0", " navigated away"])
    assert verdicts[2] == ("YES", [""])
    assert out["score"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("page", "cases", "extra", "message"),
    [
        ("missing.html", None, [], "no such page"),
        ("todo.html", "[{", [], "not valid JSON"),
        (
            "todo.html",
            json.dumps(
                [
                    {"task": "a", "expect": [{"target": "h1", "text": "x"}]},
                    {"task": "b", "steps": [{"action": "hover"}]},
                ]
            ),
            [],
            "case 1",
        ),
        ("todo.html", json.dumps([{"task": "look at it"}]), [], "case 0 ('look at it'): the case has no 'expect'"),
        (
            "todo.html",
            json.dumps([{"task": "look at it", "expect": [{"target": "h1", "text": "Todo"}]}]),
            [],
            "case 0 ('look at it'): the case has no 'steps'",
        ),
        ("todo.html", json.dumps([{"task": "look at it"}]), ["--policy", "vlm"], "--policy vlm needs --base-url"),
        ("todo.html", json.dumps([]), [], "non-empty JSON list"),
    ],
)
def test_usage_errors_exit_2_with_the_problem(tmp_path, page, cases, extra, message):
    cases_path = tmp_path / "cases.json"
    if cases is not None:
        cases_path.write_text(cases)
    proc = agent_test(str(PAGES / page), "--cases", str(cases_path), "--json", *extra, timeout=60)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr and proc.stdout == ""
