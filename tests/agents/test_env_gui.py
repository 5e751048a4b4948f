"""GuiEnv on real hermetic Chromium pages: observation, actions, containment (hangs, navigation, limits)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from vcoder.agents.env import Action, GuiEnv
from vcoder.agents.policy import CaseResult, Policy, Verdict
from vcoder.agents.runner import run_cases
from vcoder.agents.scripted import ScriptedPolicy

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

PAGE = """<!DOCTYPE html><html><body><h1>Shop</h1>
<p id="out">none</p>
<button id="buy" onclick="document.getElementById('out').textContent = 'bought ' + document.getElementById('qty').value">
Buy</button>
<input id="qty" aria-label="Quantity" value="1">
<select id="size"><option value="s">Small</option><option value="l">Large</option></select>
<a href="#details" onclick="history.pushState({}, '', '#details')">Details</a>
<button id="spin" onclick="while (true) {}">Spin</button>
<a id="away" href="https://example.com/">Leave</a>
<div style="display:none"><button>Hidden</button></div>
<script>document.getElementById('size').addEventListener('change', e =>
  document.getElementById('out').textContent = 'size ' + e.target.value);
document.getElementById('qty').addEventListener('keydown', e => {
  if (e.key === 'Enter') document.getElementById('out').textContent = 'enter ' + e.target.value; });
