"""WebRL's self-evolving curriculum for the browsing agent on vcoder's hermetic sites (Qi et al., 2024).

    vcoder curriculum run --config configs/curriculum/web_agent_tiny_cpu.yaml --seed 0 --out DIR

phase k: held-out success of the start policy (phase 0: ``heldout_success_before``) -> ``rollouts_per_task`` sampled
episodes per pool task, scored by the tasks' WebArena evaluators -> the successes' steps, plus the replay buffer
(earlier phases' successes; with ``replay_demos`` also the SFT start's demonstrations) filtered by the start policy's
confidence (WebRL's window ``(0.5, 0.95]``) -> the update: the NLL of those steps'
actions -> held-out success of the new policy (``heldout_success``, per site and per evaluator type) -> new task
instances of the templates whose success rate lies in WebRL's band [0.05, 0.75] -> the pool of phase k+1.

Two updates (``algorithm``). ``filtered_bc``: the NLL of the successful episodes' actions (and of the kept replay),
i.e. the policy gradient of a 0/1 outcome reward without a baseline or a reference; no critic. ``webrl``: WebRL's
actor-critic objective on every step of the phase's episodes (:mod:`.webrl`, :mod:`.webrl_phase`): Monte Carlo
returns (gamma 0.9), a double critic on the reference's features, the binarised advantage, the actor loss with adaptive
beta against the phase's start policy (the previous phase's: ``reference_model`` in the report), replayed successes as
RL data, and the critic's predicted success of new task instances in place of the template band.

Tasks come from the offline generator (:mod:`vcoder.browse.generate`), every one with an evaluator. With the task
writer on (``writer_base_url`` / ``writer_model``, :mod:`.writer`), WebRL's self-evolving curriculum: an LLM writes new
intents from the phase's failed tasks, and those (``filtered_bc``: the first ``new_tasks_per_phase``; ``webrl``: the
ones the critic puts in the band) join the next pool instead of generated instances (which stay the fallback when the
writer gives nothing usable). Written tasks have no evaluator: the ORM (``orm_model``) judges their episodes
(:mod:`.judging`). The report's ``writer`` says how many were written, kept, accepted and rejected (by reason), and
``orm_judged`` how many episodes the ORM judged. Every episode an evaluator judged is appended to
``phase_<k>/verdicts.jsonl`` (the ORM's training input; the ORM's own verdicts never are).

The tasks come in three splits apart by content (:mod:`.split`): training tasks (and every task a phase adds) on the
training site instances, validation and test tasks on instances of their own, sharing no entity, answer, URL or intent
with training; ``heldout`` in the reports is the ``heldout_split`` (``test`` unless a pilot chooses on validation).

Files: ``tasks/train.json``, ``tasks/validation.json``, ``tasks/test.json`` (WebArena's template), per phase ``pool.jsonl``,
``episodes.jsonl``, ``verdicts.jsonl``, ``replay_buffer.jsonl``, ``model/``, (webrl) ``critic.pt``, (writer)
``written_tasks.json``, ``report.json`` (written last: a complete phase), ``curriculum.json`` and (writer)
``writer_cache.jsonl``. A rerun skips complete phases.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from vcoder.browse import WebTask, arun_episode, write_tasks
from vcoder.browse.records import verdict_record, write_jsonl
from vcoder.browse.splits import split_digest
from vcoder.models.loading import save_policy
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.judging import judge_episodes
from vcoder.pipelines.web_agent.lm import LocalPolicy
from vcoder.pipelines.web_agent.modes import update_of
from vcoder.pipelines.web_agent.pool import new_instances, with_new_tasks
from vcoder.pipelines.web_agent.split import web_splits
from vcoder.pipelines.web_agent.writer import write_phase_tasks

logger = logging.getLogger(__name__)

#: settings added after run folders existed, and the values an older folder's config.json means
LATER_DEFAULTS = {
    "algorithm": "filtered_bc",
    "critic_learning_rate": 1e-3,
    "critic_epochs": 1.0,
    "writer_base_url": None,
    "writer_model": None,
    "writer_timeout_ms": 120_000,
    "writer_max_retries": 1,
    "writer_temperature": 1.0,
    "writer_max_tokens": 1024,
    "writer_extra_body": None,
    "writer_failures_shown": 10,
    "writer_requests": 2,
    "orm_model": None,
    "orm_threshold": None,
    "replay_demos": False,
    "sft_element_comment": False,
    "sft_arch": "qwen2_5",
}


def demo_replay(model_dir: str | Path) -> list[dict[str, Any]]:
    """The SFT start's demonstrations (``model_dir/demos.jsonl``, written by ``vcoder curriculum web-sft``) as replay
    items of phase -1: solved episodes' steps, as the buffer holds the curriculum's own successes.

    Raises:
        ValueError: the folder has no demonstrations.
    """
    path = Path(model_dir) / "demos.jsonl"
    if not path.is_file():
        raise ValueError(f"replay_demos: {path} not found (make the SFT start with vcoder curriculum web-sft)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        {
            "task": r["messages"][:-1],
            "completion": r["messages"][-1]["content"],
            "score": r.get("score", 1.0),
            "phase": -1,
        }
        for r in rows
    ]


def success_table(episodes) -> dict[str, Any]:
    """Success overall, per site and per evaluator type (a task with several types counts under each)."""
    per_site, per_type = defaultdict(list), defaultdict(list)
    for e in episodes:
        per_site[e.task.site].append(e.evaluation.success)
        for kind in e.task.eval_types:
            per_type[kind].append(e.evaluation.success)
    rate = lambda xs: round(sum(xs) / len(xs), 4) if xs else None  # noqa: E731
    return {
        "success": rate([e.evaluation.success for e in episodes]),
        "per_site": {k: rate(v) for k, v in sorted(per_site.items())},
        "per_eval_type": {k: rate(v) for k, v in sorted(per_type.items())},
        "n": len(episodes),
    }


async def _episodes(tasks, policy, pool, config, repeats: int = 1):
    out = []
    for task in tasks:
        for _ in range(repeats):
            out.append(await arun_episode(task, policy, pool=pool, step_budget=config.step_budget))
    return out


def load_policy(path: str, config: WebAgentConfig):
    """The model and tokenizer of ``path`` on the recipe's device, in its dtype, in eval mode."""
    from vcoder.models.loading import load_policy as load

    return load(path, kind="causal_lm", dtype=config.dtype, device=config.device, eval_mode=True)


