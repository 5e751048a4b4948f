"""ChatClient against real HTTP servers on loopback: a scripted http.server and ``transformers serve``."""

from __future__ import annotations

import asyncio
import base64
import io
import pickle
import time

import pytest
from PIL import Image

from tests.servers import SAMPLING, ScriptedServer, dead_port
from vcoder.chat.client import (
    BadResponse,
    ChatClient,
    RequestFailed,
    ServerUnreachable,
    UnknownModel,
    image_data_url,
    normalize_base_url,
    user_message,
)


def _png(colour=(200, 30, 30), size=(64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/v1"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/v1"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"),
        ("https://host/api/v2", "https://host/api/v2"),
        ("http://h:1/v1/chat/completions", "http://h:1/v1"),
    ],
)
def test_normalize_base_url(given, expected):
    assert normalize_base_url(given) == expected


def test_normalize_base_url_rejects_missing_scheme():
    with pytest.raises(ValueError, match="http://"):
        normalize_base_url("127.0.0.1:8000")


def test_image_data_url_from_bytes_pil_path_and_jpeg(tmp_path):
    png = _png()
    url = image_data_url(png)
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png
    assert image_data_url(Image.open(io.BytesIO(png))).startswith("data:image/png;base64,")
    (tmp_path / "a.png").write_bytes(png)
    assert image_data_url(tmp_path / "a.png") == url
    jpeg = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(jpeg, format="JPEG")
    decoded = base64.b64decode(image_data_url(jpeg.getvalue()).split(",", 1)[1])
    assert decoded.startswith(b"\x89PNG")  # re-encoded


def test_user_message_shape():
    msg = user_message("hi", images=[_png(), _png()])
    assert msg["role"] == "user"
    assert [p["type"] for p in msg["content"]] == ["text", "image_url", "image_url"]
    first = user_message("hi", images=[_png()], images_first=True)
    assert [p["type"] for p in first["content"]] == ["image_url", "text"]


def test_client_validates_settings():
    with pytest.raises(ValueError, match="max_concurrency=0"):
        ChatClient("http://127.0.0.1:1", "m", max_concurrency=0)
    with pytest.raises(ValueError, match="model"):
        ChatClient("http://127.0.0.1:1", "")


def test_chat_sends_openai_request_and_reads_reply():
    with ScriptedServer("hello there") as server:
        client = ChatClient(server.base_url, "scripted", api_key="k", extra_body={"top_k": 5})
        reply = asyncio.run(
            client.chat([user_message("look", images=[_png()])], temperature=0.0, max_tokens=7, seed=3)
        )
    assert reply.text == "hello there" and reply.attempts == 1 and reply.finish_reason == "stop"
    body = server.bodies[0]
    assert server.hits == ["/v1/chat/completions"]
    assert body["model"] == "scripted" and body["max_tokens"] == 7 and body["temperature"] == 0.0
    assert body["seed"] == 3 and body["top_k"] == 5 and body["stream"] is False
    assert body["messages"][0]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_retries_on_5xx_and_429_then_succeeds():
    with ScriptedServer("ok", statuses=(503, 429)) as server:
        client = ChatClient(server.base_url, "scripted", backoff_ms=10, max_retries=3)
        reply = asyncio.run(client.chat([user_message("x")]))
    assert reply.text == "ok" and reply.attempts == 3 and server.chat_hits == 3


def test_gives_up_after_max_retries_on_5xx():
    with ScriptedServer("ok", statuses=(500,) * 5) as server:
        client = ChatClient(server.base_url, "scripted", backoff_ms=10, max_retries=2)
        with pytest.raises(RequestFailed, match="after 3 attempts") as info:
            asyncio.run(client.chat([user_message("x")]))
    assert info.value.status == 500 and server.chat_hits == 3


def test_does_not_retry_other_4xx():
    with ScriptedServer("ok", statuses=(422,)) as server:
        client = ChatClient(server.base_url, "scripted", backoff_ms=10)
        with pytest.raises(RequestFailed, match="422"):
            asyncio.run(client.chat([user_message("x")]))
    assert server.chat_hits == 1