localStorage.setItem('visits', String(Number(localStorage.getItem('visits') || 0) + 1));</script>
</body></html>"""


class Probe(Policy):
    """A policy that runs a test coroutine on the env and records what it saw (exercises the Policy interface)."""

    name = "probe"

    def __init__(self, script):
        self.script, self.seen = script, {}

    async def run_case(self, env, case):
        try:
            await self.script(env, self.seen)
        except Exception as exc:  # surface test failures through the result
            self.seen["exception"] = repr(exc)
        return CaseResult(case.task, Verdict.YES if not env.error else Verdict.NO, env.steps_taken, env.error)


def run_probe(script, html=PAGE, **kwargs):
    probe = Probe(script)
    (result,), _ = run_cases(html, [{"task": "probe"}], policy=probe, **kwargs)
    assert "exception" not in probe.seen, probe.seen["exception"]
    return result, probe.seen


def test_observe_numbers_visible_interactive_elements_and_marks_them():
    async def script(env: GuiEnv, seen):
        obs = await env.observe()
        seen["obs"] = obs
        seen["marked"] = await env.marked_screenshot(obs)

    result, seen = run_probe(script)
    obs = seen["obs"]
    described = [(e.index, e.role, e.text) for e in obs.elements]
    assert described[:3] == [(1, "button", "Buy"), (2, "textbox", "Quantity"), (3, "combobox", "Small")]
    assert ("link", "Leave") in [(e.role, e.text) for e in obs.elements]
    assert "Hidden" not in [e.text for e in obs.elements]  # display:none is not offered to the agent
    assert obs.steps_left == 15 and '[1] button "Buy"' in obs.element_list()
    plain = Image.open(io.BytesIO(obs.png)).convert("RGB")
    marked = Image.open(io.BytesIO(seen["marked"])).convert("RGB")
    assert plain.size == marked.size == (1280, 720)
    # the first element's box outline is drawn: its top-left corner pixel changed colour
    x, y, _, _ = (int(v) for v in obs.elements[0].box)
    assert plain.getpixel((x, y)) != marked.getpixel((x, y))
    assert result.verdict is Verdict.YES


def test_actions_by_number_and_selector_change_the_page():
    async def script(env: GuiEnv, seen):
        await env.observe()
        seen["type"] = await env.type(2, "3")
        seen["click"] = await env.click(1)
        seen["after_click"] = await env.page.inner_text("#out")
        seen["select"] = await env.select("#size", "Large")
        seen["after_select"] = await env.page.inner_text("#out")
        seen["press"] = await env.press("Enter", "#qty")
        seen["after_press"] = await env.page.inner_text("#out")
        seen["scroll"] = await env.scroll()
        seen["wait"] = await env.wait(10)
        seen["missing"] = await env.act(Action("click", "text=No such button"))
        seen["bad_number"] = await env.click(99)
        seen["answer"] = await env.finish("YES")
        seen["after_answer"] = await env.click(1)

    result, seen = run_probe(script)
    for key in ("type", "click", "select", "press", "scroll", "wait"):
        assert seen[key].ok, (key, seen[key])
    assert seen["after_click"] == "bought 3" and seen["after_select"] == "size l" and seen["after_press"] == "enter 3"
    assert not seen["missing"].ok and not seen["missing"].done and "No such button" in seen["missing"].error
    assert not seen["bad_number"].ok and "no element [99]" in seen["bad_number"].error
    assert seen["answer"].done and not seen["after_answer"].ok
    assert result.steps_taken == 8  # answer is not an action on the page; nothing after it counts


def test_step_limit_ends_the_episode():
    async def script(env: GuiEnv, seen):
        seen["results"] = [await env.click("#buy") for _ in range(4)]

    result, seen = run_probe(script, step_limit=3)
    assert [r.ok for r in seen["results"]] == [True, True, True, False]
    assert seen["results"][3].done and "step limit" in result.error and result.steps_taken == 3


def test_in_page_back_works_but_there_is_no_back_into_other_pages():
    async def script(env: GuiEnv, seen):
        seen["early_back"] = await env.back()
        await env.click("text=Details")
        seen["url"] = env.page.url
        seen["back"] = await env.back()
        seen["url_after"] = env.page.url

    result, seen = run_probe(script)
    assert not seen["early_back"].ok and "no earlier state" in seen["early_back"].error
    assert seen["url"].endswith("#details") and seen["back"].ok and not seen["url_after"].endswith("#details")
    assert result.verdict is Verdict.YES


def test_infinite_loop_in_a_click_handler_is_contained_and_the_pool_recovers():
    spin = {
        "task": "spin",
        "steps": [{"action": "click", "target": "#spin"}],
        "expect": [{"target": "#out", "text": "x"}],
    }
    buy = {
        "task": "buy",
        "steps": [{"action": "click", "target": "#buy"}],
        "expect": [{"target": "#out", "text": "bought"}],
    }
    results, score = run_cases(PAGE, [spin, buy], policy=ScriptedPolicy(), action_timeout_ms=1000, deadline_ms=10_000)
    assert results[0].verdict is Verdict.NO and "page hung" in results[0].error
    assert results[1].verdict is Verdict.YES and score == 0.5
    # the hung tab was replaced: the next page on the same pool works
    results, score = run_cases(PAGE, [buy, buy], policy=ScriptedPolicy())
    assert score == 1.0


def test_navigation_away_is_contained_and_scored_no():
    leave = {
        "task": "leave",
        "steps": [{"action": "click", "target": "#away"}],
        "expect": [{"target": "h1", "text": "Shop"}],
    }
    results, score = run_cases(PAGE, [leave], policy=ScriptedPolicy())
    assert results[0].verdict is Verdict.NO and "navigated away" in results[0].error and score == 0.0


def test_each_case_gets_a_fresh_page():
    # every case loads the page anew: localStorage and DOM state from one case never reach the next
    cases = [
        {
            "task": f"visit {i}",
            "steps": [{"action": "click", "target": "#buy"}] if i == 0 else [],
            "expect": [{"target": "#out", "text": "none"}],
        }
        for i in range(3)
    ]
    counter = PAGE.replace('<p id="out">none</p>', '<p id="out">none</p><p id="visits"></p>').replace(
        "</script>",
        "document.getElementById('visits').textContent = 'visits ' + localStorage.getItem('visits');</script>",
    )
    cases = [{**c, "expect": c["expect"] + [{"target": "#visits", "text": "visits 1"}]} for c in cases]
    results, _ = run_cases(counter, cases, policy=ScriptedPolicy())
    assert [r.verdict for r in results] == [Verdict.PARTIAL, Verdict.YES, Verdict.YES]


def test_a_page_that_never_loads_scores_no_on_every_case():
    stuck = "<html><body><script>while (true) {}</script></body></html>"
    cases = [
        {"task": "a", "expect": [{"target": "body", "count": 1}]},
        {"task": "b", "expect": [{"target": "p", "count": 0}]},
    ]
    results, score = run_cases(stuck, cases, policy=ScriptedPolicy(), load_timeout_ms=1500)
    # the pool either gives up on the load, or hands over a page whose main thread never answers: NO either way
    assert score == 0.0
    assert all(r.verdict is Verdict.NO and r.error.startswith(("load:", "page hung")) for r in results)
