"""Pilot data (issue 24): the scripted solvers' demonstrations on more generated instances of the sites.

Site instance k (``site_seed``) has other products, customers, posts and repositories than the others; give training
instances (below 1000000: :data:`vcoder.browse.splits.INSTANCE_BASE`). Tasks sharing content (an entity, answer, URL or
intent) with the recipe's validation or test split are left out, so nothing held out is trained on. Rows as
``vcoder curriculum web-sft`` writes them (``sft_element_comment`` on).

    PYTHONPATH=$PWD python experiments/archive/web_more_demos.py --instances 5 6 7 8 --out /tmp/more.jsonl
"""

from __future__ import annotations

import argparse
import asyncio

import yaml

from vcoder.browse import ScriptedSolver, arun_episode
from vcoder.browse.records import sft_rows, write_jsonl
from vcoder.browse.splits import draw_tasks, split_of_instance
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.split import evaluation_keys
from vcoder.rendering import BrowserPool


async def _solve(tasks, pool, step_budget):
    return [
        await arun_episode(t, ScriptedSolver(t.solution, comment=True), pool=pool, step_budget=step_budget)
        for t in tasks
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default="configs/curriculum/web_agent_tiny_cpu.yaml")
    ap.add_argument("--seed", type=int, default=0, help="the curriculum seed whose held-out intents are left out")
    ap.add_argument("--instances", type=int, nargs="+", required=True, help="site seeds (not 0)")
    ap.add_argument("--per-site", type=int, default=40, help="tasks per site and instance (distinct intents)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.config, encoding="utf-8") as f:
        config = WebAgentConfig.from_dict({**yaml.safe_load(f), "seed": a.seed})
    if any(split_of_instance(k) != "train" for k in a.instances):
        raise SystemExit(f"--instances {a.instances}: give training instances (site seeds below 1000000)")
    banned = evaluation_keys(config)
    tasks = []
    for k in a.instances:
        for site in config.sites:
            tasks += draw_tasks(site, [k], n=a.per_site, seed=f"more:{k}", banned=banned)
    with BrowserPool(max_pages=1) as pool:
        episodes = asyncio.run(_solve(tasks, pool, config.step_budget))
    rows = [row for e in episodes if e.evaluation.success for row in sft_rows(e)]
    write_jsonl(rows, a.out)
    print(f"{len(tasks)} tasks, {sum(e.evaluation.success for e in episodes)} solved, {len(rows)} rows -> {a.out}")


if __name__ == "__main__":
    main()
