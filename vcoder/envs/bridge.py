"""Turning vcoder's policy-driven episodes into step-driven environments, without a second episode loop.

vcoder's episodes (:func:`vcoder.sites.episode.run_site_episode`, :func:`vcoder.browse.episode.arun_episode`) pull
their actions: they call a policy with the conversation so far and await its reply. An environment is pushed:
``reset`` then ``step(action)``. :class:`Bridge` is the policy those episodes run with: each time the episode asks,
the bridge hands the question out as the current observation and waits for the next ``step``; the episode itself
(parsing, applying, rendering, grading, evaluating) is the existing code, unchanged.

The hand-over uses ``concurrent.futures.Future`` objects, which belong to no event loop: the episode runs on the
rendering pool's home loop, the caller may be on any loop or thread.

Example (inside a coroutine)::

    bridge = Bridge()
    await bridge.start(lambda: arun_episode(task, bridge, pool=pool))
    turn = await bridge.step('do(action="Click", element="3")')   # Turn(messages=..., done=False, result=None)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)


class EpisodeAbandoned(RuntimeError):
    """Raised inside the episode's policy call when the environment ends it early (reset, close, get_reward)."""


@dataclass(frozen=True)
class Turn:
    """What the episode shows after an action.

    Attributes:
        messages: the conversation the episode asks the policy to answer (None once it is over).
        done: whether the episode has ended.
        result: the episode's own result once it has ended (``EpisodeResult``, ``WebEpisode``), else None.
        error: why the episode failed outside the model's control (None when it ran).
    """

    messages: list[dict[str, Any]] | None
    done: bool
    result: Any = None
    error: str | None = None


class Bridge:
    """A policy for vcoder's episodes whose replies come from ``step`` calls (see the module docstring).

    Attributes:
        name: the policy's name in the episode's records.
        screenshots: whether a browsing episode shows the marked screenshot in each step (WebRL's text setting: no).
    """

    def __init__(self, *, name: str = "environment", screenshots: bool = False) -> None:
        self.name = name
        self.screenshots = screenshots
        self._asked: concurrent.futures.Future = concurrent.futures.Future()
        self._reply: concurrent.futures.Future | None = None
        self._episode: concurrent.futures.Future | None = None
        self.last: Turn | None = None

    # the episode's side -------------------------------------------------------------------------------------------
    async def act(self, messages: list[dict[str, Any]]) -> str:
        """Called by a browsing episode: show ``messages``, wait for the next ``step``'s action."""
        reply: concurrent.futures.Future = concurrent.futures.Future()
        self._reply = reply
        self._asked.set_result(Turn(list(messages), False))
        return await asyncio.wrap_future(reply)

    async def __call__(self, messages: list[dict[str, Any]]) -> str:
        """Called by a site-building episode (a ``SitePolicy``): as ``act``."""
        return await self.act(messages)

    # the environment's side ---------------------------------------------------------------------------------------
    async def start(self, run: Callable[[], Awaitable[Any]], *, loop: asyncio.AbstractEventLoop | None = None) -> Turn:
        """Start the episode ``run()`` (on ``loop``, default: the running one) and return its first question."""
        self._asked = concurrent.futures.Future()
        target = loop or asyncio.get_running_loop()
        self._episode = asyncio.run_coroutine_threadsafe(self._run(run), target)
        return await self._next()

    async def _run(self, run: Callable[[], Awaitable[Any]]) -> None:
        try:
            result = await run()
            turn = Turn(None, True, result)
        except EpisodeAbandoned:
            turn = Turn(None, True, None, "the episode was abandoned")
        except Exception as exc:  # the machinery failed (browser down): say so instead of hanging the caller
            logger.warning("episode failed", exc_info=True)
            turn = Turn(None, True, None, f"{type(exc).__name__}: {exc}")
        if not self._asked.done():
            self._asked.set_result(turn)

    async def _next(self) -> Turn:
        self.last = await asyncio.wrap_future(self._asked)
        return self.last

    @property
    def done(self) -> bool:
        return self.last is None or self.last.done

    async def step(self, action: str) -> Turn:
        """Answer the episode's question with ``action``; return its next question or its end.

        Raises:
            RuntimeError: no episode is waiting for an action (not started, or already over).
        """
        if self.done or self._reply is None:
            raise RuntimeError("the episode is over (or was never started): call reset first")
        self._asked = concurrent.futures.Future()
        reply, self._reply = self._reply, None
        reply.set_result(action)
        return await self._next()

    async def abandon(self) -> Turn | None:
        """End a running episode now (its policy call raises ``EpisodeAbandoned``) and wait for it to unwind."""
        if self._episode is None:
            return self.last
        if not self.done and self._reply is not None:
            self._asked = concurrent.futures.Future()
            reply, self._reply = self._reply, None
            reply.set_exception(EpisodeAbandoned("the environment ended the episode"))
            await self._next()
        await asyncio.wrap_future(self._episode)
        self._episode = None
        return self.last
