"""The scripted policy on the generated interactive pages: working pages pass, broken variants fail."""

from __future__ import annotations

import json

import pytest

from vcoder.agents.policy import Expectation, parse_cases
from vcoder.agents.runner import run_cases
from vcoder.agents.scripted import ScriptedPolicy, expectation_met
from vcoder.data.interactive import BROKEN, KINDS, broken_variants, generate, make_page

VARIANTS = [(kind, broken) for kind in KINDS for broken in broken_variants(kind)]


def test_pages_are_deterministic_and_their_cases_valid():
    for kind in KINDS:
        a, b, c = make_page(kind, 1), make_page(kind, 1), make_page(kind, 2)
        assert a == b and a["html"] != c["html"]
        assert len(parse_cases(a["test_cases"])) >= 3
        assert all(case.scriptable for case in parse_cases(a["test_cases"]))
    rows = list(generate(12, seed=5))
    assert [r["kind"] for r in rows[:6]] == list(KINDS) and len({r["html"] for r in rows}) == 12
    assert all(parse_cases(json.loads(r["test_cases"])) for r in rows)
    assert broken_variants("form") == BROKEN and "validation_missing" not in broken_variants("tabs")
    with pytest.raises(ValueError, match="does not apply"):
        make_page("tabs", broken="validation_missing")
    with pytest.raises(ValueError, match="unknown page kind"):
        make_page("carousel")


def test_expectation_semantics():
    assert expectation_met(Expectation("#a", "text", "Item  LEFT"), ["2 item\nleft"])
    assert not expectation_met(Expectation("#a", "text", "x"), [])  # nothing visible shows nothing
    assert expectation_met(Expectation("#a", "value", ""), "") and not expectation_met(
        Expectation("#a", "value", ""), None
    )
    assert expectation_met(Expectation("#a", "visible", False), False)
    assert expectation_met(Expectation("#a", "count", 0), 0) and not expectation_met(Expectation("#a", "count", 1), 2)


@pytest.mark.browser
@pytest.mark.timeout(180)
@pytest.mark.parametrize("kind", KINDS)
def test_working_pages_score_high(kind):
    page = make_page(kind, 3)
    results, score = run_cases(page["html"], page["test_cases"], policy=ScriptedPolicy())
    assert score >= 0.9, [(r.task, r.verdict, r.error, r.details) for r in results]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize(("kind", "broken"), VARIANTS)
def test_broken_variants_score_low(kind, broken):
    page = make_page(kind, 3, broken=broken)
    results, score = run_cases(page["html"], page["test_cases"], policy=ScriptedPolicy())
    assert score <= 0.2, [(r.task, r.verdict, r.error, r.details) for r in results]
