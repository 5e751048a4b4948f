"""The browsing agent's SFT start: demonstrations by the scripted solvers, and a policy trained on them.

    vcoder curriculum web-sft --config configs/curriculum/web_agent_tiny_cpu.yaml --seed 0 --out outputs/web-sft-0

The demonstrations are the scripted solvers' episodes on the curriculum's training tasks (never its held-out ones),
one SFT row per step (``demos.jsonl``, the ``{"messages"}`` form ``vcoder train sft`` with ``dataset:
trajectories`` also reads). With ``sft_base: tiny`` the policy is a tiny LM (``sft_arch``: Qwen2.5- or
Qwen3-shaped) built offline whose tokenizer is trained on the demonstrations' text (so a prompt is a few hundred
tokens); otherwise ``sft_base`` is a model folder or hub id. The update is the NLL of the demonstrated actions (:func:`.lm.train_nll`), ``sft_epochs``
passes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from vcoder.browse import ScriptedSolver, arun_episode
from vcoder.browse.records import sft_rows, write_jsonl
from vcoder.models.loading import save_policy
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.lm import train_nll
from vcoder.pipelines.web_agent.run import load_policy
from vcoder.pipelines.web_agent.split import split_tasks

logger = logging.getLogger(__name__)


async def _demos(tasks, pool, step_budget, comment=False):
    return [
        await arun_episode(t, ScriptedSolver(t.solution, comment=comment), pool=pool, step_budget=step_budget)
        for t in tasks
    ]


def make_demos(config: WebAgentConfig, out: str | Path) -> list[dict[str, Any]]:
    """The solvers' episodes on the training tasks as SFT rows (``out/demos.jsonl``); only solved episodes count."""
    from vcoder.rendering import BrowserPool

    train, _ = split_tasks(config)
    with BrowserPool(max_pages=1) as pool:
        episodes = asyncio.run(_demos(train, pool, config.step_budget, config.sft_element_comment))
    solved = [e for e in episodes if e.evaluation.success]
    if len(solved) < len(episodes):
        logger.warning(
            "%d of %d demonstrations failed their evaluator; left out", len(episodes) - len(solved), len(episodes)
        )
    rows = [row for e in solved for row in sft_rows(e)]
    write_jsonl(rows, Path(out) / "demos.jsonl")
    return rows


def sft_start(config: WebAgentConfig, out: str | Path) -> dict[str, Any]:
    """Demonstrations, then the policy trained on them (``sft_*`` settings of the recipe), saved to ``out`` (a model
    folder with ``sft.json``)."""
    import torch

    torch.set_num_threads(config.torch_threads)
    base, size, epochs, learning_rate = config.sft_base, config.sft_size, config.sft_epochs, config.sft_learning_rate
    out = Path(out)
    rows = make_demos(config, out)
    samples = [(r["messages"][:-1], r["messages"][-1]["content"]) for r in rows]
    if base == "tiny":
        from vcoder.models.tiny_lm import build_tiny_lm

        corpus = [m["content"] for r in rows for m in r["messages"]] * 2
        build_tiny_lm(
            out,
            arch=config.sft_arch,
            size=size,
            corpus=corpus,
            seed=config.seed,
            split_digits=config.sft_split_digits,
        )
        base = str(out)
    model, tokenizer = load_policy(base, config)
    train = train_nll(
        model,
        tokenizer,
        samples,
        epochs=epochs,
        learning_rate=learning_rate,
        batch_size=config.batch_size,
        max_prompt_tokens=config.max_prompt_tokens,
        seed=config.seed,
        system=config.system_prompt,
    )
    save_policy(model, tokenizer, out)
    arch = config.sft_arch if config.sft_base == "tiny" else None
    info = {
        "demos": len(rows),
        "base": base,
        "arch": arch,
        "size": size,
        "epochs": epochs,
        "learning_rate": learning_rate,
        **train,
    }
    (out / "sft.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return info
