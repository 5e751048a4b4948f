"""Rendering throughput at EQUAL concurrency: the hermetic pool vs a raw and a naive Playwright loop, same pages.

Every side renders the same WebSight-like pages with N pages in flight (``--concurrency``, default 2):
  pool   - ``AsyncBrowserPool(max_pages=N).render_many``: a fresh origin per render, the hermetic router (Tailwind
           from the asset cache, pruned per page; images -> placeholder), init script, layout extraction, full-page
           screenshot, every containment guarantee.
  raw    - one browser context, N reused pages, ``set_content`` + full-page screenshot, nothing else.
  naive  - a new browser context + page per render (``set_content`` + full-page screenshot), N in flight.
The baselines get the very bytes the pool's router would serve inlined into the page (the same pruned Tailwind
sheet in a <style>, the placeholder image as a data: URL), so all sides paint the same pixels (checked:
``pixels_equal``). Sides alternate within each repetition (rotated order: ABC, BCA, CAB, ...) so load drifts on
this shared machine hit every side; warm-up renders are excluded. CPU-seconds per page count this Python process
and every descendant (Playwright's node driver, each Chromium process tree, exited renderers via their parent).

    python bench/render.py --n 120 --reps 3            # pool / raw / naive at N=2, JSON on stdout
    python bench/render.py --n 60 --sweep              # pool at max_pages 1, 2, 4, 8
    python bench/render.py --executable /usr/lib/chromium/chromium-headless-shell   # every side on that binary
    python bench/render.py --raw-executable /usr/bin/chromium   # the baselines on Debian's full chromium
    python bench/render.py --small                     # the test suite's smoke run (figures not comparable)
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TW_URL = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"
TW_LINK = f'<link href="{TW_URL}" rel="stylesheet">'
COLORS = ["blue", "indigo", "green", "red", "yellow", "purple", "pink", "gray", "teal"]
WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore".split()
VIEWPORT = {"width": 1280, "height": 720}
SIDES = {
    "pool": "AsyncBrowserPool.render_many(max_pages=N): fresh origin per render, hermetic router (Tailwind from "
    "the asset cache, pruned; images -> placeholder), init script, layout extraction, full-page screenshot",
    "raw": "one context, N reused pages, set_content + full-page screenshot, nothing else (pruned Tailwind and the "
    "placeholder image inlined, so the pixels match the pool's)",
    "naive": "a new context + page per render, set_content + full-page screenshot, N in flight (same inlined pages)",
}


def websight_page(i: int) -> str:
    """A deterministic Tailwind-2 landing page (nav, hero, cards with images, footer) in the style of WebSight."""
    rng = random.Random(i)
    c = rng.choice(COLORS)
    words = lambda n: " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()  # noqa: E731
    cards = "".join(
        f'<div class="bg-white rounded-lg shadow p-6"><h3 class="text-xl font-semibold text-{c}-700">{words(3)}</h3>'
        f'<p class="mt-2 text-gray-600">{words(18)}</p><img class="mt-4 w-full h-32 object-cover" '
        f'src="https://source.unsplash.com/random/400x300?{i}-{k}"></div>'
        for k in range(rng.randint(3, 6))
    )
    links = "".join(f'<a href="#" class="px-3 hover:text-{c}-300">{rng.choice(WORDS).title()}</a>' for _ in range(4))
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8">{TW_LINK}</head>'
        f'<body class="bg-gray-100 font-sans"><nav class="bg-{c}-800 text-white p-4 flex justify-between">'
        f'<span class="font-bold text-2xl">{words(2)}</span><div>{links}</div></nav>'
        f'<header class="bg-{c}-500 text-white text-center py-{rng.choice([12, 16, 20])}">'
        f'<h1 class="text-5xl font-bold">{words(4)}</h1><p class="mt-4 text-xl">{words(12)}</p>'
        f'<button class="mt-6 bg-white text-{c}-600 px-6 py-3 rounded-full">{words(2)}</button></header>'
        f'<main class="container mx-auto p-8 grid grid-cols-3 gap-6">{cards}</main>'
        f'<footer class="bg-gray-900 text-gray-400 text-center p-6">{words(6)}</footer></body></html>'
    )


def bench_pages(n: int, offset: int = 0) -> list[str]:
    """``n`` distinct pages: even ones Tailwind-CDN landing pages with images, odd ones synthetic difficulty 1-3."""
    from vcoder.data.synthetic import generate_page

    return [
        websight_page(i) if i % 2 == 0 else generate_page(i, difficulty=1 + (i // 2) % 3).html
        for i in range(offset, offset + n)
    ]


def inline_variant(pages: list[str]) -> list[str]:
    """The pages with what the pool's router would serve inlined: the pruned Tailwind sheet, the placeholder PNG."""
    from vcoder.rendering.assets import AssetStore
    from vcoder.rendering.cssprune import page_tokens
    from vcoder.rendering.network import PLACEHOLDER_PNG

    store = AssetStore()
    asset = store.resolve(TW_URL, style=True)
    if asset is None:
        raise SystemExit("the asset cache is missing: run `python -m vcoder assets install` first")
    sheet = store.sheet(asset[2])
    data_url = "data:image/png;base64," + base64.b64encode(PLACEHOLDER_PNG).decode()
    out = []
    for html in pages:
        if TW_LINK in html:
            css = sheet.prune(page_tokens(html)).decode()
            html = html.replace(TW_LINK, f"<style>{css}</style>")
        out.append(re.sub(r'src="https?://[^"]*"', f'src="{data_url}"', html))
    return out