def _template(task: WebTask) -> str:
    return f"{task.site}:{task.intent_template_id}"


def grow_pool(config: WebAgentConfig, phase: int, pool: list[WebTask], rollouts, heldout) -> list[WebTask]:
    """New instances of the templates whose rollout success rate lies in WebRL's band (all templates when none
    does), ``new_tasks_per_phase`` of them on the training instances, none repeating an intent of the pool and none
    sharing content with the validation or test split."""
    rates = defaultdict(list)
    for e in rollouts:
        rates[_template(e.task)].append(e.evaluation.success)
    band = {k for k, v in rates.items() if config.band_low <= sum(v) / len(v) <= config.band_high} or set(rates)
    per_site = new_instances(config, phase, pool, heldout, keep=lambda t: _template(t) in band)
    return with_new_tasks(pool, [t for site in per_site for t in site][: config.new_tasks_per_phase])


def rollout_tasks(config: WebAgentConfig, phase: int, pool: list[WebTask]) -> list[WebTask]:
    """The pool tasks a phase samples episodes on: ``rollout_tasks`` of them drawn with the run's seed and the phase
    (in pool order), or the whole pool when ``rollout_tasks`` is 0 or not smaller than it."""
    if not config.rollout_tasks or config.rollout_tasks >= len(pool):
        return list(pool)
    rng = random.Random(f"rollouts:{config.seed}:{phase}")
    return sorted(rng.sample(pool, config.rollout_tasks), key=lambda t: int(t.task_id))


