"""The agent quickstart's Step-GRPO stage again, from a finished run's SFT model, with some of its recipe changed.

What a recipe choice needs and no more: the same SFT model, the same training tasks (drawn again from the run's seed
and checked against its digest), the same trainer seed and format, scored greedily on the tasks of the split asked
for (``validation`` for recipe choices). The SFT model is scored on the same tasks once per run folder (the file
``rerun-<split>-sft.json`` beside ``summary.json``), so every arm of a sweep is compared with one figure.

Example::

    result = rerun_step_grpo("outputs/quickstart-agent", "outputs/turns6/seed0", overrides={"max_turns": 6})
    result["step_grpo"]["accuracy"] - result["sft"]["accuracy"]
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["check_step_grpo_overrides", "rerun_step_grpo"]

#: the figures a rerun reports for each model (``evaluate_agent``'s means)
FIGURES = ("accuracy", "well_formed", "first_turn_accuracy", "last_turn_accuracy", "finished", "mean_turns")


def check_step_grpo_overrides(overrides: dict[str, Any]) -> None:
    """Parse the Step-GRPO recipe with ``overrides`` before any work, so a typo costs nothing.

    Raises:
        ValueError: one line naming the unknown key (with the closest known one) or the value the Step-GRPO
            pipeline's parser refused (``max_turns=six``, a batch that is no multiple of the group size).
    """
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.agent_quickstart.config import STEP_GRPO_RECIPE
    from vcoder.pipelines.recipes import parse_embedded
    from vcoder.suggest import did_you_mean

    parser = step_grpo.make_parser()
    known = {f.dest for f in parser._actions}
    for key in overrides:
        if key not in known:
            raise ValueError(f"{key!r} is not a Step-GRPO recipe key{did_you_mean(key, sorted(known))}")
    recipe = {**STEP_GRPO_RECIPE, "model_name_or_path": "model", "output_dir": "out", **overrides}
    parse_embedded(parser, recipe, where=f"Step-GRPO stage overrides {overrides}")


def _scores(result: dict[str, Any]) -> dict[str, float]:
    return {k: result["mean"][k] for k in FIGURES}


def rerun_step_grpo(
    run_dir: str,
    out_dir: str,
    *,
    overrides: dict[str, Any] | None = None,
    split: str = "validation",
    small: bool = False,
    threads: int | None = None,
) -> dict[str, Any]:
    """Train the agent quickstart's Step-GRPO stage from ``run_dir/sft`` into ``out_dir/step_grpo`` and score it.

    Args:
        run_dir: a finished ``vcoder quickstart --agent --out DIR`` folder (its ``summary.json`` and ``sft/``).
        out_dir: where this rerun writes its model and its evaluation.
        overrides: keys of the Step-GRPO recipe to change (checked before any work). The held-out episodes keep
            the run's own options, so a changed training cap (``max_turns``) is scored as before.
        split: the split scored (``validation`` for recipe choices, ``test`` for reported figures).
        small: one Step-GRPO step of 2 trajectories and 2 scored tasks (checks of the path, no learning).
        threads: torch CPU threads (None: the quickstart's choice of idle cores).

    Returns:
        ``{"seed", "agent_format", "split", "split_digest", "train_digest", "overrides", "sft", "step_grpo",
        "step_reward", "wall_s", "timings_s"}``; ``sft`` and ``step_grpo`` hold the held-out figures of
        :data:`FIGURES`.

    Raises:
        FileNotFoundError: ``run_dir`` holds no summary or no SFT model.
        ValueError: an unknown override, or training tasks that no longer match the run's digest.
    """
    import torch
    from datasets import Dataset

    from vcoder.data.splits import scored_split
    from vcoder.pipelines.agent_quickstart.config import (
        DATA,
        EPISODE,
        FAST,
        FLAWS,
        STEP_GRPO_RECIPE,
        TRAIN_EXPECT_MS,
    )
    from vcoder.pipelines.agent_quickstart.evaluation import evaluate_agent
    from vcoder.pipelines.agent_quickstart.formats import agent_format
    from vcoder.pipelines.agent_quickstart.stages import (
        draw_tasks,
        step_grpo_recipe,
        step_reward_window,
        task_row,
        train_step_grpo,
    )
    from vcoder.pipelines.quickstart.stages import StageClock, auto_threads
    from vcoder.rendering import get_default_pool

    overrides = dict(overrides or {})
    check_step_grpo_overrides(overrides)
    split = scored_split(split)
    summary_path, sft_dir = os.path.join(run_dir, "summary.json"), os.path.join(run_dir, "sft")
    if not os.path.exists(summary_path) or not os.path.exists(os.path.join(sft_dir, "config.json")):
        raise FileNotFoundError(f"{run_dir} holds no finished agent quickstart (summary.json and sft/)")
    with open(summary_path, encoding="utf-8") as handle:
        summary = json.load(handle)
    seed, fast = summary["seed"], summary.get("fast", False)
    fmt = agent_format(summary.get("agent_format", "vcoder"), vcoder_episode=EPISODE, flaws=FLAWS)
    torch.set_num_threads(threads or auto_threads())
    clock = StageClock()

    n_scored = 2 if small else (FAST["n_heldout"] if fast else DATA["n_heldout"])
    drawn = draw_tasks(summary["n_train"], n_scored, seed=seed, split=split)
    if drawn.train_digest != summary["train_digest"]:
        raise ValueError(f"the training tasks drawn again differ from {run_dir}'s (digest {summary['train_digest']})")
    scored = [task_row(r) for r in drawn.scored]

    base = {**STEP_GRPO_RECIPE, **fmt.step_grpo}  # the run's own caps, which its scoring used
    output_dir = os.path.join(out_dir, "step_grpo")
    recipe = step_grpo_recipe(
        fmt, sft_dir=sft_dir, output_dir=output_dir, seed=seed, n_train=summary["n_train"], fast=fast or small
    )
    if small:
        recipe.update(max_steps=1)
    recipe.update(overrides)

    pool = get_default_pool(max_pages=STEP_GRPO_RECIPE["render_max_pages"])
    options, grader, site_scorer = fmt.options(), fmt.grader(pool, drawn.scored), fmt.site_scorer(pool)

    def evaluate(model_dir: str) -> dict[str, Any]:
        # the run's own reply and trajectory caps: a rerun is scored as the run was
        return evaluate_agent(
            model_dir,
            scored,
            grader=grader,
            options=options,
            max_turn_tokens=base["max_turn_tokens"],
            budget=base["max_completion_length"],
            site_scorer=site_scorer,
        )

    sft_file = os.path.join(run_dir, f"rerun-{split}-sft.json")
    cached = None
    if os.path.exists(sft_file) and not small:
        with open(sft_file, encoding="utf-8") as handle:
            cached = json.load(handle)
    if cached is not None and cached.get("split_digest") == drawn.split_digest:
        sft_scores = cached["sft"]
    else:
        sft_scores = _scores(evaluate(sft_dir))
        if not small:
            with open(sft_file, "w", encoding="utf-8") as handle:
                json.dump({"split_digest": drawn.split_digest, "sft": sft_scores}, handle, indent=1)
    clock.lap("eval_sft")

    train_grader = fmt.grader(pool, drawn.train, expect_timeout_ms=TRAIN_EXPECT_MS)
    train_ds = Dataset.from_list([task_row(r) for r in drawn.train])
    train_step_grpo(recipe, train_ds, grader=train_grader, progress=False)
    clock.lap("step_grpo")
    grpo_result = evaluate(recipe["output_dir"])
    clock.lap("eval_step_grpo")

    result = {
        "seed": seed,
        "agent_format": fmt.name,
        **drawn.record(),
        "overrides": overrides,
        "sft": sft_scores,
        "step_grpo": _scores(grpo_result),
        "step_reward": step_reward_window(os.path.join(recipe["output_dir"], "trainer_state.json")),
        "wall_s": clock.wall_s(),
        "timings_s": clock.timings,
    }
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "rerun.json"), "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1)
    return result
