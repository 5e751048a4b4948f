"""Rendering throughput and memory: the hermetic pool vs a naive and a raw Playwright loop, on WebSight-like pages.

Prints one JSON object: pages/s for (a) the pool (render_many, hermetic), (b) naive: a new context + page per
page, (c) raw: one reused page, ``set_content``, no hermetic features; the ratios; and the peak resident memory of
the pool's browser process tree per 100-render window over ``--mem-renders`` renders.
The baselines get Tailwind 2's full stylesheet inlined (they have no network and no asset routing); the pool
serves it from the asset cache through its router (pruned per page).

    python bench/render.py --n 100 --mem-renders 500 --json-out bench_render.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time

TW_URL = "https://cdn.jsdelivr.net/npm/tailwindcss@2.2.19/dist/tailwind.min.css"
COLORS = ["blue", "indigo", "green", "red", "yellow", "purple", "pink", "gray", "teal"]
WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore".split()


def websight_page(i: int) -> str:
    """A deterministic Tailwind-2 landing page (nav, hero, cards, footer) in the style of WebSight."""
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
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><link href="{TW_URL}" rel="stylesheet"></head>'
        f'<body class="bg-gray-100 font-sans"><nav class="bg-{c}-800 text-white p-4 flex justify-between">'
        f'<span class="font-bold text-2xl">{words(2)}</span><div>{links}</div></nav>'
        f'<header class="bg-{c}-500 text-white text-center py-{rng.choice([12, 16, 20])}">'
        f'<h1 class="text-5xl font-bold">{words(4)}</h1><p class="mt-4 text-xl">{words(12)}</p>'
        f'<button class="mt-6 bg-white text-{c}-600 px-6 py-3 rounded-full">{words(2)}</button></header>'
        f'<main class="container mx-auto p-8 grid grid-cols-3 gap-6">{cards}</main>'
        f'<footer class="bg-gray-900 text-gray-400 text-center p-6">{words(6)}</footer></body></html>'
    )


async def bench_pool(pages, mem_renders: int) -> tuple[float, list[int]]:
    from vcoder.rendering import AsyncBrowserPool
    from vcoder.rendering.browser import tree_rss

    async with AsyncBrowserPool(max_pages=2) as pool:
        await pool.render_many(pages[:4])  # warm-up: launch, asset parse
        t0 = time.perf_counter()
        results = await pool.render_many(pages)
        rate = len(pages) / (time.perf_counter() - t0)
        assert all(r.ok for r in results), [r.error for r in results if not r.ok][:3]
        peaks, peak = [], 0
        for k in range(mem_renders):
            # distinct pages (no dedup): the i-th page with a varying comment so every render is real
            r = await pool.render(pages[k % len(pages)] + f"<!-- {k} -->")
            assert r.ok, r.error
            peak = max(peak, tree_rss(pool.marker))
            if (k + 1) % 100 == 0:
                peaks.append(peak)
                peak = 0
        return rate, peaks


async def bench_playwright(pages, css: str, *, naive: bool) -> float:
    from playwright.async_api import async_playwright

    from vcoder.rendering.browser import find_executable

    inline = [p.replace(f'<link href="{TW_URL}" rel="stylesheet">', f"<style>{css}</style>") for p in pages]
    async with async_playwright() as pw:
        exe = find_executable(None, pw.chromium.executable_path)
        browser = await pw.chromium.launch(
            executable_path=exe, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        page = await browser.new_page(viewport={"width": 1280, "height": 720})
        await page.set_content(inline[0])
        t0 = time.perf_counter()
        for html in inline:
            if naive:
                ctx = await browser.new_context(viewport={"width": 1280, "height": 720})
                page = await ctx.new_page()
            await page.set_content(html)
            await page.screenshot(full_page=True)
            if naive:
                await ctx.close()
        rate = len(inline) / (time.perf_counter() - t0)
        await browser.close()
        return rate


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="pages per throughput run (default 100)")
    parser.add_argument("--mem-renders", type=int, default=500, help="renders for the memory profile (default 500)")
    parser.add_argument("--json-out", default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    from vcoder.rendering.assets import AssetStore

    asset = AssetStore().resolve(TW_URL)
    if asset is None:
        raise SystemExit("the asset cache is missing: run `vcoder assets install` first")
    pages = [websight_page(i) for i in range(args.n)]
    pool_rate, mem = asyncio.run(bench_pool(pages, args.mem_renders))
    raw_rate = asyncio.run(bench_playwright(pages, asset[0].decode(), naive=False))
    naive_rate = asyncio.run(bench_playwright(pages, asset[0].decode(), naive=True))
    out = {
        "pages": args.n,
        "pool_pages_per_s": round(pool_rate, 2),
        "raw_pages_per_s": round(raw_rate, 2),
        "naive_pages_per_s": round(naive_rate, 2),
        "pool_over_raw": round(pool_rate / raw_rate, 2),
        "pool_over_naive": round(pool_rate / naive_rate, 2),
        "browser_rss_peak_mb_per_100_renders": [round(m / 2**20) for m in mem],
    }
    print(json.dumps(out))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(out, f, indent=1)
    return out


if __name__ == "__main__":
    main()
