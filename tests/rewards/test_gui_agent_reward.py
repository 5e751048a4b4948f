"""gui_agent_reward: the TRL reward contract and its scores on working / broken / missing pages."""

from __future__ import annotations

import asyncio
import inspect
import json
import pickle

import pytest

from vcoder.data.site_kinds.pages import make_page
from vcoder.rewards.gui import gui_agent_reward, make_gui_agent_reward

WORKING = make_page("counter", 7)
BROKEN = make_page("counter", 7, broken="handler_removed")
CASES = WORKING["test_cases"]


def fenced(html: str) -> str:
    return f"Here is the page:\n```html\n{html}\n```"


def test_factory_keeps_name_async_and_pickles():
    from trl.trainer.utils import is_async_callable

    reward = make_gui_agent_reward(gui_step_limit=5, gui_timeout_ms=8000)
    assert reward.__name__ == "gui_agent_reward" and gui_agent_reward.__name__ == "gui_agent_reward"
    assert is_async_callable(reward) and inspect.iscoroutinefunction(gui_agent_reward)
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.__name__ == "gui_agent_reward" and clone.keywords == reward.keywords


def test_registry_builds_it_with_shared_parameters():
    from vcoder.rewards import build_rewards

    (reward,) = build_rewards(["gui_agent"], render_timeout_ms=9000, clip_model="ViT-B-32", gui_step_limit=7)
    assert reward.__name__ == "gui_agent_reward"
    settings = reward.keywords["settings"]
    assert (settings.gui_step_limit, settings.render_timeout_ms) == (7, 9000)
    with pytest.raises(TypeError, match="'gui_step_limt' \\(did you mean 'gui_step_limit'\\?\\)"):
        make_gui_agent_reward(gui_step_limt=3)


@pytest.mark.parametrize(
    "bad",
    [
        {"gui_step_limit": 0},
        {"gui_timeout_ms": -1},
        {"gui_deadline_ms": 1000, "gui_action_timeout_ms": 2000},
        {"gui_step_limit": 1.5},
        {"gui_base_url": "http://127.0.0.1:9"},
    ],
)
def test_factory_rejects_bad_limits(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        make_gui_agent_reward(**bad)


def test_no_cases_gives_none_and_no_html_gives_zero_without_a_browser():
    # neither path needs Chromium: no cases -> cannot judge; cases but no HTML -> the model's output is bad
    out = asyncio.run(
        gui_agent_reward(
            ["no html at all", fenced(WORKING["html"]), fenced(WORKING["html"]), "nothing"],
            test_cases=[CASES, None, [], json.dumps([{"task": "natural language only"}])],
        )
    )
    assert out == [0.0, None, None, None]


def test_invalid_case_schema_gives_none_not_an_exception():
    out = asyncio.run(gui_agent_reward([fenced(WORKING["html"])], test_cases=[[{"task": "x", "steps": "click"}]]))
    assert out == [None]


@pytest.mark.browser
@pytest.mark.timeout(240)
def test_scores_working_broken_and_conversational_completions():
    reward = make_gui_agent_reward()
    completions = [
        fenced(WORKING["html"]),
        [{"role": "assistant", "content": fenced(WORKING["html"])}],  # conversational; identical page graded once
        fenced(BROKEN["html"]),
        "I cannot do that.",
        fenced(WORKING["html"]),
    ]
    cases = [CASES, json.dumps(CASES), BROKEN["test_cases"], CASES, None]

    async def in_trainer_loop():
        # TRL awaits rewards on its own event loop, not the pool's
        return await reward(completions, test_cases=cases, prompts=["p"] * 5, image=[None] * 5, trainer_state=None)

    out = asyncio.run(in_trainer_loop())
    assert len(out) == len(completions)
    assert out[0] == out[1] and out[0] >= 0.9
    assert out[2] <= 0.2 and out[3] == 0.0 and out[4] is None


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_browser_that_cannot_start_gives_none(monkeypatch, tmp_path):
    import vcoder.rendering
    from vcoder.rendering import BrowserPool

    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    dead = BrowserPool(executable_path=str(fake))
    monkeypatch.setattr(vcoder.rendering, "get_default_pool", lambda: dead)
    try:
        out = asyncio.run(gui_agent_reward([fenced(WORKING["html"]), "no html"], test_cases=[CASES, CASES]))
    finally:
        dead.close()
    assert out == [None, 0.0]


PAGE = """<!DOCTYPE html><html><body><h1>Counter</h1>
<button id="inc" onclick="this.textContent = 'Clicked ' + (++window.n)">Click me</button>
<script>window.n = 0;</script></body></html>"""
SPOKEN = {"task": "Click the button", "expected_result": "Its label changes to 'Clicked 1'"}
SCRIPTED = {
    "task": "Click it",
    "steps": [{"action": "click", "target": "#inc"}],
    "expect": [{"target": "#inc", "text": "Clicked 1"}],
}


def _vlm_reward(base_url: str, **limits):
    return make_gui_agent_reward(
        gui_base_url=base_url, gui_model="scripted", **{"gui_deadline_ms": 15000, "gui_timeout_ms": 15000, **limits}
    )


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_natural_language_cases_are_run_by_the_vlm_policy_when_an_endpoint_is_set():
    from tests.servers import ScriptedServer

    replies = ['Thought: press it.\n{"action": "click", "element": "[1]"}', "ANSWER; YES - it says Clicked 1"]
    with ScriptedServer(replies) as server:
        out = asyncio.run(_vlm_reward(server.base_url)([fenced(PAGE)], test_cases=[[SPOKEN]]))
    assert out == [1.0]
    assert server.chat_hits == 2
    assert '"Clicked 1"' in server.bodies[1]["messages"][1]["content"][1]["text"]  # the click really happened
    # without an endpoint the same case cannot be graded
    assert asyncio.run(make_gui_agent_reward()([fenced(PAGE)], test_cases=[[SPOKEN]])) == [None]


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_mixed_cases_average_the_scripted_and_the_vlm_verdicts():
    from tests.servers import ScriptedServer

    with ScriptedServer('{"action": "answer", "verdict": "no"}') as server:
        out = asyncio.run(_vlm_reward(server.base_url)([fenced(PAGE)], test_cases=[[SCRIPTED, SPOKEN]]))
    assert out == [0.5]  # the scripted case passes, the VLM answers NO
    assert server.chat_hits == 1


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_failing_agent_endpoint_gives_none_not_zero():
    from tests.servers import ScriptedServer, dead_port

    dead = asyncio.run(_vlm_reward(f"http://127.0.0.1:{dead_port()}")([fenced(PAGE)], test_cases=[[SPOKEN]]))
    assert dead == [None]
    with ScriptedServer('{"action": "wait"}', statuses=(500,)) as server:
        broken = asyncio.run(_vlm_reward(server.base_url)([fenced(PAGE)], test_cases=[[SCRIPTED, SPOKEN]]))
    assert broken == [None]
    with ScriptedServer('{"action": "wait"}', delay_s=6.0) as server:
        slow = _vlm_reward(server.base_url, gui_timeout_ms=3000, gui_action_timeout_ms=1000)
        assert asyncio.run(slow([fenced(PAGE)], test_cases=[[SPOKEN]])) == [None]
