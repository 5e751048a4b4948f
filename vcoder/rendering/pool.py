"""``AsyncBrowserPool``: the one rendering implementation (hermetic, contained, page-reusing Chromium pool).

The pool is the public face; the work is done by its parts: ``loop`` (the home event loop), ``browser`` (Chromium's
lifecycle), ``slots`` (the reusable pages), ``renderer`` (the render loop), ``capture`` (screenshot + layout),
``network`` (the hermetic router) and ``live`` (pages lent to agents).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from vcoder.rendering import defaults, live
from vcoder.rendering.assets import AssetStore
from vcoder.rendering.browser import Browser, check_executable
from vcoder.rendering.jobs import Job, dedup_key, make_job, per_document, run_batch
from vcoder.rendering.loop import HomeLoop
from vcoder.rendering.renderer import Renderer
from vcoder.rendering.types import POOL_CLOSED, BrowserUnavailable, Rendered

T = TypeVar("T")


class AsyncBrowserPool:
    """A pool of hermetic Chromium pages rendering HTML to ``Rendered`` (screenshot + layout).

    Playwright objects belong to the event loop that made them: the pool lives on one home loop (``loop``, or the
    first loop that uses it) and forwards calls from any other loop there; ``run_on_loop`` does the same for your
    own code (e.g. an agent episode that drives pages from ``open_page``).

    Args:
        loop: the home event loop, fixed for the pool's life (it must be running, in another thread, when the pool
            is called from other loops; ``BrowserPool`` passes its background loop). None: the first loop that
            uses the pool, replaced by the next caller's when it has been closed (successive ``asyncio.run``).
        max_pages: concurrent page slots (each its own browser context).
        executable_path: Chromium binary (default: ``$VCODER_CHROMIUM``, Playwright's, then ``/usr/bin/chromium``).
        assets_dir: front-end asset cache (default ``$VCODER_ASSETS_DIR`` or ``~/.cache/vcoder/assets``).
        timeout_ms: default per-render deadline, in ms.
        max_height: screenshot height cap in px (taller pages are cut, ``Rendered.truncated``).
        launch_args: extra Chromium flags.
        recycle_after: renders after which a slot's context is replaced. Measured over 500 renders: browser memory
            grew ~16% with 500 and stayed flat with 100 (a new context costs ~0.2 s, 0.2% of 100 renders).

    Example:
        >>> async with AsyncBrowserPool() as pool:  # doctest: +SKIP
        ...     r = await pool.render("<h1>Hi</h1>")
    """

    def __init__(
        self,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        max_pages: int = defaults.MAX_PAGES,
        executable_path: str | os.PathLike | None = None,
        assets_dir: str | os.PathLike | None = None,
        timeout_ms: float = defaults.TIMEOUT_MS,
        max_height: int = defaults.MAX_HEIGHT,
        launch_args: Iterable[str] = (),
        recycle_after: int = defaults.RECYCLE_AFTER,
    ) -> None:
        if max_pages < 1:
            raise ValueError(f"max_pages must be >= 1, got {max_pages}")
        if timeout_ms <= 0 or max_height <= 0 or recycle_after < 1:
            raise ValueError(
                f"timeout_ms, max_height and recycle_after must be positive, got {timeout_ms}, {max_height}, "
                f"{recycle_after}"
            )
        self.max_pages, self.executable_path, self.assets_dir = max_pages, executable_path, assets_dir
        self.timeout_ms, self.max_height, self.recycle_after = timeout_ms, max_height, recycle_after
        self.launch_args = tuple(launch_args)
        if executable_path is not None:
            check_executable(executable_path)
        self._home = HomeLoop(loop, on_lost=self._forget)
        self._closed = False
        self._store: AssetStore | None = None
        self._stats = dict.fromkeys(
            ("renders", "failures", "timeouts", "crashes", "page_replacements", "relaunches", "dedup_hits"), 0
        )
        self._forget()

    def _forget(self) -> None:
        self._renderer: Renderer | None = None
        self._start_lock: asyncio.Lock | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The home event loop (None until a loop has used an unbound pool)."""
        return self._home.loop

    async def run_on_loop(self, fn: Callable[..., Awaitable[T]], /, *args: Any, **kwargs: Any) -> T:
        """Await ``fn(*args, **kwargs)`` on the pool's home loop, from any event loop, and return its result.

        Code that drives live pages (``open_page``) must run where the pages live; from the home loop itself this
        is a plain ``await``.

        Example:
            >>> async def episode(pool):  # doctest: +SKIP
            ...     async with pool.open_page("<button>Go</button>") as page:
            ...         await page.click("button")
            ...         return await pool.snapshot(page)
            >>> shot = await pool.run_on_loop(episode, pool)  # doctest: +SKIP

        Raises:
            BrowserUnavailable: the pool is closed, or its home loop is not running (e.g. a closed ``BrowserPool``'s).
        """
        if self._closed:
            raise BrowserUnavailable(POOL_CLOSED)
        return await self._home.run(fn, *args, **kwargs)

    @property
    def marker(self) -> str:
        """The command-line switch that tells this pool's Chromium processes apart ("" before the first start)."""
        return self._renderer.browser.marker if self._renderer is not None else ""

    # lifecycle
    async def start(self) -> None:
        """Launch Chromium and open the page slots (idempotent; render() calls it on first use).

        Raises:
            BrowserUnavailable: Chromium would not start (the message says why), or the pool is closed.
        """
        await self.run_on_loop(self._start)

    async def _start(self) -> Renderer:
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self._closed:
                raise BrowserUnavailable(POOL_CLOSED)
            if self._renderer is not None:
                return self._renderer
            if self._store is None:
                self._store = AssetStore(self.assets_dir)
                # parse Tailwind's 2.9 MB stylesheet while Chromium launches (pruned per page, see cssprune.py)
                asyncio.get_running_loop().run_in_executor(None, self._store.prewarm)
            browser = Browser(executable_path=self.executable_path, extra_args=self.launch_args, stats=self._stats)
            renderer = Renderer(
                browser,
                self._store,
                max_pages=self.max_pages,
                max_height=self.max_height,
                recycle_after=self.recycle_after,
                stats=self._stats,
            )
            try:
                await browser.start()
                await renderer.slots.open_all()
            except Exception as exc:
                await renderer.close()
                first_line = (str(exc).strip().splitlines() or [""])[0][:300]
                raise BrowserUnavailable(f"Chromium would not start ({type(exc).__name__}: {first_line})") from exc
            self._renderer = renderer
            return renderer

    async def close(self) -> None:
        """Close the browser and Playwright, for good: afterwards ``render`` returns ``FailureKind.BROWSER`` results
        and ``start``, ``open_page`` and ``run_on_loop`` raise ``BrowserUnavailable`` (renders in flight end so)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(BrowserUnavailable):  # a home loop that is gone took the browser with it
            await self._home.run(self._close)

    async def _close(self) -> None:
        renderer = self._renderer
        self._forget()
        if renderer is not None:
            await renderer.close()

    async def __aenter__(self) -> AsyncBrowserPool:
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    def stats(self) -> dict:
        """Counters: renders, failures, timeouts, crashes, page_replacements, relaunches, dedup_hits."""
        return dict(self._stats)

    def browser_pids(self) -> list[int]:
        """Process ids of the running browser's process tree (the first one is the browser itself)."""
        return self._renderer.browser.pids() if self._renderer is not None else []

    # rendering
    def _job(self, html, width, height, full_page, timeout_ms, base_dir) -> Job | Rendered:
        return make_job(
            html,
            width=width,
            height=height,
            full_page=full_page,
            timeout_ms=timeout_ms or self.timeout_ms,
            base_dir=base_dir,
        )

    async def _render_one(self, job: Job | Rendered) -> Rendered:
        if isinstance(job, Job):
            try:
                return await (await self._start()).render(job)
            except BrowserUnavailable as exc:
                job = Rendered.unavailable(exc)
        self._stats["failures"] += 1
        return job

    async def render(
        self,
        html: str | bytes,
        *,
        width: int = defaults.WIDTH,
        height: int = defaults.HEIGHT,
        full_page: bool = True,
        timeout_ms: float | None = None,
        base_dir: str | os.PathLike | None = None,
    ) -> Rendered:
        """Render one HTML document. Never raises for a bad page: failures are ``Rendered(ok=False, error=...)``.

        Args:
            html: the document (None or anything else that is not str/bytes fails with ``FailureKind.EMPTY``).
            width: viewport width in px.
            height: viewport height in px (the minimum screenshot height when ``full_page``).
            full_page: screenshot the whole document (capped at ``max_height``) instead of the viewport.
            timeout_ms: deadline for this render (default: the pool's ``timeout_ms``).
            base_dir: folder whose files the page may load by relative URL (e.g. Design2Code's ``rick.jpg``).

        Returns:
            The ``Rendered`` result; ``elapsed_ms`` excludes time spent waiting for a free page. Failures are typed
            (``Rendered.kind``); a browser that would not start, died twice in this render, or a closed pool give
            ``FailureKind.BROWSER``.
        """
        job = self._job(html, width, height, full_page, timeout_ms, base_dir)
        try:
            return await self.run_on_loop(self._render_one, job)
        except BrowserUnavailable as exc:
            return Rendered.unavailable(exc)

    async def render_many(
        self,
        htmls: Iterable[str | bytes],
        *,
        width: int = defaults.WIDTH,
        height: int = defaults.HEIGHT,
        full_page: bool = True,
        timeout_ms: float | None = None,
        base_dirs: Sequence[str | os.PathLike | None] | None = None,
        progress: bool = False,
    ) -> list[Rendered]:
        """Render many documents concurrently (identical inputs once; the copies have ``cached=True``).

        Args:
            htmls: the documents.
            width, height, full_page, timeout_ms: as in ``render``.
            base_dirs: one ``base_dir`` per document (or None).
            progress: show a tqdm bar on stderr.

        Returns:
            One ``Rendered`` per document, in input order.
        """
        htmls = list(htmls)
        base_dirs = per_document("base_dirs", base_dirs, len(htmls))
        jobs = [self._job(h, width, height, full_page, timeout_ms, b) for h, b in zip(htmls, base_dirs)]
        keys = [dedup_key(i, h, b) for i, (h, b) in enumerate(zip(htmls, base_dirs))]
        try:
            results = await self.run_on_loop(run_batch, keys, lambda i: self._render_one(jobs[i]), progress=progress)
        except BrowserUnavailable as exc:
            return [Rendered.unavailable(exc) for _ in htmls]
        self._stats["dedup_hits"] += sum(r.cached for r in results)
        return results

    @contextlib.asynccontextmanager
    async def open_page(
        self,
        html: str | bytes,
        *,
        width: int = defaults.WIDTH,
        height: int = defaults.HEIGHT,
        timeout_ms: float | None = None,
        base_dir: str | os.PathLike | None = None,
    ) -> AsyncIterator:
        """A live hermetic page loaded with ``html`` (for agents that click, type and evaluate), as a context manager.

        Same network and containment rules as ``render``; the slot is reused or replaced afterwards. Must be used
        on the pool's home event loop (the Page object belongs to it).

        Args:
            html: the document.
            width, height, timeout_ms, base_dir: as in ``render`` (``timeout_ms`` bounds loading the page).

        Yields:
            A Playwright ``Page``, the caller's to drive until the block ends.

        Raises:
            BrowserUnavailable: Chromium would not start, died twice, or the pool is closed.
            RuntimeError: the page could not be loaded (the message says why), or called from a foreign loop.
        """
        if not self._home.is_here():
            raise RuntimeError("open_page must run on the pool's own event loop (Playwright pages are loop-bound)")
        job = self._job(html, width, height, True, timeout_ms, base_dir)
        if isinstance(job, Rendered):
            raise RuntimeError(f"open_page could not load the page: {job.error}")
        renderer = await self.run_on_loop(self._start)
        async with live.lend_page(renderer, job) as page:
            yield page

    async def discard_page(self, page) -> None:
        """Give up a live page from ``open_page`` (hung, broken): it is closed now (bounded wait, never raises) and
        its slot gets a fresh page when the ``open_page`` block ends, instead of handing the stuck page on."""
        if self._renderer is not None:
            with contextlib.suppress(BrowserUnavailable):
                await self._home.run(live.discard_page, self._renderer, page)

    async def snapshot(self, page, *, full_page: bool = True) -> Rendered:
        """Screenshot + layout of a live page's current state (a page from ``open_page``).

        Args:
            page: the live page.
            full_page: as in ``render``.

        Returns:
            The ``Rendered`` result (failures typed as in ``render``).
        """
        try:
            return await self.run_on_loop(
                live.snapshot,
                self._renderer,
                page,
                full_page=full_page,
                timeout_ms=self.timeout_ms,
                max_height=self.max_height,
            )
        except BrowserUnavailable as exc:
            return Rendered.unavailable(exc)
