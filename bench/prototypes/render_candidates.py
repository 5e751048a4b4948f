"""Candidate changes to the pool's render path, each measured against the raw loop at equal concurrency.

Every candidate is ``render_proto.Proto`` with some ``Options`` changed (``baseline`` = the pool's calls today), or
``render_cdp.CdpPool`` (the same render without Playwright on the hot path). All sides render the same pages with
N in flight, alternated within each repetition (rotated order), beside the raw loop (``render.PlaywrightSide``,
on Debian's chromium and on chromium-headless-shell); per candidate: pages/s, CPU-s/page, the ratio to raw in
the same repetition, the gain over ``baseline``, pixels identical to the raw loop's, what it risks, and an isolation
check: a writer page (cookies, parent-domain cookie, localStorage, sessionStorage, IndexedDB, a global,
window.name, pushState, writes from a timer after the capture) followed by a reader page on the same slot, whose
readings must equal what the reader sees as the first render of a fresh browser.

    python bench/prototypes/render_candidates.py --n 40 --reps 3 [--only baseline,cdp_screenshot_fast]
    python bench/prototypes/render_candidates.py --n 40 --ladder     # raw -> pool, one feature per step
    python bench/prototypes/render_candidates.py --small  # the test suite's smoke run (figures not comparable)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # render_proto, render_cdp
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/render.py
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # vcoder

from render import PlaywrightSide, bench_pages, inline_variant, measure, pixels_equal, summary  # noqa: E402
from render_cdp import CdpPool  # noqa: E402
from render_proto import Options, Proto  # noqa: E402

SHELL = "/usr/lib/chromium/chromium-headless-shell"  # Debian package chromium-headless-shell (same version)
NO_RD = ("RenderDocument",)


def proto(**options):
    return lambda n: Proto(Options(**options), max_pages=n)


# name -> (a side with N slots, what it risks); "baseline" is the pool's calls today
CANDIDATES = {
    "baseline": (proto(), "none: the pool's calls today"),
    "cdp_screenshot": (proto(screenshot="cdp"), "none found: same clip, same pixels; skips Playwright's caret style"),
    "cdp_screenshot_fast": (proto(screenshot="cdp_fast"), "PNG ~35% larger (same pixels)"),
    "clear_cookies_after": (proto(clear_cookies="after"), "none: the clear is awaited before the next goto"),
    "site_per_render": (proto(origin="site", clear_cookies="never"), "a new renderer process per render"),
    "page_route": (proto(route="page"), "none (no gain either)"),
    "no_render_document": (proto(features_off=NO_RD), "a Chromium internal (legacy frame reuse) may go away"),
    "paint_holding_on": (proto(features_on=("PaintHolding",)), "differs from Playwright's defaults"),
    "headless_shell": (proto(executable=SHELL), "a second Debian package; the references must use it too"),
    "harden": (proto(harden=True), "none: closes the window.name and history.length leaks"),
    "playwright_best": (
        proto(executable=SHELL, screenshot="cdp_fast", features_off=NO_RD, clear_cookies="after", harden=True),
        "the union of the above",
    ),
    "cdp_pipe": (
        lambda n: CdpPool(n, executable=SHELL, features_off=NO_RD),
        "Playwright off the hot path: containment (dialogs, popups, crashes) must be rebuilt on CDP",
    ),
}
# from the raw loop to the pool, one feature at a time (CPU-s/page differences are each feature's cost);
# "inline" steps get the pages with the pool's router output inlined (no requests), as the raw loop does
LADDER = {
    "L1 navigate: fresh origin, document routed, goto(load)": (
        proto(init_script=False, capture=False, clear_cookies="never"),
        "inline",
    ),
    "L2 + init.js": (proto(capture=False, clear_cookies="never"), "inline"),
    "L3 + capture evaluate (commit, load wait, layout.js), clipped screenshot": (
        proto(clear_cookies="never"),
        "inline",
    ),
    "L4 + clear_cookies (= the pool on inlined pages)": (proto(), "inline"),
    "L5 + CSS and images through the router (= the pool)": (proto(), "pages"),
    "L6 + chromium-headless-shell": (proto(executable=SHELL), "pages"),
    "L7 + CDP screenshot, optimizeForSpeed": (proto(executable=SHELL, screenshot="cdp_fast"), "pages"),
    "L8 + RenderDocument off": (proto(executable=SHELL, screenshot="cdp_fast", features_off=NO_RD), "pages"),
    "L9 + Playwright off the hot path (CDP pipe)": (
        lambda n: CdpPool(n, executable=SHELL, features_off=NO_RD),
        "pages",
    ),
}
WRITER = """<script>
  window.leak = 1; window.name = "leaked"; history.pushState({}, "", "#pushed");
  localStorage.setItem("k", "v"); sessionStorage.setItem("k", "v");
  document.cookie = "c=1; domain=vcoder.invalid; path=/"; document.cookie = "d=2";
  indexedDB.open("db", 1).onupgradeneeded = (e) => e.target.result.createObjectStore("s");
  setTimeout(() => { document.cookie = "late=1; path=/"; localStorage.setItem("late", "1"); }, 200);
