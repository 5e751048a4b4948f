"""screenshot_judge_reward: contract, semantics (0.0 / None), real Chromium renders and a loopback judge server."""

from __future__ import annotations

import asyncio
import inspect
import pickle

import pytest
from PIL import Image

from tests.servers import ScriptedServer, dead_port
from vcoder.rewards.judge import make_screenshot_judge_reward, screenshot_judge_reward

PAGE = "```html\n<html><body style='background:#fde'><h1>Bakery</h1><p>Fresh bread daily.</p></body></html>\n```"


def test_contract_name_async_pickle_and_registry():
    reward = make_screenshot_judge_reward(judge_base_url="http://127.0.0.1:9", judge_model="m", render_timeout_ms=5000)
    assert reward.__name__ == "screenshot_judge_reward"
    assert inspect.iscoroutinefunction(reward)
    assert pickle.loads(pickle.dumps(reward)).__name__ == "screenshot_judge_reward"
    from vcoder.rewards import build_reward

    built = build_reward("screenshot_judge", judge_base_url="http://127.0.0.1:9", judge_model="m", clip_model="x")
    assert built.__name__ == "screenshot_judge_reward"
    with pytest.raises(TypeError, match="judge_timeout"):
        make_screenshot_judge_reward(judge_base_url="http://127.0.0.1:9", judge_model="m", judge_timout=3)
    with pytest.raises(ValueError, match="both an endpoint and a model"):
        make_screenshot_judge_reward(judge_base_url="http://127.0.0.1:9")


@pytest.mark.slow
def test_trl_detects_it_as_async():
    from trl.trainer.utils import is_async_callable  # what GRPOTrainer checks (importing trl takes seconds)

    assert is_async_callable(make_screenshot_judge_reward(judge_base_url="http://127.0.0.1:9", judge_model="m"))


def test_no_endpoint_gives_none_per_completion(monkeypatch):
    monkeypatch.delenv("VCODER_JUDGE_BASE_URL", raising=False)
    monkeypatch.delenv("VCODER_JUDGE_MODEL", raising=False)
    reward = make_screenshot_judge_reward()
    assert asyncio.run(reward([PAGE, "no html", PAGE], trainer_state=None, other_column=[1, 2, 3])) == [None] * 3
    assert asyncio.run(screenshot_judge_reward([PAGE])) == [None]


@pytest.mark.browser
@pytest.mark.slow
def test_scores_rendered_pages_with_the_judge():
    with ScriptedServer("Looks right. Score: 4") as server:
        reward = make_screenshot_judge_reward(
            judge_base_url=server.base_url, judge_model="scripted", render_width=480, render_height=320
        )
        completions = [PAGE, "Sorry, I cannot help.", [{"role": "assistant", "content": PAGE}]]
        ref = Image.new("RGB", (480, 320), "white")
        scores = asyncio.run(reward(completions, image=[ref] * 3, instruction=["A bakery page"] * 3, log_extra=None))
    assert scores == [pytest.approx(0.8), 0.0, pytest.approx(0.8)]
    assert server.chat_hits == 1  # identical pages: one render, one judge request (cache)
    parts = server.bodies[0]["messages"][1]["content"]
    assert [p["type"] for p in parts] == ["image_url", "image_url", "text"] and "A bakery page" in parts[2]["text"]


@pytest.mark.browser
@pytest.mark.slow
def test_render_failure_is_zero_and_judge_failure_is_none():
    hang = "<html><body><h1>x</h1><script>while (true) {}</script></body></html>"
    # the timeout must stop the hanging page yet leave the plain one time to render on a busy machine: at 1.5 s the
    # plain page once timed out too (0.0 for both) in CI's two workers beside the one-shot learning test
    reward = make_screenshot_judge_reward(
        judge_base_url=f"http://127.0.0.1:{dead_port()}", judge_model="m", judge_max_retries=0, render_timeout_ms=4000
    )
    assert asyncio.run(reward([hang, PAGE])) == [0.0, None]
