"""Agent SFT (WebGen-RL's first stage): fine-tune the site-building policy on multi-turn trajectories before
Step-GRPO.

    vcoder train sft --config configs/sft/qwen2_5_coder_7b_agent.yaml      (dataset: trajectories)

Rows are ``{"messages": [...]}`` conversations (:func:`vcoder.data.trajectories.read_trajectories`): system prompt,
task, the model's turns and the environment's feedback turns. The loss covers the assistant turns only, through
TRL's own mechanism: ``SFTConfig(assistant_only_loss=True)``, for which ``SFTTrainer`` swaps the model's chat template
for its training variant with ``{% generation %}`` markers (TRL ships them for Qwen2.5 and Qwen3) and its collator
sets the labels of every other token to -100. The model is a text LM loaded by TRL from ``model_name_or_path``
(``model_init_kwargs`` from the recipe's ``dtype`` and ``attn_implementation``); its output folder is what the
Step-GRPO recipes start from.
"""

from __future__ import annotations

import logging
import random
from typing import Any

logger = logging.getLogger(__name__)


def site_request(messages: list[dict[str, Any]]) -> str:
    """The website request of a trajectory: its first user turn's text without the site prompt's lead-in."""
    from vcoder.data.prompts import SITE_TASK_PROMPT

    user = next((m.get("content") for m in messages if m.get("role") == "user"), None)
    if isinstance(user, list):  # content parts
        user = " ".join(str(p.get("text") or "") for p in user if isinstance(p, dict))
    return str(user or "").removeprefix(SITE_TASK_PROMPT.split("{instruction}")[0])


def trajectory_dataset(script_args):
    """The recipe's trajectories (``dataset_source``) as a ``datasets.Dataset`` with one ``messages`` column.

    ``max_samples`` keeps a deterministic random sample (seed ``dataset_seed``), as for the other datasets.
    """
    from datasets import Dataset

    from vcoder.data.bench_guard import refuse_test_split
    from vcoder.data.trajectories import read_trajectories

    rows = read_trajectories(script_args.dataset_source)
    # trajectories of WebGen-Bench's test tasks (its requests in the first user turn) are its test split too
    refuse_test_split(
        [{"instruction": site_request(r["messages"])} for r in rows],
        allow=script_args.allow_test_split,
        where=f"dataset_source={script_args.dataset_source!r}",
    )
    if script_args.max_samples is not None and script_args.max_samples < len(rows):
        keep = sorted(random.Random(script_args.dataset_seed).sample(range(len(rows)), script_args.max_samples))
        rows = [rows[i] for i in keep]
    logger.info("agent SFT: %d trajectories from %s", len(rows), script_args.dataset_source)
    return Dataset.from_list(rows)


def build_agent_trainer(script_args, training_args, model_args, *, train_dataset=None, callbacks=None):
    """Checks, trajectories, and TRL's ``SFTTrainer`` with the loss on assistant turns.

    Args:
        script_args: ``VCoderScriptArguments`` with ``dataset == "trajectories"``.
        training_args: ``SFTConfig`` (``assistant_only_loss`` must be true).
        model_args: ``ModelConfig``.
        train_dataset: ``{"messages"}`` rows (default: read from ``dataset_source``).
        callbacks: extra ``TrainerCallback`` objects.

    Returns:
        ``(trainer, None)``: no holdout (WebGen-Bench measures the agent).

    Raises:
        ValueError: ``assistant_only_loss`` is off, or packing is on (one line each, with the fix).
    """
    from trl import SFTTrainer, get_peft_config

    from vcoder.models.loading import quantization_kwargs, recipe_init_kwargs
    from vcoder.pipelines.recipes import check_model_path

    if not training_args.assistant_only_loss:
        raise ValueError(
            "dataset=trajectories trains on the model's own turns only: set assistant_only_loss: true (otherwise the "
            "system prompt, the task and the environment's feedback would be learned as if the model wrote them)"
        )
    if training_args.packing:
        raise ValueError("dataset=trajectories keeps one conversation per sequence: set packing: false")
    check_model_path(model_args.model_name_or_path)
    if train_dataset is None:
        train_dataset = trajectory_dataset(script_args)
    # TRL loads the model by name: hand it the shared loading arguments (quantisation over the recipe's own)
    init = recipe_init_kwargs(model_args, training_args)
    init.update(quantization_kwargs(model_args))
    training_args.model_init_kwargs = init
    trainer = SFTTrainer(
        model=model_args.model_name_or_path,
        args=training_args,
        train_dataset=train_dataset,
        peft_config=get_peft_config(model_args),
        callbacks=callbacks,
    )
    return trainer, None


def drop_turns_from_loss(dataset, turns: list[list[int]]):
    """Keep some assistant turns out of the loss of a dataset ``SFTTrainer`` has prepared (its ``labels`` column).

    A trajectory's deliberately flawed first attempt (the ``flawed_turns`` of
    :func:`vcoder.sites.trajectories.write_trajectories`' sidecar) belongs in the conversation, because the feedback
    and the fixing turn refer to it, but not in the loss: trained on, the model would learn to make the mistake.
    An assistant turn is one run of labels that are not -100 (every other token is masked by the chat template's
    generation markers).

    Args:
        dataset: the trainer's ``train_dataset`` (rows in the order of the trajectories, with ``labels``).
        turns: per row, the 1-based assistant turns to leave out.

    Returns:
        The dataset with those turns' labels set to -100.

    Raises:
        ValueError: the row counts differ, or a row has fewer assistant turns than a turn named.
    """
    if len(dataset) != len(turns):
        raise ValueError(f"{len(dataset)} prepared rows but {len(turns)} lists of turns: give one list per trajectory")

    def mask(example, index):
        labels, drop = list(example["labels"]), set(turns[index])
        if not drop:
            return {"labels": labels}
        turn, inside = 0, False
        for i, label in enumerate(labels):
            if label != -100 and not inside:
                turn += 1
            inside = label != -100
            if inside and turn in drop:
                labels[i] = -100
        if max(drop) > turn:
            raise ValueError(
                f"row {index} has {turn} assistant turns in its labels; cannot leave out turn {max(drop)}"
            )
        return {"labels": labels}

    return dataset.map(mask, with_indices=True)
