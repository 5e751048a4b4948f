"""Pilot (issue 24): greedy episodes of saved web-agent policies on one of the recipe's evaluation splits (Chromium).

    PYTHONPATH=$PWD python experiments/archive/web_heldout_episodes.py --model /tmp/p-div --seed 0 --split validation

``--split validation`` (default) is what pilots read and choose on; ``--split test`` is the reported split, scored once
per recipe change. Both run on site instances no training task uses and share no entity, reference answer, URL or
intent with the training tasks or any task a phase adds to the pool (:mod:`vcoder.pipelines.web_agent.split`), so
the old ``--fresh`` set (another draw on the training instance) is gone. Several ``--model`` are played on the same
tasks.

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
from vcoder.pipelines.web_agent.run import _episodes, load_policy, success_table
from vcoder.pipelines.web_agent.split import web_splits
from vcoder.rendering import BrowserPool


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, nargs="+")
    ap.add_argument("--split", default="validation", choices=("validation", "test"), help="the split played")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--config", default="configs/curriculum/web_agent_tiny_cpu.yaml")
    a = ap.parse_args()
    with open(a.config, encoding="utf-8") as f:
        config = WebAgentConfig.from_dict({**yaml.safe_load(f), "seed": a.seed, "model_name_or_path": a.model[0]})
    import torch

    torch.set_num_threads(config.torch_threads)
    held = web_splits(config)[a.split]
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
        table = {"model": path, "split": a.split, **success_table(episodes)}
        table["wall_s"] = round(time.time() - t0)
        table["notes"] = [
            [e.task.intent, [element_comment(s.action) for s in e.steps]] for e in episodes if not e.evaluation.success
        ]
        print(json.dumps(table), flush=True)


if __name__ == "__main__":
    main()
