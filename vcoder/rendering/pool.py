"""``AsyncBrowserPool``: the one rendering implementation (hermetic, contained, page-reusing Chromium pool).

The pool is the public face; the work is done by its parts: ``lifecycle`` (options, start, close) over ``loop`` (the
home event loop), ``browser`` (Chromium's process), ``slots`` (the reusable pages), ``renderer`` (the render loop),
``jobs`` (validated inputs, batches), ``capture`` (screenshot + layout, ``capture.js``), ``network`` and ``site``
(the hermetic router, the files a render serves), ``live`` (pages lent to agents) and ``init.js`` (determinism).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from vcoder.rendering import defaults, live
from vcoder.rendering.jobs import DEFAULT_ENTRY, Job, dedup_key, make_job, per_document, run_batch
from vcoder.rendering.lifecycle import STATS, Lifecycle, PoolOptions, takes_pool_options
from vcoder.rendering.types import BrowserUnavailable, Rendered

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
        **options: the fields of ``PoolOptions`` (``max_pages``, ``executable_path``, ``assets_dir``,
            ``timeout_ms``, ``max_height``, ``launch_args``, ``recycle_after``), each documented there once.

    Example:
        >>> async with AsyncBrowserPool() as pool:  # doctest: +SKIP
        ...     r = await pool.render("<h1>Hi</h1>")
    """

    @takes_pool_options
    def __init__(self, *, loop: asyncio.AbstractEventLoop | None = None, **options: Any) -> None:
        self.options = PoolOptions.from_keywords("AsyncBrowserPool", options)
        self.max_pages, self.timeout_ms, self.max_height = (
            self.options.max_pages,
            self.options.timeout_ms,
            self.options.max_height,
        )
        self._stats = dict.fromkeys(STATS, 0)
        self._life = Lifecycle(self.options, loop=loop, stats=self._stats)

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The home event loop (None until a loop has used an unbound pool)."""
        return self._life.home.loop

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
        return await self._life.run(fn, *args, **kwargs)

    @property
    def marker(self) -> str:
        """The command-line switch that tells this pool's Chromium processes apart ("" before the first start)."""
        return self._life.renderer.browser.marker if self._life.renderer is not None else ""

    async def start(self) -> None:
        """Launch Chromium and open the page slots (idempotent; render() calls it on first use).

        Raises:
            BrowserUnavailable: Chromium would not start (the message says why), or the pool is closed.
        """
        await self._life.run(self._life.started)

    async def close(self) -> None:
        """Close the browser and Playwright, for good: afterwards ``render`` returns ``FailureKind.BROWSER`` results
        and ``start``, ``open_page`` and ``run_on_loop`` raise ``BrowserUnavailable`` (renders in flight end so)."""
        await self._life.close()

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
        return self._life.renderer.browser.pids() if self._life.renderer is not None else []

    # rendering
    def _job(self, html, width, height, full_page, timeout_ms, base_dir, files, entry) -> Job | Rendered:
        return make_job(
            html,
            width=width,
            height=height,
            full_page=full_page,
            timeout_ms=timeout_ms or self.timeout_ms,
            base_dir=base_dir,
            files=files,
            entry=entry,
        )

    async def _render_one(self, job: Job | Rendered) -> Rendered:
        if isinstance(job, Job):
            try:
                return await (await self._life.started()).render(job)
            except BrowserUnavailable as exc:
                job = Rendered.unavailable(exc)
        self._stats["failures"] += 1
        return job

    async def render(
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
        """Render one HTML document. Never raises for a bad page: failures are ``Rendered(ok=False, error=...)``.

        The document is served at ``/<entry>`` of a fresh origin of its own, with its site (``files``, then
        ``base_dir``) beside it: relative URLs, ``fetch('data.json')`` and stylesheets or scripts of the site
        work. It is the one document of the render: navigations to other pages are refused.

        Args:
            html: the document; None: the site's ``entry`` file (no site either, or anything that is not str/bytes,
                fails with ``FailureKind.EMPTY``).
            width: viewport width in px.
            height: viewport height in px (the minimum screenshot height when ``full_page``).
            full_page: screenshot the whole document (capped at ``max_height``) instead of the viewport.
            timeout_ms: deadline for this render (default: the pool's ``timeout_ms``).
            base_dir: folder whose files the page may load by relative URL (e.g. Design2Code's ``rick.jpg``).
            files: the site in memory, path relative to the site root -> contents (``{"app.js": "...",
                "data.json": b"..."}``), served before ``base_dir``'s files, with MIME types by extension. No URL
                reaches outside the site (``../``, ``%2e%2e/``, absolute paths name nothing there).
            entry: the document's path in the site.

        Returns:
            The ``Rendered`` result; ``elapsed_ms`` excludes time spent waiting for a free page. Failures are typed
            (``Rendered.kind``); a browser that would not start, died twice in this render, or a closed pool give
            ``FailureKind.BROWSER``.

        Raises:
            TypeError, ValueError: ``files`` is not a mapping of site paths to str/bytes, or ``entry`` or a key of
                it is not a path inside the site (the caller's mistake, not the page's).
        """
        job = self._job(html, width, height, full_page, timeout_ms, base_dir, files, entry)
        try:
            return await self.run_on_loop(self._render_one, job)
        except BrowserUnavailable as exc:
            return Rendered.unavailable(exc)

    async def render_many(
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
        """Render many documents concurrently (identical inputs once; the copies have ``cached=True``).

        Args:
            htmls: the documents (None entries: their site's ``entry``; None: one per site of ``files``).
            width, height, full_page, timeout_ms, entry: as in ``render``.
            base_dirs: one ``base_dir`` per document (or None).
            files: one ``files`` mapping per document (or None), like ``base_dirs``.
            progress: show a tqdm bar on stderr.

        Returns:
            One ``Rendered`` per document, in input order.

        Raises:
            ValueError: ``base_dirs`` or ``files`` has not one entry per document; or as in ``render``.
        """
        htmls, base_dirs, files = per_document(htmls, base_dirs=base_dirs, files=files)
        jobs = [
            self._job(h, width, height, full_page, timeout_ms, b, f, entry) for h, b, f in zip(htmls, base_dirs, files)
        ]
        try:
            results = await self.run_on_loop(
                run_batch,
                [dedup_key(i, job) for i, job in enumerate(jobs)],
                lambda i: self._render_one(jobs[i]),
                progress=progress,
            )
        except BrowserUnavailable as exc:
            return [Rendered.unavailable(exc) for _ in htmls]
        self._stats["dedup_hits"] += sum(r.cached for r in results)
        return results

    @contextlib.asynccontextmanager
    async def open_page(
        self,
        html: str | bytes | None = None,
        *,
        width: int = defaults.WIDTH,
        height: int = defaults.HEIGHT,
        timeout_ms: float | None = None,
        base_dir: str | os.PathLike | None = None,
        files: Mapping[str, str | bytes] | None = None,
        entry: str = DEFAULT_ENTRY,
    ) -> AsyncIterator:
        """A live hermetic page loaded with ``html`` (for agents that click, type and evaluate), as a context manager.

        Same network and containment rules as ``render``, except that the page may navigate (a link, a GET form,
        ``location.href``) to another HTML document of its site; the slot is reused or replaced afterwards. Must
        be used on the pool's home event loop (the Page object belongs to it).

        Args:
            html: the document (None: the site's ``entry`` file).
            width, height, timeout_ms, base_dir, files, entry: as in ``render`` (``timeout_ms`` bounds loading the
                page).

        Yields:
            A Playwright ``Page``, the caller's to drive until the block ends.

        Raises:
            BrowserUnavailable: Chromium would not start, died twice, or the pool is closed.
            RuntimeError: the page could not be loaded (the message says why), or called from a foreign loop.
        """
        if not self._life.home.is_here():
            raise RuntimeError("open_page must run on the pool's own event loop (Playwright pages are loop-bound)")
        job = self._job(html, width, height, True, timeout_ms, base_dir, files, entry)
        if isinstance(job, Rendered):
            raise RuntimeError(f"open_page could not load the page: {job.error}")
        renderer = await self._life.run(self._life.started)
        async with live.lend_page(renderer, job) as page:
            yield page

    async def discard_page(self, page) -> None:
        """Give up a live page from ``open_page`` (hung, broken): it is closed now (bounded wait, never raises) and
        its slot gets a fresh page when the ``open_page`` block ends, instead of handing the stuck page on."""
        if self._life.renderer is not None:
            with contextlib.suppress(BrowserUnavailable):
                await self._life.run(live.discard_page, self._life.renderer, page)

    async def snapshot(self, page, *, full_page: bool = True) -> Rendered:
        """Screenshot + layout of a live page's current state (a page from ``open_page``).

        Args:
            page: the live page.
            full_page: as in ``render``.

        Returns:
            The ``Rendered`` result (failures typed as in ``render``).
        """
        try:
            return await self._life.run(
                live.snapshot,
                self._life.renderer,
                page,
                full_page=full_page,
                timeout_ms=self.timeout_ms,
                max_height=self.max_height,
            )
        except BrowserUnavailable as exc:
            return Rendered.unavailable(exc)
