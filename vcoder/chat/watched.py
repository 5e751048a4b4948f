"""A chat client whose failures are seen: each request that failed or was cut off is recorded before it propagates.

A GUI agent's endpoint that errors or times out says nothing about the page it was testing, so whoever grades with
the agent (the ``gui_agent`` reward, the audited site grader) must know that it happened; the VLM policy itself only
sees a case that could not finish. ``WatchedClient`` wraps any ``ChatClient``: a fresh one per page over a shared
client isolates that page's failures (``owned=False`` leaves the shared client open), or one that owns its client
for a whole run.

Example (inside a coroutine)::

    watched = WatchedClient(connect(Endpoint("http://127.0.0.1:8000", "Qwen/Qwen2.5-VL-7B-Instruct")))
    policy = VLMPolicy(client=watched)
    ...
    watched.failures  # () when every request was answered
"""

from __future__ import annotations

import asyncio
from typing import Any

from vcoder.chat.client import ChatClient, ChatResponse
from vcoder.chat.errors import ChatError


class WatchedClient:
    """A ``ChatClient``'s ``chat`` with every failure recorded.

    Args:
        client: the client that does the work.
        owned: ``aclose`` closes ``client`` too (False for a client shared beyond this wrapper).

    Attributes:
        failures: one short description per request that failed (a ``ChatError`` after the retries, a timeout) or was
            cut off (cancelled, e.g. by a case deadline while the model was still answering), oldest first.
    """

    def __init__(self, client: ChatClient, *, owned: bool = True) -> None:
        self.client, self.owned = client, owned
        self.failures: tuple[str, ...] = ()

    @property
    def base_url(self) -> str:
        return self.client.base_url

    @property
    def model(self) -> str:
        return self.client.model

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        **extra: Any,
    ) -> ChatResponse:
        """``ChatClient.chat``, recording a failure before it propagates."""
        try:
            return await self.client.chat(messages, temperature=temperature, max_tokens=max_tokens, seed=seed, **extra)
        except (ChatError, asyncio.TimeoutError) as exc:
            self.failures = (*self.failures, f"{type(exc).__name__}: {str(exc)[:300]}")
            raise
        except asyncio.CancelledError:
            self.failures = (*self.failures, f"a request to {self.base_url} was cut off before the model answered")
            raise

    async def check(self, *, probe_chat: bool = False) -> list[str]:
        """``ChatClient.check``: a probe, not a graded request, so nothing is recorded."""
        return await self.client.check(probe_chat=probe_chat)

    async def aclose(self) -> None:
        """Close the client if this wrapper owns it."""
        if self.owned:
            await self.client.aclose()
