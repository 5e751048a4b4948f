"""The hermetic network: every request a render makes is fulfilled from memory or aborted, never sent.

Each render gets a unique synthetic origin (``http://r<n>.vcoder.invalid``) that serves its site: the document at
``/<entry>`` (``/index.html`` by default) and the site's other files (``files`` in memory, then ``base_dir``, see
``site.py``) by relative URL; known CDN URLs come from the local asset cache; any other image gets a fixed grey
placeholder; everything else is aborted. One document per render: the main frame may load the document once, and
every other navigation is refused (204, the document stays) -- except in a live page (``open_page``), which may
navigate (GET) to another HTML document of the same site. The browser is also launched behind a dead proxy (see
``browser.py``) so what slips past request interception goes nowhere.
"""

from __future__ import annotations

import asyncio
import logging
import struct
import zlib
from urllib.parse import urlsplit

from vcoder.rendering.assets import AssetStore
from vcoder.rendering.cssprune import PRUNE_MIN_BYTES, page_tokens
from vcoder.rendering.site import HTML_TYPE, Site, is_page, mime_type, site_path

logger = logging.getLogger(__name__)

ORIGIN_DOMAIN = "vcoder.invalid"
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp", ".ico", ".avif", ".tif", ".tiff")
PLACEHOLDER_SIZE = (320, 240)
PLACEHOLDER_GREY = 200


def _png(width: int, height: int, grey: int) -> bytes:
    """A solid grey PNG built with zlib only (no imaging library needed at import)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes([grey]) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


PLACEHOLDER_PNG = _png(*PLACEHOLDER_SIZE, PLACEHOLDER_GREY)


class RenderTarget:
    """What the route handler of one page slot serves for the render in progress."""

    def __init__(self) -> None:
        self.reset("", b"", "index.html", Site(), live=False)

    def reset(self, origin: str, html: bytes, entry: str, site: Site, *, live: bool) -> None:
        self.origin, self.html, self.entry, self.site, self.live = origin, html, entry, site, live
        self.doc_served = False
        self._tokens: frozenset[str] | None = None

    def tokens(self) -> frozenset[str]:
        """The words of this render's document and of its site's pages and scripts (computed once, only for pages
        that link a prunable stylesheet)."""
        if self._tokens is None:
            self._tokens = page_tokens(self.html.decode("utf-8", errors="replace") + "\n" + self.site.text())
        return self._tokens

    def file(self, path: str) -> bytes | None:
        """The contents of a site path: the render's document at its entry, else the site's file."""
        return self.html if path == self.entry else self.site.get(path)


class HermeticRouter:
    """A ``context.route("**/*")`` handler bound to one page slot's ``RenderTarget``.

    Args:
        target: the slot's current render (origin, document, site).
        store: the asset cache.
    """

    def __init__(self, target: RenderTarget, store: AssetStore):
        self.target = target
        self.store = store

    async def __call__(self, route, request) -> None:
        try:
            await self._handle(route, request)
        except Exception as exc:  # the page may be gone mid-request; a handler error must not surface
            logger.debug("route handler for %s: %s", request.url[:200], exc)

    async def _handle(self, route, request) -> None:
        url = request.url
        if url.startswith(("data:", "blob:")):
            await route.fallback()
            return
        parts = urlsplit(url)
        t = self.target
        is_main_nav = request.is_navigation_request() and request.frame.parent_frame is None
        if f"{parts.scheme}://{parts.netloc}" == t.origin:
            path = site_path(parts.path)
            if is_main_nav:
                # one document per render: reloads, meta refresh and self-navigation are refused; a live page may
                # go (GET) to another page of its site
                if path == t.entry and not t.doc_served:
                    t.doc_served = True
                    await route.fulfill(status=200, body=t.html, content_type=HTML_TYPE)
                    return
                body = t.file(path) if t.live and path is not None and is_page(path) else None
                if body is not None and request.method == "GET":
                    await route.fulfill(status=200, body=body, content_type=mime_type(path))
                    return
                await route.fulfill(status=204)
                return
            body = t.file(path) if path is not None and not request.is_navigation_request() else None
            if body is not None:
                await route.fulfill(status=200, body=body, content_type=mime_type(path))
                return
        elif not is_main_nav and parts.scheme in ("http", "https"):
            asset = self.store.resolve(url, style=request.resource_type == "stylesheet")
            if asset is not None:
                body, ctype, path = asset
                if path is not None and len(body) >= PRUNE_MIN_BYTES and ctype.startswith("text/css"):
                    sheet = (
                        self.store.sheet(path)
                        if self.store.has_sheet(path)
                        else await asyncio.to_thread(self.store.sheet, path)
                    )
                    body = sheet.prune(t.tokens())
                await route.fulfill(status=200, body=body, content_type=ctype, headers=_CORS)
                return
        if not is_main_nav and (request.resource_type == "image" or parts.path.lower().endswith(IMAGE_EXTENSIONS)):
            await route.fulfill(status=200, body=PLACEHOLDER_PNG, content_type="image/png", headers=_CORS)
            return
        if request.is_navigation_request():
            # 204 keeps the current document; an abort would commit an error page in its place
            await route.fulfill(status=204)
            return
        await route.abort("blockedbyclient")


# fonts from a CDN are cross-origin to the page: without this header the browser refuses them
_CORS = {"Access-Control-Allow-Origin": "*"}


async def close_websocket(ws) -> None:
    """``route_web_socket`` handler: never connect to a server, close the page's side at once."""
    try:
        await ws.close(code=1008, reason="vcoder: network disabled")
    except Exception as exc:
        logger.debug("closing websocket %s: %s", ws.url, exc)
