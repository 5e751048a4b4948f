"""``AsyncBrowserPool``: the one rendering implementation (hermetic, contained, page-reusing Chromium pool)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import itertools
import logging
import re
import time
from collections.abc import Iterable

from vcoder.rendering import browser as _browser
from vcoder.rendering.assets import AssetStore
from vcoder.rendering.capture import INIT_JS, capture
from vcoder.rendering.network import ORIGIN_DOMAIN, HermeticRouter, RenderTarget, close_websocket
from vcoder.rendering.types import FailureKind, Rendered

logger = logging.getLogger(__name__)

MARGIN_S = 1.5  # deadline slack over timeout_ms for the whole render (goto + layout + screenshot)
CLOSE_TIMEOUT_S = 3.0
MAX_HTML_BYTES = 8_000_000  # larger documents fail fast: sending them through the protocol alone blocks for seconds
HEAP_CHECK_EVERY = 50
HEAP_LIMIT = 768 * 2**20


def _on_home_loop(method):
    """Run an async method on the pool's home loop, whichever event loop awaits it (TRL uses its own)."""

    @functools.wraps(method)
    async def wrapper(self, *args, **kwargs):
        here = asyncio.get_running_loop()
        home = self._loop
        if home is not None and home.is_closed():
            self._forget()  # the loop that owned the browser is gone (e.g. an earlier asyncio.run): start afresh
            home = None
        if home is None or home is here:
            self._loop = here
            return await method(self, *args, **kwargs)
        if not home.is_running():
            raise RuntimeError(
                "this AsyncBrowserPool's event loop is not running, so it cannot serve a call from another loop; "
                "use the pool from the loop that started it, or use BrowserPool (it keeps its own loop thread)"
            )
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(method(self, *args, **kwargs), home))

    return wrapper


class _Slot:
    """One reusable page with its own browser context, route handler and per-render state."""

    def __init__(self, index: int):
        self.index = index
        self.target = RenderTarget()
        self.context = None
        self.page = None
        self.generation = -1
        self.renders = 0
        self.crashed = False
        self.viewport: tuple[int, int] | None = None
        self.console: list[str] = []
        self._expected: tuple[str, asyncio.Future] | None = None

    def expect(self, url: str) -> asyncio.Future:
        """A future resolved when the main frame commits ``url``."""
        fut = asyncio.get_running_loop().create_future()
        self._expected = (url, fut)
        return fut

    def on_navigated(self, frame) -> None:
        if frame.parent_frame is None and self._expected and frame.url == self._expected[0]:
            if not self._expected[1].done():
                self._expected[1].set_result(True)


