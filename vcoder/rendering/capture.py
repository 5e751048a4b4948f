"""Screenshot + layout of a loaded page, taken together so both describe the same page state."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

from vcoder.layout import DomNode, ElementBox, Layout, TextBlock
from vcoder.rendering.loop import retrieve_exception
from vcoder.rendering.types import FailureKind, Rendered

_HERE = Path(__file__).parent
INIT_JS = (_HERE / "init.js").read_text()
_LAYOUT_FN = (_HERE / "layout.js").read_text().strip().rstrip(";")
CAPTURE_JS = (_HERE / "capture.js").read_text().replace("(LAYOUT)", f"({_LAYOUT_FN})")
# after the screenshot: the document the page shows now (and, for a live page, its timers resume)
AFTER_JS = "(resume) => window.__vcoder ? window.__vcoder.after(resume) : null"
FRAME_JS = "() => window.__vcoder && window.__vcoder.frame()"
# what Chromium answers when asked for a screenshot before it has a frame to give (not the page's fault)
NO_FRAME = "Unable to capture screenshot"
# the DOM tree is also depth-capped so to_dict() output stays JSON-serialisable by recursive encoders
LIMITS = {
    "maxTextNodes": 20000,
    "maxBlocks": 5000,
    "maxElements": 5000,
    "maxNodes": 5000,
    "maxDepth": 256,
    "fontWaitMs": 3000,
}
MAX_WIDTH = 4096


def build_layout(data: dict, width: int, height: int) -> Layout:
    """A ``Layout`` from layout.js output (flat DOM lists rebuilt into a tree without recursion)."""
    tags, parents = data["dom_tags"], data["dom_parents"]
    children: list[list[int]] = [[] for _ in tags]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    built: list[DomNode | None] = [None] * len(tags)
    for i in range(len(tags) - 1, -1, -1):  # pre-order: every child has a larger index than its parent
        built[i] = DomNode(tags[i], tuple(built[c] for c in children[i]))
    return Layout(
        width=width,
        height=height,
        text_blocks=tuple(
            TextBlock(
                text=b["text"],
                bbox=tuple(float(v) for v in b["bbox"]),
                color=tuple(b["color"]),
                background=tuple(b["background"]),
                font_size=float(b["font_size"]),
                font_weight=int(b["font_weight"]),
                tag=b["tag"],
            )
            for b in data["text_blocks"]
        ),
        elements=tuple(ElementBox(tag=e[0], depth=int(e[1]), bbox=(e[2], e[3], e[4], e[5])) for e in data["elements"]),
        dom=built[0] if built else None,
        title=data.get("title", "")[:1000],
        dom_truncated=bool(data.get("truncated")),
    )


async def capture(
    page,
    *,
    full_page: bool,
    max_height: int,
    timeout_ms: float,
    console: list[str],
    document_url: str | None = None,
    cdp=None,
    resume: bool = False,
) -> Rendered:
    """Read the layout, then screenshot the same state (document size capped by ``max_height``/``MAX_WIDTH``).

    One render, one state: the layout and the screenshot must come from the same document, or the result is a
    ``FailureKind.NAVIGATION`` failure that says so (a meta refresh, ``location.replace``, a blob or ``about:blank``
    document, ``document.open()`` between the two). Chromium failing to give a screenshot twice is
    ``FailureKind.BROWSER`` (not the page's fault).

    Args:
        page: a loaded Playwright page.
        full_page: whole document (True) or only the viewport.
        max_height: screenshot height cap in px.
        timeout_ms: the render's deadline in ms (bounds the load and settle waits).
        console: console errors collected for this render.
        document_url: the URL the render served; the layout must be read from that document (None: any).
        cdp: a CDP session attached to ``page`` (the slot's); None: one is opened for this capture.
        resume: let the page's timers run again after the screenshot (a live page); a rendered page's stay stopped.

    Returns:
        A ``Rendered`` (elapsed_ms left 0 for the caller to fill in).
    """
    with _MainFrameNavigations(page) as navigations:
        return await _capture(page, navigations, full_page, max_height, timeout_ms, console, document_url, cdp, resume)


async def _capture(page, navigations, full_page, max_height, timeout_ms, console, document_url, cdp, resume):
    from playwright.async_api import Error as PlaywrightError

    # the load wait is half the deadline, the settling of timers a quarter; a page that blocks its JS thread still
    # times out (the caller's deadline)
    try:
        doc, raw = await page.evaluate(
            CAPTURE_JS, {**LIMITS, "loadWaitMs": timeout_ms / 2, "settleWaitMs": timeout_ms / 4}
        )
    except PlaywrightError as exc:
        if document_replaced(exc):
            return replaced(page, "while its layout was being read")
        raise
    if doc is None or (document_url is not None and doc["url"] != document_url):
        return replaced(page, "before its layout was read")
    if doc["unfinished"]:
        return Rendered.failure(
            FailureKind.NAVIGATION,
            "navigation: the page started a navigation while it was still being parsed, which stopped Chromium "
            "parsing it (the document is unfinished)",
        )
    data = json.loads(raw)
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    w, h, truncated = vw, vh, False
    if full_page:
        doc_w, doc_h = max(int(data["width"]), vw), max(int(data["height"]), vh)
        w, h = min(doc_w, MAX_WIDTH), min(doc_h, max_height)
        truncated = (w, h) != (doc_w, doc_h)
    shot = asyncio.ensure_future(screenshot(page, cdp, width=w, height=h, beyond_viewport=(w, h) != (vw, vh)))
    try:
        # Chromium may never answer a screenshot asked for while a new document commits (a blob: document): when
        # the main frame navigates and the document is no longer the one captured, the screenshot is abandoned
        while True:
            await asyncio.wait({shot, navigations.next}, return_when=asyncio.FIRST_COMPLETED)
            if shot.done():
                break
            navigations.rearm()
            if await _document(page, False) != doc:  # False: a live page's timers stay paused until the shot
                return replaced(page, "during its screenshot")
        png = shot.result()
    except Exception as exc:
        if await _document(page, resume) != doc:
            return replaced(page, "between its layout and its screenshot")
        if NO_FRAME in str(exc):
            return Rendered.failure(
                FailureKind.BROWSER, f"browser: Chromium could not take the screenshot, twice ({first_line(exc)})"
            )
        raise
    finally:
        if not shot.done():
            shot.cancel()
            shot.add_done_callback(retrieve_exception)  # an answer that never comes, or a late failure
    if await _document(page, resume) != doc:
        return replaced(page, "between its layout and its screenshot")
    return Rendered(
        ok=True,
        png=png,
        width=w,
        height=h,
        layout=build_layout(data, w, h),
        console_errors=tuple(console[:50]),
        truncated=truncated,
    )


class _MainFrameNavigations:
    """While open, ``next`` is a future resolved at the main frame's next navigation (``rearm`` makes a new one).

    A same-document navigation (``history.pushState``, a fragment) counts too: the caller checks the document."""

    def __init__(self, page):
        self.page = page
        self.next = asyncio.get_running_loop().create_future()

    def rearm(self) -> None:
        self.next = asyncio.get_running_loop().create_future()

    def _on(self, frame) -> None:
        if frame.parent_frame is None and not self.next.done():
            self.next.set_result(None)

    def __enter__(self):
        self.page.on("framenavigated", self._on)
        return self

    def __exit__(self, *exc) -> None:
        self.page.remove_listener("framenavigated", self._on)
        self.next.cancel()


async def screenshot(page, cdp, *, width: int, height: int, beyond_viewport: bool) -> bytes:
    """PNG of the page's top-left ``width`` x ``height`` px: one CDP ``Page.captureScreenshot`` (Playwright's
    ``page.screenshot`` costs several round trips and a second encode). Animations and the caret are off (init.js).

    Chromium answers ``NO_FRAME`` when it has no frame to give yet: asked again once after the next frame.

    Raises:
        playwright's Error: the screenshot failed (twice, for ``NO_FRAME``).
    """
    own = cdp is None
    if own:
        cdp = await page.context.new_cdp_session(page)
    params = {
        "format": "png",
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        "captureBeyondViewport": beyond_viewport,
        "optimizeForSpeed": True,  # zlib's fast setting: same pixels, ~35% larger PNG, a fraction of the CPU
    }
    try:
        try:
            shot = await cdp.send("Page.captureScreenshot", params)
        except Exception as exc:
            if NO_FRAME not in str(exc):
                raise
            await page.evaluate(FRAME_JS)
            shot = await cdp.send("Page.captureScreenshot", params)
    finally:
        if own:
            await cdp.detach()
    return base64.b64decode(shot["data"])


async def _document(page, resume: bool) -> dict | None:
    """The identity of the document the page shows now (None: one init.js did not mark, or it is being replaced)."""
    from playwright.async_api import Error as PlaywrightError

    try:
        return await page.evaluate(AFTER_JS, resume)
    except PlaywrightError as exc:
        if document_replaced(exc):
            return None
        raise


def document_replaced(exc: Exception) -> bool:
    """Whether a Playwright error says the page's document went away under the call (a navigation)."""
    return "Execution context was destroyed" in str(exc) or "interrupted by another navigation" in str(exc)


def replaced(page, when: str) -> Rendered:
    """The NAVIGATION failure of a render whose page replaced its document (``when`` says at which point)."""
    return Rendered.failure(
        FailureKind.NAVIGATION,
        f"navigation: the page replaced its document {when} (now at {page.url[:200]}); a render's screenshot and "
        "layout must describe one document",
    )


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (its type when it has none), capped for error strings."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
