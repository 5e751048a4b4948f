"""``vcoder serve-env refine`` driven by OpenEnv's own client (openenv-core's GenericEnvClient) on loopback."""

from __future__ import annotations

import asyncio
import base64

import pytest

from tests.envs.serving import start_env_server, stop_env_server

openenv = pytest.importorskip("openenv.core", reason="openenv-core is not installed (pip install 'vcoder[envs]')")
pytestmark = [pytest.mark.browser, pytest.mark.slow]

REF = "<html><body><h1>Hello</h1><p>A page of text.</p></body></html>"
OTHER = "<html><body style='background:#123'><h2>Another page entirely</h2></body></html>"


@pytest.fixture(scope="module")
def refine_url(tmp_path_factory):
    log = tmp_path_factory.mktemp("serve-env") / "refine.log"
    proc, url = start_env_server(
        "refine", "--rewards", "ssim,text", "--max-turns", "4", "--step-timeout", "60", "--max-sessions", "4", log=log
    )
    try:
        yield url
    finally:
        stop_env_server(proc)


def _client(url):
    from openenv.core import GenericEnvClient

    return GenericEnvClient(base_url=url).sync()


def test_reset_and_steps_return_screenshots_scores_and_the_reward(refine_url):
    from vcoder.images import to_pil

    with _client(refine_url) as env:
        first = env.reset(html=REF)
        assert to_pil(base64.b64decode(first.observation["image_png_b64"])).size[0] > 0
        worse = env.step({"tool": "render", "arguments": {"html": "<h1>Hello</h1>"}})
        assert not worse.done and worse.reward is None
        assert worse.observation["scores"]["text"] < 1.0
        assert worse.observation["image_png_b64"]
        env.step({"tool": "render", "arguments": {"html": "<p>nothing alike</p>"}})
        env.step({"tool": "render", "arguments": {"html": "<h1>Hi</h1>"}})
        last = env.step({"tool": "render", "arguments": {"html": REF}})  # the 4th render ends the episode
        assert last.done and last.reward == pytest.approx(1.0)
        assert last.observation["scores"] == {"ssim": pytest.approx(1.0), "text": pytest.approx(1.0)}


def test_malformed_actions_answer_a_clear_error_and_the_session_goes_on(refine_url):
    with _client(refine_url) as env:
        env.reset(html=REF)
        with pytest.raises(RuntimeError, match="unknown tool 'paint'"):
            env.step({"tool": "paint", "arguments": {}})
        with pytest.raises(RuntimeError, match="bad arguments for render"):
            env.step({"tool": "render", "arguments": {"page": REF}})
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            env.step({"arguments": {}})  # no tool at all: refused by OpenEnv's own validation
        ok = env.step({"tool": "render", "arguments": {"html": REF}})
        assert ok.observation["scores"]["text"] == pytest.approx(1.0)
    # the stateless HTTP endpoint: a 400 that says what to do, and the server still answers
    import requests

    answer = requests.post(f"{refine_url}/step", json={"action": {"tool": "render", "arguments": {}}}, timeout=60)
    assert answer.status_code == 400 and "call reset first" in answer.json()["detail"]
    assert requests.get(f"{refine_url}/health", timeout=60).json()["status"] == "healthy"


def test_hostile_pages_are_contained(refine_url):
    with _client(refine_url) as env:
        env.reset(html=REF)
        loop = env.step({"tool": "render", "arguments": {"html": "<script>for(;;){}</script><h1>x</h1>"}})
        alerts = env.step({"tool": "render", "arguments": {"html": "<script>for(;;){alert(1)}</script>"}})
        for result in (loop, alerts):
            assert result.observation["scores"]["text"] == 0.0
        fine = env.step({"tool": "render", "arguments": {"html": REF}})
        assert fine.observation["scores"]["ssim"] == pytest.approx(1.0)


def test_concurrent_episodes_are_isolated(refine_url):
    from openenv.core import GenericEnvClient

    writer = "<p>x</p><script>localStorage.setItem('k', 'LEAKED'); document.cookie = 'k=LEAKED'</script>"
    reader = (
        "<p id=p></p><script>document.getElementById('p').textContent = "
        "(localStorage.getItem('k') || '') + document.cookie || 'none'</script>"
    )

    async def episodes():
        async with GenericEnvClient(base_url=refine_url) as a, GenericEnvClient(base_url=refine_url) as b:
            await asyncio.gather(a.reset(html=REF), b.reset(html="<p>none</p>"))
            # both sessions render REF at once: each is scored against its own reference
            ra, rb = await asyncio.gather(
                a.step({"tool": "render", "arguments": {"html": REF}}),
                b.step({"tool": "render", "arguments": {"html": REF}}),
            )
            await a.step({"tool": "render", "arguments": {"html": writer}})
            seen = await b.step({"tool": "render", "arguments": {"html": reader}})
            return ra, rb, seen

    ra, rb, seen = asyncio.run(episodes())
    assert ra.observation["scores"]["text"] == pytest.approx(1.0)
    assert rb.observation["scores"]["text"] < 0.5
    # b's page saw none of a's storage or cookies: it shows "none", exactly its reference
    assert seen.observation["scores"]["text"] == pytest.approx(1.0)


def test_sessions_beyond_the_limit_are_refused_and_the_others_go_on(refine_url):
    from openenv.core import GenericEnvClient
    from websockets.exceptions import ConnectionClosed

    async def sessions():
        clients = [GenericEnvClient(base_url=refine_url) for _ in range(5)]  # the server serves --max-sessions 4
        try:
            for client in clients[:4]:
                await client.connect()
                await client.state()
            # the server answers the fifth with CAPACITY_REACHED and closes it; when the close lands before the
            # client's first message is sent, the client sees the closed socket instead of the error message
            with pytest.raises((RuntimeError, ConnectionClosed)) as refused:
                await clients[4].connect()
                await clients[4].state()
            assert isinstance(refused.value, ConnectionClosed) or "CAPACITY_REACHED" in str(refused.value)
            return await clients[0].reset(html=REF)
        finally:
            for client in clients:
                await client.close()

    assert asyncio.run(sessions()).observation["image_png_b64"]