def test_wrong_model_lists_served_models():
    with ScriptedServer("ok", models=("served-a", "served-b")) as server:
        client = ChatClient(server.base_url, "typo-model", backoff_ms=10)
        with pytest.raises(UnknownModel, match=r"typo-model.*served-a"):
            asyncio.run(client.chat([user_message("x")]))
        with pytest.raises(UnknownModel, match="served-b"):
            asyncio.run(client.check())
        assert asyncio.run(ChatClient(server.base_url, "served-a").check()) == ["served-a", "served-b"]


def test_bad_response_shape():
    with ScriptedServer(body={"result": "not a completion"}) as server:
        client = ChatClient(server.base_url, "scripted")
        with pytest.raises(BadResponse, match="choices"):
            asyncio.run(client.chat([user_message("x")]))


def test_unreachable_port_fails_fast_with_a_clear_message():
    port = dead_port()
    client = ChatClient(f"http://127.0.0.1:{port}", "m", backoff_ms=10, max_retries=2)
    start = time.monotonic()
    with pytest.raises(ServerUnreachable) as info:
        asyncio.run(client.chat([user_message("x")]))
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message and "vllm serve" in message and "3 attempts" in message
    assert time.monotonic() - start < 30  # a generous bound: it must not hang on a dead port
    with pytest.raises(ServerUnreachable):
        asyncio.run(client.check())


def test_slow_server_times_out_then_retries_then_fails():
    with ScriptedServer("late", delay_s=1.5) as server:
        client = ChatClient(server.base_url, "scripted", timeout_ms=300, max_retries=2, backoff_ms=10)
        with pytest.raises(RequestFailed, match=r"timed out after 300 ms on each of 3 attempts"):
            asyncio.run(client.chat([user_message("x")]))
    assert server.chat_hits == 3


def test_concurrency_is_bounded():
    async def many(client):
        return await asyncio.gather(*(client.chat([user_message(str(i))]) for i in range(6)))

    with ScriptedServer("ok", delay_s=0.2) as server:
        replies = asyncio.run(many(ChatClient(server.base_url, "scripted", max_concurrency=2)))
    assert len(replies) == 6 and server.max_inflight == 2


def test_client_pickles_and_works_in_a_second_event_loop():
    with ScriptedServer("ok") as server:
        client = ChatClient(server.base_url, "scripted")
        assert asyncio.run(client.chat([user_message("a")])).text == "ok"
        clone = pickle.loads(pickle.dumps(client))
        assert asyncio.run(clone.chat([user_message("b")])).text == "ok"
        assert asyncio.run(client.chat([user_message("c")])).text == "ok"  # a new loop, a new connection pool


@pytest.mark.slow
def test_transformers_serve_accepts_images(tiny_vlm_server):
    client = ChatClient(tiny_vlm_server.base_url, tiny_vlm_server.model, timeout_ms=120_000)

    async def both():
        assert await client.check(probe_chat=True) == []  # transformers serve lists no models for a pinned path
        text_only = await client.chat([user_message("Write the HTML.")], max_tokens=4)
        with_image = await client.chat([user_message("Write the HTML.", images=[_png()])], max_tokens=4)
        sampled = await client.chat([user_message("Hi")], max_tokens=16, generation_config=SAMPLING)
        return text_only, with_image, sampled

    text_only, with_image, sampled = asyncio.run(both())
    # the image became visual tokens in the prompt: proof the server decoded the data URL and ran the processor
    assert with_image.raw["usage"]["prompt_tokens"] > text_only.raw["usage"]["prompt_tokens"]
    assert with_image.raw["choices"][0]["message"]["role"] == "assistant"
    assert isinstance(sampled.text, str) and sampled.raw["usage"]["completion_tokens"] >= 1


@pytest.mark.slow
def test_transformers_serve_wrong_model_is_a_clear_error(tiny_vlm_server):
    client = ChatClient(tiny_vlm_server.base_url, "no-such-model", timeout_ms=60_000)
    with pytest.raises(UnknownModel, match="no-such-model"):
        asyncio.run(client.check(probe_chat=True))
