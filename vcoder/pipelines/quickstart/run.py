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
import time
from typing import Any

from vcoder.data.splits import SCORED_SPLITS

logger = logging.getLogger(__name__)

# shared by both stages; the scored pages come from another split than the training pages (split by content)
# 128 held-out pages: a page scores 0 or ~0.8 by whether any block matched, so 48 left the mean noisy
DATA = {"n_train": 320, "n_holdout": 128, "width": 320, "height": 240, "difficulty": 0, "probe_pages": 16}

SFT_RECIPE: dict[str, Any] = {
    "dtype": "float32",
    "dataset": "synthetic",
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
    "learning_rate": 2.0e-3,
    "lr_scheduler_type": "cosine",
    "warmup_steps": 10,
    "per_device_train_batch_size": 16,
    "max_length": None,
    # measured on the held-out pages: the loss sits at ~0.33 (what the page template alone gives) until step ~250,
    # then falls as the model starts to read the screenshot. Stopped at 240 steps the model wrote nearly the same
    # page for every screenshot (seed 2: first block's colour right on 29% of pages, 8 colours; overall 0.630),
    # and GRPO on top had nothing image-dependent to sharpen. At 480 steps: 75%, overall 0.837 (seed 0 0.379 ->
    # 0.755, seed 1 0.455 -> 0.530), ~205 s on 2 cores.
    "max_steps": 480,
    "logging_steps": 5,
    "save_strategy": "no",
    "report_to": "none",
    "disable_tqdm": True,
    "dataloader_num_workers": 0,
}

GRPO_RECIPE: dict[str, Any] = {
    "dtype": "float32",
    "dataset": "synthetic",
    # Design2Code components of the rendered page vs the rendered reference, validity, and SSIM. The block components
    # see text blocks only: the reference page with its grid set to the wrong number of columns scores 4.91 of 5 on
    # them, with the wrong box height 4.96, so alone they gave GRPO almost no signal on the layout and it drifted (seed
    # 2, validation pages: right column count 72% -> 36% of pages). SSIM sees the boxes: 0.65-0.90 for those pages.
    "reward_funcs": ["validity", "block", "text", "position", "color", "ssim"],
    "reward_weights": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    "render_width": DATA["width"],
    "render_height": DATA["height"],
    "render_timeout_ms": 10000,
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
    "learning_rate": 1.0e-4,
    "lr_scheduler_type": "constant_with_warmup",
    "warmup_steps": 3,
    # 64 completions a generation, each generation used for two optimizer steps (PPO-clipped); measured here, one step
    # per generation at this learning rate let the entropy run away mid-run (0.37 -> 1.4). 8 completions a page on 8
    # pages, chosen on the VALIDATION pages of seeds 0-2 (issue 35; experiments/results/quickstart_generations_validation.json):
    # GRPO - SFT -0.009 / +0.067 / -0.006 (mean +0.017), against -0.063 / +0.084 / -0.009 (+0.004) with 4 on 16. Most of
    # a group's spread is whether a sample guessed the heading (right on ~13% of samples); 4 samples rarely hold one.
    "per_device_train_batch_size": 64,
    "num_generations": 8,
    "num_iterations": 2,
    # Raw reward differences as advantages: dividing by each group's standard deviation turned differences of a few
    # thousandths (four near-identical completions) into advantages of +-1. The heading is the largest text block and
    # the small model can hardly read it (right on 13% of sampled pages), so it is most of the reward's spread; a KL
    # term to the SFT model keeps what the rewards barely see (page background, heading guesses) from drifting.
    "scale_rewards": "none",
    "beta": 0.04,
    "max_completion_length": 48,
    "temperature": 1.0,
    "max_steps": 40,
    "logging_steps": 1,
    "log_completions": True,
    "num_completions_to_print": 0,
    "save_strategy": "no",
    "report_to": "none",
    "disable_tqdm": True,
    "dataloader_num_workers": 0,
}

# --fast: the same path end to end with everything shrunk (tests)
FAST = {"n_train": 32, "n_holdout": 8, "sft_steps": 10, "grpo_steps": 4}
#: the splits a run may be scored on: ``test`` (reported) or ``validation`` (pilots, sweeps, recipe choices)
EVAL_SPLITS = SCORED_SPLITS


def row_key(row: dict[str, Any]) -> str:
    """The content key of a synthetic row (id ``d<difficulty>-<seed>``): its page's (what the split digests hash)."""
    from vcoder.data.synthetic import content_key, generate_page

    difficulty, seed = row["id"][1:].split("-", 1)
    return content_key(generate_page(int(seed), difficulty=int(difficulty)))


def rows_digest(rows: list[dict[str, Any]]) -> str:
    """The split digest of synthetic rows: a hash of their pages' content keys."""
    from vcoder.data.splits import split_digest

    return split_digest(row_key(row) for row in rows)


def draw_pages(n_train: int, n_scored: int, *, seed: int, split: str, pool: Any, progress: bool = False):
    """The run's training pages (``train`` split, drawn with ``seed``) and scored pages (``split``, seed
    ``seed + 7919``; 0: none), screenshot in ``pool``: a ``vcoder.data.splits.Drawn``."""
    from vcoder.data.splits import draw_split
    from vcoder.pipelines.grpo.data import synthetic_rows

    shot = dict(difficulty=DATA["difficulty"], width=DATA["width"], height=DATA["height"], progress=progress)

    def draw(n: int, draw_seed: int, name: str) -> list[dict[str, Any]]:
        return synthetic_rows(n, seed=draw_seed, pool=pool, split=name, **shot)

    return draw_split(
        draw, row_key, n_train=n_train, n_scored=n_scored, train_seed=seed, scored_seed=seed + 7919, split=split
    )


