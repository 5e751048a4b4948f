"""PageGuard's containment on real hermetic Chromium pages: hung pages, navigation away, the episode deadline."""

from __future__ import annotations

import concurrent.futures

import pytest

from tests.gui.probe import PAGE, run_probe
from vcoder.gui.env import GuiEnv
from vcoder.gui.guard import PageGuard
from vcoder.gui.policy import Verdict
from vcoder.gui.runner import run_cases
from vcoder.gui.scripted import ScriptedPolicy
from vcoder.rendering import BrowserPool

SPIN = {
    "task": "spin",
    "steps": [{"action": "click", "target": "#spin"}],
    "expect": [{"target": "#out", "text": "x"}],
}
BUY = {
    "task": "buy",
    "steps": [{"action": "click", "target": "#buy"}],
    "expect": [{"target": "#out", "text": "bought"}],
}


def test_bounds_are_checked_before_the_page_is_touched():
    with pytest.raises(ValueError, match="must be > 0, got 0, 3000"):
        PageGuard(None, deadline_ms=0, action_timeout_ms=3000)
    with pytest.raises(ValueError, match="step_limit=0 must be a positive integer"):
        GuiEnv(None, step_limit=0)


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_infinite_loop_in_a_click_handler_is_contained_and_the_pool_recovers():
    results, score = run_cases(PAGE, [SPIN, BUY], policy=ScriptedPolicy(), action_timeout_ms=1000, deadline_ms=10_000)
    assert results[0].verdict is Verdict.NO and results[0].error.startswith("step 0: page hung: the page stopped")
    assert results[0].steps_taken == 1
    assert results[1].verdict is Verdict.YES and results[1].error is None and score == 0.5
    # the hung tab was replaced: the next page on the same pool works
    results, score = run_cases(PAGE, [BUY, BUY], policy=ScriptedPolicy())
    assert score == 1.0


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_navigation_away_is_contained_and_scored_no():
    leave = {
        "task": "leave",
        "steps": [{"action": "click", "target": "#away"}],
        "expect": [{"target": "h1", "text": "Shop"}],
    }
    (result,), score = run_cases(PAGE, [leave], policy=ScriptedPolicy())
    assert result.verdict is Verdict.NO and score == 0.0
    assert result.error == "step 0: navigated away: the page tried to load https://example.com/"


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_the_episode_deadline_ends_the_episode():
    async def script(env: GuiEnv, seen):
        seen["waits"] = [await env.wait(600) for _ in range(5)]  # 3 s of waiting in a 1.5 s episode
        seen["remaining_s"] = env.remaining_s

    result, seen = run_probe(script, deadline_ms=1500, action_timeout_ms=1000)  # an action fits in a case
    oks = [r.ok for r in seen["waits"]]
    done = oks.index(False)  # waits are cut to the time left: two or three fit, then the deadline ends it
    assert done in (2, 3) and oks == [True] * done + [False] * (5 - done)
    assert all(r.done for r in seen["waits"][done:]) and seen["remaining_s"] == 0.0
    # the wait that used up the time ends it while checking the page, or the next one before starting
    assert result.error in (
        "deadline: episode exceeded 1500 ms",
        "deadline: episode exceeded 1500 ms during checking page",
    )
    assert result.steps_taken == done + (result.error.endswith("page"))


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_a_deadline_on_a_frozen_page_marks_it_broken_and_the_pool_moves_on():
    # the deadline (1.5 s) comes before the click's own timeout (1.4 s + 1 s margin): the guard sees the deadline, not a
    # slow action, on a page whose click handler never returns
    with BrowserPool(max_pages=1) as pool:  # one slot: the next render gets the very page the case left behind
        (result,), score = run_cases(
            PAGE, [SPIN], policy=ScriptedPolicy(), pool=pool, deadline_ms=1500, action_timeout_ms=1400
        )
        assert result.verdict is Verdict.NO and score == 0.0
        assert result.error == "step 0: deadline: episode exceeded 1500 ms during click '#spin'"
        # at another viewport size the pool resizes the slot's page first: a frozen page would never answer that
        with concurrent.futures.ThreadPoolExecutor(1) as ex:
            rendered = ex.submit(pool.render, "<h1>after</h1>", width=800, height=500).result(timeout=90)
        assert rendered.ok and rendered.width == 800, rendered.error
        assert pool.stats()["page_replacements"] == 1 and pool.stats()["relaunches"] == 0  # the tab, not Chromium
