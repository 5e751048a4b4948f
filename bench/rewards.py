"""Reward throughput on a GRPO-shaped batch vs rendering alone, in one run.

A batch is 8 references x 8 completions (damaged variants of each reference, all distinct). Three modes, each
on fresh pages (no cache carries between modes or repeats), alternated over repeats:
  render_only  - the pool renders the 64 completions + 8 references (what any render-based reward must pay)
  full_set     - format, validity, dom, ssim, clip (tiny, CPU), block, text, position, color, visual, stacked
                 as TRL calls them (concurrently on one loop)
Prints JSON: completions/s per mode (median over repeats), the cost ratio full_set / render_only, the CPU seconds
each mode's batches took in this process and the browser's processes (``cpu_full_set_over_render_only``: steadier
than wall time on a shared machine, where other work takes cores away at random), and ``profile``: each scoring
stage of one completion timed alone on one render_only batch (``bench/reward_profile.py``).

Usage: python bench/rewards.py [--repeats 3] [--small] [--json-out FILE]
  --small: 2 references x 4 completions, one repeat (the test suite's smoke run; its figures are not comparable)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.rewards.pages import LADDERS, make_page, to_html  # noqa: E402

NAMES = ["format", "validity", "dom", "ssim", "clip", "block", "text", "position", "color", "visual"]


def make_batch(offset: int, n_refs: int = 8, group: int = 8):
    refs, completions = [], []
    ladders = list(LADDERS.values())
    for r in range(n_refs):
        seed = 1000 * offset + r
        blocks = make_page(seed)
        ref = to_html(blocks)
        for g in range(group):
            damage = ladders[g % len(ladders)]
            page = to_html(damage(blocks, 1 + g // len(ladders), seed=seed))
            completions.append(f"```html\n{page}\n<!-- {seed}-{g} -->\n```")
            refs.append(ref)
    return refs, completions


def cpu_seconds() -> dict[int, float]:
    """CPU seconds (user + system) so far of this process and of every process it started (the browser)."""
    import psutil

    me = psutil.Process()
    out = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            out[proc.pid] = times.user + times.system
        except psutil.Error:  # exited meanwhile
            pass
    return out


def cpu_used(before: dict[int, float]) -> float:
    """CPU seconds used since ``before`` (processes started since count whole; ones that exited are lost)."""
    return sum(now - before.get(pid, 0.0) for pid, now in cpu_seconds().items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="2 references x 4 completions, one repeat")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()

    from bench.reward_profile import profile_batch
    from vcoder.metrics import extract_html
    from vcoder.rendering import get_default_pool
    from vcoder.rewards import RewardSettings, build_rewards
    from vcoder.rewards.context import get_context

    n_refs, group = (2, 4) if args.small else (8, 8)
    repeats = 1 if args.small else args.repeats
    pool = get_default_pool()
    funcs = build_rewards(NAMES, clip_tiny=True)
    settings = RewardSettings(clip_tiny=True)
    n = n_refs * group
    renders: dict = {}

    def batch(offset: int):
        return make_batch(offset, n_refs, group)

    def render_only(refs, completions):
        pages = [extract_html(c) for c in completions] + sorted(set(refs))
        start = time.perf_counter()
        out = pool.render_many(pages)
        elapsed = time.perf_counter() - start
        assert all(r.ok for r in out), [r.error for r in out if not r.ok][:3]
        renders.clear()
        renders.update(zip(pages, out))
        return elapsed

    def full_set(refs, completions):
        ctx = get_context()
        ctx.completions.items.clear()
        ctx.references.items.clear()

        async def step():
            return await asyncio.gather(
                *(f(prompts=[""] * n, completions=completions, html=refs, image=[None] * n) for f in funcs)
            )

        start = time.perf_counter()
        results = asyncio.run(step())
        elapsed = time.perf_counter() - start
        assert all(v is not None for r in results for v in r), "a reward could not judge a bench page"
        return elapsed

    # imported here, not first in the rewards' worker threads at once (seen: scipy's lazy import raced, KeyError)
    import scipy.optimize  # noqa: F401
    import skimage.color  # noqa: F401
    import skimage.metrics  # noqa: F401

    # warm-up: browser pages, CLIP model, imports
    full_set(*batch(99))
    times = {"render_only": [], "full_set": []}
    cpu = {"render_only": [], "full_set": []}
    for rep in range(repeats):
        for name, mode, offset in (("render_only", render_only, 2 * rep), ("full_set", full_set, 2 * rep + 1)):
            before = cpu_seconds()
            times[name].append(mode(*batch(offset)))
            cpu[name].append(cpu_used(before))
    profile = profile_batch(*batch(2 * (repeats - 1)), renders, settings)

    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    result = {
        "batch": f"{n_refs} references x {group} completions",
        "rewards": NAMES,
        "repeats": repeats,
        "completions_per_s": {k: round(n / v, 2) for k, v in med.items()},
        "seconds_per_batch": {k: [round(x, 3) for x in v] for k, v in times.items()},
        "full_set_over_render_only": round(med["full_set"] / med["render_only"], 3),
        "cpu_seconds_per_batch": {k: [round(x, 3) for x in v] for k, v in cpu.items()},
        "cpu_full_set_over_render_only": round(med_cpu["full_set"] / med_cpu["render_only"], 3),
        "target": "full_set_over_render_only <= 1.25",
        "profile": profile,
        "pool_stats": pool.stats(),
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json_out:
        args.json_out.write_text(text)


if __name__ == "__main__":
    main()