class CpuMeter:
    """CPU-seconds (user + system) of this process and all its descendants, split by kind of process.

    Renderers that exit are counted through the process that reaps them (its ``children_*`` times), so a window's
    difference covers processes born and gone inside it.
    """

    def __init__(self) -> None:
        self._kinds: dict[tuple[int, float], str] = {}  # a process's kind, read once (a dying one has no cmdline)

    def kind(self, proc) -> str:
        import psutil

        key = (proc.pid, proc.create_time())
        if key not in self._kinds:
            try:
                self._kinds[key] = self._classify(proc)
            except psutil.Error:  # a zombie has no cmdline: an exited renderer its zygote has yet to reap
                return "renderer"
        return self._kinds[key]

    @staticmethod
    def _classify(proc) -> str:
        if proc.pid == os.getpid():
            return "python"
        cmd = proc.cmdline()
        if any("playwright" in a for a in cmd[:3]) or (cmd and cmd[0].endswith("node")):
            return "driver"
        kind = next((a.split("=", 1)[1] for a in cmd if a.startswith("--type=")), "browser")
        return {"gpu-process": "gpu", "zygote": "renderer"}.get(kind, kind)

    def read(self) -> dict[str, float]:
        import psutil

        me = psutil.Process()
        out: dict[str, float] = {}
        for proc in [me, *me.children(recursive=True)]:
            try:
                t = proc.cpu_times()
                key = self.kind(proc)
            except psutil.Error:
                continue
            children = 0.0 if proc.pid == os.getpid() else t.children_user + t.children_system
            out[key] = out.get(key, 0.0) + t.user + t.system + children
        return out

    @staticmethod
    def diff(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
        return {k: after.get(k, 0.0) - before.get(k, 0.0) for k in sorted(set(before) | set(after))}


async def launch(pw, executable: str | None = None):
    """A browser with the pool's own flags (same fonts, colour profile, hinting) for the baselines."""
    from vcoder.rendering.browser import find_executable, launch_args

    args, _ = launch_args()
    exe = find_executable(executable, pw.chromium.executable_path)
    return await pw.chromium.launch(executable_path=exe, args=args, headless=True)


class PoolSide:
    def __init__(self, n: int, executable: str | None = None):
        from vcoder.rendering import AsyncBrowserPool

        self.pool = AsyncBrowserPool(max_pages=n, executable_path=executable)

    async def start(self) -> None:
        await self.pool.start()

    async def run(self, pages: list[str]) -> list[bytes]:
        results = await self.pool.render_many(pages)
        bad = [r.error for r in results if not r.ok]
        if bad:
            raise RuntimeError(f"pool failed {len(bad)} renders: {bad[:3]}")
        return [r.png for r in results]

    async def close(self) -> None:
        await self.pool.close()


class PlaywrightSide:
    """raw (one context, N reused pages) or naive (a context per render); N workers pull from one queue."""

    def __init__(self, n: int, *, naive: bool, executable: str | None = None):
        self.n, self.naive, self.executable = n, naive, executable

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        self.pw = await async_playwright().start()
        self.browser = await launch(self.pw, self.executable)
        if not self.naive:
            self.ctx = await self.browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
            self.pages = [await self.ctx.new_page() for _ in range(self.n)]

    async def _one(self, page, html: str) -> bytes:
        await page.set_content(html)
        return await page.screenshot(full_page=True)

    async def run(self, pages: list[str]) -> list[bytes]:
        out: list[bytes | None] = [None] * len(pages)
        todo = iter(range(len(pages)))

        async def worker(k: int) -> None:
            for i in todo:
                if self.naive:
                    ctx = await self.browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
                    out[i] = await self._one(await ctx.new_page(), pages[i])
                    await ctx.close()
                else:
                    out[i] = await self._one(self.pages[k], pages[i])

        await asyncio.gather(*(worker(k) for k in range(self.n)))
        return out

    async def close(self) -> None:
        await self.browser.close()
        await self.pw.stop()


async def measure(sides: dict, inputs: dict, reps: int) -> dict:
    """Alternate the sides (rotated order per repetition); pages/s and CPU-s/page per side and repetition."""
    meter, names = CpuMeter(), list(sides)
    runs: dict[str, list[dict]] = {name: [] for name in names}
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            pages = inputs[name]
            load, c0, t0 = os.getloadavg()[0], meter.read(), time.perf_counter()
            await sides[name].run(pages)
            wall, cpu = time.perf_counter() - t0, CpuMeter.diff(c0, meter.read())
            runs[name].append(
                {
                    "pages_per_s": round(len(pages) / wall, 2),
                    "cpu_s_per_page": round(sum(cpu.values()) / len(pages), 4),
                    "cpu_ms_per_page_by_process": {k: round(v * 1000 / len(pages), 1) for k, v in cpu.items()},
                    "load1": load,
                }
            )
    return runs


def summary(runs: list[dict]) -> dict:
    rates, cpus = [r["pages_per_s"] for r in runs], [r["cpu_s_per_page"] for r in runs]
    kinds = runs[0]["cpu_ms_per_page_by_process"]
    return {
        "pages_per_s": round(statistics.median(rates), 2),
        "pages_per_s_runs": rates,
        "cpu_s_per_page": round(statistics.median(cpus), 4),
        "cpu_s_per_page_runs": cpus,
        "cpu_ms_per_page_by_process": {
            k: round(statistics.median(r["cpu_ms_per_page_by_process"].get(k, 0.0) for r in runs), 1) for k in kinds
        },
    }


def pixels_equal(a: list[bytes], b: list[bytes]) -> float:
    """Fraction of screenshots whose decoded pixels are identical (same work check)."""
    from vcoder.images import decode_png

    same = [
        x.shape == y.shape and bool((x == y).all()) for x, y in ((decode_png(p), decode_png(q)) for p, q in zip(a, b))
    ]
    return round(sum(same) / len(same), 3)


async def compare(args) -> dict:
    pages, n = bench_pages(args.n), args.concurrency
    inlined = inline_variant(pages)
    exe, base_exe = args.executable, args.raw_executable or args.executable
    sides = {
        "pool": PoolSide(n, exe),
        "raw": PlaywrightSide(n, naive=False, executable=base_exe),
        "naive": PlaywrightSide(n, naive=True, executable=base_exe),
    }
    inputs = {"pool": pages, "raw": inlined, "naive": inlined}
    for side in sides.values():
        await side.start()
    try:
        warm = bench_pages(args.warm, offset=10_000)  # warm-up (launch, asset parse, JIT): excluded, distinct pages
        shots = {name: await sides[name].run(warm if name == "pool" else inline_variant(warm)) for name in sides}
        runs = await measure(sides, inputs, args.reps)
    finally:
        for side in sides.values():
            await side.close()
    out = {name: {"what": SIDES[name], **summary(runs[name])} for name in sides}
    ratio = [p["pages_per_s"] / r["pages_per_s"] for p, r in zip(runs["pool"], runs["raw"])]
    return {
        "concurrency": n,
        "pages": args.n,
        "reps": args.reps,
        "page_mix": "even: Tailwind-2 CDN landing page with 3-6 images; odd: vcoder.data.synthetic difficulty 1-3",
        **out,
        "pool_over_raw": round(statistics.median(ratio), 3),
        "pool_over_raw_runs": [round(x, 3) for x in ratio],
        "pool_over_naive": round(out["pool"]["pages_per_s"] / out["naive"]["pages_per_s"], 3),
        "cpu_pool_over_raw": round(out["pool"]["cpu_s_per_page"] / out["raw"]["cpu_s_per_page"], 3),
        "pixels_equal": {"raw_vs_pool": pixels_equal(shots["raw"], shots["pool"])},
    }


async def sweep(args) -> dict:
    pages, sizes = bench_pages(args.n), (1, 2, 4, 8)
    sides = {f"max_pages={k}": PoolSide(k, args.executable) for k in sizes}
    for side in sides.values():
        await side.start()
    try:
        for side in sides.values():
            await side.run(bench_pages(args.warm, offset=10_000))
        runs = await measure(sides, dict.fromkeys(sides, pages), args.reps)
    finally:
        for side in sides.values():
            await side.close()
    return {"pages": args.n, "reps": args.reps, "what": SIDES["pool"], **{k: summary(v) for k, v in runs.items()}}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=120, help="pages per side and repetition (default 120)")
    parser.add_argument("--concurrency", type=int, default=2, help="pages in flight on every side (default 2)")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions (default 3)")
    parser.add_argument("--sweep", action="store_true", help="pool only, max_pages 1, 2, 4, 8")
    parser.add_argument(
        "--executable",
        default=None,
        help="Chromium binary for every side (default: the pool's choice; e.g. /usr/lib/chromium/chromium-headless-shell)",
    )
    parser.add_argument(
        "--raw-executable",
        default=None,
        help="Chromium binary for the raw and naive sides only (default: --executable)",
    )
    parser.add_argument("--json-out", default=None, help="also write the JSON here")
    parser.add_argument("--small", action="store_true", help="smoke run: 2 pages, 1 repetition, 2 warm-up pages")
    args = parser.parse_args(argv)
    args.warm = 2 if args.small else 8
    if args.small:
        args.n, args.reps = 2, 1
    load0 = os.getloadavg()[0]
    out = asyncio.run(sweep(args) if args.sweep else compare(args))
    out = {
        **out,
        "executable": args.executable or os.environ.get("VCODER_CHROMIUM") or "default (the pool's choice)",
        "raw_executable": args.raw_executable or args.executable or "as executable",
        "load1_start": round(load0, 2),
        "load1_end": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(out))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
