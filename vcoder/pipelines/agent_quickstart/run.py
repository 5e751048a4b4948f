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

from vcoder.data.splits import SCORED_SPLITS
from vcoder.pipelines.agent_quickstart.formats import AgentFormat, agent_format

logger = logging.getLogger(__name__)

#: the site kinds trained and scored: four short-page kinds (replies of 40-60 tokens, at most ~100) that the SFT model
#: gets partly right (a validation-split pilot of 16 kinds: counter alone reached 0.94-0.95 held-out and left
#: Step-GRPO nothing to gain; the kinds with 100+ token pages were cut off at ``max_turn_tokens``)
KINDS = ("counter", "message", "pagination", "navigation")
#: the scored tasks (test or validation) come from this dataset seed for every run, so every seed is scored on the
#: same tasks
HELDOUT_SEED = 0
#: the splits a run may be scored on: ``test`` (reported) or ``validation`` (pilots, sweeps, recipe choices)
EVAL_SPLITS = SCORED_SPLITS
DATA = {"n_train": 128, "n_heldout": 32, "max_turns": 3, "arch": "qwen3", "size": "small"}

#: a short system prompt: the tiny model learns the turn format from the trajectories, and vcoder's full prompt (the
#: libraries, the file rules) was a third of every sequence it trained on
SYSTEM_PROMPT = (
    'Build the website. Reply with the whole page as <file path="index.html">...</file>. Each turn is tested; fix '
    "what failed, or reply <finish/> when every test passes."
)
#: the sites' style: one accent rule instead of a styled card (the cases never look at style; 5x fewer tokens)
STYLE = "accent"

#: how long the TRAINING grader (trajectories, Step-GRPO) re-checks an unmet expectation: these sites answer a click at
#: once, so an unmet one stays unmet, and the environment's default (5 s) made a wrong site cost 5 s a case; the
#: held-out scoring keeps the environment's default grader
TRAIN_EXPECT_MS = 1000

# the policy is in-process: a reply that takes long means a busy machine, never a failed model (a shared 2-core
# machine once took over the default 300 s for one round of replies), so the episodes wait for it
EPISODE = {
    "max_turns": DATA["max_turns"],
    "render_width": 1280,
    "render_height": 720,
    "reply_timeout_ms": 3_600_000,
    "system_prompt": SYSTEM_PROMPT,
}

SFT_RECIPE: dict[str, Any] = {
    "dtype": "float32",
    "dataset": "trajectories",
    "assistant_only_loss": True,
    "packing": False,
    "max_length": 2048,
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
    "learning_rate": 2.0e-3,
    "lr_scheduler_type": "cosine",
    "warmup_steps": 10,
    "per_device_train_batch_size": 4,
    "max_steps": 300,
    "logging_steps": 5,
    "save_strategy": "no",
    "report_to": "none",
    "disable_tqdm": True,
    "dataloader_num_workers": 0,
}

STEP_GRPO_RECIPE: dict[str, Any] = {
    "dtype": "float32",
    "dataset": "site_kinds",
    "max_turns": DATA["max_turns"],
    "max_turn_tokens": 128,
    "render_width": EPISODE["render_width"],
    "render_height": EPISODE["render_height"],
    "render_max_pages": 4,
    "reply_timeout_ms": EPISODE["reply_timeout_ms"],
    "system_prompt": SYSTEM_PROMPT,
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
    # round 5: 8 steps at 2e-4 (round 4: 12 at 5e-5, whose first step had a learning rate of 0), each step one task
    # of every kind (the training tasks cycle through KINDS and are not shuffled, so 4 tasks = 4 kinds)
    "learning_rate": 2.0e-4,
    "lr_scheduler_type": "constant",
    "warmup_steps": 0,
    "shuffle_dataset": False,
    "per_device_train_batch_size": 32,
    "num_generations": 8,
    "max_completion_length": 640,
    "temperature": 1.0,
    "beta": 0.04,
    "loss_type": "dapo",
    "mask_truncated_completions": True,
    "max_steps": 8,
    "logging_steps": 1,
    "log_completions": False,
    "save_strategy": "no",
    "report_to": "none",
    "disable_tqdm": True,
    "dataloader_num_workers": 0,
}

#: the first attempts' flaws, drawn uniformly: wrong values (the site of another request) three times as often as
#: each other flaw, because copying the request's values is what this model gets wrong
FLAWS = ("wrong_values",) * 3 + ("handler_missing", "wrong_label", "broken_markup", "cut_off")

# --fast: the same path end to end with everything shrunk (tests)
FAST = {"n_train": 16, "n_heldout": 4, "sft_steps": 6, "grpo_steps": 2}


def task_row(row: dict[str, Any]) -> dict[str, Any]:
    """A site-kind task as a Step-GRPO row (the columns of :data:`vcoder.pipelines.step_grpo.data.COLUMNS`)."""
    from vcoder.pipelines.step_grpo.data import COLUMNS

    return {name: row.get(name) or "" for name in COLUMNS}


def train_step_grpo(recipe: dict[str, Any], train_ds, *, grader: Any, progress: bool) -> None:
    """Parse an embedded Step-GRPO recipe with the pipeline's own parser, train on ``train_ds``, save."""
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.progress import BarCallback
    from vcoder.pipelines.quickstart.stages import quiet
    from vcoder.pipelines.recipes import train_and_save

    script_args, training_args, model_args = step_grpo.make_parser().parse_dict(recipe, allow_extra_keys=False)
    callbacks = [BarCallback("Step-GRPO", disable=not progress)]
    trainer = step_grpo.build_trainer(
        script_args, training_args, model_args, train_dataset=train_ds, grader=grader, callbacks=callbacks
    )
    quiet(trainer)
    train_and_save(trainer, None, script_args, training_args, resume=None)


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

    grpo_recipe = dict(grpo_base, model_name_or_path=paths["sft"], output_dir=paths["step_grpo"], seed=seed)
    grpo_recipe.update(site_task_kinds=list(KINDS), site_task_samples=n_train, dataset_seed=seed)
    if fast:
        grpo_recipe.update(max_steps=FAST["grpo_steps"], per_device_train_batch_size=4, num_generations=2)
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
