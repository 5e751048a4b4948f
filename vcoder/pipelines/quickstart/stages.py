"""The quickstart's stages as parts the quickstarts share: drawing the pages, the run's clock and threads, parsing and
training an embedded recipe, scoring a saved policy on held-out pages, and the reward window of a trainer state.
"""

from __future__ import annotations

import json
import logging
import os
import time
from typing import Any

from vcoder.pipelines.quickstart.config import DATA, GRPO_RECIPE

logger = logging.getLogger(__name__)


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


def parse_recipe(parser, recipe: dict[str, Any]) -> tuple:
    """An embedded recipe parsed by a pipeline's own parser (unknown keys and values of the wrong type refused): its
    dataclasses, in order."""
    from vcoder.pipelines.recipes import parse_embedded

    return parse_embedded(parser, recipe)


def check_grpo_overrides(overrides: dict[str, Any]) -> None:
    """Parse the GRPO stage's recipe with ``overrides`` before any work, so a typo costs nothing.

    Raises:
        ValueError: naming the key or value the GRPO pipeline's parser refused.
    """
    from vcoder.pipelines import grpo
    from vcoder.pipelines.grpo.train import check_aggregation
    from vcoder.pipelines.recipes import parse_embedded

    recipe = dict(GRPO_RECIPE, model_name_or_path="model", output_dir="out", **overrides)
    where = f"GRPO stage overrides {overrides}"
    training_args = parse_embedded(grpo.make_parser(), recipe, where=where)[1]
    try:
        check_aggregation(training_args)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: {exc}") from None


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

    script_args, training_args, model_args = parse_recipe(pipeline.make_parser(), recipe)
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
