"""ScreenshotJudge against real HTTP servers on loopback (scripted replies, and transformers serve's tiny VLM)."""

from __future__ import annotations

import asyncio
import io
import pickle

import pytest
from PIL import Image

from tests.servers import SAMPLING, ScriptedServer, dead_port
from vcoder.gui.judge import ScreenshotJudge
from vcoder.gui.vlm_parse import parse_score


def _png(colour=(20, 120, 220), size=(96, 64)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def test_disabled_without_endpoint(monkeypatch):
    monkeypatch.delenv("VCODER_JUDGE_BASE_URL", raising=False)
    monkeypatch.delenv("VCODER_JUDGE_MODEL", raising=False)
    judge = ScreenshotJudge()
    assert not judge.enabled
    assert asyncio.run(judge.grade(_png(), instruction="a page")) is None
    assert asyncio.run(judge.grade_many([_png(), _png()])) == [None, None]


def test_endpoint_and_model_go_together(monkeypatch):
    monkeypatch.delenv("VCODER_JUDGE_MODEL", raising=False)
    with pytest.raises(ValueError, match="both an endpoint and a model"):
        ScreenshotJudge("http://127.0.0.1:8000")
    monkeypatch.setenv("VCODER_JUDGE_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("VCODER_JUDGE_MODEL", "env-model")
    judge = ScreenshotJudge()
    assert judge.enabled and judge.client.model == "env-model" and judge.client.base_url == "http://127.0.0.1:9/v1"


def test_grade_parses_and_caches():
    with ScriptedServer("Clean layout, good contrast.\n**Score: 4/5**") as server:
        judge = ScreenshotJudge(server.base_url, "scripted")
        assert asyncio.run(judge.grade(_png(), instruction="A blue banner")) == pytest.approx(0.8)
        assert asyncio.run(judge.grade(_png(), instruction="A blue banner")) == pytest.approx(0.8)
        assert server.chat_hits == 1 and judge.stats["cache_hits"] == 1  # same page, same instruction: cached
        asyncio.run(judge.grade(_png(), instruction="A red banner"))
        asyncio.run(judge.grade(_png((1, 2, 3)), instruction="A blue banner"))
        assert server.chat_hits == 3
    body = server.bodies[0]
    assert body["max_tokens"] == 256 and body["temperature"] == 0.0
    user = body["messages"][1]["content"]
    assert [p["type"] for p in user] == ["image_url", "text"] and "A blue banner" in user[1]["text"]
    assert "Score: N" in user[1]["text"]


def test_reference_sends_both_images_reference_first():
    with ScriptedServer("Score: 2") as server:
        judge = ScreenshotJudge(server.base_url, "scripted")
        ref = Image.new("RGB", (96, 64), "white")
        assert asyncio.run(judge.grade(_png(), reference=ref, instruction="make it")) == pytest.approx(0.4)
    parts = server.bodies[0]["messages"][1]["content"]
    assert [p["type"] for p in parts] == ["image_url", "image_url", "text"]
    assert "first image is the reference" in parts[2]["text"] and "make it" in parts[2]["text"]


def test_large_pages_are_downscaled():
    with ScriptedServer("Score: 3") as server:
        judge = ScreenshotJudge(server.base_url, "scripted", max_image_side=256)
        asyncio.run(judge.grade(_png(size=(1280, 4000))))
    import base64

    url = server.bodies[0]["messages"][1]["content"][0]["image_url"]["url"]
    sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert max(sent.size) == 256


@pytest.mark.parametrize("reply", ["I like it.", "Score: 7", "", "7/10"])
def test_unparseable_reply_is_none_and_not_cached(reply):
    with ScriptedServer(reply) as server:
        judge = ScreenshotJudge(server.base_url, "scripted")
        assert asyncio.run(judge.grade(_png())) is None
        assert asyncio.run(judge.grade(_png())) is None
        assert server.chat_hits == 2 and judge.stats["unparsed"] == 2


def test_server_errors_timeouts_and_dead_ports_give_none():
    with ScriptedServer("Score: 5", statuses=(500, 500)) as server:
        judge = ScreenshotJudge(server.base_url, "scripted", max_retries=0)
        assert asyncio.run(judge.grade(_png())) is None
        assert asyncio.run(judge.grade(_png())) is None
        assert asyncio.run(judge.grade(_png())) == 1.0  # the server recovered
    with ScriptedServer("Score: 5", delay_s=1.0) as server:
        judge = ScreenshotJudge(server.base_url, "scripted", timeout_ms=200, max_retries=1)
        assert asyncio.run(judge.grade(_png())) is None
        assert server.chat_hits == 2
    judge = ScreenshotJudge(f"http://127.0.0.1:{dead_port()}", "m", max_retries=0)
    assert asyncio.run(judge.grade(_png())) is None and judge.stats["errors"] == 1


def test_unreadable_image_gives_none():
    with ScriptedServer("Score: 5") as server:
        judge = ScreenshotJudge(server.base_url, "scripted")
        assert asyncio.run(judge.grade(b"not an image")) is None
        assert server.chat_hits == 0


def test_grade_many_is_bounded_and_ordered():
    with ScriptedServer("Score: 1", delay_s=0.1) as server:
        judge = ScreenshotJudge(server.base_url, "scripted", max_concurrency=2)
        pages = [_png((i, i, i)) for i in range(5)]
        scores = asyncio.run(judge.grade_many(pages, instructions=[f"page {i}" for i in range(5)]))
    assert scores == [pytest.approx(0.2)] * 5 and server.max_inflight == 2
    with pytest.raises(ValueError, match="2 pages, 1 references"):
        asyncio.run(judge.grade_many([_png(), _png()], references=[None]))


def test_judge_pickles():
    judge = pickle.loads(pickle.dumps(ScreenshotJudge("http://127.0.0.1:9", "m")))
    assert judge.enabled and judge.client.model == "m"


@pytest.mark.slow
def test_judge_against_transformers_serve(tiny_vlm_server):
    judge = ScreenshotJudge(
        tiny_vlm_server.base_url,
        tiny_vlm_server.model,
        timeout_ms=120_000,
        max_tokens=24,
        extra_body={"generation_config": SAMPLING},
    )

    async def run():
        return [await judge.grade_reply(_png((i * 40, 90, 90)), instruction="A page") for i in range(3)]

    results = asyncio.run(run())
    assert judge.stats["requests"] == 3 and judge.stats["errors"] == 0
    for score, reply in results:
        assert isinstance(reply, str)  # the server answered; the tiny model's text is noise
        expected = parse_score(reply)
        assert score == (None if expected is None else expected / 5)
        assert score is None or 0.0 <= score <= 1.0


def test_takes_an_endpoint_and_the_loose_form_is_retired(monkeypatch):
    from vcoder.chat import Endpoint
    from vcoder.gui.judge import JUDGE_DEFAULTS

    monkeypatch.delenv("VCODER_JUDGE_BASE_URL", raising=False)
    judge = ScreenshotJudge(Endpoint("http://127.0.0.1:9", "m", timeout_ms=5_000, max_retries=0))
    assert judge.endpoint == Endpoint(
        "http://127.0.0.1:9", "m", timeout_ms=5_000, max_retries=0, max_tokens=256, temperature=0.0
    )  # a reply budget and temperature left open: the judge's
    assert judge.client.transport.max_retries == 0 and (judge.max_tokens, judge.temperature) == (256, 0.0)
    with pytest.warns(DeprecationWarning, match=r"pass ScreenshotJudge\(Endpoint\("):
        loose = ScreenshotJudge("http://127.0.0.1:9", "m", timeout_ms=5_000, max_tokens=64)
    assert loose.endpoint == JUDGE_DEFAULTS.replace(
        base_url="http://127.0.0.1:9", model="m", timeout_ms=5_000, max_tokens=64
    )
    with pytest.raises(TypeError, match="timeout_s"):
        ScreenshotJudge("http://127.0.0.1:9", "m", timeout_s=5)
    with pytest.raises(TypeError, match="inside the Endpoint"):
        ScreenshotJudge(Endpoint("http://127.0.0.1:9", "m"), max_retries=0)
