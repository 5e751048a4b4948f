"""Seconds per test case for the scripted GUI agent on the generated interactive pages; prints one JSON object.

    python bench/gui_agent.py [--seeds 2] [--max-pages 2] [--small]

``--small`` (the test suite's smoke run): one counter and one tabs page; its figures are not comparable.

Each case runs on a fresh load of its page (as in the reward). Two measurements:
- ``latency``: cases one at a time, seconds from "run this case" to its verdict (page load + steps + checks);
- ``throughput``: every case of a page at once (how ``gui_agent_reward`` runs them), cases per second overall.
Plus the cost of the two containment paths (a click handler that loops forever, a click that navigates away).
The first page is a warm-up (browser launch) and is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from vcoder.data.site_kinds.pages import KINDS, make_page
from vcoder.gui.runner import arun_cases
from vcoder.gui.scripted import ScriptedPolicy
from vcoder.rendering import BrowserPool

HANG = """<html><body><p id="out">idle</p><button id="go" onclick="while (true) {}">Go</button>
<a id="away" href="https://example.com/">Away</a></body></html>"""
HANG_CASES = {
    "hang": [
        {"task": "hang", "steps": [{"action": "click", "target": "#go"}], "expect": [{"target": "#out", "text": "x"}]}
    ],
    "navigate_away": [
        {
            "task": "away",
            "steps": [{"action": "click", "target": "#away"}],
            "expect": [{"target": "#out", "text": "idle"}],
        }
    ],
}


def _summary(seconds: list[float]) -> dict:
    ordered = sorted(seconds)
    return {
        "n": len(ordered),
        "median_s": round(statistics.median(ordered), 4),
        "p90_s": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 4),
        "mean_s": round(statistics.fmean(ordered), 4),
        "max_s": round(ordered[-1], 4),
    }


async def main(seeds: int, pool: BrowserPool, kinds: tuple[str, ...] = KINDS) -> dict:
    policy, apool = ScriptedPolicy(), pool.async_pool
    pages = [make_page(kind, seed) for seed in range(seeds) for kind in kinds]
    await arun_cases(pages[0]["html"], pages[0]["test_cases"][:1], policy=policy, pool=apool)  # warm-up

    latency, scores = [], []
    for page in pages:
        for case in page["test_cases"]:
            t0 = time.perf_counter()
            _, score = await arun_cases(page["html"], [case], policy=policy, pool=apool)
            latency.append(time.perf_counter() - t0)
            scores.append(score)

    t0 = time.perf_counter()
    results = await asyncio.gather(*(arun_cases(p["html"], p["test_cases"], policy=policy, pool=apool) for p in pages))
    wall = time.perf_counter() - t0
    n_cases = sum(len(r) for r, _ in results)

    containment = {}
    for name, cases in HANG_CASES.items():
        t0 = time.perf_counter()
        (result,), _ = await arun_cases(HANG, cases, policy=policy, pool=apool)
        containment[name] = {
            "seconds": round(time.perf_counter() - t0, 3),
            "verdict": result.verdict.value,
            "error": result.error,
        }
    return {
        "pages": len(pages),
        "cases": len(latency),
        "latency": _summary(latency),
        "latency_mean_score": round(statistics.fmean(scores), 4),
        "throughput": {
            "cases": n_cases,
            "wall_s": round(wall, 3),
            "cases_per_s": round(n_cases / wall, 3),
            "mean_score": round(statistics.fmean(s for _, s in results), 4),
        },
        "containment": containment,
        "max_pages": pool.async_pool.max_pages,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="pages per kind (6 kinds, 3-5 cases each)")
    parser.add_argument("--max-pages", type=int, default=2, help="concurrent browser pages")
    parser.add_argument("--small", action="store_true", help="smoke run: one counter and one tabs page")
    args = parser.parse_args()
    kinds = ("counter", "tabs") if args.small else KINDS
    with BrowserPool(max_pages=args.max_pages) as browser_pool:
        print(json.dumps(asyncio.run(main(1 if args.small else args.seeds, browser_pool, kinds)), indent=1))
