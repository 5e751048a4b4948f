"""The offline end-to-end quickstart: tiny model -> synthetic pages -> SFT -> GRPO -> held-out Design2Code -> curves.

Everything runs on a CPU without network: a small Qwen2.5-VL is built from a config with a locally trained
tokenizer, difficulty-0 synthetic pages are screenshotted by the rendering engine, SFT teaches the page template,
GRPO trains on the rendering rewards (Design2Code Block/Text/Position/Colour of the rendered completion against
the rendered reference in their training form, which deleting content cannot raise, plus SSIM and validity), and
greedy generations on held-out pages are scored with the official Design2Code block metrics for the untrained, the
SFT and the GRPO model. The pages are split by content (:func:`vcoder.data.synthetic.content_key`: the heading, the
blocks' labels and the column count, never the background or box height): the training pages come from the
``train`` split, the scored pages from ``test`` (reported figures) or ``validation`` (``--split validation``: pilots
and recipe choices), so no scored page shows a training page's text and layout. The recipes are ordinary pipeline recipes
(parsed by the same parsers as ``vcoder train``), only embedded here.

GRPO draws its pages from all the training pages (a fresh draw of 16 for each generation), not a fixed few: measured
on a fixed set of 16 pages, GRPO learned those pages and lost on held-out ones (seed 2: held-out overall 0.625 ->
0.339). The mean reward it logs is of sampled completions on whichever pages a step drew, so the start and end of a
run are compared by a probe instead (``vcoder.pipelines.grpo.probe``): the same ``probe_pages`` training pages, greedy
decoding, the run's own reward mix, scored with the SFT model and again with the GRPO model.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from vcoder.pipelines.quickstart.config import DATA, EVAL_SPLITS, FAST, GRPO_RECIPE, SFT_RECIPE
from vcoder.pipelines.quickstart.stages import (
    StageClock,
    auto_threads,
    begin_run,
    check_grpo_overrides,
    draw_pages,
    evaluate_policy,
    parse_recipe,
    quiet,
    reward_window,
    row_key,
    rows_digest,
    train_stage,
)

logger = logging.getLogger(__name__)

# the recipes and stages stay importable from here, where they lived before the split
__all__ = [
    "DATA",
    "EVAL_SPLITS",
    "FAST",
    "GRPO_RECIPE",
    "SFT_RECIPE",
    "StageClock",
    "auto_threads",
    "begin_run",
    "check_grpo_overrides",
    "draw_pages",
    "evaluate_policy",
    "parse_recipe",
    "quiet",
    "reward_window",
    "row_key",
    "rows_digest",
    "run_quickstart",
    "train_stage",
]


def run_quickstart(
    out_dir: str,
    *,
    seed: int = 0,
    fast: bool = False,
    progress: bool = True,
    arch: str = "qwen2_5_vl",
    threads: int | None = None,
    sft_only: bool = False,
    split: str = "test",
    grpo_overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the whole quickstart and write everything under ``out_dir``.

    Args:
        out_dir: output folder (model-init/, sft/, grpo/, eval/, curves/, summary.json).
        seed: seeds the model initialisation, the synthetic pages and both trainers.
        fast: a shortened run (tests): few pages and steps.
        progress: show progress bars.
        arch: tiny model architecture (``qwen2_5_vl`` or ``qwen3_vl``).
        threads: torch CPU threads; None picks with :func:`auto_threads`.
        sft_only: stop after the SFT stage (no evaluation, no GRPO): ``out_dir/sft`` is the policy the CPU curriculum
            recipes start from (``configs/curriculum/tiny_cpu*.yaml``).
        split: the split of the scored pages: ``test`` (reported figures) or ``validation`` (pilots, recipe choices).
        grpo_overrides: keys of the GRPO stage's recipe to change (any ``GRPOConfig`` or vcoder script field), e.g.
            ``{"multi_objective_aggregation": "normalize_then_sum"}`` (GDPO); recorded in the summary.

    Returns:
        The summary written to ``summary.json``.
    """

    from vcoder.data import to_dataset
    from vcoder.data.splits import scored_split
    from vcoder.models.tiny import build_tiny_vlm
    from vcoder.pipelines import grpo
    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.grpo.heldout import write_eval
    from vcoder.pipelines.grpo.probe import reward_probe
    from vcoder.pipelines.plots import plot_runs
    from vcoder.rendering import BrowserPool
    from vcoder.rewards import build_rewards

    split = scored_split(split)
    threads, clock = begin_run(out_dir, threads)
    lap = clock.lap

    n_train, n_holdout = (FAST["n_train"], FAST["n_holdout"]) if fast else (DATA["n_train"], DATA["n_holdout"])
    paths = {name: os.path.join(out_dir, name) for name in ("model-init", "sft", "grpo", "eval", "curves")}

    init_dir = str(build_tiny_vlm(paths["model-init"], arch=arch, size="small", seed=seed))
    lap("build_model")

    results: dict[str, Any] = {}
    # one browser for the screenshots and the evaluations (the rewards render in the process-wide default pool)
    with BrowserPool(max_pages=2) as pool:
        drawn = draw_pages(n_train, 0 if sft_only else n_holdout, seed=seed, split=split, pool=pool, progress=progress)
        train_rows, holdout = drawn.train, drawn.scored
        train_ds = to_dataset(train_rows)
        lap("synthetic_data")
        if sft_only:
            return _sft_only(
                out_dir,
                paths,
                train_ds,
                n_train,
                seed=seed,
                fast=fast,
                progress=progress,
                clock=clock,
                threads=threads,
                train_digest=drawn.train_digest,
            )

        results["untrained"] = evaluate_policy(init_dir, holdout, pool, label="untrained", progress=progress)
        lap("eval_untrained")

        sft_recipe = dict(SFT_RECIPE, model_name_or_path=init_dir, output_dir=paths["sft"], seed=seed)
        sft_recipe.update(synthetic_samples=n_train, dataset_seed=seed)
        if fast:
            sft_recipe.update(max_steps=FAST["sft_steps"], logging_steps=1)
        train_stage(sft, sft_recipe, train_ds, label="SFT", progress=progress)
        lap("sft")
        results["sft"] = evaluate_policy(paths["sft"], holdout, pool, label="sft", progress=progress)
        lap("eval_sft")

        grpo_recipe = dict(GRPO_RECIPE, model_name_or_path=paths["sft"], output_dir=paths["grpo"], seed=seed)
        grpo_recipe.update(synthetic_samples=n_train, dataset_seed=seed)
        if fast:
            grpo_recipe.update(max_steps=FAST["grpo_steps"], per_device_train_batch_size=8)
        grpo_recipe.update(grpo_overrides or {})
        probe_funcs = build_rewards(
            grpo_recipe["reward_funcs"],
            render_width=DATA["width"],
            render_height=DATA["height"],
            render_timeout_ms=grpo_recipe["render_timeout_ms"],
        )

        def probe(model_dir: str) -> dict[str, Any]:
            rows, weights = train_rows[: DATA["probe_pages"]], grpo_recipe["reward_weights"]
            length = grpo_recipe["max_completion_length"]
            return reward_probe(
                model_dir, rows, reward_funcs=probe_funcs, reward_weights=weights, max_new_tokens=length
            )

        probe_start = probe(paths["sft"])
        lap("probe_sft")
        # every training page is eligible: each generation draws a fresh batch of pages from all of them
        train_stage(grpo, grpo_recipe, train_ds, label="GRPO", progress=progress)
        lap("grpo")
        probe_end = probe(paths["grpo"])
        lap("probe_grpo")
        results["grpo"] = evaluate_policy(paths["grpo"], holdout, pool, label="grpo", progress=progress)
        lap("eval_grpo")

    for name, result in results.items():
        write_eval(result, paths["eval"], name)
    figures = plot_runs([paths["sft"], paths["grpo"]], paths["curves"], labels=["SFT", "GRPO"], smooth=5)
    lap("curves")

    reward = {
        "start": probe_start["reward"],
        "end": probe_end["reward"],
        "delta": probe_end["reward"] - probe_start["reward"],
        "pages": probe_start["pages"],
        "weights": dict(zip(grpo_recipe["reward_funcs"], grpo_recipe["reward_weights"])),
        "components": {"start": probe_start["components"], "end": probe_end["components"]},
        # the logged mean reward of sampled completions, first vs last fifth of the generations (varied pages)
        "sampled": reward_window(os.path.join(paths["grpo"], "trainer_state.json")),
    }
    summary = {
        "seed": seed,
        "fast": fast,
        "n_train": n_train,
        "n_holdout": len(holdout),
        # what the figures were measured on: the scored split and its digest (of its pages' content keys), and the
        # training pages' digest; two runs are comparable when their digests agree
        **drawn.record(),
        "wall_s": clock.wall_s(),
        "timings_s": clock.timings,
        # other work on the machine slows every stage; the 1-minute load average at the end says how much
        "load_avg_1m": round(os.getloadavg()[0], 1),
        "torch_threads": threads,
        "grpo_overrides": dict(grpo_overrides or {}),
        "grpo_reward": reward,
        "holdout": {name: result["mean"] for name, result in results.items()},
        "paths": {**paths, "report": figures.get("html"), "summary": os.path.join(out_dir, "summary.json")},
    }
    with open(summary["paths"]["summary"], "w") as handle:
        json.dump(summary, handle, indent=1)
    return summary


