"""Pilot (issue 24): greedy episodes of a saved web-agent policy on the recipe's 32 held-out tasks (Chromium).

    PYTHONPATH=$PWD python experiments/web_heldout_episodes.py --model /tmp/p-div --seed 0

``--fresh RUN_DIR``: instead, a fresh held-out set: the tasks of site seed ``20000 + seed`` whose intents are in neither
the split (training or held-out) nor any pool of the curriculum run in RUN_DIR (``phase_*/pool.jsonl``,
``next_pool.jsonl``); several ``--model`` are played on the same tasks.

Prints the success table (overall, per site, per evaluator type) as ``vcoder curriculum run`` reports
``heldout_success``, and where each failed episode first left the scripted plan's element note.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import yaml

from vcoder.browse.actions import element_comment
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.lm import LocalPolicy
from vcoder.pipelines.web_agent.run import _episodes, load_policy, split_tasks, success_table
from vcoder.rendering import BrowserPool


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, nargs="+")
    ap.add_argument("--fresh", default=None, help="a curriculum run folder whose pools the fresh tasks avoid")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", default="configs/curriculum/web_agent_tiny_cpu.yaml")
    a = ap.parse_args()
    with open(a.config, encoding="utf-8") as f:
        config = WebAgentConfig.from_dict({**yaml.safe_load(f), "seed": a.seed, "model_name_or_path": a.model[0]})
    import torch

    torch.set_num_threads(config.torch_threads)
    train, held = split_tasks(config)
    if a.fresh:
        held = fresh_tasks(config, train, held, a.fresh)
    for path in a.model:
        model, tok = load_policy(path, config)
        policy = LocalPolicy(
            model,
            tok,
            temperature=0.0,
            max_new_tokens=config.max_new_tokens,
            max_prompt_tokens=config.max_prompt_tokens,
            system=config.system_prompt,
        )
        t0 = time.time()
        with BrowserPool(max_pages=1) as pool:
            episodes = asyncio.run(_episodes(held, policy, pool, config))
        table = {"model": path, "fresh": bool(a.fresh), **success_table(episodes)}
        table["wall_s"] = round(time.time() - t0)
        table["notes"] = [
            [e.task.intent, [element_comment(s.action) for s in e.steps]] for e in episodes if not e.evaluation.success
        ]
        print(json.dumps(table), flush=True)


def fresh_tasks(config, train, held, run_dir: str):
    """Tasks of site seed 20000 + seed whose intents no task of the split or of the run's pools has."""
    from pathlib import Path

    from vcoder.browse import generate_tasks, read_tasks

    seen = {t.intent for t in [*train, *held]}
    for path in Path(run_dir).glob("phase_*/*pool.jsonl"):
        seen |= {t.intent for t in read_tasks(path)}
    out = []
    for site in config.sites:
        for t in generate_tasks(site, seed=20_000 + config.seed, n=6 * config.heldout_per_site):
            if t.intent not in seen:
                seen.add(t.intent)
                out.append(t)
    return out


if __name__ == "__main__":
    main()
