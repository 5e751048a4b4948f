"""VLMPolicy: action translation (pure) and whole episodes on real Chromium pages against loopback servers."""

from __future__ import annotations

import pytest

from tests.servers import SAMPLING, ScriptedServer, dead_port
from vcoder.gui.env import Action, Observation
from vcoder.gui.marks import Element
from vcoder.gui.policy import Verdict
from vcoder.gui.vlm_parse import ParsedAction
from vcoder.gui.vlm_policy import VLMPolicy, resolve_element_text, to_env_action

PAGE = """<!DOCTYPE html><html><body><h1>Counter</h1>
<button id="inc" onclick="this.textContent = 'Clicked ' + (++window.n)">Click me</button>
<button id="spin" onclick="while (true) {}">Spin</button>
<script>window.n = 0;</script></body></html>"""
CASE = {"task": "Click the button", "expected_result": "Its label changes to 'Clicked 1'"}


def _obs() -> Observation:
    elements = (
        Element(1, "button", "button", "Add item", None, (0, 0, 10, 10), True),
        Element(2, "input", "textbox", "Email address", "", (0, 20, 10, 10), True),
    )
    return Observation(b"", elements, "about:blank", 0, 5)


@pytest.mark.parametrize(
    ("parsed", "expected"),
    [
        (ParsedAction("click", element=2), Action("click", 2)),
        (ParsedAction("click", element_text="add ITEM"), Action("click", 1)),
        (ParsedAction("type", element_text="Email", text="a@b.c"), Action("type", 2, "a@b.c")),
        (ParsedAction("click", element_text="Nowhere"), Action("click", "text=Nowhere")),
        (ParsedAction("select", element=3, text="Blue"), Action("select", 3, "Blue")),
        (ParsedAction("press", key="Tab"), Action("press", None, "Tab")),
        (ParsedAction("press"), Action("press", None, "Enter")),
        (ParsedAction("scroll", direction="up"), Action("scroll", None, "-600")),
        (ParsedAction("scroll", direction="down"), Action("scroll", None, None)),
        (ParsedAction("wait"), Action("wait", None, "1000")),
        (ParsedAction("back"), Action("back")),
    ],
)
def test_to_env_action(parsed, expected):
    assert to_env_action(parsed, _obs()) == expected


def test_resolve_prefers_exact_text():
    assert resolve_element_text("Email address", _obs()) == 2


def test_needs_an_endpoint():
    with pytest.raises(ValueError, match="base_url and model"):
        VLMPolicy()


def _run(policy, cases, **kwargs):
    from vcoder.gui.runner import CASE_PAGE, run_cases
    from vcoder.rendering.spec import RenderSpec

    render = RenderSpec(width=640, height=360, timeout_ms=CASE_PAGE.timeout_ms)
    return run_cases(PAGE, cases, policy=policy, render=render, **kwargs)


@pytest.mark.browser
@pytest.mark.slow
def test_episode_acts_then_answers():
    replies = ['Thought: press it.\n{"action": "click", "element": "[1]"}', "ANSWER; YES - it says Clicked 1"]
    with ScriptedServer(replies) as server:
        (result,), score = _run(VLMPolicy(server.base_url, "scripted"), [CASE], step_limit=5)
    assert result.verdict is Verdict.YES and score == 1.0 and result.steps_taken == 1 and result.error is None
    second = server.bodies[1]["messages"][1]["content"]
    assert second[0]["type"] == "image_url"
    assert '"Clicked 1"' in second[1]["text"]  # the click really happened: the new label is in the element list
    assert "1. click [1] -> ok" in second[1]["text"]
    assert server.bodies[0]["messages"][0]["role"] == "system"


@pytest.mark.browser
@pytest.mark.slow
def test_element_named_by_text_and_partial_verdict():
    replies = ['{"action": "click", "element": "click me"}', '{"action": "answer", "verdict": "partial"}']
    with ScriptedServer(replies) as server:
        (result,), score = _run(VLMPolicy(server.base_url, "scripted"), [CASE])
    assert result.verdict is Verdict.PARTIAL and score == 0.5
    assert '"Clicked 1"' in server.bodies[1]["messages"][1]["content"][1]["text"]


