"""``BrowserPool``: the synchronous facade (one event loop in a background thread), and the shared default pool."""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
from collections.abc import Callable, Coroutine

from vcoder.rendering.pool import AsyncBrowserPool
from vcoder.rendering.types import Rendered

logger = logging.getLogger(__name__)


class BrowserPool:
    """Synchronous ``AsyncBrowserPool`` with the same method names; its loop lives in one background thread.

    Args:
        **kwargs: ``AsyncBrowserPool`` options (max_pages, executable_path, assets_dir, timeout_ms, ...).

    Attributes:
        async_pool: the ``AsyncBrowserPool`` on the background loop; ``await pool.async_pool.render(html)`` works
            from any event loop (calls are forwarded to the background loop).

    Example:
        >>> with BrowserPool() as pool:  # doctest: +SKIP
        ...     shot = pool.render("<h1>Hi</h1>").image
    """

    def __init__(self, **kwargs):
        self.async_pool = AsyncBrowserPool(**kwargs)
        self._loop = asyncio.new_event_loop()
        self.async_pool._loop = self._loop  # home loop fixed before anyone else can adopt the pool
        self._thread = threading.Thread(target=self._loop.run_forever, name="vcoder-browser-pool", daemon=True)
        self._thread.start()
        self.closed = False

    def _call(self, make: Callable[[], Coroutine], timeout: float | None = None):
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(
                "BrowserPool (the synchronous API) was called from inside a running event loop, which it would block; "
                "in async code use AsyncBrowserPool, or `await pool.async_pool.render(...)`"
            )
        if self.closed:
            raise RuntimeError("this BrowserPool is closed; create a new one (or use get_default_pool())")
        return asyncio.run_coroutine_threadsafe(make(), self._loop).result(timeout)

    def start(self) -> None:
        """Launch Chromium now (otherwise the first render does)."""
        self._call(self.async_pool.start)

    def render(self, html: str, **kwargs) -> Rendered:
        """``AsyncBrowserPool.render``, blocking."""
        return self._call(lambda: self.async_pool.render(html, **kwargs))

    def render_many(self, htmls, **kwargs) -> list[Rendered]:
        """``AsyncBrowserPool.render_many``, blocking."""
        return self._call(lambda: self.async_pool.render_many(htmls, **kwargs))

    def stats(self) -> dict:
        """Render counters (see ``AsyncBrowserPool.stats``)."""
        return self.async_pool.stats()

    def browser_pids(self) -> list[int]:
        """Process ids of the browser's process tree."""
        return self.async_pool.browser_pids()

    def close(self) -> None:
        """Close the browser and stop the background loop (idempotent)."""
        if self.closed:
            return
        try:
            self._call(self.async_pool.close, timeout=30)
        except Exception as exc:
            logger.warning("closing the browser pool: %s", exc)
        self.closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def __enter__(self) -> BrowserPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_default: BrowserPool | None = None
_default_pid: int | None = None
_lock = threading.Lock()


def _after_fork() -> None:
    global _lock
    _lock = threading.Lock()  # a lock held by another thread at fork time would never be released in the child


os.register_at_fork(after_in_child=_after_fork)


def get_default_pool(**kwargs) -> BrowserPool:
    """The process-wide shared ``BrowserPool``: created on first use, re-created after fork, closed at exit.

    Args:
        **kwargs: ``AsyncBrowserPool`` options, used when the pool is created (ignored, with a warning, after).

    Returns:
        The shared pool.
    """
    global _default, _default_pid
    with _lock:
        if _default is None or _default.closed or _default_pid != os.getpid():
            # after fork the parent's loop thread and browser are not ours: drop them without closing
            _default, _default_pid = BrowserPool(**kwargs), os.getpid()
        elif kwargs:
            logger.warning("get_default_pool(%s): the shared pool already exists; options ignored", kwargs)
        return _default


@atexit.register
def _close_default() -> None:
    if _default is not None and _default_pid == os.getpid():
        _default.close()
