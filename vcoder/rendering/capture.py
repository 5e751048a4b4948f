"""Screenshot + layout of a loaded page, taken together so both describe the same page state."""

from __future__ import annotations

import json
from pathlib import Path

from vcoder.layout import DomNode, ElementBox, Layout, TextBlock
from vcoder.rendering.types import Rendered

_HERE = Path(__file__).parent
INIT_JS = (_HERE / "init.js").read_text()
_LAYOUT_FN = (_HERE / "layout.js").read_text().strip().rstrip(";")
# the load event, fonts (bounded: a font that never loads must not eat the deadline), then the layout in the same evaluate
CAPTURE_JS = (
    "async (limits) => { if (document.readyState !== 'complete') await Promise.race(["
    " new Promise((r) => addEventListener('load', r)), new Promise((r) => setTimeout(r, limits.loadWaitMs))]);"
    " await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, limits.fontWaitMs))]);"
    f" return ({_LAYOUT_FN})(limits); }}"
)
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


async def capture(page, *, full_page: bool, max_height: int, timeout_ms: float, console: list[str]) -> Rendered:
    """Read the layout, then screenshot the same state (document size capped by ``max_height``/``MAX_WIDTH``).

    Args:
        page: a loaded Playwright page.
        full_page: whole document (True) or only the viewport.
        max_height: screenshot height cap in px.
        timeout_ms: Playwright timeout for the screenshot.
        console: console errors collected for this render.

    Returns:
        An ok ``Rendered`` (elapsed_ms left 0 for the caller to fill in).
    """
    # a page whose load event never fires (e.g. it started a navigation we refused) is captured as it is, half-way
    # to the deadline; a page that blocks its JS thread still times out
    data = json.loads(await page.evaluate(CAPTURE_JS, {**LIMITS, "loadWaitMs": timeout_ms / 2}))
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    truncated = False
    if full_page:
        doc_w, doc_h = max(int(data["width"]), vw), max(int(data["height"]), vh)
        w, h = min(doc_w, MAX_WIDTH), min(doc_h, max_height)
        truncated = (w, h) != (doc_w, doc_h)
        # animations and the caret are already off (init.js); full_page only when the document outgrows the viewport
        png = await page.screenshot(
            full_page=(w, h) != (vw, vh), clip={"x": 0, "y": 0, "width": w, "height": h}, timeout=timeout_ms
        )
    else:
        w, h = vw, vh
        png = await page.screenshot(timeout=timeout_ms)
    return Rendered(
        ok=True,
        png=png,
        width=w,
        height=h,
        layout=build_layout(data, w, h),
        console_errors=tuple(console[:50]),
        truncated=truncated,
    )
