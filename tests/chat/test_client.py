"""ChatClient against real HTTP servers on loopback: a scripted http.server and ``transformers serve``."""

from __future__ import annotations

import asyncio
import io
import pickle

import pytest
from PIL import Image

from tests.servers import SAMPLING, ScriptedServer, dead_port
from vcoder.chat import (
    BadResponse,
    ChatClient,
    Endpoint,
    ServerUnreachable,
    UnknownModel,
    connect,
    image_data_url,
    user_message,
)


def _png(colour=(200, 30, 30), size=(64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def test_client_validates_settings():
    with pytest.raises(ValueError, match="max_concurrency=0"):
        connect(Endpoint("http://127.0.0.1:1", "m", max_concurrency=0))
    with pytest.raises(ValueError, match="give both or neither"):
        connect(Endpoint("http://127.0.0.1:1", ""))
    with pytest.raises(ValueError, match="names no server"):
        connect(Endpoint())
    client = connect(Endpoint("http://127.0.0.1:1/", "m", timeout_ms=500, max_retries=1))
    assert client.base_url == "http://127.0.0.1:1/v1" and repr(client) == "ChatClient('http://127.0.0.1:1/v1', 'm')"
    assert (client.transport.timeout_ms, client.transport.max_retries) == (500.0, 1)
    assert client.endpoint == Endpoint("http://127.0.0.1:1/", "m", timeout_ms=500, max_retries=1)


def test_the_old_loose_form_still_works_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="use vcoder.chat.connect"):
        client = ChatClient("http://127.0.0.1:1", "m", timeout_ms=500, max_retries=1, backoff_ms=5)
    assert client.endpoint == Endpoint("http://127.0.0.1:1", "m", timeout_ms=500, max_retries=1)
    assert client.transport.backoff_ms == 5
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="non-empty model name"):
        ChatClient("http://127.0.0.1:1", "")
    with pytest.raises(TypeError, match="takes no loose settings"):
        ChatClient(Endpoint("http://127.0.0.1:1", "m"), timeout_ms=5)


def test_chat_sends_openai_request_and_reads_reply():
    png = _png()
    with ScriptedServer("hello there") as server:
        client = connect(Endpoint(server.base_url, "scripted", extra_body={"top_k": 5}), api_key="k")
        reply = asyncio.run(
            client.chat([user_message("look", images=[png])], temperature=0.0, max_tokens=7, seed=3, top_p=0.5)
        )
    assert reply.text == "hello there" and reply.attempts == 1 and reply.finish_reason == "stop"
    body = server.bodies[0]
    assert server.hits == ["/v1/chat/completions"]
    assert body["model"] == "scripted" and body["max_tokens"] == 7 and body["temperature"] == 0.0
    assert body["seed"] == 3 and body["top_k"] == 5 and body["top_p"] == 0.5 and body["stream"] is False
    assert body["messages"][0]["content"][1] == {"type": "image_url", "image_url": {"url": image_data_url(png)}}
    assert reply.raw["choices"][0]["message"] == {"role": "assistant", "content": "hello there"}


def test_chat_retries_with_the_clients_settings_and_check_reaches_nothing_dead():
    with ScriptedServer("ok", statuses=(503,)) as server:
        reply = asyncio.run(connect(Endpoint(server.base_url, "scripted", max_retries=1), backoff_ms=10).chat([]))
    assert reply.text == "ok" and reply.attempts == 2 and server.chat_hits == 2
    port = dead_port()
    with pytest.raises(ServerUnreachable, match=f"127.0.0.1:{port}/v1.*after 1 attempts"):
        asyncio.run(connect(Endpoint(f"http://127.0.0.1:{port}", "m")).check())


def test_wrong_model_lists_served_models():
    with ScriptedServer("ok", models=("served-a", "served-b")) as server:
        client = connect(Endpoint(server.base_url, "typo-model"), backoff_ms=10)
        with pytest.raises(UnknownModel, match=r"typo-model.*served-a"):
            asyncio.run(client.chat([user_message("x")]))
        with pytest.raises(UnknownModel, match="served-b"):
            asyncio.run(client.check())
        assert asyncio.run(connect(Endpoint(server.base_url, "served-a")).check()) == ["served-a", "served-b"]


@pytest.mark.parametrize("listed", [(), ("scripted",)], ids=["lists-none", "lists-the-model"])
def test_check_accepts_both_model_listings(listed):
    # both behaviours of transformers serve for a model pinned by path (<= 5.23 lists none, 5.24 lists it)
    with ScriptedServer("ok", listed=listed) as server:
        assert asyncio.run(connect(Endpoint(server.base_url, "scripted")).check(probe_chat=True)) == list(listed)
        probed = server.chat_hits
        with pytest.raises(UnknownModel, match="typo-model"):  # the probe (or the listing) still catches a typo
            asyncio.run(connect(Endpoint(server.base_url, "typo-model"), backoff_ms=10).check(probe_chat=True))
    assert probed == (1 if not listed else 0)  # a chat probe only where the listing could not tell


def test_bad_response_shape():
    with ScriptedServer(body={"result": "not a completion"}) as server:
        client = connect(Endpoint(server.base_url, "scripted"))
        with pytest.raises(BadResponse, match="choices"):
            asyncio.run(client.chat([user_message("x")]))


def test_client_pickles_and_works_in_a_second_event_loop():
    with ScriptedServer("ok") as server:
        client = connect(Endpoint(server.base_url, "scripted"))
        assert asyncio.run(client.chat([user_message("a")])).text == "ok"
        clone = pickle.loads(pickle.dumps(client))
        assert asyncio.run(clone.chat([user_message("b")])).text == "ok"
        assert asyncio.run(client.chat([user_message("c")])).text == "ok"  # a new loop, a new connection pool
    assert server.chat_hits == 3 and clone.model == "scripted" and clone.base_url == client.base_url


@pytest.mark.slow
def test_transformers_serve_accepts_images(tiny_vlm_server):
    client = connect(Endpoint(tiny_vlm_server.base_url, tiny_vlm_server.model, timeout_ms=120_000))

    async def both():
        # transformers serve <= 5.23 lists no models for a model pinned by path (check() then probes a chat request);
        # 5.24 lists the pinned path: both are a healthy server, and check() must accept either
        served = await client.check(probe_chat=True)
        assert served in ([], [tiny_vlm_server.model]), served
        text_only = await client.chat([user_message("Write the HTML.")], max_tokens=4)
        with_image = await client.chat([user_message("Write the HTML.", images=[_png()])], max_tokens=4)
        sampled = await client.chat([user_message("Hi")], max_tokens=16, generation_config=SAMPLING)
        return text_only, with_image, sampled

    text_only, with_image, sampled = asyncio.run(both())
    # the image became visual tokens in the prompt: proof the server decoded the data URL and ran the processor
    assert with_image.raw["usage"]["prompt_tokens"] > text_only.raw["usage"]["prompt_tokens"]
    assert with_image.raw["choices"][0]["message"]["role"] == "assistant"
    assert sampled.text == (sampled.raw["choices"][0]["message"]["content"] or "")
    assert sampled.raw["usage"]["completion_tokens"] >= 1


@pytest.mark.slow
def test_transformers_serve_wrong_model_is_a_clear_error(tiny_vlm_server):
    client = connect(Endpoint(tiny_vlm_server.base_url, "no-such-model", timeout_ms=60_000))
    with pytest.raises(UnknownModel, match="no-such-model"):
        asyncio.run(client.check(probe_chat=True))
