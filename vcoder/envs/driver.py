"""The environments' one event loop for synchronous callers (TRL's tool calls, OpenEnv's server threads).

The cores are async; a synchronous adapter runs their coroutines here, on one background loop per process (never
``asyncio.run`` per call: the rendering pool, the rewards' caches and the running episodes outlive a call). The
rendering itself still happens on the pool's own home loop, which the cores reach through ``run_on_loop``.

Example:
    >>> async def two():
    ...     return 2
    >>> run(two())
    2
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_LOCK = threading.Lock()
_LOOP: asyncio.AbstractEventLoop | None = None
_PID: int | None = None


def loop() -> asyncio.AbstractEventLoop:
    """The running background loop of this process (started on first use; a forked child starts its own)."""
    global _LOOP, _PID
    with _LOCK:
        if _LOOP is None or _PID != os.getpid() or _LOOP.is_closed():
            _LOOP, _PID = asyncio.new_event_loop(), os.getpid()
            ready = threading.Event()
            _LOOP.call_soon(ready.set)
            threading.Thread(target=_LOOP.run_forever, name="vcoder-envs", daemon=True).start()
            ready.wait(30)
        return _LOOP


def run(coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
    """Run ``coro`` on the background loop and return its result (raises what it raises).

    Raises:
        RuntimeError: called from the background loop itself, which it would deadlock.
    """
    target = loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is target:
        coro.close()
        raise RuntimeError("vcoder.envs.driver.run was called from its own loop: await the coroutine instead")
    return asyncio.run_coroutine_threadsafe(coro, target).result(timeout)
