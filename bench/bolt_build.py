"""What a Bolt turn costs: offline install + Vite build in the sandbox, and a 3-turn Bolt episode; prints one JSON object.

    python bench/bolt_build.py [--repeats 3] [--small]

``--small`` (the test suite's smoke run): one build of the template app (warm when an earlier run kept its install),
no cold install and no episode; its figures are not comparable.

Measured, for the Bolt template's package.json (vite 5, React 18, Tailwind, lucide-react, the template's ESLint set)
and a small React + Tailwind app of WebGen-Bench task 000001 (tests/sites/bolt_apps.py):
- ``cold``: a full ``npm install --offline --ignore-scripts`` from the npm cache, then ``vite build`` (no kept install);
- ``warm``: the same project again: the install of this dependency set is reused (an overlay), then ``vite build``;
- ``episode``: broken import -> fixed -> finish, graded by the scripted policy in real Chromium (no judge).
Seconds are wall clock; ``cpu_s`` is user + system time of everything the sandbox ran. The machine's load average is
reported: on a shared 2-core machine the wall-clock figures move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.sites import bolt_apps  # noqa: E402
from vcoder.sites.bolt import parse_bolt_turn  # noqa: E402
from vcoder.sites.build import build_project, sandbox_problem  # noqa: E402
from vcoder.sites.npm_cache import npm_cache_dir  # noqa: E402

TASK = {
    "id": "000001",
    "instruction": "A website for generating stock reports (WebGen-Bench 000001).",
    "test_cases": [
        {
            "task": "Search a stock by code",
            "steps": [
                {"action": "type", "target": "#stock", "value": "AAPL"},
                {"action": "click", "target": "#search"},
            ],
            "expect": [{"target": "h2", "text": "Apple"}],
        }
    ],
}


def write_app(root: Path) -> Path:
    """The fixed 000001 app as files (what the episode's second turn leaves)."""
    files = {}
    for reply in (bolt_apps.broken_reply("000001"), bolt_apps.fix_reply("000001")):
        files.update({w.path: w.content for w in parse_bolt_turn(reply).turn.writes})
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def one_build(scratch: Path, name: str, *, reuse: bool) -> dict:
    src = write_app(scratch / f"{name}-src")
    result = build_project(src, scratch / f"{name}-out", reuse_modules=reuse)
    if not result.ok:
        raise RuntimeError(f"{name} build failed at {result.stage}: {result.error}")
    return {
        "install_s": result.install_s,
        "build_s": result.build_s,
        "total_s": round(result.install_s + result.build_s, 3),
        "cpu_s": result.cpu_s,
    }


def summary(runs: list[dict]) -> dict:
    keys = ("install_s", "build_s", "total_s", "cpu_s")
    return {"n": len(runs), **{f"median_{k}": round(statistics.median(r[k] for r in runs), 3) for k in keys}}


async def episode(scratch: Path, pool) -> dict:
    from vcoder.sites.episode import run_site_episode
    from vcoder.sites.grading import SiteGrader
    from vcoder.sites.records import EpisodeOptions

    replies = [bolt_apps.broken_reply("000001"), bolt_apps.fix_reply("000001"), bolt_apps.FINISH]

    async def policy(messages):
        return replies[sum(m["role"] == "assistant" for m in messages)]

    grader = SiteGrader(pool=pool)
    options = EpisodeOptions(turn_format="bolt", max_turns=3, render_width=1024, render_height=768)
    t0 = time.monotonic()
    result = await run_site_episode(TASK, policy, grader=grader, options=options, out_dir=scratch / "episode")
    total = time.monotonic() - t0
    steps = [
        {
            "turn": s.turn,
            "reward": s.reward,
            "build_ok": None if s.build is None else s.build.ok,
            "install_s": None if s.build is None else s.build.install_s,
            "build_s": None if s.build is None else s.build.build_s,
            "cpu_s": None if s.build is None else s.build.cpu_s,
        }
        for s in result.steps
    ]
    return {
        "turns": len(result.steps),
        "total_s": round(total, 2),
        "final_reward": result.final_reward,
        "steps": steps,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="builds per measurement (default 3)")
    parser.add_argument("--small", action="store_true", help="one warm build only (the suite's smoke run)")
    args = parser.parse_args()
    problem = sandbox_problem() or (
        None if (npm_cache_dir() / "_cacache").is_dir() else f"no npm cache at {npm_cache_dir()}"
    )
    out: dict = {"machine": {"cpus": os.cpu_count(), "load_avg_1m_before": round(os.getloadavg()[0], 2)}}
    if problem:
        out["skipped"] = problem
        print(json.dumps(out, indent=1))
        return 0
    with tempfile.TemporaryDirectory(prefix="vcoder-bench-bolt-") as scratch:
        scratch = Path(scratch)
        if not args.small:  # keeps this dependency set's install (quick when it is kept already)
            one_build(scratch, "prime", reuse=True)
        repeats = 1 if args.small else args.repeats
        out["warm"] = summary([one_build(scratch, f"warm{i}", reuse=True) for i in range(repeats)])
        if not args.small:
            out["cold"] = summary([one_build(scratch, f"cold{i}", reuse=False) for i in range(repeats)])
            from vcoder.rendering import BrowserPool

            with BrowserPool(max_pages=2) as pool:
                pool.render("<p>warm-up</p>")  # the browser's launch is not the episode's
                out["episode"] = asyncio.run(episode(scratch, pool))
    out["machine"]["load_avg_1m_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
