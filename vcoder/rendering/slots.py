"""Page slots: each a reusable hermetic page in its own browser context, handed out one render at a time."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re

from vcoder.rendering import defaults
from vcoder.rendering.assets import AssetStore
from vcoder.rendering.browser import CLOSE_TIMEOUT_MS, Browser
from vcoder.rendering.capture import INIT_JS
from vcoder.rendering.loop import retrieve_exception
from vcoder.rendering.network import HermeticRouter, RenderTarget, close_websocket

logger = logging.getLogger(__name__)

# a page that does not take a new viewport size within this is replaced by a fresh one (opened at that size)
VIEWPORT_TIMEOUT_MS = 5000

CONTEXT_OPTIONS = {
    "viewport": {"width": defaults.WIDTH, "height": defaults.HEIGHT},
    "device_scale_factor": 1,
    "reduced_motion": "reduce",
    "color_scheme": "light",
    "locale": "en-US",
    "timezone_id": "UTC",
    "service_workers": "block",
    "accept_downloads": False,
}


class Slot:
    """One reusable page with its own browser context, route handler and per-render state."""

    def __init__(self, index: int):
        self.index = index
        self.target = RenderTarget()
        self.context = None
        self.page = None
        self.cdp = None  # a CDP session on the page (screenshots, navigation history)
        self.clean = True  # no document loaded since the context was opened or reset
        self._reset: asyncio.Future | None = None
        self.generation = -1
        self.renders = 0
        self.crashed = False
        self.discarded = False  # given up by the caller of a live page (discard_page)
        self.viewport: tuple[int, int] | None = None
        self.console: list[str] = []
        self._expected: tuple[str, asyncio.Future] | None = None

    def expect(self, url: str) -> asyncio.Future:
        """A future resolved when the main frame commits ``url``."""
        fut = asyncio.get_running_loop().create_future()
        self._expected = (url, fut)
        return fut

    def reset_soon(self) -> None:
        """Start clearing what the last document left (cookies, history): overlapped with the caller's work after a
        screenshot, awaited by ``prepare`` before the next document loads."""
        self._reset = asyncio.ensure_future(self._clear())
        # a reset that fails is re-raised where it is awaited, or moot once the slot is replaced
        self._reset.add_done_callback(retrieve_exception)

    async def prepare(self) -> bool:
        """Make the slot's context as a fresh one for the next document: cookies cleared (one may be set for the
        shared parent domain, readable by every later origin) and the tab's history reset (``history.length``).

        Returns:
            False when the reset failed (e.g. the last document was still navigating): replace the slot.
        """
        reset, self._reset = self._reset, None
        try:
            if reset is not None:
                await reset
            elif not self.clean:
                await self._clear()
        except Exception as exc:
            logger.debug("a slot's reset failed (%s); replacing its context", exc)
            return False
        return True

    async def _clear(self) -> None:
        await asyncio.gather(self.context.clear_cookies(), self.cdp.send("Page.resetNavigationHistory"))
        self.clean = True

    def on_navigated(self, frame) -> None:
        if frame.parent_frame is None and self._expected and frame.url == self._expected[0]:
            if not self._expected[1].done():
                self._expected[1].set_result(True)


class Slots:
    """The pool's page slots: opened, resized, replaced when hung, crashed or worn, and queued when free.

    Args:
        browser: the running browser.
        store: the asset cache the slots' routers serve CDN files from.
        count: number of slots.
        stats: the pool's counters (``page_replacements`` is counted here).
    """

    def __init__(self, browser: Browser, store: AssetStore, count: int, stats: dict):
        self.browser, self.store, self.stats = browser, store, stats
        self.all = [Slot(i) for i in range(count)]
        self.closed = False
        self._free: asyncio.Queue[Slot | None] = asyncio.Queue()

    async def open_all(self) -> None:
        for slot in self.all:
            await self.open(slot)
            self._free.put_nowait(slot)

    async def acquire(self) -> Slot | None:
        """The next free slot (waits for one); None once the slots are closed."""
        slot = None if self.closed else await self._free.get()
        if slot is None or self.closed:
            self._free.put_nowait(None)  # wake the next waiter too
            return None
        return slot

    def release(self, slot: Slot) -> None:
        self._free.put_nowait(slot)

    def close(self) -> None:
        """Refuse further slots: waiting and later ``acquire`` calls get None."""
        self.closed = True
        self._free.put_nowait(None)

    def find(self, page) -> Slot | None:
        """The slot that holds ``page``."""
        return next((s for s in self.all if s.page is page), None)

    async def open(self, slot: Slot, *, width: int = defaults.WIDTH, height: int = defaults.HEIGHT) -> None:
        """Give ``slot`` a fresh context and page, ``width`` x ``height``, on the current browser."""
        slot.page = slot.cdp = slot._reset = None
        ctx = await self.browser.new_context(**{**CONTEXT_OPTIONS, "viewport": {"width": width, "height": height}})
        slot.context, slot.generation, slot.renders = ctx, self.browser.generation, 0
        slot.crashed = slot.discarded = False
        slot.clean = True
        await ctx.add_init_script(INIT_JS)
        await ctx.route("**/*", HermeticRouter(slot.target, self.store))
        await ctx.route_web_socket(re.compile(r".*"), close_websocket)
        ctx.on("page", lambda p: _close_popup(slot, p))
        page = await ctx.new_page()
        page.on("dialog", _dismiss)
        page.on("framenavigated", slot.on_navigated)
        page.on("crash", lambda _: setattr(slot, "crashed", True))
        page.on("console", lambda m: m.type == "error" and slot.console.append(m.text[:500]))
        page.on("pageerror", lambda e: slot.console.append(str(e)[:500]))
        slot.cdp = await ctx.new_cdp_session(page)
        slot.page, slot.viewport = page, (width, height)

    async def ready(self, slot: Slot, width: int, height: int) -> None:
        """Make ``slot`` usable for its next document at ``width`` x ``height``: reset (``Slot.prepare``), or
        reopened if its page is gone, crashed (also while idle), from a dead browser, would not reset, or will not
        take the new size in time."""
        stale = slot.page is None or slot.generation != self.browser.generation or slot.page.is_closed()
        if stale or slot.crashed or not await slot.prepare():
            if slot.page is not None:
                await self.discard(slot)
            await self.open(slot, width=width, height=height)
        if slot.viewport != (width, height):
            try:
                await asyncio.wait_for(
                    slot.page.set_viewport_size({"width": width, "height": height}), VIEWPORT_TIMEOUT_MS / 1000
                )
                slot.viewport = (width, height)
            except asyncio.TimeoutError:
                logger.warning("a page did not resize within %d ms; replacing it", VIEWPORT_TIMEOUT_MS)
                await self.discard(slot)
                await self.open(slot, width=width, height=height)

    async def discard(self, slot: Slot) -> None:
        """Drop a slot's context (hung, crashed or worn page); a context that will not close relaunches the browser."""
        ctx, slot.context, slot.page, slot.cdp, slot._reset = slot.context, None, None, None, None
        self.stats["page_replacements"] += 1
        if ctx is None:
            return
        try:
            await asyncio.wait_for(ctx.close(), CLOSE_TIMEOUT_MS / 1000)
        except Exception as exc:
            if self.browser.connected and slot.generation == self.browser.generation:
                logger.warning("a page context would not close (%s); relaunching Chromium", exc)
                await self.browser.relaunch(slot.generation)


def _close_popup(slot: Slot, page) -> None:
    if slot.page is not None and page is not slot.page:
        asyncio.ensure_future(_quiet(page.close(run_before_unload=False)))


async def _dismiss(dialog) -> None:
    # a page's dialogs are answered "no", except "leave this page?": dismissing that one cancels the navigation to the
    # slot's next document (net::ERR_ABORTED), so a page that set onbeforeunload would fail the render after it
    with contextlib.suppress(Exception):
        await (dialog.accept() if dialog.type == "beforeunload" else dialog.dismiss())


async def _quiet(coro) -> None:
    with contextlib.suppress(Exception):
        await coro
