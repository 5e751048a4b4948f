"""The scripted policy on the generated interactive pages: working pages pass, broken variants fail."""

from __future__ import annotations

import pytest

from vcoder.data.interactive import KINDS, broken_variants, make_page
from vcoder.gui.policy import Expectation
from vcoder.gui.runner import run_cases
from vcoder.gui.scripted import ScriptedPolicy, expectation_met

VARIANTS = [(kind, broken) for kind in KINDS for broken in broken_variants(kind)]


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
    assert score == 1.0, [(r.task, r.verdict, r.error, r.details) for r in results]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize(("kind", "broken"), VARIANTS)
def test_broken_variants_score_low(kind, broken):
    page = make_page(kind, 3, broken=broken)
    results, score = run_cases(page["html"], page["test_cases"], policy=ScriptedPolicy())
    assert score <= 0.2, [(r.task, r.verdict, r.error, r.details) for r in results]