@pytest.mark.browser
@pytest.mark.slow
def test_unparseable_replies_waste_steps_until_the_limit():
    with ScriptedServer("I think the page looks nice.") as server:
        (result,), _ = _run(VLMPolicy(server.base_url, "scripted"), [CASE], step_limit=2)
    assert result.verdict is Verdict.NO and result.steps_taken == 2 and "step limit" in result.error
    assert server.chat_hits == 6  # (reply + correction) for 2 steps, then for the final verdict turn
    assert any("wasted steps: 2" in d for d in result.details)
    correction = server.bodies[1]["messages"]
    assert correction[-2]["role"] == "assistant" and "JSON" in correction[-1]["content"]


@pytest.mark.browser
@pytest.mark.slow
def test_step_limit_is_respected_when_the_model_never_answers():
    with ScriptedServer('{"action": "click", "element": 1}') as server:
        (result,), _ = _run(VLMPolicy(server.base_url, "scripted"), [CASE], step_limit=3)
    assert result.verdict is Verdict.NO and result.steps_taken == 3 and "step limit" in result.error
    assert server.chat_hits == 4  # 3 actions + the final verdict turn


@pytest.mark.browser
@pytest.mark.slow
def test_hung_page_and_dead_or_slow_server_are_no():
    with ScriptedServer('{"action": "click", "element": 2}') as server:
        (hung,), _ = _run(VLMPolicy(server.base_url, "scripted"), [CASE], action_timeout_ms=1000)
    assert hung.verdict is Verdict.NO and "hung" in hung.error
    dead = VLMPolicy(f"http://127.0.0.1:{dead_port()}", "m", max_retries=0)
    (result,), _ = _run(dead, [CASE])
    assert result.verdict is Verdict.NO and result.error.startswith("vlm: cannot reach")
    with ScriptedServer('{"action": "wait"}', delay_s=3.0) as server:
        (slow,), _ = _run(
            VLMPolicy(server.base_url, "scripted", timeout_ms=30_000), [CASE], deadline_ms=1000, action_timeout_ms=500
        )
    assert slow.verdict is Verdict.NO and "deadline" in slow.error


@pytest.mark.browser
@pytest.mark.slow
def test_vlm_policy_against_transformers_serve(tiny_vlm_server):
    policy = VLMPolicy(
        tiny_vlm_server.base_url,
        tiny_vlm_server.model,
        timeout_ms=120_000,
        max_tokens=24,
        extra_body={"generation_config": SAMPLING},
    )
    cases = [CASE, {"task": "Open the menu", "expected_result": "A menu is shown"}]
    results, score = _run(policy, cases, step_limit=3, deadline_ms=120_000)
    assert len(results) == 2 and score == sum(r.verdict.score for r in results) / 2
    for result in results:
        assert result.verdict in (Verdict.YES, Verdict.PARTIAL, Verdict.NO)
        assert result.steps_taken <= 3
        assert result.error is None or not result.error.startswith(("vlm:", "policy error"))


def test_takes_an_endpoint_and_the_loose_form_is_retired():
    from vcoder.chat import Endpoint
    from vcoder.gui.agents import GUI_AGENT_DEFAULTS

    endpoint = GUI_AGENT_DEFAULTS.replace(base_url="http://127.0.0.1:9", model="m", max_tokens=64)
    policy = VLMPolicy(endpoint)
    assert policy.endpoint == endpoint and (policy.max_tokens, policy.temperature) == (64, 0.0)
    assert policy.client.transport.max_retries == 0
    with pytest.warns(DeprecationWarning, match=r"pass VLMPolicy\(Endpoint\("):
        loose = VLMPolicy("http://127.0.0.1:9", "m", max_tokens=64)
    assert loose.endpoint == endpoint
    with pytest.raises(TypeError, match="inside the Endpoint"):
        VLMPolicy(Endpoint("http://127.0.0.1:9", "m"), max_tokens=64)
