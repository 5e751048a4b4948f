"""``vcoder serve``: the real CLI in a subprocess serving the tiny LM on loopback, asked through ``ChatClient``; its
replies compared with transformers ``generate`` run here on the same model (the oracle)."""

from __future__ import annotations

import asyncio

import pytest

from tests.servers import start_vcoder_serve, stop_server
from vcoder.chat import Endpoint, RequestFailed, UnknownModel, connect

MESSAGES = [
    {"role": "system", "content": "You are a web browsing agent."},
    {"role": "user", "content": 'Task: buy a mug\n<button id="3">Add to Cart</button>\nRound 0: your next action?'},
]
# the web agent trainer's prompt shaping, as the tiny CPU recipe sets it
MAX_PROMPT_TOKENS = 24


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    from vcoder.models.tiny_lm import build_tiny_lm

    corpus = [m["content"] for m in MESSAGES] * 4 + ['do(action="Click", element="3")', 'exit(message="YES")']
    return build_tiny_lm(tmp_path_factory.mktemp("serve") / "lm", corpus=corpus)


@pytest.fixture(scope="module")
def served(tiny_lm, tmp_path_factory):
    extra = ("--model-name", "tiny-agent", "--device", "cpu", "--no-system")
    server = start_vcoder_serve(
        tiny_lm, tmp_path_factory.mktemp("serve-log"), *extra, "--max-prompt-tokens", str(MAX_PROMPT_TOKENS)
    )
    server.model = "tiny-agent"
    try:
        yield server
    finally:
        stop_server(server)


def oracle(model_dir, messages, *, max_new_tokens):
    """Greedy ``generate`` on the chat template's prompt, system turn dropped and last tokens kept, as the web agent
    trainer builds it (``vcoder.pipelines.web_agent.lm.prompt_ids``): (reply text, prompt tokens, new tokens)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from vcoder.pipelines.web_agent.lm import prompt_ids

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    ids = torch.tensor([prompt_ids(tokenizer, messages, MAX_PROMPT_TOKENS, system=False)])
    with torch.no_grad():
        out = model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=max_new_tokens,
            do_sample=False,
            pad_token_id=tokenizer.pad_token_id,
        )
    new = out[0, ids.shape[1] :]
    return tokenizer.decode(new, skip_special_tokens=True), ids.shape[1], len(new)


async def ask(server, **options):
    async with connect(Endpoint(server.base_url, server.model, max_retries=0, timeout_ms=60_000)) as client:
        return await client.chat(MESSAGES, **options)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_vcoder_serve_answers_like_generate_on_the_chat_template(served, tiny_lm):
    async def models():
        async with connect(Endpoint(served.base_url, served.model, max_retries=0)) as client:
            return await client.list_models()

    assert asyncio.run(models()) == ["tiny-agent"]
    reply = asyncio.run(ask(served, max_tokens=6, temperature=0))
    text, prompt_tokens, new_tokens = oracle(tiny_lm, MESSAGES, max_new_tokens=6)
    assert reply.text == text
    assert reply.raw["usage"]["prompt_tokens"] == prompt_tokens == MAX_PROMPT_TOKENS
    assert reply.raw["usage"]["completion_tokens"] == new_tokens <= 6
    assert reply.raw["model"] == "tiny-agent" and reply.finish_reason in ("stop", "length")


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_max_tokens_and_temperature_are_honoured(served):
    short = asyncio.run(ask(served, max_tokens=2, temperature=1.0, seed=1))
    assert short.raw["usage"]["completion_tokens"] <= 2
    sampled = [asyncio.run(ask(served, max_tokens=12, temperature=1.5, seed=s)).text for s in (1, 1, 2, 3)]
    assert sampled[0] == sampled[1]  # a seed repeats a sample
    assert len(set(sampled)) > 1  # temperature > 0 samples (the greedy reply of this model is one string)
    greedy = {asyncio.run(ask(served, max_tokens=12, temperature=0, seed=s)).text for s in (1, 2)}
    assert len(greedy) == 1


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_bad_requests_are_refused_with_a_reason(served):
    with pytest.raises(UnknownModel, match="tiny-agent"):
        asyncio.run(connect(Endpoint(served.base_url, "other", max_retries=0)).chat(MESSAGES))
    image = [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]

    async def bad(**payload):
        async with connect(Endpoint(served.base_url, served.model, max_retries=0)) as client:
            return await client.chat(payload.pop("messages", MESSAGES), **payload)

    with pytest.raises(RequestFailed, match="text model"):
        asyncio.run(bad(messages=[{"role": "user", "content": image}]))
    with pytest.raises(RequestFailed, match="stream"):
        asyncio.run(bad(stream=True))


def test_a_missing_model_folder_is_a_one_line_error(tmp_path, capsys):
    from vcoder.cli import main

    assert main(["serve", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("vcoder serve: error: no model folder at") and "\n" not in err
    (tmp_path / "empty").mkdir()
    assert main(["serve", str(tmp_path / "empty")]) == 2
    assert "no config.json" in capsys.readouterr().err


PAGE = """<!DOCTYPE html><html><body><h1>Counter</h1>
<button onclick="this.textContent = 'Clicked ' + (++window.n)">Click me</button>
<script>window.n = 0;</script></body></html>"""
SPOKEN = {"task": "Click the button", "expected_result": "Its label changes to 'Clicked 1'"}


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(240)
def test_the_served_model_is_the_gui_agent_rewards_text_policy(served, pool):
    """The recipe's loop with the real tiny model: it is asked each step and, untrained, writes no verdict, so the
    case is NO and the page is judged (0.0, not None)."""
    from vcoder.browse.policies import make_agent
    from vcoder.chat import Endpoint
    from vcoder.gui.runner import run_cases
    from vcoder.rewards.gui import make_gui_agent_reward

    limits = {"gui_step_limit": 2, "gui_max_tokens": 12, "gui_deadline_ms": 60_000, "gui_timeout_ms": 60_000}
    reward = make_gui_agent_reward(gui_base_url=served.base_url, gui_model=served.model, gui_policy="text", **limits)
    assert asyncio.run(reward([f"```html\n{PAGE}\n```"], test_cases=[[SPOKEN]])) == [0.0]
    agent = make_agent("text", Endpoint(served.base_url, served.model, max_tokens=12), step_budget=2)
    (result,), score = run_cases(PAGE, [SPOKEN], policy=agent, pool=pool, deadline_ms=60_000)
    assert (result.verdict.value, score) == ("NO", 0.0)
    assert result.error == "no verdict within 2 actions"


def test_a_port_in_use_is_a_one_line_error_before_the_model_loads(tmp_path, capsys):
    import socket

    from vcoder.cli import main

    (tmp_path / "config.json").write_text("{}")  # never read: the port is taken first
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["serve", str(tmp_path), "--port", str(taken.getsockname()[1])]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("vcoder serve: error: cannot listen on 127.0.0.1:") and "\n" not in err
