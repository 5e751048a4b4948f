"""The render loop: load a document into a free slot, capture it, keep the slot healthy, type what went wrong.

A render that fails because the browser died under it is retried once on the relaunched browser; a page that hangs,
crashes its renderer or leaves its document fails with its own ``FailureKind`` and its slot is replaced.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import time
from urllib.parse import quote

from vcoder.rendering.assets import AssetStore
from vcoder.rendering.browser import Browser
from vcoder.rendering.capture import capture, document_replaced, first_line, replaced
from vcoder.rendering.jobs import Job
from vcoder.rendering.loop import retrieve_exception
from vcoder.rendering.network import ORIGIN_DOMAIN
from vcoder.rendering.slots import Slot, Slots
from vcoder.rendering.types import POOL_CLOSED, BrowserUnavailable, FailureKind, Rendered

logger = logging.getLogger(__name__)

MARGIN_MS = 1500  # deadline slack over timeout_ms for the whole render (goto + layout + screenshot)
HEAP_CHECK_EVERY = 50
HEAP_LIMIT = 768 * 2**20


class Renderer:
    """The started part of a pool: its browser, its slots and the render loop over them.

    Args:
        browser: a started browser.
        store: the asset cache.
        max_pages: number of slots.
        max_height: screenshot height cap in px.
        recycle_after: renders after which a slot's context is replaced.
        stats: the pool's counters.
    """

    def __init__(
        self, browser: Browser, store: AssetStore, *, max_pages: int, max_height: int, recycle_after: int, stats: dict
    ):
        self.browser, self.stats = browser, stats
        self.max_height, self.recycle_after = max_height, recycle_after
        self.slots = Slots(browser, store, max_pages, stats)
        self.closed = False
        self._counter = itertools.count(1)

    @classmethod
    async def launch(
        cls,
        store: AssetStore,
        *,
        executable_path,
        launch_args: tuple[str, ...],
        max_pages: int,
        max_height: int,
        recycle_after: int,
        stats: dict,
    ) -> Renderer:
        """Launch Chromium and open the slots.

        Raises:
            BrowserUnavailable: Chromium would not start (the message says why).
        """
        browser = Browser(executable_path=executable_path, extra_args=launch_args, stats=stats)
        renderer = cls(
            browser, store, max_pages=max_pages, max_height=max_height, recycle_after=recycle_after, stats=stats
        )
        try:
            await browser.start()
            await renderer.slots.open_all()
        except Exception as exc:
            await renderer.close()
            raise BrowserUnavailable(f"Chromium would not start ({type(exc).__name__}: {first_line(exc)})") from exc
        return renderer

    async def load(self, slot: Slot, job: Job, *, live: bool = False) -> str:
        """Navigate ``slot`` (made ready for it: ``Slots.ready``) to a fresh origin serving ``job``'s document;
        returns its URL once it commits.

        A live page's origin is ``live<n>.``: past the fast-forward budget its timers follow real time (init.js).
        """
        slot.clean = False
        origin = f"http://{'live' if live else 'r'}{next(self._counter)}.{ORIGIN_DOMAIN}"
        slot.target.reset(origin, job.html, job.entry, job.site, live=live)
        slot.console = []
        # wait for our document to commit, not for goto: goto also waits on navigations the page starts while
        # loading, and those we refuse (204) may leave it hanging; the load event is awaited in the capture script
        url = f"{origin}/{quote(job.entry)}"
        committed = slot.expect(url)
        nav = asyncio.ensure_future(slot.page.goto(url, wait_until="commit", timeout=job.timeout_ms))
        nav.add_done_callback(retrieve_exception)  # a late goto failure after the document committed is not an error
        done, _ = await asyncio.wait({nav, committed}, return_when=asyncio.FIRST_COMPLETED)
        if committed not in done:
            committed.cancel()
            nav.result()
        return url

    async def _attempt(self, slot: Slot, job: Job) -> Rendered:
        from playwright.async_api import Error as PlaywrightError

        try:
            url = await self.load(slot, job)
        except PlaywrightError as exc:
            if not document_replaced(exc):
                raise
            return replaced(slot.page, "while it was loading")
        result = await capture(
            slot.page,
            full_page=job.full_page,
            max_height=self.max_height,
            timeout_ms=job.timeout_ms,
            console=slot.console,
            document_url=url,
            cdp=slot.cdp,
        )
        slot.reset_soon()  # overlaps with the caller's use of the result; awaited before the slot's next document
        slot.renders += 1
        if slot.renders >= self.recycle_after:
            await self.slots.discard(slot)
        elif slot.renders % HEAP_CHECK_EVERY == 0:
            try:
                heap = await slot.page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0")
            except PlaywrightError:  # the page is leaving its document: not this render's failure, the slot's end
                heap = HEAP_LIMIT + 1
            if heap > HEAP_LIMIT:
                await self.slots.discard(slot)
        return result

    async def render(self, job: Job) -> Rendered:
        """Render ``job`` in the next free slot; never raises (failures are typed, see ``classify``)."""
        result, t0 = None, time.perf_counter()
        for attempt in range(2):
            slot = await self.slots.acquire()
            if slot is None:
                result = Rendered.unavailable(POOL_CLOSED)
                break
            t0 = time.perf_counter()
            gen = self.browser.generation
            try:
                await self.slots.ready(slot, job.width, job.height)
                gen = slot.generation
                result = await asyncio.wait_for(self._attempt(slot, job), (job.timeout_ms + MARGIN_MS) / 1000)
                break
            except Exception as exc:
                elapsed = (time.perf_counter() - t0) * 1000
                result = await self.classify(slot, gen, exc, job.timeout_ms, elapsed)
                if result is None and attempt == 0 and not self.closed:
                    continue  # the browser died under this render: relaunched, retry once
                if result is None:
                    why = POOL_CLOSED if self.closed else f"Chromium died twice while rendering ({first_line(exc)})"
                    result = Rendered.unavailable(why, elapsed)
                break
            finally:
                self.slots.release(slot)
        elapsed = (time.perf_counter() - t0) * 1000
        self.stats["renders"] += 1
        if not result.ok:
            self.stats["failures"] += 1
        return dataclasses.replace(result, elapsed_ms=elapsed)

    async def classify(self, slot: Slot, gen: int, exc: BaseException, timeout_ms: float, elapsed: float):
        """Type a failed render and repair its slot (never raises).

        Returns:
            The typed failure, or None: the browser died under the render (relaunched: retry) or the pool closed.
        """
        try:
            return await self._classify(slot, gen, exc, timeout_ms, elapsed)
        except Exception as again:  # relaunching (or replacing the slot) failed: Chromium will not come back
            logger.warning("Chromium died and would not start again: %s", again)
            return Rendered.unavailable(f"Chromium died and would not start again ({first_line(again)})", elapsed)

    async def _classify(self, slot: Slot, gen: int, exc: BaseException, timeout_ms: float, elapsed: float):
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        if self.closed:
            return None
        if gen != self.browser.generation or not self.browser.connected:
            if gen == self.browser.generation:
                await self.browser.relaunch(gen)
            return None
        if slot.crashed:
            self.stats["crashes"] += 1
            await self.slots.discard(slot)
            return Rendered.failure(
                FailureKind.PAGE_CRASH, "crashed: the page's renderer process crashed (out of memory?)", elapsed
            )
        await self.slots.discard(slot)
        if isinstance(exc, (asyncio.TimeoutError, PlaywrightTimeout)):
            self.stats["timeouts"] += 1
            return Rendered.failure(
                FailureKind.TIMEOUT, f"timeout: the page did not finish rendering within {timeout_ms:.0f} ms", elapsed
            )
        logger.debug("render failed", exc_info=exc)
        return Rendered.failure(
            FailureKind.NAVIGATION, f"navigation: {type(exc).__name__}: {first_line(exc)}", elapsed
        )

    async def close(self) -> None:
        """Close the browser; renders waiting for a slot, or in flight, end with a ``FailureKind.BROWSER`` result."""
        self.closed = True
        self.slots.close()
        await self.browser.close()
