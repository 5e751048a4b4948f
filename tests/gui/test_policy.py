"""The test-case schema, verdicts and scores (pure, no browser)."""

from __future__ import annotations

import json

import pytest

from vcoder.gui.policy import CaseError, CaseResult, TestCase, Verdict, mean_score, parse_cases

GOOD = {
    "task": "Add a todo",
    "expected_result": "The todo appears",
    "task_category": "Functional Testing",
    "steps": [{"action": "type", "target": "#new", "value": "milk"}, {"action": "click", "target": "text=Add"}],
    "expect": [
        {"target": "li", "count": 1},
        {"target": "#list", "text": "milk"},
        {"target": "#new", "value": ""},
        {"target": "#empty", "visible": False},
    ],
}


def test_case_round_trips_through_json():
    case = TestCase.from_dict(GOOD, 0)
    assert [s.action for s in case.steps] == ["type", "click"]
    assert [(e.kind, e.expected) for e in case.expect] == [
        ("count", 1),
        ("text", "milk"),
        ("value", ""),
        ("visible", False),
    ]
    assert TestCase.from_dict(json.loads(json.dumps(case.to_dict()))) == case
    assert case.scriptable


def test_natural_language_case_needs_only_a_task():
    case = TestCase.from_dict({"task": "Check the menu opens", "expected_result": "menu shows"})
    assert case.steps == () and case.expect == () and not case.scriptable


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ({"expected_result": "x"}, "'task'"),
        ({"task": "t", "steps": [{"action": "hover", "target": "#a"}]}, "step 0: 'action' must be one of"),
        ({"task": "t", "steps": [{"action": "click"}]}, "needs a 'target'"),
        ({"task": "t", "steps": [{"action": "type", "target": "#a"}]}, "needs a 'value'"),
        ({"task": "t", "expect": [{"target": "#a"}]}, "expect 0: give exactly one of"),
        ({"task": "t", "expect": [{"target": "#a", "text": "x", "count": 1}]}, "exactly one"),
        ({"task": "t", "expect": [{"target": "#a", "count": -1}]}, "non-negative"),
        ({"task": "t", "expect": [{"target": "#a", "visible": "yes"}]}, "true or false"),
        ({"task": "t", "steps": "click"}, "'steps' must be a list"),
        ("just text", "expected an object"),
    ],
)
def test_bad_cases_name_the_index_and_problem(bad, fragment):
    with pytest.raises(CaseError) as info:
        parse_cases([GOOD, bad])
    assert "case 1" in str(info.value) and fragment in str(info.value)


def test_parse_cases_accepts_json_strings_and_rejects_bad_json():
    assert len(parse_cases(json.dumps([GOOD, GOOD]))) == 2
    with pytest.raises(CaseError, match="not valid JSON"):
        parse_cases("[{")
    with pytest.raises(CaseError, match="must be a list"):
        parse_cases(3)


def test_verdict_scores_and_mean():
    assert [v.score for v in Verdict] == [1.0, 0.5, 0.0]
    assert Verdict.parse(" yes. ") is Verdict.YES and Verdict.parse("**Partial**") is Verdict.PARTIAL
    assert Verdict.parse("Failed.") is Verdict.NO and Verdict.parse(True) is Verdict.YES
    assert Verdict.parse("maybe") is None and Verdict.parse(3) is None
    results = [CaseResult("a", Verdict.YES), CaseResult("b", Verdict.PARTIAL), CaseResult("c", Verdict.NO, 2, "x")]
    assert mean_score(results) == pytest.approx(0.5)
    assert mean_score([]) == 0.0
    assert results[2].to_dict() == {"task": "c", "verdict": "NO", "steps_taken": 2, "error": "x"}


def test_none_fields_count_as_absent():
    # Arrow-backed datasets fill every struct field of a column: missing keys come back as None
    case = TestCase.from_dict(
        {
            "task": "t",
            "steps": [{"action": "click", "target": "#a", "value": None}],
            "expect": [{"target": "#a", "text": None, "value": None, "visible": True, "count": None}],
        }
    )
    assert case.steps[0].value is None and (case.expect[0].kind, case.expect[0].expected) == ("visible", True)
