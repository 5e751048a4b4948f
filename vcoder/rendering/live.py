"""Live pages: a loaded hermetic page lent to a caller (an agent) that drives it with Playwright's ``Page`` API.

The caller owns the page while it holds it; when it gives it back the slot is reused, or replaced when the page was
closed, crashed or discarded.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator

from vcoder.rendering.browser import CLOSE_TIMEOUT_MS
from vcoder.rendering.capture import capture
from vcoder.rendering.jobs import Job
from vcoder.rendering.renderer import MARGIN_MS, Renderer
from vcoder.rendering.types import POOL_CLOSED, BrowserUnavailable, FailureKind, Rendered


@contextlib.asynccontextmanager
async def lend_page(renderer: Renderer, job: Job) -> AsyncIterator:
    """A free slot's page loaded with ``job``'s document, for the duration of the ``async with`` block.

    Raises:
        BrowserUnavailable: the pool was closed, or the browser died under the load (it is relaunched).
        RuntimeError: the page could not be loaded (the message says why).
    """
    slots = renderer.slots
    slot = await slots.acquire()
    if slot is None:
        raise BrowserUnavailable(POOL_CLOSED)
    try:
        gen = slot.generation
        try:
            await slots.ready(slot, job.width, job.height)
            gen = slot.generation
            await asyncio.wait_for(renderer.load(slot, job, live=True), (job.timeout_ms + MARGIN_MS) / 1000)
        except Exception as exc:
            failed = await renderer.classify(slot, gen, exc, job.timeout_ms, 0.0)
            if failed is None or failed.infrastructure:
                why = failed.error if failed else POOL_CLOSED if renderer.closed else "Chromium died while loading it"
                raise BrowserUnavailable(f"open_page could not load the page: {why}") from exc
            raise RuntimeError(f"open_page could not load the page: {failed.error}") from exc
        yield slot.page
        if slot.page is None or slot.page.is_closed() or slot.crashed or slot.discarded:
            await slots.discard(slot)
    finally:
        slots.release(slot)


async def discard_page(renderer: Renderer, page) -> None:
    """Close a lent page now (bounded, errors swallowed) and mark its slot for replacement when it is given back."""
    slot = renderer.slots.find(page)
    if slot is not None:
        slot.discarded = True
    with contextlib.suppress(Exception):
        await asyncio.wait_for(page.close(run_before_unload=False), CLOSE_TIMEOUT_MS / 1000)


async def snapshot(
    renderer: Renderer | None, page, *, full_page: bool, timeout_ms: float, max_height: int
) -> Rendered:
    """Screenshot + layout of a live page's current state."""
    slot = renderer.slots.find(page) if renderer is not None else None
    t0 = time.perf_counter()
    try:
        r = await asyncio.wait_for(
            capture(
                page,
                full_page=full_page,
                max_height=max_height,
                timeout_ms=timeout_ms,
                console=slot.console if slot else [],
                cdp=slot.cdp if slot else None,
                resume=True,
            ),
            (timeout_ms + MARGIN_MS) / 1000,
        )
    except Exception as exc:
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        elapsed = (time.perf_counter() - t0) * 1000
        if renderer is None or renderer.closed or not renderer.browser.connected:
            return Rendered.unavailable(f"the browser is gone ({type(exc).__name__})", elapsed)
        if slot is not None and slot.crashed:
            return Rendered.failure(FailureKind.PAGE_CRASH, "crashed: the page's renderer process crashed", elapsed)
        if isinstance(exc, (asyncio.TimeoutError, PlaywrightTimeout)):
            return Rendered.failure(
                FailureKind.TIMEOUT, f"timeout: the snapshot took over {timeout_ms:.0f} ms", elapsed
            )
        return Rendered.failure(FailureKind.NAVIGATION, f"navigation: {type(exc).__name__}: {str(exc)[:300]}", elapsed)
    return dataclasses.replace(r, elapsed_ms=(time.perf_counter() - t0) * 1000)
