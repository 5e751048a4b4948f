"""The quickstart's GRPO stage again, from a finished run's SFT model, with some of its recipe changed.

Only the GRPO stage differs between two reruns of one run: the same SFT model, the same training pages (rebuilt from
the run's seed and checked against its digest), the same trainer seed; the result is scored on the pages of the split
asked for (``validation`` for recipe choices). ``experiments/gdpo_compare.py`` compares two reward aggregations with
it.

Example::

    result = rerun_grpo("outputs/quickstart", "outputs/gdpo/seed0",
                        overrides={"multi_objective_aggregation": "normalize_then_sum"})
    result["holdout"]["overall"]
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["rerun_grpo"]


def rerun_grpo(
    quickstart_dir: str,
    out_dir: str,
    *,
    overrides: dict[str, Any] | None = None,
    split: str = "validation",
    small: bool = False,
    progress: bool = False,
    threads: int | None = None,
) -> dict[str, Any]:
    """Train the quickstart's GRPO stage from ``quickstart_dir/sft`` into ``out_dir/grpo`` and score it.

    Args:
        quickstart_dir: a finished ``vcoder quickstart --out DIR`` folder.
        out_dir: where this rerun writes its model.
        overrides: keys of the GRPO recipe to change (checked before any work, as ``--grpo-set`` is).
        split: the split scored (``validation`` for recipe choices, ``test`` for reported figures).
        small: one GRPO step of 8 completions and 4 scored pages (checks of the path, no learning).
        progress: show progress bars.
        threads: torch CPU threads (None: the quickstart's choice of idle cores).

    Returns:
        ``{"seed", "split", "split_digest", "overrides", "multi_objective_aggregation" (what the trainer ran with),
        "holdout": metrics, "sampled": logged reward start/end, "wall_s"}``.
    """
    import torch

    from vcoder.data import to_dataset
    from vcoder.pipelines import grpo
    from vcoder.pipelines.quickstart.config import FAST, GRPO_RECIPE
    from vcoder.pipelines.quickstart.reuse import load_summary, scored_pages, training_pages
    from vcoder.pipelines.quickstart.stages import (
        StageClock,
        auto_threads,
        check_grpo_overrides,
        evaluate_policy,
        reward_window,
        rows_digest,
        train_stage,
    )
    from vcoder.rendering import BrowserPool

    overrides = dict(overrides or {})
    check_grpo_overrides(overrides)
    summary = load_summary(quickstart_dir)
    sft_dir = os.path.join(quickstart_dir, "sft")
    if not os.path.exists(os.path.join(sft_dir, "config.json")):
        raise FileNotFoundError(f"{sft_dir} holds no model: give a quickstart whose SFT stage has finished")
    torch.set_num_threads(threads or auto_threads())
    clock = StageClock()
    seed = summary["seed"]
    recipe = dict(GRPO_RECIPE, model_name_or_path=sft_dir, output_dir=os.path.join(out_dir, "grpo"), seed=seed)
    recipe.update(synthetic_samples=summary["n_train"], dataset_seed=seed)
    if summary.get("fast"):
        recipe.update(max_steps=FAST["grpo_steps"], per_device_train_batch_size=8)
    if small:
        recipe.update(max_steps=1, per_device_train_batch_size=8)
    recipe.update(overrides)
    with BrowserPool(max_pages=2) as pool:
        train_rows = training_pages(summary, pool=pool, progress=progress)
        holdout = scored_pages(summary, split=split, n=4 if small else None, pool=pool, progress=progress)
        clock.lap("pages")
        trainer = train_stage(grpo, recipe, to_dataset(train_rows), label="GRPO", progress=progress)
        clock.lap("grpo")
        result = evaluate_policy(recipe["output_dir"], holdout, pool, label="grpo", progress=progress)
        clock.lap("eval")
    return {
        "seed": seed,
        "split": split,
        "split_digest": rows_digest(holdout),
        "n": len(holdout),
        "overrides": overrides,
        "multi_objective_aggregation": trainer.args.multi_objective_aggregation,
        "holdout": result["mean"],
        "sampled": reward_window(os.path.join(recipe["output_dir"], "trainer_state.json")),
        "wall_s": clock.wall_s(),
        "timings_s": clock.timings,
    }
