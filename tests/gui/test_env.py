"""GuiEnv on real hermetic Chromium pages: numbered elements, the marked screenshot, actions, the step limit."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.gui.probe import run_probe
from vcoder.gui.env import Action, GuiEnv
from vcoder.gui.policy import Verdict

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


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