def run_phase(config: WebAgentConfig, run_dir: Path, phase: int, pool, heldout, buffer, start: str, before):
    """One phase (see the module docstring); returns its report."""
    from vcoder.rendering import BrowserPool

    t0 = time.perf_counter()
    update = update_of(config)  # the recipe's algorithm, as an object
    folder = run_dir / f"phase_{phase}"
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl((t.to_dict() for t in pool), folder / "pool.jsonl")
    model, tokenizer = load_policy(start, config)
    opts = dict(
        max_new_tokens=config.max_new_tokens, max_prompt_tokens=config.max_prompt_tokens, system=config.system_prompt
    )
    greedy = LocalPolicy(model, tokenizer, temperature=0.0, **opts)
    sampled = LocalPolicy(model, tokenizer, temperature=config.temperature, seed=config.seed * 100 + phase, **opts)
    with BrowserPool(max_pages=1) as browser:
        if before is None:
            before = success_table(asyncio.run(_episodes(heldout, greedy, browser, config)))
        tasks = rollout_tasks(config, phase, pool)
        rollouts = asyncio.run(_episodes(tasks, sampled, browser, config, config.rollouts_per_task))
        # written tasks have no evaluator: the ORM judges their episodes before anything reads an outcome
        rollouts, orm_judged = judge_episodes(config.orm_model, rollouts, threshold=config.orm_threshold)
        written = None
        if config.uses_writer:
            written = write_phase_tasks(config, run_dir, folder, phase, pool, heldout, rollouts)
        previous = run_dir / f"phase_{phase - 1}" / "critic.pt" if phase else None
        # filtered_bc: webrl is None; webrl: its critic, candidates and next pool as well
        fresh, replay, train, webrl = update.run(
            config, folder, phase, model, tokenizer, rollouts, buffer, pool=pool, heldout=heldout,
            browser=browser, previous_critic=previous, candidates=written.tasks if written else None,
        )  # fmt: skip
        save_policy(model, tokenizer, folder / "model")
        heldout_episodes = asyncio.run(_episodes(heldout, greedy, browser, config))
    after = success_table(heldout_episodes)
    write_jsonl((e.to_dict() for e in [*rollouts, *heldout_episodes]), folder / "episodes.jsonl")
    # the verdict log is the ORM's training input: only outcomes an evaluator decided go in, never the ORM's own
    graded = [e for e in rollouts if e.evaluation.judged_by == "evaluators"]
    write_jsonl((verdict_record(e, meta={"phase": phase}).to_dict() for e in graded), folder / "verdicts.jsonl")
    new_buffer = [*fresh, *buffer][: config.replay_max_items]
    write_jsonl(new_buffer, folder / "replay_buffer.jsonl")
    if webrl:
        next_pool = webrl["next_pool"]
    elif written and written.tasks:
        next_pool = with_new_tasks(pool, written.tasks[: config.new_tasks_per_phase])
    else:  # no writer, or it wrote nothing usable: new generated instances
        next_pool = grow_pool(config, phase, pool, rollouts, heldout)
    write_jsonl((t.to_dict() for t in next_pool), folder / "next_pool.jsonl")
    report = {
        "phase": phase,
        "pool_size": len(pool),
        "rollout_tasks": len(tasks),
        "success_rate": success_table(rollouts)["success"],
        "rollouts": success_table(rollouts),
        "heldout_split": config.heldout_split,
        "heldout_success_before": before["success"],
        "heldout_success": after["success"],
        "heldout_before": before,
        "heldout": after,
        "replay": replay,
        "train": train,
        "accepted": len(next_pool) - len(pool),
        "generated": len(next_pool) - len(pool),
        "rejected": {},
        "algorithm": config.algorithm,
        "reference_model": start if update.has_reference else None,
        "orm_judged": orm_judged,
        "writer": None,
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    if webrl:
        report.update(critic=webrl["critic"], candidates=webrl["candidates"])
        report["generated"] = webrl["candidates"]["probed"]
        candidates = webrl["candidates"]
        report["rejected"] = {
            "critic_band": candidates["probed"] - candidates["in_band"],
            "over_limit": candidates["in_band"] - candidates["accepted"],
        }
    if written is not None:
        from_writer = [t for t in next_pool[len(pool) :] if t.judged_by_orm]
        report["writer"] = {
            **written.summary(),
            "accepted": len(from_writer),
            "fell_back_to_offline": not written.tasks,
        }
    (folder / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    logger.info(
        "phase %d: held-out %s -> %s, rollouts %s", phase, before["success"], after["success"], report["success_rate"]
    )
    return report


def run_web_curriculum(config: WebAgentConfig, run_dir: str | Path, *, stop_after: int | None = None, on_phase=None):
    """Run (or resume: complete phases are skipped) the curriculum in ``run_dir``; returns ``curriculum.json``'s
    content."""
    import torch

    from vcoder.browse import read_tasks

    torch.set_num_threads(config.torch_threads)
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    saved = run_dir / "config.json"
    # a folder made before the algorithm settings existed was made by filtered_bc with their defaults
    if saved.exists() and {**LATER_DEFAULTS, **json.loads(saved.read_text())["config"]} != config.to_dict():
        raise ValueError(f"{run_dir} was made by another web_agent config; pass a new --out")
    saved.write_text(json.dumps({"config": config.to_dict()}, indent=1) + "\n")
    splits = web_splits(config)
    for name, tasks in splits.items():
        write_tasks(tasks, run_dir / "tasks" / f"{name}.json")
    train, heldout = splits["train"], splits[config.heldout_split]
    reports: list[dict[str, Any]] = []
    buffer = demo_replay(config.model_name_or_path) if config.replay_demos else []
    pool, start, before = train, config.model_name_or_path, None
    last = config.phases if stop_after is None else min(config.phases, stop_after)
    for phase in range(last):
        folder = run_dir / f"phase_{phase}"
        if (folder / "report.json").exists():
            report = json.loads((folder / "report.json").read_text())
        else:
            report = run_phase(config, run_dir, phase, pool, heldout, buffer, start, before)
            if on_phase is not None:
                on_phase(report)
        reports.append(report)
        pool = read_tasks(folder / "next_pool.jsonl")
        buffer = [json.loads(x) for x in (folder / "replay_buffer.jsonl").read_text().splitlines() if x.strip()]
        start, before = str(folder / "model"), report["heldout"]
    summary = {
        "config": config.to_dict(),
        "phases": reports,
        "complete": len(reports) >= config.phases,
        "heldout_split": config.heldout_split,
        "splits": {name: {"tasks": len(tasks), "digest": split_digest(tasks)} for name, tasks in splits.items()},
        "heldout_success_before": reports[0]["heldout_success_before"] if reports else None,
        "heldout_success": reports[-1]["heldout_success"] if reports else None,
        "final_model": str(run_dir / f"phase_{len(reports) - 1}" / "model") if reports else None,
    }
    (run_dir / "curriculum.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary
