"""The agent quickstart's stages: drawing the tasks, playing the scripted trajectories, the tiny LM, agent SFT and
Step-GRPO on embedded recipes, and the summary's arithmetic (the step-reward window, accuracy per kind, CPU seconds).
"""

from __future__ import annotations

import json
import os
from typing import Any

from vcoder.pipelines.agent_quickstart.config import DATA, EPISODE, FLAWS, HELDOUT_SEED, KINDS, STYLE, TRAIN_EXPECT_MS
from vcoder.pipelines.agent_quickstart.formats import AgentFormat, agent_format


def task_row(row: dict[str, Any]) -> dict[str, Any]:
    """A site-kind task as a Step-GRPO row (the columns of :data:`vcoder.pipelines.step_grpo.data.COLUMNS`)."""
    from vcoder.pipelines.step_grpo.data import COLUMNS

    return {name: row.get(name) or "" for name in COLUMNS}


def train_step_grpo(recipe: dict[str, Any], train_ds, *, grader: Any, progress: bool) -> None:
    """Parse an embedded Step-GRPO recipe with the pipeline's own parser, train on ``train_ds``, save."""
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.progress import BarCallback
    from vcoder.pipelines.quickstart.stages import quiet
    from vcoder.pipelines.recipes import parse_embedded, train_and_save

    script_args, training_args, model_args = parse_embedded(step_grpo.make_parser(), recipe, where="Step-GRPO stage")
    callbacks = [BarCallback("Step-GRPO", disable=not progress)]
    trainer = step_grpo.build_trainer(
        script_args, training_args, model_args, train_dataset=train_ds, grader=grader, callbacks=callbacks
    )
    quiet(trainer)
    train_and_save(trainer, None, script_args, training_args, resume=None)


def step_grpo_recipe(
    fmt: AgentFormat, *, sft_dir: str, output_dir: str, seed: int, n_train: int, fast: bool
) -> dict[str, Any]:
    """The Step-GRPO stage's embedded recipe in ``fmt``'s loop, from the SFT model in ``sft_dir`` (``fast``: the
    ``--fast`` shrink). One recipe for a run and for a rerun of its stage, so a rerun trains as the run did."""
    from vcoder.pipelines.agent_quickstart.config import FAST, STEP_GRPO_RECIPE

    recipe = {**STEP_GRPO_RECIPE, **fmt.step_grpo}
    recipe.update(model_name_or_path=sft_dir, output_dir=output_dir, seed=seed)
    recipe.update(site_task_kinds=list(KINDS), site_task_samples=n_train, dataset_seed=seed)
    if fast:
        recipe.update(max_steps=FAST["grpo_steps"], per_device_train_batch_size=4, num_generations=2)
    return recipe


def make_trajectories(
    folder: str, tasks: list[dict[str, Any]], *, pool: Any, seed: int, fmt: AgentFormat | None = None
) -> tuple[str, dict]:
    """Play every task's scripted trajectory in the real environment; ``(path of train.jsonl, summary)``.

    One file (``index.html``) per site: a fixing turn then rewrites the whole page, one format for the model to
    learn (the split layout's fixing turn sends only the changed files: a second format). ``fmt``: whose loop the
    trajectories are played in (default: vcoder's)."""
    from vcoder.sites.trajectories import TrajectoryOptions

    fmt = fmt or agent_format("vcoder", vcoder_episode=EPISODE, flaws=FLAWS)
    path = os.path.join(folder, "train.jsonl")
    options = TrajectoryOptions(
        seed=seed,
        flaws=fmt.flaws,
        layouts=("single",),
        style=STYLE,
        concurrency=8,
        expect_timeout_ms=TRAIN_EXPECT_MS,
        episode=fmt.episode,
    )
    return path, fmt.write_trajectories(path, tasks, pool=pool, options=options)


