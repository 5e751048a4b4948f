"""The offline agent quickstart (WebGen-RL, small): tiny LM -> agent SFT on trajectories -> Step-GRPO -> held-out.

Everything runs on a CPU without network:

1. tasks: site-kind tasks (:mod:`vcoder.data.site_kinds`) of the ``train`` split for training and a fixed sample of
   the ``test`` split (``--split validation``: of the validation split, for pilots and recipe choices) for scoring,
   the same for every seed; the splits are decided by content (the checked values, never the title or colour), so
   no scored task can be passed by replaying a training site;
2. trajectories: :func:`vcoder.sites.trajectories.write_trajectories` plays every training task in the REAL
   environment (rendered in Chromium, graded by its scripted cases): a first attempt, flawed in most trajectories,
   the environment's feedback, the fixing turn, ``<finish/>``;
3. a tiny Qwen2.5 causal LM (:func:`vcoder.models.tiny_lm.build_tiny_lm`) whose BPE tokenizer is trained on the
   training trajectories' text (never on held-out requests);
4. agent SFT (:mod:`vcoder.pipelines.grpo.agent_sft`: loss on the assistant turns) from the random model;
5. Step-GRPO (:mod:`vcoder.pipelines.step_grpo`) from the SFT output, on training tasks;
6. greedy episodes on the scored tasks for the untrained, SFT and Step-GRPO models
   (:func:`vcoder.pipelines.agent_quickstart.evaluation.evaluate_agent`: WebGen-Bench accuracy, well-formed turns,
   first- vs last-turn accuracy), curves, ``summary.json`` (with the split scored and its digest, and the training digest).

The recipes are ordinary pipeline recipes (parsed by the same parsers as ``vcoder train``), only embedded here.
Every stage speaks one turn format, chosen once (``agent_format_name``, ``--agent-format``; see
:mod:`vcoder.pipelines.agent_quickstart.formats`): vcoder's own, or WebGen-Agent's (Bolt markup, its system prompt,
feedback, malformed rules and step reward), on the same splits.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from vcoder.pipelines.agent_quickstart.config import (
    DATA,
    EPISODE,
    EVAL_SPLITS,
    FAST,
    FLAWS,
    HELDOUT_SEED,
    KINDS,
    SFT_RECIPE,
    STEP_GRPO_RECIPE,
    STYLE,
    SYSTEM_PROMPT,
    TRAIN_EXPECT_MS,
)
from vcoder.pipelines.agent_quickstart.formats import agent_format
from vcoder.pipelines.agent_quickstart.stages import (
    accuracy_by_kind,
    build_model,
    cpu_seconds,
    draw_tasks,
    make_trajectories,
    read_jsonl_dataset,
    step_grpo_recipe,
    step_reward_window,
    task_row,
    train_agent_sft,
    train_step_grpo,
)

logger = logging.getLogger(__name__)

# the recipes and stages stay importable from here, where they lived before the split
__all__ = [
    "DATA",
    "EPISODE",
    "EVAL_SPLITS",
    "FAST",
    "FLAWS",
    "HELDOUT_SEED",
    "KINDS",
    "SFT_RECIPE",
    "STEP_GRPO_RECIPE",
    "STYLE",
    "SYSTEM_PROMPT",
    "TRAIN_EXPECT_MS",
    "accuracy_by_kind",
    "build_model",
    "cpu_seconds",
    "draw_tasks",
    "make_trajectories",
    "read_jsonl_dataset",
    "run_agent_quickstart",
    "step_reward_window",
    "task_row",
    "train_agent_sft",
    "train_step_grpo",
]


def run_agent_quickstart(
    out_dir: str,
    *,
    seed: int = 0,
    fast: bool = False,
    progress: bool = True,
    threads: int | None = None,
    split: str = "test",
    agent_format_name: str = "vcoder",
) -> dict[str, Any]:
    """Run the whole agent quickstart and write everything under ``out_dir``.

    Args:
        out_dir: output folder (trajectories/, model-init/, sft/, step_grpo/, eval/, curves/, summary.json).
        seed: seeds the model, the training tasks, the trajectories and both trainers (the held-out tasks are
            fixed).
        fast: a shortened run (tests): few tasks and steps.
        progress: show progress bars.
        threads: torch CPU threads; None picks the idle cores.
        split: the split scored: ``test`` (reported figures) or ``validation`` (pilots and recipe choices).
        agent_format_name: whose loop every stage speaks: ``vcoder`` or ``webgen_agent`` (WebGen-Agent's format:
            :mod:`vcoder.pipelines.agent_quickstart.formats`).

    Returns:
        The summary written to ``summary.json``.
    """
    from datasets import Dataset

    from vcoder.data.splits import scored_split
    from vcoder.pipelines.agent_quickstart.evaluation import evaluate_agent
    from vcoder.pipelines.plots import plot_runs
    from vcoder.pipelines.quickstart.stages import begin_run
    from vcoder.rendering import get_default_pool

    split = scored_split(split)
    fmt = agent_format(agent_format_name, vcoder_episode=EPISODE, flaws=FLAWS)
    threads, clock = begin_run(out_dir, threads)
    lap, timings = clock.lap, clock.timings

    n_train, n_heldout = (FAST["n_train"], FAST["n_heldout"]) if fast else (DATA["n_train"], DATA["n_heldout"])
    names = ("trajectories", "model-init", "sft", "step_grpo", "eval", "curves")
    paths = {name: os.path.join(out_dir, name) for name in names}

    pool = get_default_pool(max_pages=STEP_GRPO_RECIPE["render_max_pages"])
    drawn = draw_tasks(n_train, n_heldout, seed=seed, split=split)
    train_tasks, scored = drawn.train, drawn.scored
    heldout = [task_row(r) for r in scored]
    traj_path, written = make_trajectories(paths["trajectories"], train_tasks, pool=pool, seed=seed, fmt=fmt)
    lap("trajectories")

    init_dir = build_model(paths["model-init"], traj_path, seed=seed)
    lap("build_model")

    options, grader, site_scorer = fmt.options(), fmt.grader(pool, scored), fmt.site_scorer(pool)
    grpo_base = {**STEP_GRPO_RECIPE, **fmt.step_grpo}
    turn_tokens, budget = grpo_base["max_turn_tokens"], grpo_base["max_completion_length"]
    results: dict[str, Any] = {}

    def evaluate(name: str, model_dir: str) -> None:
        results[name] = evaluate_agent(
            model_dir,
            heldout,
            grader=grader,
            options=options,
            max_turn_tokens=turn_tokens,
            budget=budget,
            site_scorer=site_scorer,
        )
        logger.info("%s %s: %s", split, name, results[name]["mean"])
        lap(f"eval_{name}")

    evaluate("untrained", init_dir)

    sft_recipe = dict(SFT_RECIPE, **fmt.sft, model_name_or_path=init_dir, output_dir=paths["sft"], seed=seed)
    sft_recipe.update(dataset_source=traj_path)
    if fast:
        sft_recipe.update(max_steps=FAST["sft_steps"], logging_steps=1)
    train_agent_sft(sft_recipe, traj_path, progress=progress)
    lap("sft")
    evaluate("sft", paths["sft"])

    grpo_recipe = step_grpo_recipe(
        fmt, sft_dir=paths["sft"], output_dir=paths["step_grpo"], seed=seed, n_train=n_train, fast=fast
    )
    grpo_ds = Dataset.from_list([task_row(r) for r in train_tasks])
    train_grader = fmt.grader(pool, train_tasks, expect_timeout_ms=TRAIN_EXPECT_MS)
    train_step_grpo(grpo_recipe, grpo_ds, grader=train_grader, progress=progress)
    lap("step_grpo")
    evaluate("step_grpo", paths["step_grpo"])

    os.makedirs(paths["eval"], exist_ok=True)
    for name, result in results.items():
        with open(os.path.join(paths["eval"], f"{name}.json"), "w") as handle:
            json.dump(result, handle, indent=1)
    figures = plot_runs([paths["sft"], paths["step_grpo"]], paths["curves"], labels=["agent SFT", "Step-GRPO"])
    lap("curves")

    state = os.path.join(paths["step_grpo"], "trainer_state.json")
    summary = {
        "seed": seed,
        "fast": fast,
        "agent_format": fmt.name,
        "kinds": list(KINDS),
        "n_train": n_train,
        "n_heldout": len(heldout),
        # what the figures were measured on: the scored split and its digest (of its tasks' content keys), and the
        # training tasks' digest; two runs are comparable when their digests agree
        **drawn.record(),
        "trajectories": {k: written[k] for k in ("written", "flawed", "turns")},
        "wall_s": clock.wall_s(),
        "timings_s": timings,
        # other work on the machine slows every stage: the load average at the end and the CPU seconds this process
        # and its live children (the browser) used say how much
        "load_avg_1m": round(os.getloadavg()[0], 1),
        "cpu_s": round(cpu_seconds(), 1),
        "torch_threads": threads,
        "step_reward": step_reward_window(state),
        "heldout": {
            name: {
                k: result["mean"][k] for k in ("accuracy", "well_formed", "first_turn_accuracy", "last_turn_accuracy")
            }
            for name, result in results.items()
        },
        "heldout_by_kind": {name: accuracy_by_kind(result["tasks"]) for name, result in results.items()},
        "paths": {**paths, "report": figures.get("html"), "summary": os.path.join(out_dir, "summary.json")},
    }
    with open(summary["paths"]["summary"], "w") as handle:
        json.dump(summary, handle, indent=1)
    return summary