</script><p>written</p>"""
READER = """<p id="r">pending</p><script>
  const out = [localStorage.length, sessionStorage.length, document.cookie || "none", typeof window.leak,
               window.name || "none", history.length, location.hash || "none"];
  indexedDB.databases().then((dbs) => {
    out.push(dbs.length); document.getElementById("r").textContent = "state " + out.join(",");
  });
</script>"""


async def read_state(side) -> str:
    for _ in range(6):  # indexedDB.databases() may resolve after the load event: re-render until it is in
        layout = (await side.render(READER))[1]
        texts = [b.text for b in layout.text_blocks]
        if texts != ["pending"]:
            return " ".join(texts)
    return "pending"


async def isolation(make) -> dict:
    """The reader's state after the writer on one slot, and as a fresh browser's first render."""
    fresh = make(1)
    await fresh.start()
    try:
        first = await read_state(fresh)
    finally:
        await fresh.close()
    side = make(1)
    await side.start()
    try:
        await side.render(WRITER)
        await asyncio.sleep(0.4)  # the writer's timer fires while the slot is idle
        after = await read_state(side)
    finally:
        await side.close()
    leaks = [i for i, (a, b) in enumerate(zip(first.split(","), after.split(","))) if a != b]
    names = ["localStorage", "sessionStorage", "cookie", "global", "window.name", "history.length", "hash", "idb"]
    return {"fresh": first, "after_writer": after, "differs": [names[i] for i in leaks if i < len(names)]}


async def run(args) -> dict:
    if args.ladder:
        entries = LADDER
    else:
        names = args.only.split(",") if args.only else list(CANDIDATES)
        entries = {name: (CANDIDATES[name][0], "pages") for name in names}
    names = list(entries)
    pages, n = bench_pages(args.n), args.concurrency
    inlined = inline_variant(pages)
    sides = {name: make(n) for name, (make, _) in entries.items()}
    sides["raw"] = PlaywrightSide(n, naive=False)
    sides["raw_shell"] = PlaywrightSide(n, naive=False, executable=SHELL)
    inputs = {name: pages if kind == "pages" else inlined for name, (_, kind) in entries.items()}
    inputs |= {"raw": inlined, "raw_shell": inlined}
    for side in sides.values():
        await side.start()
    try:
        warm = bench_pages(2 if args.small else 8, offset=10_000)
        shots = {
            name: await sides[name].run(warm if kind == "pages" else inline_variant(warm))
            for name, (_, kind) in entries.items()
        }
        shots["raw"] = await sides["raw"].run(inline_variant(warm))
        await sides["raw_shell"].run(inline_variant(warm))
        runs = await measure(sides, inputs, args.reps)
    finally:
        for side in sides.values():
            await side.close()
    out = {}
    for name in names:
        ratio = [c["pages_per_s"] / r["pages_per_s"] for c, r in zip(runs[name], runs["raw"])]
        ratio_shell = [c["pages_per_s"] / r["pages_per_s"] for c, r in zip(runs[name], runs["raw_shell"])]
        check = not (args.ladder or args.skip_isolation)
        out[name] = {
            **summary(runs[name]),
            "over_raw": round(statistics.median(ratio), 3),
            "over_raw_runs": [round(x, 3) for x in ratio],
            "over_raw_shell": round(statistics.median(ratio_shell), 3),
            "cpu_over_raw": round(summary(runs[name])["cpu_s_per_page"] / summary(runs["raw"])["cpu_s_per_page"], 3),
            "pixels_equal_raw": pixels_equal(shots[name], shots["raw"]),
            "isolation": await isolation(entries[name][0]) if check else None,
            "risk": None if args.ladder else CANDIDATES[name][1],
        }
    base = out[names[0]]
    for name in names:
        out[name]["gain_pages_per_s"] = round(out[name]["pages_per_s"] / base["pages_per_s"], 3)
        out[name]["cpu_vs_first"] = round(out[name]["cpu_s_per_page"] / base["cpu_s_per_page"], 3)
    raws = {"raw": summary(runs["raw"]), "raw_shell": summary(runs["raw_shell"])}
    return {"concurrency": n, "pages": args.n, "reps": args.reps, **raws, "sides": out}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="pages per side and repetition (default 40)")
    parser.add_argument("--concurrency", type=int, default=2, help="pages in flight on every side (default 2)")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions (default 3)")
    parser.add_argument("--only", default="", help=f"comma-separated subset of {','.join(CANDIDATES)}")
    parser.add_argument("--ladder", action="store_true", help="the raw-to-pool ladder instead of the candidates")
    parser.add_argument("--skip-isolation", action="store_true", help="skip the writer/reader isolation check")
    parser.add_argument("--small", action="store_true", help="smoke run: 2 pages, 1 rep, baseline and cdp_pipe only")
    args = parser.parse_args(argv)
    if args.small:
        args.n, args.reps, args.only, args.skip_isolation = 2, 1, args.only or "baseline,cdp_pipe", True
    load0 = os.getloadavg()[0]
    out = asyncio.run(run(args))
    out = {**out, "load1_start": round(load0, 2), "load1_end": round(os.getloadavg()[0], 2)}
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
