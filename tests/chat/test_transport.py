"""Transport against real HTTP servers on loopback: retries, backoff, timeouts, error messages, concurrency."""

from __future__ import annotations

import asyncio
import functools
import pickle
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.servers import ScriptedServer, dead_port
from vcoder.chat.errors import BadResponse, RequestFailed, ServerUnreachable
from vcoder.chat.transport import Transport

PAYLOAD = {"model": "scripted", "messages": [{"role": "user", "content": "x"}]}


def transport(base_url: str, **settings) -> Transport:
    options = {"api_key": None, "timeout_ms": 10_000, "max_retries": 3, "backoff_ms": 10, "max_concurrency": 8}
    return Transport(base_url + "/v1", **{**options, **settings})


def post(t: Transport, payload=PAYLOAD):
    return asyncio.run(t.request("POST", "/chat/completions", payload))


def test_validates_settings():
    with pytest.raises(ValueError, match=r"max_concurrency=0 \(>= 1\)"):
        transport("http://127.0.0.1:1", max_concurrency=0)
    with pytest.raises(ValueError, match=r"timeout_ms=0 \(> 0\)"):
        transport("http://127.0.0.1:1", timeout_ms=0)


def test_retries_on_5xx_and_429_then_succeeds():
    with ScriptedServer("ok", statuses=(503, 429)) as server:
        body, elapsed, attempts = post(transport(server.base_url))
    assert body["choices"][0]["message"]["content"] == "ok" and attempts == 3 and elapsed >= 0
    assert server.chat_hits == 3


def test_gives_up_after_max_retries_on_5xx():
    with ScriptedServer("ok", statuses=(500,) * 5) as server:
        with pytest.raises(RequestFailed, match="after 3 attempts") as info:
            post(transport(server.base_url, max_retries=2))
    assert info.value.status == 500 and info.value.detail == "scripted status 500" and server.chat_hits == 3


def test_does_not_retry_other_4xx():
    with ScriptedServer("ok", statuses=(422,)) as server:
        with pytest.raises(RequestFailed, match="answered HTTP 422: scripted status 422") as info:
            post(transport(server.base_url))
    assert info.value.status == 422 and server.chat_hits == 1


def test_refused_request_asks_for_an_api_key():
    with ScriptedServer("ok", statuses=(401,)) as server:
        with pytest.raises(RequestFailed, match="set OPENAI_API_KEY") as info:
            post(transport(server.base_url))
    assert info.value.status == 401 and server.chat_hits == 1


def test_non_json_success_is_a_bad_response(tmp_path):
    # a static file server: /v1/models answers 200 with text, as a wrong server (or a web page) would
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "models").write_text("<html>not an API</html>")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *args: None
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            t = transport(f"http://127.0.0.1:{httpd.server_address[1]}")
            with pytest.raises(BadResponse, match=r"answered 200 with non-JSON: '<html>not an API</html>'"):
                asyncio.run(t.request("GET", "/models"))
        finally:
            httpd.shutdown()


def test_unreachable_port_fails_fast_with_a_clear_message():
    port = dead_port()
    t = transport(f"http://127.0.0.1:{port}", max_retries=2)
    start = time.monotonic()
    with pytest.raises(ServerUnreachable) as info:
        post(t)
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message and "vllm serve" in message and "3 attempts" in message
    assert time.monotonic() - start < 30  # a generous bound: it must not hang on a dead port


def test_slow_server_times_out_then_retries_then_fails():
    with ScriptedServer("late", delay_s=1.5) as server:
        with pytest.raises(RequestFailed, match=r"timed out after 300 ms on each of 3 attempts") as info:
            post(transport(server.base_url, timeout_ms=300, max_retries=2))
    assert info.value.status is None and server.chat_hits == 3


def test_concurrency_is_bounded():
    async def many(t):
        return await asyncio.gather(*(t.request("POST", "/chat/completions", PAYLOAD) for _ in range(6)))

    with ScriptedServer("ok", delay_s=0.2) as server:
        replies = asyncio.run(many(transport(server.base_url, max_concurrency=2)))
    assert [r[2] for r in replies] == [1] * 6 and server.max_inflight == 2


def test_pickles_without_its_connections_and_works_in_a_second_event_loop():
    with ScriptedServer("ok") as server:
        t = transport(server.base_url)
        assert post(t)[2] == 1
        clone = pickle.loads(pickle.dumps(t))
        assert clone.base_url == t.base_url and clone.max_retries == 3
        assert post(clone)[2] == 1
        assert post(t)[2] == 1  # a new loop, a new connection pool
