"""One refinement step through the OpenEnv server vs the same step in-process, at EQUAL concurrency.

Both sides run the same ``RefineCore`` (vcoder/envs/refine.py) with the same rewards and pool size
(``render_max_pages``, default 2): in-process, C episodes on the process's pool; served, C OpenEnv WebSocket
sessions (openenv-core's ``GenericEnvClient``) against ``vcoder serve-env refine`` started here on loopback (its own
Chromium pool of the same size). Every step renders a page no other step rendered (a numbered comment), so no render
comes from a cache. Figures: the mean and median step latency, pages/s (steps of all episodes over the wall time),
and the overhead per step (served mean - in-process mean): what the HTTP/WebSocket hop, JSON and base64 PNG cost.
The two sides run one after the other on the same machine (shared CPUs: run on a quiet machine for figures).

    python bench/envs.py                         # C = 1 and 4, 8 steps per episode, JSON on stdout
    python bench/envs.py --concurrency 2 --steps 16 --rewards ssim,text
    python bench/envs.py --small                 # the test suite's smoke run (figures not comparable)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REF = "<html><body><h1>Quarterly report</h1><p>Revenue grew in every region.</p><ul><li>North</li><li>South</li></ul>"


def attempt(episode: int, step: int) -> str:
    return f"<!-- {episode}.{step} --><html><body><h1>Quarterly report</h1><p>Step {step} of a refinement.</p></body>"


def summary(latencies: list[float], wall: float) -> dict:
    return {
        "steps": len(latencies),
        "step_ms_mean": round(statistics.fmean(latencies), 1),
        "step_ms_median": round(statistics.median(latencies), 1),
        "pages_per_s": round(len(latencies) / wall, 2),
    }


async def in_process(concurrency: int, steps: int, rewards: tuple[str, ...]) -> dict:
    from vcoder.envs.refine import RefineCore, RefineSettings

    settings = RefineSettings(rewards=rewards, max_turns=steps)
    cores = [RefineCore(settings) for _ in range(concurrency)]
    warm = RefineCore(settings)
    warm.reset(html=REF)
    await warm.render(REF)  # launch Chromium and render the reference once, outside the timing
    latencies: list[float] = []

    async def episode(k: int, core) -> None:
        core.reset(html=REF)
        for s in range(steps):
            t = time.perf_counter()
            await core.render(attempt(k, s))
            latencies.append((time.perf_counter() - t) * 1000)

    t0 = time.perf_counter()
    await asyncio.gather(*(episode(k, c) for k, c in enumerate(cores)))
    return summary(latencies, time.perf_counter() - t0)


async def served(url: str, concurrency: int, steps: int) -> dict:
    from openenv.core import GenericEnvClient

    async with GenericEnvClient(base_url=url, message_timeout_s=300) as warm:
        await warm.reset(html=REF)
        await warm.step({"tool": "render", "arguments": {"html": REF}})
    latencies: list[float] = []

    async def episode(k: int) -> None:
        async with GenericEnvClient(base_url=url, message_timeout_s=300) as env:
            await env.reset(html=REF)
            for s in range(steps):
                t = time.perf_counter()
                await env.step({"tool": "render", "arguments": {"html": attempt(1000 + k, s)}})
                latencies.append((time.perf_counter() - t) * 1000)

    t0 = time.perf_counter()
    await asyncio.gather(*(episode(k) for k in range(concurrency)))
    return summary(latencies, time.perf_counter() - t0)


def start_server(rewards: str, steps: int, sessions: int, log: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    argv = [sys.executable, "-m", "vcoder", "serve-env", "refine", "--port", "0", "--rewards", rewards]
    argv += ["--max-turns", str(steps + 1), "--max-sessions", str(sessions)]
    proc = subprocess.Popen(argv, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        found = re.search(r"at (http://\S+)", log.read_text())
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"vcoder serve-env did not start: {log.read_text()[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--concurrency", type=int, nargs="+", default=[1, 4], help="episodes in flight (each value run)")
    p.add_argument("--steps", type=int, default=8, help="renders per episode")
    p.add_argument("--rewards", default="ssim", help="the reward mix (comma-separated vcoder reward names)")
    p.add_argument("--small", action="store_true", help="one episode of 2 steps (the test suite's smoke run)")
    args = p.parse_args(argv)
    if args.small:
        args.concurrency, args.steps = [1], 2
    rewards = tuple(n.strip() for n in args.rewards.split(",") if n.strip())
    out: dict = {"setting": "refine", "rewards": list(rewards), "steps_per_episode": args.steps, "runs": {}}
    with tempfile.TemporaryDirectory(prefix="vcoder-bench-envs-") as tmp:
        proc, url = start_server(args.rewards, args.steps, max(args.concurrency) + 1, Path(tmp) / "server.log")
        try:
            for c in args.concurrency:
                local = asyncio.run(in_process(c, args.steps, rewards))
                remote = asyncio.run(served(url, c, args.steps))
                out["runs"][str(c)] = {
                    "in_process": local,
                    "openenv_server": remote,
                    "overhead_ms_per_step": round(remote["step_ms_mean"] - local["step_ms_mean"], 1),
                }
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
