"""SFT warm start on TRL: screenshot -> HTML pairs, the assistant turn being the reference page; or, with
``dataset: trajectories``, agent SFT on multi-turn trajectories (:mod:`vcoder.pipelines.grpo.agent_sft`).

    accelerate launch -m vcoder.pipelines.grpo.sft --config configs/sft/qwen2_5_vl_3b.yaml
    vcoder train sft --config configs/tiny_cpu_sft.yaml --max_steps 50
    vcoder train sft --config configs/sft/qwen2_5_coder_7b_agent.yaml

Same recipe layout as the GRPO pipeline (``VCoderScriptArguments`` + TRL's ``SFTConfig`` + ``ModelConfig``). The
target is formatted by ``format_style`` (a fenced code block for ``fenced``), so the format reward of a later GRPO
run agrees with what SFT taught.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

logger = logging.getLogger(__name__)


def make_parser():
    """The ``TrlParser`` over (VCoderScriptArguments, SFTConfig, ModelConfig)."""
    from trl import ModelConfig, SFTConfig, TrlParser

    from vcoder.pipelines.grpo.args import VCoderScriptArguments

    return TrlParser((VCoderScriptArguments, SFTConfig, ModelConfig), prog="vcoder train sft")


def build_trainer(script_args, training_args, model_args, *, train_dataset=None, callbacks=None):
    """Checks, data (with SFT targets), model and ``SFTTrainer``.

    Args:
        script_args: ``VCoderScriptArguments``.
        training_args: ``SFTConfig``.
        model_args: ``ModelConfig``.
        train_dataset: rows ``{prompt, image, html}`` (default: built from ``script_args``).
        callbacks: extra ``TrainerCallback`` objects.

    Returns:
        ``(trainer, holdout)``.
    """
    from trl import SFTTrainer, get_peft_config

    from vcoder.pipelines.grpo.data import build_datasets, with_sft_targets
    from vcoder.pipelines.recipes import check_model_path, load_model_and_processor

    if script_args.dataset == "trajectories":
        from vcoder.pipelines.grpo.agent_sft import build_agent_trainer

        return build_agent_trainer(
            script_args, training_args, model_args, train_dataset=train_dataset, callbacks=callbacks
        )
    check_model_path(model_args.model_name_or_path)
    holdout = None
    if train_dataset is None:
        train_dataset, holdout = build_datasets(script_args, progress=training_args.process_index == 0)
    train_dataset = with_sft_targets(train_dataset, script_args.format_style)
    # SFTTrainer would pass the extra columns to the collator; html/id are not model inputs
    train_dataset = train_dataset.remove_columns([c for c in ("html", "id") if c in train_dataset.column_names])
    model, processor = load_model_and_processor(model_args, training_args)
    trainer = SFTTrainer(
        model=model,
        args=training_args,
        train_dataset=train_dataset,
        processing_class=processor,
        peft_config=get_peft_config(model_args),
        callbacks=callbacks,
    )
    return trainer, holdout


def main(script_args, training_args, model_args) -> dict:
    """Run SFT, save the model (and processor) to ``output_dir``, optionally score the holdout.

    Args:
        script_args: ``VCoderScriptArguments``.
        training_args: ``SFTConfig``.
        model_args: ``ModelConfig``.

    Returns:
        ``{"output_dir", "global_step", "train_runtime", "holdout"}``.
    """
    from vcoder.pipelines.grpo.heldout import score_holdout
    from vcoder.pipelines.recipes import run_pipeline

    return run_pipeline(build_trainer, script_args, training_args, model_args, name="SFT", score_holdout=score_holdout)


def cli(argv: Sequence[str] | None = None) -> int:
    """Parse a recipe plus overrides and run :func:`main` (the ``__main__`` entry and ``vcoder train sft``)."""
    from vcoder.pipelines.recipes import parse_recipe

    script_args, training_args, model_args = parse_recipe(make_parser(), argv)
    main(script_args, training_args, model_args)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from vcoder.pipelines.recipes import run_cli

    sys.exit(run_cli(cli, "vcoder.pipelines.grpo.sft"))