def _sft_only(out_dir, paths, train_ds, n_train, *, seed, fast, progress, clock, threads, train_digest):
    """The quickstart's SFT stage alone (``--sft-only``): the model in ``out_dir/sft`` and a short summary."""
    from vcoder.pipelines.grpo import sft

    sft_recipe = dict(SFT_RECIPE, model_name_or_path=paths["model-init"], output_dir=paths["sft"], seed=seed)
    sft_recipe.update(synthetic_samples=n_train, dataset_seed=seed)
    if fast:
        sft_recipe.update(max_steps=FAST["sft_steps"], logging_steps=1)
    train_stage(sft, sft_recipe, train_ds, label="SFT", progress=progress)
    clock.lap("sft")
    summary = {
        "seed": seed,
        "fast": fast,
        "sft_only": True,
        "n_train": n_train,
        "train_digest": train_digest,
        "wall_s": clock.wall_s(),
        "timings_s": clock.timings,
        "load_avg_1m": round(os.getloadavg()[0], 1),
        "torch_threads": threads,
        "paths": {
            "model-init": paths["model-init"],
            "sft": paths["sft"],
            "summary": os.path.join(out_dir, "summary.json"),
        },
    }
    with open(summary["paths"]["summary"], "w") as handle:
        json.dump(summary, handle, indent=1)
    return summary