def build_model(folder: str, trajectories: str, *, seed: int) -> str:
    """The tiny LM, its tokenizer trained on the trajectories' text (digits kept apart, see ``split_digits``)."""
    from vcoder.models.tiny_lm import build_tiny_lm

    with open(trajectories, encoding="utf-8") as handle:
        texts = [m["content"] for line in handle if line.strip() for m in json.loads(line)["messages"]]
    return str(build_tiny_lm(folder, arch=DATA["arch"], size=DATA["size"], corpus=texts, seed=seed, split_digits=True))


def train_agent_sft(recipe: dict[str, Any], trajectories: str, *, progress: bool) -> None:
    """Agent SFT on the trajectories with their flawed first attempts kept out of the loss (see
    :func:`vcoder.pipelines.grpo.agent_sft.drop_turns_from_loss`), then save."""
    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.grpo.agent_sft import drop_turns_from_loss
    from vcoder.pipelines.progress import BarCallback
    from vcoder.pipelines.quickstart.stages import parse_recipe, quiet
    from vcoder.pipelines.recipes import train_and_save

    with open(trajectories + ".meta.jsonl", encoding="utf-8") as handle:
        flawed = [json.loads(line)["flawed_turns"] for line in handle if line.strip()]
    script_args, training_args, model_args = parse_recipe(sft.make_parser(), recipe)
    callbacks = [BarCallback("agent SFT", disable=not progress)]
    trainer, _ = sft.build_trainer(
        script_args, training_args, model_args, train_dataset=read_jsonl_dataset(trajectories), callbacks=callbacks
    )
    trainer.train_dataset = drop_turns_from_loss(trainer.train_dataset, flawed)
    quiet(trainer)
    train_and_save(trainer, None, script_args, training_args, resume=None)


def draw_tasks(n_train: int, n_scored: int, *, seed: int, split: str):
    """The run's training tasks (``train`` split, drawn with ``seed``) and scored tasks (``split``, the same for
    every seed: :data:`HELDOUT_SEED`), a ``vcoder.data.splits.Drawn``."""
    from vcoder.data.site_kinds import kind_tasks
    from vcoder.data.splits import draw_split

    def draw(n: int, draw_seed: int, name: str) -> list[dict[str, Any]]:
        return kind_tasks(n, draw_seed, split=name, kinds=KINDS)

    return draw_split(
        draw,
        lambda row: row["content_key"],
        n_train=n_train,
        n_scored=n_scored,
        train_seed=seed,
        scored_seed=HELDOUT_SEED,
        split=split,
    )


def step_reward_window(state_path: str) -> dict[str, Any]:
    """Step-GRPO's mean step reward over its first and last quarter of steps (``reward_window``'s fields); with no
    step scored (WebGen-Agent's loop drops a trajectory whose reply reached its cap: a barely trained model's every
    one) ``start``, ``end`` and ``delta`` are None and ``steps`` is 0."""
    from vcoder.pipelines.quickstart.stages import reward_window

    try:
        return reward_window(state_path, key="step_grpo/step_reward_mean", frac=0.25)
    except ValueError:
        return {"start": None, "end": None, "delta": None, "window": 0, "steps": 0}


def accuracy_by_kind(per_task: list[dict[str, Any]]) -> dict[str, float]:
    """Held-out accuracy per site kind (task ids are ``<kind>-<seed>``), in the order the kinds first appear."""
    scores: dict[str, list[float]] = {}
    for task in per_task:
        scores.setdefault(task["id"].rsplit("-", 1)[0], []).append(task["last_turn_accuracy"])
    return {kind: sum(values) / len(values) for kind, values in scores.items()}


def read_jsonl_dataset(path: str):
    """A JSONL file as a ``datasets.Dataset``."""
    from datasets import Dataset

    with open(path, encoding="utf-8") as handle:
        return Dataset.from_list([json.loads(line) for line in handle if line.strip()])


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and its live child processes."""
    import psutil

    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total
