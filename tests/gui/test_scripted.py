"""The scripted policy on the generated interactive pages: working pages pass, broken variants fail."""

from __future__ import annotations

import pytest

from vcoder.data.site_kinds.pages import KINDS, broken_variants, make_page
from vcoder.gui.imitation import static_imitation, strip_scripts
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


def _case(task: str, steps: list, expect: list) -> dict:
    return {"task": task, "expected_result": task, "steps": steps, "expect": expect}


CLICK_GO = [{"action": "click", "target": "#go"}]
GO = '<button id="go">Go</button><p id="out">idle</p>'


def test_a_case_without_steps_is_refused_with_the_reason():
    from vcoder.gui.policy import parse_cases

    (case,) = parse_cases([_case("Look", [], [{"target": "body", "text": "Hi"}])])
    assert "no 'steps'" in ScriptedPolicy().check_case(case)


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_only_what_the_steps_produced_counts():
    cases = [
        _case("Click Go", CLICK_GO, [{"target": "#out", "text": "done"}, {"target": "body", "text": "Laps: 11"}]),
        _case("Click Go", CLICK_GO, [{"target": "#go", "visible": True}]),
    ]
    page = GO + "<p>Laps: 11</p><script>go.onclick = () => out.textContent = 'done'</script>"
    results, score = run_cases(page, cases, policy=ScriptedPolicy())
    assert [r.verdict.value for r in results] == ["PARTIAL", "NO"] and score == 0.25, results
    assert results[0].details == ("met: #out text='done'", "held before any action: body text='Laps: 11'")
    assert "held before any action" in results[1].error
    # the expected text written statically scores nothing
    results, score = run_cases('<button id="go">Go</button><p id="out">done</p>', cases[:1], policy=ScriptedPolicy())
    assert score == 0.0, results


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_a_state_left_and_reached_again_counts_even_when_the_page_moves_asynchronously():
    # the route shows 300 ms after the hash changes, in real time (a first timer takes the pool's clock past its
    # fast-forward horizon): the read after the first step waits to see the page leave 'at a'
    page = (
        '<a id="a" href="#a">A</a> <a id="b" href="#b">B</a><p id="out">at a</p><script>setTimeout(() => 0, 1900);'
        "addEventListener('hashchange', () => { const at = location.hash.slice(1);"
        " setTimeout(() => out.textContent = 'at ' + at, 300); })</script>"
    )
    steps = [{"action": "click", "target": "#b"}, {"action": "click", "target": "#a"}]
    cases = [_case("B then A", steps, [{"target": "#out", "text": "at a"}])]
    results, score = run_cases(page, cases, policy=ScriptedPolicy())
    assert score == 1.0, results


@pytest.mark.browser
@pytest.mark.timeout(180)
@pytest.mark.parametrize("delay_ms", [1500, 2500])
def test_texts_a_timer_shows_by_itself_earn_nothing(delay_ms):
    # 1500 ms: the pool's clock fast-forwards it; 2500 ms: past the horizon, it runs in real time within the budget
    page = GO + f"<script>setTimeout(() => out.textContent = 'done', {delay_ms})</script>"
    results, score = run_cases(
        page,
        [_case("Click Go", CLICK_GO, [{"target": "#out", "text": "done"}])],
        policy=ScriptedPolicy(expect_timeout_ms=5000),
    )
    assert score == 0.0 and results[0].details == ("held before any action: #out text='done'",), results


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", KINDS)
def test_static_expected_texts_score_no_more_than_the_page_without_them(kind):
    page = make_page(kind, 3)
    scores = [
        run_cases(html, page["test_cases"], policy=ScriptedPolicy())[1]
        for html in (strip_scripts(page["html"]), static_imitation(page["html"], page["test_cases"]))
    ]
    assert scores[1] <= scores[0], scores
