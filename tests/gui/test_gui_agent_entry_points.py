"""Every entry point builds the GUI agent the same way (``make_agent``): the same flat ``gui_*`` settings
give the same client settings in the gui_agent reward, Step-GRPO's grader, WebGen-Bench's task runner and ``vcoder
agent test`` / ``agent build``. Real objects on a loopback URL; no request is sent."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from vcoder.chat import ChatClient, Endpoint, WatchedClient, connect
from vcoder.gui.vlm_policy import GUI_AGENT_DEFAULTS, VLMPolicy, gui_endpoint

URL, MODEL = "http://127.0.0.1:9", "vlm"


def _settings(policy: VLMPolicy) -> dict:
    """What a GUI agent asks with: the client under any watch, its transport, and the per-call settings."""
    assert isinstance(policy, VLMPolicy)
    client = policy.client
    while isinstance(client, WatchedClient):
        client = client.client
    assert isinstance(client, ChatClient)
    t = client.transport
    return {
        "base_url": t.base_url,
        "model": client.model,
        "timeout_ms": t.timeout_ms,
        "max_retries": t.max_retries,
        "max_concurrency": t.max_concurrency,
        "extra_body": client.extra_body,
        "max_tokens": policy.max_tokens,
        "temperature": policy.temperature,
    }


def _reward(**flat) -> VLMPolicy:
    from vcoder.rewards import gui
    from vcoder.rewards.settings import RewardSettings

    policy, _watched = gui._agent(RewardSettings(**flat))  # the agent and the watch over its client
    return policy


def _step_grpo(**flat) -> VLMPolicy:
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments
    from vcoder.pipelines.step_grpo.grading import build_grader

    return build_grader(StepGRPOScriptArguments(**flat)).gui_agent


def _webgen(**flat) -> VLMPolicy:
    from vcoder.eval.webgen_config import WebGenConfig
    from vcoder.eval.webgen_task import TaskRunner

    config = WebGenConfig(base_url=URL, model="builder", **flat)
    builder = connect(Endpoint(URL, "builder"))
    return TaskRunner(config=config, out=Path("unused"), pool=None, builder=builder)._agent("vcoder")


def _agent_test(gui_base_url, gui_model) -> VLMPolicy:
    from vcoder.cli.agent import _make_policy

    args = argparse.Namespace(policy="vlm", base_url=gui_base_url, model=gui_model, gui_step_limit=15)
    policy, problem = _make_policy(args)
    assert problem is None
    return policy


def test_every_entry_point_builds_the_same_gui_agent():
    flat = {"gui_base_url": URL, "gui_model": MODEL}
    built = {
        "gui_agent reward": _settings(_reward(**flat)),
        "step_grpo build_grader": _settings(_step_grpo(**flat)),
        # WebGen-Bench declares its own budgets (a 120 s request, 2 retries for all its servers): given the
        # reward's, it builds the same agent
        "webgen task runner": _settings(_webgen(**flat, gui_timeout_ms=20_000, max_retries=0)),
        "agent test": _settings(_agent_test(**flat)),
    }
    expected = {
        "base_url": f"{URL}/v1",
        "model": MODEL,
        "timeout_ms": 20_000.0,
        "max_retries": 0,
        "max_concurrency": 4,
        "extra_body": {},
        "max_tokens": 256,
        "temperature": 0.0,
    }
    assert built == dict.fromkeys(built, expected)
    assert GUI_AGENT_DEFAULTS.max_retries == 0 and VLMPolicy(URL, MODEL).client.transport.max_retries == 0


def test_declared_gui_fields_reach_the_client():
    flat = {"gui_base_url": URL, "gui_model": MODEL, "gui_timeout_ms": 12_345}
    assert _settings(_reward(**flat, gui_max_tokens=77, gui_temperature=0.5))["timeout_ms"] == 12_345
    assert _settings(_reward(**flat, gui_max_tokens=77, gui_temperature=0.5))["max_tokens"] == 77
    assert _settings(_step_grpo(**flat))["timeout_ms"] == 12_345
    webgen = _settings(_webgen(**flat, gui_max_tokens=77, max_retries=2, extra_body={"top_k": 1}))
    assert (webgen["timeout_ms"], webgen["max_tokens"], webgen["max_retries"]) == (12_345, 77, 2)
    assert webgen["extra_body"] == {"top_k": 1}
    # a field no recipe declares keeps the one default; an override wins
    assert gui_endpoint(argparse.Namespace(gui_base_url=URL, gui_model=MODEL)) == GUI_AGENT_DEFAULTS.replace(
        base_url=URL, model=MODEL
    )
    assert gui_endpoint(argparse.Namespace(gui_max_retries=5), base_url=URL, model=MODEL).max_retries == 5
    with pytest.raises(ValueError, match="give both or neither"):
        gui_endpoint(argparse.Namespace(gui_base_url=URL))


@pytest.mark.parametrize("gui_policy", ["text", "text_screenshot"])
def test_every_entry_point_builds_the_web_agent_gui_policy_names(gui_policy):
    from vcoder.browse.policies import WebAgentCasePolicy
    from vcoder.cli.agent import _make_policy

    flat = {"gui_base_url": URL, "gui_model": MODEL, "gui_policy": gui_policy, "gui_step_limit": 7}
    test_args = argparse.Namespace(policy=gui_policy, base_url=URL, model=MODEL, gui_step_limit=7)
    built = {
        "gui_agent reward": _reward(**flat),
        "step_grpo build_grader": _step_grpo(**flat),
        "webgen task runner": _webgen(**flat, judge=False),  # the judge would default to the web agent's endpoint
        "agent test": _make_policy(test_args)[0],
    }
    for where, policy in built.items():
        assert isinstance(policy, WebAgentCasePolicy), where
        endpoint = policy.agent.endpoint
        assert (endpoint.base_url, endpoint.model, endpoint.max_tokens) == (URL, MODEL, 256), where
        assert policy.step_budget == 7 and policy.agent.screenshots == (gui_policy == "text_screenshot"), where
    # graders that charge endpoint failures to a page or a task see them through the agent's watched client
    assert isinstance(built["gui_agent reward"].client, WatchedClient)
    assert isinstance(built["webgen task runner"].client, WatchedClient)


def test_gui_policy_is_checked_where_each_recipe_is_read():
    from vcoder.eval.webgen_config import WebGenConfig
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments

    with pytest.raises(ValueError, match=r"gui_policy='txt' is not one of .* \(did you mean 'text'"):
        StepGRPOScriptArguments(gui_policy="txt")
    base = {"base_url": URL, "model": "builder", "gui_base_url": URL, "gui_model": MODEL}
    with pytest.raises(ValueError, match="did you mean 'text_screenshot'"):
        WebGenConfig(**base, gui_policy="text_screenshots", judge=False)
    with pytest.raises(ValueError, match="protocol webgen-bench runs WebGen-Bench's own WebVoyager"):
        WebGenConfig(**base, gui_policy="text", judge=False, protocol="vcoder,webgen-bench")
    with pytest.raises(ValueError, match="give judge_base_url and judge_model"):
        WebGenConfig(**base, gui_policy="text")
    assert WebGenConfig(**base, gui_policy="text", judge=False).fingerprint()["gui_policy"] == "text"
    assert WebGenConfig(**base).gui_policy == StepGRPOScriptArguments().gui_policy == "vlm"  # one default
