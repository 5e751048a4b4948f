"""A copy of ``AsyncBrowserPool``'s render path with a timer around every Playwright call, and candidate changes.

``Proto(options)`` makes, with the default ``Options()``, the same calls the pool makes per render, in the same
order: ``clear_cookies`` -> ``goto`` a fresh origin (``wait_until="commit"``, raced against ``framenavigated``)
with the document fulfilled by ``HermeticRouter`` -> one ``evaluate`` (load wait, fonts wait, layout.js) ->
``page.screenshot(full_page=..., clip=...)`` -> ``build_layout``; a slot's context is recycled after 100 renders.
Every other ``Options`` value is a candidate optimisation (see ``Options``). Nothing in vcoder is patched: the
router is wrapped, the capture script is rebuilt from ``layout.js`` with in-page timers added.

Each render returns ``(png, layout, phases)``; ``phases`` maps a phase name to wall ms (and, with
``cpu_meter`` set, serial renders only, to CPU ms by process kind).
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import re
import time
from pathlib import Path

from vcoder.rendering.browser import browser_processes, find_executable, launch_args
from vcoder.rendering.capture import INIT_JS, LIMITS, MAX_WIDTH, build_layout
from vcoder.rendering.network import ORIGIN_DOMAIN, HermeticRouter, RenderTarget, close_websocket
from vcoder.rendering.site import Site

EMPTY_SITE = Site({}, None)  # the pages are single documents

LAYOUT_FN = (Path(__import__("vcoder.rendering", fromlist=["x"]).__file__).parent / "layout.js").read_text()
LAYOUT_FN = LAYOUT_FN.strip().rstrip(";")
# the pool's capture script, plus performance.now() marks between its steps (returned beside the layout)
CAPTURE_JS = (
    "async (limits) => { const t0 = performance.now(); if (document.readyState !== 'complete') await Promise.race(["
    " new Promise((r) => addEventListener('load', r)), new Promise((r) => setTimeout(r, limits.loadWaitMs))]);"
    " const t1 = performance.now();"
    " await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, limits.fontWaitMs))]);"
    f" const t2 = performance.now(); const layout = ({LAYOUT_FN})(limits); const t3 = performance.now();"
    " const n = performance.getEntriesByType('navigation')[0];"
    " const res = performance.getEntriesByType('resource').map((e) => [e.initiatorType, e.startTime, e.responseEnd]);"
    " return JSON.stringify({layout, origin: performance.timeOrigin, marks: [t0, t1, t2, t3],"
    " nav: n ? [n.responseEnd, n.domContentLoadedEventEnd, n.loadEventEnd] : null, res}); }"
)
# Playwright 1.65 launches Chromium with this --disable-features list. Chromium keeps only the LAST
# --disable-features switch (checked: a second one re-enables everything in the first), so a flag of ours must
# repeat Playwright's list; ``features_flag`` does, and ``Proto.start`` checks it against the launched browser.
PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,"
    "LensOverlay,MediaRouter,PaintHolding,ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,"
    "TcpPortRandomizationWin,OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch,"
    "msForceBrowserSignIn,msEdgeUpdateLaunchServicesPreferredVersion"
).split(",")


def features_flag(off: tuple[str, ...] = (), on: tuple[str, ...] = ()) -> list[str]:
    """One ``--disable-features``: Playwright's list, plus ``off``, minus ``on`` (none when both are empty)."""
    if not off and not on:
        return []
    names = [f for f in PLAYWRIGHT_DISABLED if f not in on] + [f for f in off if f not in PLAYWRIGHT_DISABLED]
    return [f"--disable-features={','.join(names)}"]


def check_features(argv: list[str], on: tuple[str, ...] = ()) -> None:
    """Raise if the launched browser's effective (last) --disable-features lost one of Playwright's."""
    lists = [a.split("=", 1)[1].split(",") for a in argv if a.startswith("--disable-features=")]
    lost = set(lists[0]) - set(lists[-1]) - set(on) if lists else set()
    if lost:
        raise RuntimeError(
            f"the effective --disable-features dropped Playwright's {sorted(lost)}; update PLAYWRIGHT_DISABLED"
        )


# the tab keeps window.name across navigations (a later render could read what an earlier one wrote)
HARDEN_JS = "\n;if (window === window.top) window.name = '';"
CONTEXT_OPTIONS = dict(
    viewport={"width": 1280, "height": 720},
    device_scale_factor=1,
    reduced_motion="reduce",
    color_scheme="light",
    locale="en-US",
    timezone_id="UTC",
    service_workers="block",
    accept_downloads=False,
)