def begin_run(out_dir: str, threads: int | None) -> tuple[int, StageClock]:
    """Start a quickstart run: torch's CPU threads (None: :func:`auto_threads`), ``out_dir`` made, a stage clock.

    Returns:
        ``(threads, clock)``."""
    import torch

    threads = threads or auto_threads()
    torch.set_num_threads(threads)
    os.makedirs(out_dir, exist_ok=True)
    return threads, StageClock()


class StageClock:
    """Wall seconds per stage of a run: ``lap(name)`` closes the stage that ended now; ``timings`` maps each stage
    to its seconds and ``wall_s()`` is the time since the clock started."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self.start = self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = round(now - self.last, 1)
        self.last = now

    def wall_s(self) -> float:
        return round(time.perf_counter() - self.start, 1)


def auto_threads(sample_s: float = 0.5) -> int:
    """Torch threads for the quickstart: the cores that are idle right now (at most 4), at least one.

    Measured on 2 cores: an SFT step of the small model took 1.24 s on 1 thread and 0.81 s on 2 when the machine was
    otherwise idle, but 2.8 s on 1 thread and 36 s on 2 when other jobs shared the cores (OpenMP threads spin while
    they wait). CPU use is sampled over ``sample_s`` (the load average lags by minutes, e.g. right after set-up).
    """
    import psutil

    cores = os.cpu_count() or 1
    idle = cores * (1.0 - psutil.cpu_percent(interval=sample_s) / 100.0)
    return max(1, min(4, cores, int(idle + 0.25)))


def _parse(parser, recipe: dict[str, Any]) -> tuple:
    return tuple(parser.parse_dict(recipe, allow_extra_keys=False))


def check_grpo_overrides(overrides: dict[str, Any]) -> None:
    """Parse the GRPO stage's recipe with ``overrides`` before any work, so a typo costs nothing.

    Raises:
        ValueError: naming the key or value the GRPO pipeline's parser refused.
    """
    from vcoder.pipelines import grpo

    recipe = dict(GRPO_RECIPE, model_name_or_path="model", output_dir="out", **overrides)
    from vcoder.pipelines.grpo.train import check_aggregation

    try:
        check_aggregation(_parse(grpo.make_parser(), recipe)[1])
    except (ValueError, TypeError) as exc:
        raise ValueError(f"GRPO stage overrides {overrides}: {exc}") from None


def reward_window(
    state_path: str, *, key: str = "reward", frac: float = 0.2, window: int | None = None
) -> dict[str, float]:
    """Mean of a logged value over the first and the last logged steps of a run.

    Args:
        state_path: a ``trainer_state.json``.
        key: the logged key.
        frac: share of the logged steps in each window (at least one step), when ``window`` is not given.
        window: logged steps in each window (e.g. the logs of whole passes over a fixed set of prompts, so both
            windows score the same prompts); capped at half the logged steps.

    Returns:
        ``{"start", "end", "delta", "window", "steps"}``.
    """
    with open(state_path) as handle:
        history = [row[key] for row in json.load(handle)["log_history"] if isinstance(row.get(key), (int, float))]
    if not history:
        raise ValueError(f"{state_path} logged no {key!r}; was the run empty?")
    n = window if window is not None else int(len(history) * frac)
    n = max(1, min(n, len(history) // 2 or 1))
    start, end = sum(history[:n]) / n, sum(history[-n:]) / n
    return {"start": start, "end": end, "delta": end - start, "window": n, "steps": len(history)}


def quiet(trainer) -> None:
    """Drop the callback that prints every log dict: the progress bar shows the live values instead."""
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)


def train_stage(pipeline, recipe: dict[str, Any], train_ds, *, label: str, progress: bool):
    """Parse an embedded recipe with the pipeline's own parser, train, and save model + trainer_state.json; returns
    the trainer (its ``args`` are the configuration that ran)."""
    from vcoder.pipelines.progress import BarCallback
    from vcoder.pipelines.recipes import train_and_save

    script_args, training_args, model_args = _parse(pipeline.make_parser(), recipe)
    trainer, _ = pipeline.build_trainer(
        script_args,
        training_args,
        model_args,
        train_dataset=train_ds,
        callbacks=[BarCallback(label, disable=not progress)],
    )
    quiet(trainer)
    train_and_save(trainer, None, script_args, training_args, resume=None)
    return trainer


def evaluate_policy(model_dir: str, holdout, pool, *, label: str, progress: bool) -> dict[str, Any]:
    """Score a saved model on scored pages as the quickstart does (greedy, 48 tokens, Design2Code block metrics).

    Args:
        model_dir: the model folder.
        holdout: rows ``{"prompt", "image", "html", "id"}``.
        pool: a ``BrowserPool`` to render in.
        label: the model's name in the log.
        progress: show progress bars.

    Returns:
        ``vcoder.pipelines.grpo.heldout.evaluate_model``'s ``{"mean", "pages"}``.
    """
    from vcoder.models.loading import load_policy
    from vcoder.pipelines.grpo.heldout import evaluate_model

    model, processor = load_policy(model_dir)
    result = evaluate_model(
        model,
        processor,
        holdout,
        width=DATA["width"],
        height=DATA["height"],
        max_new_tokens=48,
        progress=progress,
        pool=pool,
    )
    logger.info("held-out %s: %s", label, result["mean"])
    return result


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
