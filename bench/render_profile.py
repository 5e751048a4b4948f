"""Where one pool render's wall time and CPU time go, phase by phase (JSON on stdout).

Uses ``prototypes/render_proto.Proto`` (a copy of the pool's render path with timers; vcoder itself is not patched):
  serial       - one page in flight, CPU read (this process + the Chromium tree, by process kind) between phases,
                 so each phase's CPU is its own: clear_cookies, goto -> commit (document route included),
                 evaluate (the load wait with the subresource routes, the fonts wait, layout.js, the round trip),
                 screenshot, build_layout; plus PNG decode (``vcoder.images.decode_png``, what ``Rendered.image``
                 does) and context recycling (close + new context + routes + init script + page), amortised.
  concurrent   - N pages in flight, wall ms per phase only.
  screenshot   - the screenshot call alone on loaded pages: ``page.screenshot`` (the pool) vs one CDP
                 ``Page.captureScreenshot`` (PNG as the pool gets it; with ``optimizeForSpeed``; viewport only),
                 wall, CPU by process, PNG bytes and decode time; pixels compared.
  python       - cProfile of this process over a concurrent run, grouped by package (where Python's CPU goes).

    python bench/render_profile.py --n 30
    python bench/render_profile.py --small    # the test suite's smoke run: 2 pages a section (not comparable)
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "prototypes"))  # render_proto
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from render import TW_LINK, CpuMeter, PlaywrightSide, bench_pages, inline_variant  # noqa: E402
from render_proto import Options, Proto  # noqa: E402

#: warm-up pages before each section (excluded from its figures); 1 in --small
WARM_PAGES = 4
PHASES = ("clear_cookies", "goto_commit", "evaluate", "screenshot", "build_layout")


def mean(xs) -> float:
    xs = list(xs)
    return round(sum(xs) / len(xs), 2) if xs else 0.0


def meter_cost(meter: CpuMeter, k: int = 20) -> float:
    """Python CPU ms one ``meter.read()`` costs (subtracted from each phase's python CPU)."""
    t0 = time.process_time()
    for _ in range(k):
        meter.read()
    return (time.process_time() - t0) * 1000 / k


def decode_ms(pngs: list[bytes]) -> float:
    from vcoder.images import decode_png

    t0 = time.process_time()
    for png in pngs:
        decode_png(png)
    return (time.process_time() - t0) * 1000 / len(pngs)


async def serial(pages: list[str]) -> dict:
    meter = CpuMeter()
    proto = Proto(max_pages=1, cpu_meter=meter)
    await proto.start()
    try:
        await proto.render_many(bench_pages(WARM_PAGES, offset=10_000))  # warm-up
        own = meter_cost(meter)
        results = [await proto.render(h) for h in pages]
        slot = await proto.free.get()
        t0, c0 = time.perf_counter(), meter.read()
        for _ in range(5):
            await slot.context.close()
            await proto.open_slot(slot)
        recycle_wall, recycle_cpu = (time.perf_counter() - t0) * 200, meter.diff(c0, meter.read())
    finally:
        await proto.close()
    phases = [r[2] for r in results]
    table = {}
    for name in PHASES:
        cpu = defaultdict(float)
        for p in phases:
            for kind, ms in p["cpu:" + name].items():
                cpu[kind] += ms / len(phases)
        cpu["python"] = max(cpu["python"] - own, 0.0)
        table[name] = {"wall_ms": mean(p[name] for p in phases), "cpu_ms": {k: round(v, 2) for k, v in cpu.items()}}
    table["decode_png (Rendered.image)"] = {"wall_ms": round(decode_ms([r[0] for r in results]), 2)}
    table["recycle (per context, /100 renders)"] = {
        "wall_ms": round(recycle_wall, 1),
        "cpu_ms": {k: round(v * 200, 1) for k, v in recycle_cpu.items()},
        "per_render_wall_ms": round(recycle_wall / 100, 2),
    }
    routes = defaultdict(list)
    for p in phases:
        for kind, ms in p["routes"]:
            routes[kind].append(ms)
    return {
        "phases": table,
        "total_wall_ms": mean(sum(p[n] for n in PHASES) for p in phases),
        "total_cpu_ms": mean(sum(sum(p["cpu:" + n].values()) for n in PHASES) - own * len(PHASES) for p in phases),
        "meter_python_ms_per_read_subtracted": round(own, 2),
        "timeline_ms (median; 0 = the browser's navigation start for the document)": {
            "tailwind pages (CDN sheet + 3-6 images)": timeline([p for p, h in zip(phases, pages) if TW_LINK in h]),
            "synthetic pages (inline CSS, no requests)": timeline(
                [p for p, h in zip(phases, pages) if TW_LINK not in h]
            ),
        },
        "routes_per_render": {k: round(len(v) / len(phases), 2) for k, v in routes.items()},
        "route_handler_ms": {k: mean(v) for k, v in routes.items()},
        "document_response_end_ms_after_navigation_start": mean(p["nav"][0] for p in phases if p["nav"]),
    }


def timeline(phases: list[dict]) -> dict:
    """When each step happens, in page-clock ms after navigation start (Python's clock is the same system clock)."""
    med = lambda xs: round(statistics.median(list(xs)), 1)  # noqa: E731
    out = {
        "goto() called": med(-p["goto_to_navigation_start"] for p in phases),
        "document response end (route fulfilled)": med(p["nav"][0] for p in phases),
        "commit seen in Python": med(p["commit_seen"] for p in phases),
        "evaluate() sent": med(p["eval_sent"] for p in phases),
        "capture script starts in page": med(p["eval_started"] for p in phases),
        "load event waited for": med(p["eval_started"] + p["load_wait"] for p in phases),
        "layout.js done": med(p["eval_done"] for p in phases),
        "evaluate result in Python": med(p["eval_received"] for p in phases),
        "DOMContentLoaded end": med(p["nav"][1] for p in phases),
        "load event end": med(p["nav"][2] for p in phases),
    }
    for kind in ("link", "img", "css"):
        ends = [
            max(e for t, _, e in p["resources"] if t == kind)
            for p in phases
            if any(t == kind for t, *_ in p["resources"])
        ]
        if ends:
            out[f"last {kind} resource end"] = med(ends)
    out["layout_js duration"] = med(p["layout_js"] for p in phases)
    out["fonts wait duration"] = med(p["fonts_wait"] for p in phases)
    return out


async def raw_serial(pages: list[str]) -> dict:
    """The raw loop's two calls, serially, with the same CPU split (what the pool is compared against)."""
    meter, side = CpuMeter(), PlaywrightSide(1, naive=False)
    await side.start()
    rows = []
    try:
        await side.run(inline_variant(bench_pages(WARM_PAGES, offset=10_000)))
        own, page = meter_cost(meter), side.pages[0]
        for html in inline_variant(pages):
            row = {}
            for name, call in (
                ("set_content", lambda h=html: page.set_content(h)),
                ("screenshot", lambda: page.screenshot(full_page=True)),
            ):
                c0, t0 = meter.read(), time.perf_counter()
                await call()
                row[name] = ((time.perf_counter() - t0) * 1000, meter.diff(c0, meter.read()))
            rows.append(row)
    finally:
        await side.close()
    out = {}
    for name in ("set_content", "screenshot"):
        cpu = defaultdict(float)
        for row in rows:
            for kind, s in row[name][1].items():
                cpu[kind] += s * 1000 / len(rows)
        cpu["python"] = max(cpu["python"] - own, 0.0)
        out[name] = {"wall_ms": mean(r[name][0] for r in rows), "cpu_ms": {k: round(v, 2) for k, v in cpu.items()}}
    out["total_cpu_ms"] = round(sum(sum(v["cpu_ms"].values()) for v in out.values()), 2)
    return out


async def route_cost(k: int = 20, reps: int = 12) -> dict:
    """CPU per routed request: one page with ``k`` images from a URL (each routed to the placeholder) vs the same
    page with the placeholder inlined as a data: URL (no request), rendered alternately by the pool's path."""
    base = "<body style='margin:0'>{}</body>"
    routed = [
        base.format("".join(f'<img src="https://img.example/{r}-{i}.png">' for i in range(k))) for r in range(reps)
    ]
    inlined = inline_variant(routed)
    meter, proto = CpuMeter(), Proto(max_pages=1)
    await proto.start()
    cost = {"routed": [], "data_url": []}
    try:
        await proto.render_many(routed[:2] + inlined[:2])
        for a, b in zip(routed, inlined):
            for name, html in (("routed", a), ("data_url", b)):
                c0, t0 = meter.read(), time.perf_counter()
                await proto.render(html)
                cost[name].append(
                    ((time.perf_counter() - t0) * 1000, sum(meter.diff(c0, meter.read()).values()) * 1000)
                )
    finally:
        await proto.close()
    wall = {n: statistics.mean(w for w, _ in v) for n, v in cost.items()}
    cpu = {n: statistics.mean(c for _, c in v) for n, v in cost.items()}
    return {
        "images_per_page": k,
        "cpu_ms_per_routed_request": round((cpu["routed"] - cpu["data_url"]) / k, 2),
        "wall_ms_per_page": {n: round(v, 1) for n, v in wall.items()},
        "cpu_ms_per_page": {n: round(v, 1) for n, v in cpu.items()},
    }


async def concurrent(pages: list[str], n: int) -> dict:
    proto = Proto(max_pages=n)
    await proto.start()
    try:
        await proto.render_many(bench_pages(WARM_PAGES, offset=10_000))
        t0 = time.perf_counter()
        results = await proto.render_many(pages)
        rate = len(pages) / (time.perf_counter() - t0)
    finally:
        await proto.close()
    phases = [r[2] for r in results]
    keys = (*PHASES, "load_wait", "fonts_wait", "layout_js")
    return {"pages_per_s": round(rate, 2), "wall_ms": {k: mean(p[k] for p in phases) for k in keys}}


def shot_variants(slot, w: int, h: int) -> dict:
    """The screenshot calls compared, as coroutine factories for one loaded slot (document size ``w`` x ``h``)."""
    clip = {"x": 0, "y": 0, "width": w, "height": h}
    beyond = (w, h) != (1280, 720)

    async def cdp(**extra):
        shot = await slot.cdp.send("Page.captureScreenshot", {"format": "png", **extra})
        return base64.b64decode(shot["data"])

    return {
        "page.screenshot (pool)": lambda: slot.page.screenshot(full_page=beyond, clip=clip),
        "cdp captureScreenshot": lambda: cdp(clip={**clip, "scale": 1}, captureBeyondViewport=beyond),
        "cdp + optimizeForSpeed": lambda: cdp(
            clip={**clip, "scale": 1}, captureBeyondViewport=beyond, optimizeForSpeed=True
        ),
        "cdp viewport only (1280x720)": lambda: cdp(),
    }


async def screenshot_anatomy(pages: list[str]) -> dict:
    """Each screenshot variant on the same loaded pages, serially, with CPU by process kind."""
    from vcoder.images import decode_png

    meter = CpuMeter()
    proto = Proto(Options(screenshot="cdp"), max_pages=1)
    await proto.start()
    stats: dict[str, dict] = defaultdict(lambda: defaultdict(list))
    try:
        await proto.render_many(bench_pages(min(2, WARM_PAGES), offset=10_000))
        own = meter_cost(meter) / 1000
        for html in pages:
            _, layout, _ = await proto.render(html)
            slot = await proto.free.get()
            ref = None
            for name, call in shot_variants(slot, layout.width, layout.height).items():
                c0, t0 = meter.read(), time.perf_counter()
                png = await call()
                wall, cpu = (time.perf_counter() - t0) * 1000, meter.diff(c0, meter.read())
                cpu["python"] = max(cpu.get("python", 0.0) - own, 0.0)
                d0 = time.process_time()
                img = decode_png(png)
                s = stats[name]
                s["decode_ms"].append((time.process_time() - d0) * 1000)
                s["wall_ms"].append(wall)
                s["kb"].append(len(png) / 1024)
                for k, v in cpu.items():
                    s["cpu:" + k].append(v * 1000)
                if "viewport" not in name:
                    ref = img if ref is None else ref
                    s["same_pixels"].append(float(img.shape == ref.shape and bool((img == ref).all())))
            proto.free.put_nowait(slot)
    finally:
        await proto.close()
    return {name: {k: mean(v) for k, v in s.items()} for name, s in stats.items()}


async def python_profile(pages: list[str], n: int) -> dict:
    proto = Proto(max_pages=n)
    await proto.start()
    try:
        await proto.render_many(bench_pages(WARM_PAGES, offset=10_000))
        prof = cProfile.Profile(time.process_time)  # CPU, not wall (waiting in poll is not work)
        c0 = time.process_time()
        prof.enable()
        await proto.render_many(pages)
        prof.disable()
        total = (time.process_time() - c0) * 1000 / len(pages)
    finally:
        await proto.close()
    groups: dict[str, float] = defaultdict(float)
    for (path, _, func), (_, _, tottime, _, _) in pstats.Stats(prof).stats.items():
        groups[package_of(path, func)] += tottime
    return {
        "python_cpu_ms_per_render (cProfile on, inflated)": round(total, 2),
        "self_time_ms_per_render_by_package": {
            k: round(v * 1000 / len(pages), 2) for k, v in sorted(groups.items(), key=lambda kv: -kv[1])[:12]
        },
    }


def package_of(path: str, func: str) -> str:
    for key in ("playwright", "asyncio", "json", "cssprune", "network", "capture", "layout", "psutil", "urllib"):
        if key in path:
            return key
    if path == "~":
        return "builtins:" + func.split(" of ")[0].strip("<>{}")[:40]
    return Path(path).name


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30, help="pages per section (default 30)")
    parser.add_argument("--concurrency", type=int, default=2, help="pages in flight for the concurrent sections")
    parser.add_argument("--small", action="store_true", help="smoke run: 2 pages per section (route cost: 2 pairs)")
    args = parser.parse_args(argv)
    if args.small:
        global WARM_PAGES
        args.n, WARM_PAGES = 2, 1
    pages = bench_pages(args.n)
    load0 = os.getloadavg()[0]
    out = {
        "pages": args.n,
        "page_mix": "even: Tailwind-2 CDN landing page with 3-6 images; odd: vcoder.data.synthetic difficulty 1-3",
        "serial": asyncio.run(serial(pages)),
        "raw_serial": asyncio.run(raw_serial(pages)),
        "route_cost": asyncio.run(route_cost(reps=2 if args.small else 12)),
        f"concurrent_{args.concurrency}": asyncio.run(concurrent(pages, args.concurrency)),
        "screenshot": asyncio.run(screenshot_anatomy(pages[: args.n if args.small else max(6, args.n // 3)])),
        "python": asyncio.run(python_profile(pages, args.concurrency)),
        "load1_start": round(load0, 2),
        "load1_end": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