@dataclasses.dataclass(frozen=True)
class Options:
    """What a render does; the defaults are the pool's current calls.

    Attributes:
        clear_cookies: "every" (the pool), "never" (only safe with per-site origins), "after" (issued right after
            the previous render's screenshot, awaited before the next goto: off the critical path).
        origin: "subdomain" (``r<n>.vcoder.invalid``, one site: the pool) or "site" (``r<n>-vcoder.invalid``: a
            separate site per render, so cookies of one render are never sent to or readable by the next) or "fixed"
            (one origin for every render: NOT isolated, storage persists; a measurement of the navigation only).
        screenshot: "playwright" (``page.screenshot``: the pool), "cdp" (one ``Page.captureScreenshot`` on a CDP
            session with the clip the pool computes), "cdp_fast" (the same with ``optimizeForSpeed``).
        route: "context" (``context.route``: the pool) or "page" (``page.route``).
        recycle_after: renders per context.
        extra_args: extra Chromium flags (never a --disable-features: use ``features_off``).
        features_off: Chromium features to disable on top of Playwright's list (e.g. "RenderDocument").
        features_on: features to take out of Playwright's disabled list (e.g. "PaintHolding").
        harden: close two leaks the pool has today: ``window.name`` (kept by the tab across navigations; reset by
            an init script in the top frame) and ``history.length`` (grows per render; ``Page.resetNavigationHistory``
            sent together with ``clear_cookies``).
        executable: the browser binary (default: the pool's choice, Debian's full ``chromium``); e.g.
            ``/usr/lib/chromium/chromium-headless-shell`` (Debian package ``chromium-headless-shell``).
        init_script: install init.js (ladder steps switch it off).
        capture: the capture evaluate (load wait + layout.js) and the clipped screenshot; False (a ladder step):
            ``goto(wait_until="load")`` + ``page.screenshot(full_page=True)`` like the raw loop, no layout.
    """

    clear_cookies: str = "every"
    origin: str = "subdomain"
    screenshot: str = "playwright"
    route: str = "context"
    recycle_after: int = 100
    extra_args: tuple[str, ...] = ()
    features_off: tuple[str, ...] = ()
    features_on: tuple[str, ...] = ()
    harden: bool = False
    executable: str | None = None
    init_script: bool = True
    capture: bool = True


class TimedRouter:
    """``HermeticRouter`` wrapped: wall ms per request, by kind (document, stylesheet, image, ...)."""

    def __init__(self, router: HermeticRouter, log: list):
        self.router, self.log = router, log

    async def __call__(self, route, request) -> None:
        t0 = time.perf_counter()
        await self.router(route, request)
        self.log.append((request.resource_type, (time.perf_counter() - t0) * 1000))


class Slot:
    def __init__(self) -> None:
        self.target, self.context, self.page, self.cdp = RenderTarget(), None, None, None
        self.renders, self.routes, self.pending_clear = 0, [], None
        self.expected: tuple[str, asyncio.Future] | None = None

    def on_navigated(self, frame) -> None:
        if frame.parent_frame is None and self.expected and frame.url == self.expected[0]:
            if not self.expected[1].done():
                self.expected[1].set_result(True)


