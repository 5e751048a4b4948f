"""A prototype render loop that speaks CDP to Chromium over a pipe, without Playwright (to measure its cost).

Same browser flags as Playwright's launch (``launch_argv``), same hermetic rules for the requests a render
makes (``cdp_route``: the document on a fresh origin, CDN assets from the asset cache pruned as the pool does,
images -> the placeholder, everything else failed), init.js on every new document, one browser context per slot,
cookies cleared per render, the pool's capture script (load wait, fonts wait, layout.js) and one
``Page.captureScreenshot`` with the pool's clip. What it does not have: Playwright's bookkeeping of frames,
requests, execution contexts and lifecycle events for every navigation, which is what it measures.

Used by ``render_candidates.py`` (side "cdp_pipe"); not a library.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
from urllib.parse import urlsplit

from render_proto import EMPTY_SITE, HARDEN_JS, LAYOUT_FN, check_features, features_flag

from vcoder.rendering.capture import INIT_JS, LIMITS, MAX_WIDTH, build_layout
from vcoder.rendering.cssprune import PRUNE_MIN_BYTES
from vcoder.rendering.network import ORIGIN_DOMAIN, PLACEHOLDER_PNG, RenderTarget

# a screenshot asked for before the new document's first compositor frame fails ("Unable to capture screenshot"):
# the capture resolves after the next animation frame (Playwright's extra round trips hide this race)
FRAME_JS = "new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))"
CAPTURE = (
    "(async (limits) => { if (document.readyState !== 'complete') await Promise.race(["
    " new Promise((r) => addEventListener('load', r)), new Promise((r) => setTimeout(r, limits.loadWaitMs))]);"
    " await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, limits.fontWaitMs))]);"
    f" const out = ({LAYOUT_FN})(limits); await {FRAME_JS}; return out; }})"
)

# a ladder step without layout.js: the load wait and the document size only
LOAD_AND_SIZE = (
    "(async () => { if (document.readyState !== 'complete') await new Promise((r) => addEventListener('load', r));"
    f" await {FRAME_JS}; const e = document.documentElement; return JSON.stringify({{width: e.scrollWidth, height: e.scrollHeight,"
    " dom_tags: [], dom_parents: [], text_blocks: [], elements: []}); })()"
)


async def launch_argv(executable: str | None = None) -> tuple[str, list[str]]:
    """The executable and the exact flags Playwright launches Chromium with (read from a launched browser)."""
    import psutil
    from playwright.async_api import async_playwright

    from vcoder.rendering.browser import browser_processes, find_executable, launch_args

    async with async_playwright() as pw:
        args, marker = launch_args()
        exe = find_executable(executable, pw.chromium.executable_path) or pw.chromium.executable_path
        browser = await pw.chromium.launch(executable_path=exe, args=args, headless=True)
        argv = psutil.Process(browser_processes(marker)[0].pid).cmdline()
        await browser.close()
    keep = [a for a in argv[1:] if not a.startswith(("--user-data-dir", "--remote-debugging")) and a != "about:blank"]
    return argv[0], keep


class Pipe:
    """CDP over --remote-debugging-pipe: NUL-terminated JSON, flattened sessions."""

    def __init__(self) -> None:
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future] = {}
        self.handlers: dict[str, object] = {}
        self.buf = b""

    async def start(self, exe: str, args: list[str]) -> None:
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="vcoder-cdp-")

        def fds() -> None:
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        argv = [exe, *args, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(
            argv, preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        os.close(to_child_r)
        os.close(from_child_w)
        os.set_blocking(self.to_child, True)
        loop = asyncio.get_running_loop()
        loop.add_reader(self.from_child, self._read)

    def _read(self) -> None:
        data = os.read(self.from_child, 1 << 20)
        if not data:
            asyncio.get_running_loop().remove_reader(self.from_child)
            return
        *msgs, self.buf = (self.buf + data).split(b"\0")
        for raw in msgs:
            msg = json.loads(raw)
            if "id" in msg:
                fut = self.waiting.pop(msg["id"])
                if "error" in msg:
                    fut.set_exception(RuntimeError(f"{msg['error']}"))
                else:
                    fut.set_result(msg.get("result", {}))
            else:
                handler = self.handlers.get((msg.get("sessionId"), msg["method"]))
                if handler is not None:
                    handler(msg["params"])

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> asyncio.Future:
        i = next(self.ids)
        msg = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        fut = asyncio.get_running_loop().create_future()
        self.waiting[i] = fut
        data = json.dumps(msg).encode() + b"\0"
        view = memoryview(data)
        while view:
            view = view[os.write(self.to_child, view) :]
        return fut

    async def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.from_child)
        self.proc.kill()
        self.proc.wait()
        os.close(self.to_child)
        os.close(self.from_child)
        shutil.rmtree(self.profile, ignore_errors=True)


# Playwright's context options, as CDP calls: reduced motion, light colour scheme
MEDIA = [{"name": "prefers-reduced-motion", "value": "reduce"}, {"name": "prefers-color-scheme", "value": "light"}]


class CdpSlot:
    def __init__(self, pipe: Pipe, store) -> None:
        self.pipe, self.store, self.target = pipe, store, RenderTarget()

    async def open(self) -> None:
        p = self.pipe
        self.context = (await p.send("Target.createBrowserContext", {"disposeOnDetach": True}))["browserContextId"]
        target = await p.send("Target.createTarget", {"url": "about:blank", "browserContextId": self.context})
        self.session = (await p.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}))[
            "sessionId"
        ]
        s = self.session
        p.handlers[(s, "Fetch.requestPaused")] = lambda e: asyncio.ensure_future(self.route(e))
        await p.send("Page.enable", {}, s)  # without it, scripts added for new documents never run
        await asyncio.gather(
            p.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, s),
            p.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False},
                s,
            ),
            p.send("Emulation.setEmulatedMedia", {"features": MEDIA}, s),
            p.send("Emulation.setTimezoneOverride", {"timezoneId": "UTC"}, s),
            p.send("Emulation.setLocaleOverride", {"locale": "en-US"}, s),
            p.send("Browser.setDownloadBehavior", {"behavior": "deny", "browserContextId": self.context}),
            p.send("Page.addScriptToEvaluateOnNewDocument", {"source": INIT_JS + HARDEN_JS}, s),
            p.send("Page.setLifecycleEventsEnabled", {"enabled": False}, s),
        )

    def clear_cookies(self) -> asyncio.Future:
        return self.pipe.send("Storage.clearCookies", {"browserContextId": self.context})

    async def route(self, event: dict) -> None:
        """The hermetic rules, on raw Fetch.requestPaused events."""
        p, s, t, req = self.pipe, self.session, self.target, event["request"]
        url, rid, kind = req["url"], event["requestId"], event.get("resourceType", "")
        parts = urlsplit(url)
        body, ctype = None, None
        if f"{parts.scheme}://{parts.netloc}" == t.origin and kind == "Document" and not t.doc_served:
            t.doc_served, body, ctype = True, t.html, "text/html; charset=utf-8"
        elif kind != "Document" and parts.scheme in ("http", "https"):
            asset = self.store.resolve(url, style=kind == "Stylesheet")
            if asset is not None:
                body, ctype, path = asset
                if path is not None and len(body) >= PRUNE_MIN_BYTES and ctype.startswith("text/css"):
                    body = self.store.sheet(path).prune(t.tokens())
            elif kind == "Image":
                body, ctype = PLACEHOLDER_PNG, "image/png"
        try:
            if body is None:
                await p.send("Fetch.failRequest", {"requestId": rid, "errorReason": "BlockedByClient"}, s)
                return
            headers = [{"name": "Content-Type", "value": ctype}, {"name": "Access-Control-Allow-Origin", "value": "*"}]
            params = {"requestId": rid, "responseCode": 200, "responseHeaders": headers}
            await p.send("Fetch.fulfillRequest", {**params, "body": base64.b64encode(body).decode()}, s)
        except RuntimeError:
            pass  # the page went away mid-request


class CdpPool:
    """``max_pages`` slots, each its own browser context and page; ``run(pages)`` renders them (N in flight)."""

    def __init__(
        self,
        max_pages: int = 2,
        *,
        fast_png: bool = True,
        features_off: tuple[str, ...] = (),
        extra_args: tuple[str, ...] = (),
        layout: bool = True,
        executable: str | None = None,
        harden: bool = True,
    ):
        self.max_pages, self.fast_png, self.extra_args, self.layout = max_pages, fast_png, tuple(extra_args), layout
        self.executable, self.features_off, self.harden = executable, tuple(features_off), harden
        self.counter = itertools.count(1)

    async def start(self) -> None:
        from vcoder.rendering.assets import AssetStore

        store = AssetStore()
        store.prewarm()
        exe, args = await launch_argv(self.executable)
        self.pipe = Pipe()
        if self.features_off:  # one merged --disable-features (Chromium keeps only the last one)
            args = [a for a in args if not a.startswith("--disable-features=")] + features_flag(self.features_off)
        await self.pipe.start(exe, [*args, *self.extra_args])
        self.free: asyncio.Queue = asyncio.Queue()
        for _ in range(self.max_pages):
            slot = CdpSlot(self.pipe, store)
            await slot.open()
            self.free.put_nowait(slot)

    async def close(self) -> None:
        await self.pipe.close()

    async def render(self, html: str, timeout_ms: float = 15000):
        slot = await self.free.get()
        try:
            p, s = self.pipe, slot.session
            reset = [p.send("Page.resetNavigationHistory", {}, s)] if self.harden else []
            await asyncio.gather(slot.clear_cookies(), *reset)
            origin = f"http://r{next(self.counter)}.{ORIGIN_DOMAIN}"
            slot.target.reset(origin, html.encode(), "index.html", EMPTY_SITE, live=False)
            await p.send("Page.navigate", {"url": origin + "/index.html"}, s)
            limits = json.dumps({**LIMITS, "loadWaitMs": timeout_ms / 2})
            script = f"{CAPTURE}({limits})" if self.layout else LOAD_AND_SIZE
            res = await p.send(
                "Runtime.evaluate", {"expression": script, "awaitPromise": True, "returnByValue": True}, s
            )
            data = json.loads(res["result"]["value"])
            w, h = min(max(int(data["width"]), 1280), MAX_WIDTH), min(max(int(data["height"]), 720), 8192)
            params = {"format": "png", "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}}
            params |= {"captureBeyondViewport": (w, h) != (1280, 720), "optimizeForSpeed": self.fast_png}
            shot = await p.send("Page.captureScreenshot", params, s)
            return base64.b64decode(shot["data"]), build_layout(data, w, h)
        finally:
            self.free.put_nowait(slot)

    async def run(self, htmls: list[str]) -> list[bytes]:
        return [png for png, _ in await asyncio.gather(*(self.render(h) for h in htmls))]


class PlaywrightCdp:
    """The ``Pipe`` interface on Playwright CDP sessions: one per page (``session`` = its key), none browser-wide."""

    def __init__(self) -> None:
        self.sessions: dict[str, object] = {}
        self.handlers = _Handlers(self)

    def send(self, method: str, params: dict | None = None, session: str | None = None):
        return asyncio.ensure_future(self.sessions[session].send(method, params or {}))


class _Handlers(dict):
    def __init__(self, owner: PlaywrightCdp):
        super().__init__()
        self.owner = owner

    def __setitem__(self, key, handler) -> None:
        session, method = key
        self.owner.sessions[session].on(method, handler)


class PwSlot(CdpSlot):
    """A Playwright page (context options, init.js, websocket closing by Playwright) driven by raw CDP messages."""

    def __init__(self, pipe: PlaywrightCdp, store, browser) -> None:
        super().__init__(pipe, store)
        self.browser = browser

    async def open(self) -> None:
        from render_proto import CONTEXT_OPTIONS

        from vcoder.rendering.network import close_websocket

        self.ctx = await self.browser.new_context(**CONTEXT_OPTIONS)
        await self.ctx.add_init_script(INIT_JS + HARDEN_JS)
        await self.ctx.route_web_socket(re.compile(r".*"), close_websocket)
        page = await self.ctx.new_page()
        self.session = f"s{id(page)}"
        self.pipe.sessions[self.session] = await self.ctx.new_cdp_session(page)
        self.pipe.handlers[(self.session, "Fetch.requestPaused")] = lambda e: asyncio.ensure_future(self.route(e))
        await self.pipe.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, self.session)

    def clear_cookies(self):
        return self.ctx.clear_cookies()


class PlaywrightCdpPool(CdpPool):
    """``CdpPool``'s render calls on pages Playwright launched and keeps (its bookkeeping stays attached)."""

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        from vcoder.rendering.assets import AssetStore
        from vcoder.rendering.browser import browser_processes, find_executable, launch_args

        store = AssetStore()
        store.prewarm()
        self.pw = await async_playwright().start()
        args, marker = launch_args((*self.extra_args, *features_flag(self.features_off)))
        exe = find_executable(self.executable, self.pw.chromium.executable_path)
        self.browser = await self.pw.chromium.launch(executable_path=exe, args=args, headless=True)
        check_features(browser_processes(marker)[0].cmdline())
        self.pipe = PlaywrightCdp()
        self.free = asyncio.Queue()
        for _ in range(self.max_pages):
            slot = PwSlot(self.pipe, store, self.browser)
            await slot.open()
            self.free.put_nowait(slot)

    async def close(self) -> None:
        await self.browser.close()
        await self.pw.stop()
