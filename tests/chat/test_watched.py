"""WatchedClient: an answered request leaves no record; a failed or cut-off one is recorded, then propagates."""

from __future__ import annotations

import asyncio

import pytest

from tests.servers import ScriptedServer
from vcoder.chat import Endpoint, RequestFailed, WatchedClient, connect


def test_answers_pass_through_and_failures_are_recorded_before_they_propagate():
    async def run(server):
        watched = WatchedClient(connect(Endpoint(server.base_url, "scripted", max_retries=0)))
        try:
            reply = await watched.chat([{"role": "user", "content": "hi"}], max_tokens=4)
            assert reply.text == "ok" and watched.failures == ()
            with pytest.raises(RequestFailed):
                await watched.chat([{"role": "user", "content": "hi"}])
            return watched.failures
        finally:
            await watched.aclose()

    with ScriptedServer("ok", statuses=(200, 503)) as server:
        failures = asyncio.run(run(server))
    assert len(failures) == 1 and failures[0].startswith("RequestFailed:") and "503" in failures[0]


def test_a_request_cut_off_by_a_deadline_is_recorded_and_a_shared_client_stays_open():
    async def run(server):
        shared = connect(Endpoint(server.base_url, "scripted", max_retries=0))
        watched = WatchedClient(shared, owned=False)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(watched.chat([{"role": "user", "content": "hi"}]), 0.2)
        await watched.aclose()  # not the owner: the shared client still answers
        server.delay_s = 0.0
        reply = await shared.chat([{"role": "user", "content": "again"}])
        await shared.aclose()
        return watched.failures, reply.text

    with ScriptedServer("ok", delay_s=1.0) as server:
        failures, text = asyncio.run(run(server))
    assert len(failures) == 1 and failures[0].endswith("was cut off before the model answered")
    assert text == "ok"