class Proto:
    def __init__(self, options: Options = Options(), *, max_pages: int = 2, cpu_meter=None):
        self.options, self.max_pages, self.cpu_meter = options, max_pages, cpu_meter
        self.counter = itertools.count(1)
        self.max_height = 8192

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        from vcoder.rendering.assets import AssetStore

        self.store = AssetStore()
        self.store.prewarm()
        self.pw = await async_playwright().start()
        o = self.options
        args, self.marker = launch_args((*o.extra_args, *features_flag(o.features_off, o.features_on)))
        exe = find_executable(self.options.executable, self.pw.chromium.executable_path)
        self.browser = await self.pw.chromium.launch(executable_path=exe, args=args, headless=True)
        check_features(browser_processes(self.marker)[0].cmdline(), o.features_on)
        self.free: asyncio.Queue = asyncio.Queue()
        for _ in range(self.max_pages):
            slot = Slot()
            await self.open_slot(slot)
            self.free.put_nowait(slot)

    async def close(self) -> None:
        await self.browser.close()
        await self.pw.stop()

    async def open_slot(self, slot: Slot) -> None:
        ctx = await self.browser.new_context(**CONTEXT_OPTIONS)
        slot.context, slot.renders = ctx, 0
        if self.options.init_script:
            await ctx.add_init_script(INIT_JS + (HARDEN_JS if self.options.harden else ""))
        router = TimedRouter(HermeticRouter(slot.target, self.store), slot.routes)
        if self.options.route == "context":
            await ctx.route("**/*", router)
        await ctx.route_web_socket(re.compile(r".*"), close_websocket)
        page = await ctx.new_page()
        if self.options.route == "page":
            await page.route("**/*", router)
        page.on("dialog", lambda d: asyncio.ensure_future(d.dismiss()))
        page.on("framenavigated", slot.on_navigated)
        page.on("console", lambda m: None)
        page.on("pageerror", lambda e: None)
        slot.page = page
        cdp = self.options.screenshot.startswith("cdp") or self.options.harden
        slot.cdp = await ctx.new_cdp_session(page) if cdp else None

    async def render(self, html: str, *, full_page: bool = True, timeout_ms: float = 15000):
        slot = await self.free.get()
        try:
            return await self._render(slot, html.encode(), full_page, timeout_ms)
        finally:
            self.free.put_nowait(slot)

    async def render_many(self, htmls: list[str]) -> list:
        return await asyncio.gather(*(self.render(h) for h in htmls))

    async def run(self, htmls: list[str]) -> list[bytes]:
        """The screenshots of ``htmls`` (the interface ``render.measure`` drives)."""
        return [png for png, _, _ in await self.render_many(htmls)]

    async def _render(self, slot: Slot, html: bytes, full_page: bool, timeout_ms: float):
        o, phases, meter = self.options, {}, self.cpu_meter
        mark = [time.perf_counter(), meter.read() if meter else None]

        def lap(name: str) -> None:
            now = time.perf_counter()
            phases[name] = (now - mark[0]) * 1000
            if meter:
                cpu = meter.read()
                phases["cpu:" + name] = {k: v * 1000 for k, v in meter.diff(mark[1], cpu).items()}
                mark[1] = cpu
            mark[0] = now

        reset = [slot.cdp.send("Page.resetNavigationHistory")] if o.harden else []
        if o.clear_cookies == "every":
            await asyncio.gather(slot.context.clear_cookies(), *reset)
        elif o.clear_cookies == "after" and slot.pending_clear is not None:
            await asyncio.gather(slot.pending_clear, *reset)
        elif reset:
            await reset[0]
        lap("clear_cookies")
        n = next(self.counter)
        origin = {
            "subdomain": f"http://r{n}.{ORIGIN_DOMAIN}",
            "site": f"http://r{n}-vcoder.invalid",
            "fixed": f"http://r0.{ORIGIN_DOMAIN}",
        }[o.origin]
        slot.target.reset(origin, html, "index.html", EMPTY_SITE, live=False)
        slot.routes.clear()
        url = origin + "/index.html"
        if not o.capture:
            await slot.page.goto(url, wait_until="load", timeout=timeout_ms)
            png = await slot.page.screenshot(full_page=True, timeout=timeout_ms)
            await self._recycle(slot)
            return png, None, phases
        stamps = {"goto": time.time()}
        committed = asyncio.get_running_loop().create_future()
        slot.expected = (url, committed)
        nav = asyncio.ensure_future(slot.page.goto(url, wait_until="commit", timeout=timeout_ms))
        nav.add_done_callback(lambda f: f.cancelled() or f.exception())
        done, _ = await asyncio.wait({nav, committed}, return_when=asyncio.FIRST_COMPLETED)
        if committed not in done:
            nav.result()
        stamps["commit"] = time.time()
        lap("goto_commit")
        stamps["evaluate"] = time.time()
        raw = await slot.page.evaluate(CAPTURE_JS, {**LIMITS, "loadWaitMs": timeout_ms / 2})
        stamps["evaluated"] = time.time()
        lap("evaluate")
        info = json.loads(raw)
        data = json.loads(info["layout"])
        png, w, h = await self._screenshot(slot, data, full_page, timeout_ms)
        lap("screenshot")
        layout = build_layout(data, w, h)
        lap("build_layout")
        if o.clear_cookies == "after":
            slot.pending_clear = asyncio.ensure_future(slot.context.clear_cookies())
        await self._recycle(slot)
        lap("recycle")
        t0, t1, t2, t3 = info["marks"]
        page_ms = lambda key: stamps[key] * 1000 - info["origin"]  # noqa: E731  (ms after navigation start)
        phases.update(
            goto_to_navigation_start=-page_ms("goto"),
            commit_seen=page_ms("commit"),
            eval_sent=page_ms("evaluate"),
            eval_started=t0,
            load_wait=t1 - t0,
            fonts_wait=t2 - t1,
            layout_js=t3 - t2,
            eval_done=t3,
            eval_received=page_ms("evaluated"),
            nav=info["nav"],
            resources=info["res"],
            routes=list(slot.routes),
        )
        return png, layout, phases

    async def _recycle(self, slot: Slot) -> None:
        slot.renders += 1
        if slot.renders >= self.options.recycle_after:
            await slot.context.close()
            await self.open_slot(slot)

    async def _screenshot(self, slot: Slot, data: dict, full_page: bool, timeout_ms: float):
        page = slot.page
        vw, vh = page.viewport_size["width"], page.viewport_size["height"]
        if full_page:
            w, h = min(max(int(data["width"]), vw), MAX_WIDTH), min(max(int(data["height"]), vh), self.max_height)
        else:
            w, h = vw, vh
        if self.options.screenshot == "playwright":
            if full_page:
                clip = {"x": 0, "y": 0, "width": w, "height": h}
                return await page.screenshot(full_page=(w, h) != (vw, vh), clip=clip, timeout=timeout_ms), w, h
            return await page.screenshot(timeout=timeout_ms), w, h
        params = {
            "format": "png",
            "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1},
            "captureBeyondViewport": (w, h) != (vw, vh),
        }
        if self.options.screenshot == "cdp_fast":
            params["optimizeForSpeed"] = True
        import base64

        shot = await slot.cdp.send("Page.captureScreenshot", params)
        return base64.b64decode(shot["data"]), w, h