class AsyncBrowserPool:
    """A pool of hermetic Chromium pages rendering HTML to ``Rendered`` (screenshot + layout).

    Args:
        max_pages: concurrent page slots (each its own browser context).
        executable_path: Chromium binary (default: ``$VCODER_CHROMIUM``, Playwright's, then ``/usr/bin/chromium``).
        assets_dir: front-end asset cache (default ``$VCODER_ASSETS_DIR`` or ``~/.cache/vcoder/assets``).
        timeout_ms: default per-render deadline.
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
        max_pages: int = 2,
        executable_path: str | None = None,
        assets_dir: str | None = None,
        timeout_ms: float = 15000,
        max_height: int = 8192,
        launch_args: Iterable[str] = (),
        recycle_after: int = 100,
    ):
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
        self._loop: asyncio.AbstractEventLoop | None = None
        self._store: AssetStore | None = None
        self._counter = itertools.count(1)
        self._stats = dict.fromkeys(
            ("renders", "failures", "timeouts", "crashes", "page_replacements", "relaunches", "dedup_hits"), 0
        )
        self._forget()

    def _forget(self) -> None:
        self._pw = self._browser = self._free = self._start_lock = self._relaunch_lock = None
        self._slots: list[_Slot] = []
        self._generation = 0
        self.marker = ""

    # lifecycle
    @_on_home_loop
    async def start(self) -> None:
        """Launch Chromium and open the page slots (idempotent; render() calls it on first use)."""
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self._browser is not None:
                return
            from playwright.async_api import async_playwright

            if self._store is None:
                self._store = AssetStore(self.assets_dir)
                # parse Tailwind's 2.9 MB stylesheet while Chromium launches (pruned per page, see cssprune.py)
                asyncio.get_running_loop().run_in_executor(None, self._store.prewarm)
            self._pw = await async_playwright().start()
            self._relaunch_lock = asyncio.Lock()
            await self._launch()
            self._slots = [_Slot(i) for i in range(self.max_pages)]
            self._free = asyncio.Queue()
            for slot in self._slots:
                await self._open_slot(slot)
                self._free.put_nowait(slot)

    @_on_home_loop
    async def close(self) -> None:
        """Close the browser and Playwright (the pool can be started again afterwards)."""
        browser, pw = self._browser, self._pw
        self._forget()
        self._generation = -1  # an intentional close: no "disconnected" warning
        with contextlib.suppress(Exception):
            if browser is not None:
                await asyncio.wait_for(browser.close(), CLOSE_TIMEOUT_S)
        with contextlib.suppress(Exception):
            if pw is not None:
                await asyncio.wait_for(pw.stop(), CLOSE_TIMEOUT_S)

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
        return [p.pid for p in _browser.browser_processes(self.marker)] if self.marker else []

    # browser and slots
    async def _launch(self) -> None:
        args, marker = _browser.launch_args(self.launch_args)
        exe = _browser.find_executable(self.executable_path, self._pw.chromium.executable_path)
        self._browser = await self._pw.chromium.launch(executable_path=exe, args=args, headless=True, timeout=60000)
        self.marker = marker
        self._generation += 1
        gen = self._generation
        self._browser.on("disconnected", lambda _: self._generation == gen and logger.warning("Chromium disconnected"))

    async def _relaunch(self, seen_generation: int) -> None:
        async with self._relaunch_lock:
            if self._generation != seen_generation:
                return  # another render already relaunched it
            self._stats["relaunches"] += 1
            old, marker = self._browser, self.marker
            # the browser is dead or hung: kill its process tree first, a graceful close could wait on a busy tab
            for proc in _browser.browser_processes(marker):
                with contextlib.suppress(Exception):
                    proc.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(old.close(), CLOSE_TIMEOUT_S)
            await self._launch()

    async def _open_slot(self, slot: _Slot) -> None:
        slot.page = None
        ctx = await self._browser.new_context(
            viewport={"width": 1280, "height": 720},
            device_scale_factor=1,
            reduced_motion="reduce",
            color_scheme="light",
            locale="en-US",
            timezone_id="UTC",
            service_workers="block",
            accept_downloads=False,
        )
        slot.context, slot.generation, slot.renders, slot.crashed = ctx, self._generation, 0, False
        await ctx.add_init_script(INIT_JS)
        await ctx.route("**/*", HermeticRouter(slot.target, self._store))
        await ctx.route_web_socket(re.compile(r".*"), close_websocket)
        ctx.on("page", lambda p: self._close_popup(slot, p))
        page = await ctx.new_page()
        page.on("dialog", _dismiss)
        page.on("framenavigated", slot.on_navigated)
        page.on("crash", lambda _: setattr(slot, "crashed", True))
        page.on("console", lambda m: m.type == "error" and slot.console.append(m.text[:500]))
        page.on("pageerror", lambda e: slot.console.append(str(e)[:500]))
        slot.page, slot.viewport = page, (1280, 720)

    def _close_popup(self, slot: _Slot, page) -> None:
        if slot.page is not None and page is not slot.page:
            asyncio.ensure_future(_quiet(page.close(run_before_unload=False)))

    async def _discard(self, slot: _Slot) -> None:
        """Drop a slot's context (hung, crashed or worn page); a context that will not close relaunches the browser."""
        ctx, slot.context, slot.page = slot.context, None, None
        self._stats["page_replacements"] += 1
        if ctx is None:
            return
        try:
            await asyncio.wait_for(ctx.close(), CLOSE_TIMEOUT_S)
        except Exception as exc:
            if self._browser is not None and self._browser.is_connected() and slot.generation == self._generation:
                logger.warning("a page context would not close (%s); relaunching Chromium", exc)
                await self._relaunch(slot.generation)

    async def _ready(self, slot: _Slot, width: int, height: int) -> None:
        if slot.page is None or slot.generation != self._generation or slot.page.is_closed():
            if slot.page is not None:
                await self._discard(slot)
            await self._open_slot(slot)
        if slot.viewport != (width, height):
            await slot.page.set_viewport_size({"width": width, "height": height})
            slot.viewport = (width, height)

    # rendering
    async def _load(self, slot: _Slot, html: bytes, timeout_ms: float, base_dir) -> None:
        await slot.context.clear_cookies()  # cookies may be set for the shared parent domain
        origin = f"http://r{next(self._counter)}.{ORIGIN_DOMAIN}"
        slot.target.reset(origin, html, str(base_dir) if base_dir is not None else None)
        slot.console = []
        # wait for our document to commit, not for goto: goto also waits on navigations the page starts while
        # loading, and those we refuse (204) may leave it hanging; the load event is awaited in the capture script
        url = origin + "/index.html"
        committed = slot.expect(url)
        nav = asyncio.ensure_future(slot.page.goto(url, wait_until="commit", timeout=timeout_ms))
        nav.add_done_callback(_consume)
        done, _ = await asyncio.wait({nav, committed}, return_when=asyncio.FIRST_COMPLETED)
        if committed not in done:
            committed.cancel()
            nav.result()

    async def _attempt(self, slot, html, full_page, timeout_ms, base_dir) -> Rendered:
        await self._load(slot, html, timeout_ms, base_dir)
        result = await capture(
            slot.page, full_page=full_page, max_height=self.max_height, timeout_ms=timeout_ms, console=slot.console
        )
        slot.renders += 1
        if slot.renders >= self.recycle_after:
            await self._discard(slot)
        elif slot.renders % HEAP_CHECK_EVERY == 0:
            heap = await slot.page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0")
            if heap > HEAP_LIMIT:
                await self._discard(slot)
        return result

    async def _render_one(self, html, width, height, full_page, timeout_ms, base_dir) -> Rendered:
        if isinstance(html, bytes):
            html = html.decode("utf-8", errors="replace")
        if not isinstance(html, str) or not html.strip():
            self._stats["failures"] += 1
            return Rendered.failure(FailureKind.EMPTY, f"empty: the HTML is empty or whitespace only ({html[:20]!r})")
        data = html.encode("utf-8", errors="replace")
        if len(data) > MAX_HTML_BYTES:
            self._stats["failures"] += 1
            return Rendered.failure(
                FailureKind.TOO_LARGE,
                f"too_large: the HTML is {len(data)} bytes, over the {MAX_HTML_BYTES} byte limit",
            )
        timeout_ms = timeout_ms or self.timeout_ms
        await self.start()
        result = None
        for attempt in range(2):
            slot = await self._free.get()
            t0 = time.perf_counter()
            gen = self._generation
            try:
                await self._ready(slot, width, height)
                gen = slot.generation
                result = await asyncio.wait_for(
                    self._attempt(slot, data, full_page, timeout_ms, base_dir), timeout_ms / 1000 + MARGIN_S
                )
                break
            except Exception as exc:
                elapsed = (time.perf_counter() - t0) * 1000
                result = await self._failed(slot, gen, exc, timeout_ms, elapsed)
                if result is None and attempt == 0:
                    continue  # the browser died under this render: relaunched, retry once
                result = result or Rendered.failure(
                    FailureKind.BROWSER, f"crashed: Chromium died twice while rendering ({exc})", elapsed
                )
                break
            finally:
                self._free.put_nowait(slot)
        elapsed = (time.perf_counter() - t0) * 1000
        self._stats["renders"] += 1
        if not result.ok:
            self._stats["failures"] += 1
        return dataclasses.replace(result, elapsed_ms=elapsed)

    async def _failed(self, slot: _Slot, gen: int, exc: BaseException, timeout_ms: float, elapsed: float):
        """Classify a failed render and repair the slot; None means "the browser died: retry"."""
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        if gen != self._generation or self._browser is None or not self._browser.is_connected():
            if gen == self._generation:
                await self._relaunch(gen)
            return None
        if slot.crashed:
            self._stats["crashes"] += 1
            await self._discard(slot)
            return Rendered.failure(
                FailureKind.PAGE_CRASH, "crashed: the page's renderer process crashed (out of memory?)", elapsed
            )
        await self._discard(slot)
        if isinstance(exc, (asyncio.TimeoutError, PlaywrightTimeout)):
            self._stats["timeouts"] += 1
            return Rendered.failure(
                FailureKind.TIMEOUT, f"timeout: the page did not finish rendering within {timeout_ms:.0f} ms", elapsed
            )
        logger.debug("render failed", exc_info=exc)
        return Rendered.failure(
            FailureKind.NAVIGATION, f"navigation: {type(exc).__name__}: {str(exc).splitlines()[0][:300]}", elapsed
        )

    @_on_home_loop
    async def render(
        self,
        html: str,
        *,
        width: int = 1280,
        height: int = 720,
        full_page: bool = True,
        timeout_ms=None,
        base_dir=None,
    ) -> Rendered:
        """Render one HTML document. Never raises for a bad page: failures are ``Rendered(ok=False, error=...)``.

        Args:
            html: the document.
            width: viewport width in px.
            height: viewport height in px (the minimum screenshot height when ``full_page``).
            full_page: screenshot the whole document (capped at ``max_height``) instead of the viewport.
            timeout_ms: deadline for this render (default: the pool's ``timeout_ms``).
            base_dir: folder whose files the page may load by relative URL (e.g. Design2Code's ``rick.jpg``).

        Returns:
            The ``Rendered`` result; ``elapsed_ms`` excludes time spent waiting for a free page.
        """
        return await self._render_one(html, width, height, full_page, timeout_ms, base_dir)

    @_on_home_loop
    async def render_many(
        self,
        htmls,
        *,
        width: int = 1280,
        height: int = 720,
        full_page: bool = True,
        timeout_ms=None,
        base_dirs=None,
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
        base_dirs = [None] * len(htmls) if base_dirs is None else list(base_dirs)
        if len(base_dirs) != len(htmls):
            raise ValueError(
                f"base_dirs has {len(base_dirs)} entries for {len(htmls)} documents; pass one per document"
            )
        first: dict = {}
        owner = [
            first.setdefault((h, None if b is None else str(b)), i) for i, (h, b) in enumerate(zip(htmls, base_dirs))
        ]
        unique = sorted(set(owner))
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(unique), desc="render", unit="page")

        async def one(i: int) -> Rendered:
            r = await self._render_one(htmls[i], width, height, full_page, timeout_ms, base_dirs[i])
            if bar is not None:
                bar.update(1)
            return r

        try:
            done = dict(zip(unique, await asyncio.gather(*(one(i) for i in unique))))
        finally:
            if bar is not None:
                bar.close()
        self._stats["dedup_hits"] += len(htmls) - len(unique)
        return [done[o] if o == i else dataclasses.replace(done[o], cached=True) for i, o in enumerate(owner)]

    @contextlib.asynccontextmanager
    async def open_page(self, html: str, *, width: int = 1280, height: int = 720, timeout_ms=None, base_dir=None):
        """A live hermetic page loaded with ``html`` (for agents that click, type and evaluate), as a context manager.

        Same network and containment rules as ``render``; the slot is reused or replaced afterwards. Must be used
        on the pool's home event loop (the Page object belongs to it).

        Raises:
            RuntimeError: the page could not be loaded (the message says why), or called from a foreign loop.
        """
        if self._loop is not None and not self._loop.is_closed() and asyncio.get_running_loop() is not self._loop:
            raise RuntimeError("open_page must run on the pool's own event loop (Playwright pages are loop-bound)")
        await self.start()
        timeout_ms = timeout_ms or self.timeout_ms
        slot = await self._free.get()
        try:
            gen = slot.generation
            try:
                await self._ready(slot, width, height)
                gen = slot.generation
                data = html.encode("utf-8", errors="replace")
                await asyncio.wait_for(self._load(slot, data, timeout_ms, base_dir), timeout_ms / 1000 + MARGIN_S)
            except Exception as exc:
                failed = await self._failed(slot, gen, exc, timeout_ms, 0.0)
                raise RuntimeError(f"open_page could not load the page: {failed.error if failed else exc}") from exc
            yield slot.page
            if slot.page is None or slot.page.is_closed() or slot.crashed:
                await self._discard(slot)
        finally:
            self._free.put_nowait(slot)

    async def snapshot(self, page, *, full_page: bool = True) -> Rendered:
        """Screenshot + layout of a live page's current state (a page from ``open_page``)."""
        slot = next((s for s in self._slots if s.page is page), None)
        t0 = time.perf_counter()
        try:
            r = await asyncio.wait_for(
                capture(
                    page,
                    full_page=full_page,
                    max_height=self.max_height,
                    timeout_ms=self.timeout_ms,
                    console=slot.console if slot else [],
                ),
                self.timeout_ms / 1000 + MARGIN_S,
            )
        except Exception as exc:
            kind = FailureKind.TIMEOUT if isinstance(exc, asyncio.TimeoutError) else FailureKind.NAVIGATION
            return Rendered.failure(
                kind, f"snapshot: {type(exc).__name__}: {str(exc)[:300]}", (time.perf_counter() - t0) * 1000
            )
        return dataclasses.replace(r, elapsed_ms=(time.perf_counter() - t0) * 1000)


async def _dismiss(dialog) -> None:
    with contextlib.suppress(Exception):
        await dialog.dismiss()


def _consume(fut: asyncio.Future) -> None:
    if not fut.cancelled():
        fut.exception()  # retrieved: a late goto failure after the document committed is not an error


async def _quiet(coro) -> None:
    with contextlib.suppress(Exception):
        await coro
