"""``BrowserPool``: the synchronous facade (one event loop in a background thread), and the shared default pool."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from typing import Any

from vcoder.rendering import defaults
from vcoder.rendering.jobs import DEFAULT_ENTRY, per_document
from vcoder.rendering.lifecycle import PoolOptions, takes_pool_options
from vcoder.rendering.pool import AsyncBrowserPool
from vcoder.rendering.types import POOL_CLOSED, BrowserUnavailable, Rendered

logger = logging.getLogger(__name__)


class BrowserPool:
    """Synchronous ``AsyncBrowserPool`` with the same method names and signatures; its loop runs in one thread.

    Args: as ``AsyncBrowserPool``'s.

    Attributes:
        async_pool: the ``AsyncBrowserPool`` on the background loop; ``await pool.async_pool.render(html)`` works
            from any event loop (calls are forwarded to the background loop). Live pages (``open_page``) exist only
            there: a Playwright page belongs to the loop that made it.

    Example:
        >>> with BrowserPool() as pool:  # doctest: +SKIP
        ...     shot = pool.render("<h1>Hi</h1>").image
    """

    @takes_pool_options
    def __init__(self, **options: Any) -> None:
        PoolOptions.from_keywords("BrowserPool", options)  # refuse bad options before a loop exists
        self._loop = asyncio.new_event_loop()
        try:
            # home loop fixed before anyone else can adopt the pool
            self.async_pool = AsyncBrowserPool(loop=self._loop, **options)
        except BaseException:
            self._loop.close()  # bad options: nothing was started
            raise
        self._thread = threading.Thread(target=self._loop.run_forever, name="vcoder-browser-pool", daemon=True)
        running = threading.Event()
        self._loop.call_soon_threadsafe(running.set)
        self._thread.start()
        # until its loop runs, a render from another loop is refused as a BROWSER failure ("could not judge"): the
        # window between the thread starting and the loop running is wide on a loaded machine
        running.wait(30)
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
            raise BrowserUnavailable(POOL_CLOSED)
        return asyncio.run_coroutine_threadsafe(make(), self._loop).result(timeout)

    def start(self) -> None:
        """Launch Chromium now (otherwise the first render does); raises ``BrowserUnavailable`` as the async one."""
        self._call(self.async_pool.start)

    def render(
        self,
        html: str | bytes | None = None,
        *,
        width: int = defaults.WIDTH,
        height: int = defaults.HEIGHT,
        full_page: bool = True,
        timeout_ms: float | None = None,
        base_dir: str | os.PathLike | None = None,
        files: Mapping[str, str | bytes] | None = None,
        entry: str = DEFAULT_ENTRY,
    ) -> Rendered:
        """``AsyncBrowserPool.render``, blocking (the arguments are documented there)."""
        if self.closed:
            return Rendered.unavailable(POOL_CLOSED)
        return self._call(
            lambda: self.async_pool.render(
                html,
                width=width,
                height=height,
                full_page=full_page,
                timeout_ms=timeout_ms,
                base_dir=base_dir,
                files=files,
                entry=entry,
            )
        )

    def render_many(
        self,
        htmls: Iterable[str | bytes | None] | None = None,
        *,
        width: int = defaults.WIDTH,
        height: int = defaults.HEIGHT,
        full_page: bool = True,
        timeout_ms: float | None = None,
        base_dirs: Sequence[str | os.PathLike | None] | None = None,
        files: Sequence[Mapping[str, str | bytes] | None] | None = None,
        entry: str = DEFAULT_ENTRY,
        progress: bool = False,
    ) -> list[Rendered]:
        """``AsyncBrowserPool.render_many``, blocking (the arguments are documented there)."""
        if self.closed:
            htmls, _, _ = per_document(htmls, base_dirs=base_dirs, files=files)
            return [Rendered.unavailable(POOL_CLOSED) for _ in htmls]
        return self._call(
            lambda: self.async_pool.render_many(
                htmls,
                width=width,
                height=height,
                full_page=full_page,
                timeout_ms=timeout_ms,
                base_dirs=base_dirs,
                files=files,
                entry=entry,
                progress=progress,
            )
        )

    def stats(self) -> dict:
        """Render counters (see ``AsyncBrowserPool.stats``)."""
        return self.async_pool.stats()

    def browser_pids(self) -> list[int]:
        """Process ids of the browser's process tree."""
        return self.async_pool.browser_pids()

    def close(self) -> None:
        """Close the browser and stop the background loop, for good (idempotent); later renders fail as
        ``FailureKind.BROWSER``."""
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


_hooked = False


def _after_fork() -> None:
    global _lock
    _lock = threading.Lock()  # a lock held by another thread at fork time would never be released in the child


def _close_default() -> None:
    if _default is not None and _default_pid == os.getpid():
        _default.close()


def _hook_process() -> None:
    """Close the shared pool at exit, renew its lock in a forked child: registered once, with the first pool."""
    global _hooked
    if not _hooked:
        _hooked = True
        os.register_at_fork(after_in_child=_after_fork)
        atexit.register(_close_default)


@takes_pool_options(unset_is_none=True)
def get_default_pool(**options: Any) -> BrowserPool:
    """The process-wide shared ``BrowserPool``: created on first use, re-created after fork, closed at exit.

    Args: ``PoolOptions``' fields, used when the shared pool is created (None: the pool's default); given again once
    it exists they are ignored, with a warning.

    Returns:
        The shared pool.
    """
    global _default, _default_pid
    options = {k: v for k, v in options.items() if v is not None}
    PoolOptions.from_keywords("get_default_pool", options)  # a typo fails even when the shared pool exists
    _hook_process()
    with _lock:
        if _default is None or _default.closed or _default_pid != os.getpid():
            # after fork the parent's loop thread and browser are not ours: drop them without closing
            _default, _default_pid = BrowserPool(**options), os.getpid()
        elif options:
            logger.warning("get_default_pool(%s): the shared pool already exists; options ignored", options)
        return _default


@contextlib.contextmanager
def pool_or_private(pool: BrowserPool | None, *, max_pages: int | None = None) -> Iterator[BrowserPool]:
    """The caller's pool, or a private one closed when the block ends (for functions that take ``pool=None``).

    Example:
        >>> with pool_or_private(None, max_pages=1) as p:  # doctest: +SKIP
        ...     shot = p.render("<h1>hi</h1>")
    """
    if pool is not None:
        yield pool
        return
    private = BrowserPool() if max_pages is None else BrowserPool(max_pages=max_pages)
    try:
        yield private
    finally:
        private.close()
