"""run_cases on real hermetic Chromium pages: a fresh page per case, load failures, the WebGen-Bench score."""

from __future__ import annotations

import pytest

from tests.gui.probe import PAGE
from vcoder.gui.policy import Verdict
from vcoder.gui.runner import run_cases
from vcoder.gui.scripted import ScriptedPolicy
from vcoder.rendering.spec import RenderSpec

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_each_case_gets_a_fresh_page():
    # every case loads the page anew: DOM state (a reused page would already say 'bought 1', which earns nothing when
    # it holds before the click) and localStorage (the visit count) from one case never reach the next
    counter = PAGE.replace('<p id="out">none</p>', '<p id="out">none</p><p id="visits"></p>').replace(
        "</script>",
        "document.getElementById('buy').addEventListener('click', () => document.getElementById('visits')"
        ".textContent = 'visits ' + localStorage.getItem('visits'));</script>",
    )
    buy = {
        "steps": [{"action": "click", "target": "#buy"}],
        "expect": [{"target": "#out", "text": "bought 1"}, {"target": "#visits", "text": "visits 1"}],
    }
    results, _ = run_cases(counter, [{"task": f"visit {i}", **buy} for i in range(3)], policy=ScriptedPolicy())
    assert [r.verdict for r in results] == [Verdict.YES] * 3, results


def test_a_page_that_never_loads_scores_no_on_every_case():
    stuck = "<html><body><script>while (true) {}</script></body></html>"
    cases = [
        {"task": "a", "steps": [{"action": "click", "target": "body"}], "expect": [{"target": "body", "count": 1}]},
        {"task": "b", "steps": [{"action": "click", "target": "body"}], "expect": [{"target": "p", "count": 0}]},
    ]
    results, score = run_cases(stuck, cases, policy=ScriptedPolicy(), render=RenderSpec(timeout_ms=1500))
    # the pool either gives up on the load, or hands over a page whose main thread never answers: NO either way
    assert score == 0.0
    assert all(r.verdict is Verdict.NO and r.error.startswith(("load:", "page hung")) for r in results)
