"""GRPO on TRL with vcoder's rendering rewards: screenshot -> HTML.

Run it on one process, or many with accelerate (each process owns its browser pool, so rewards scale with it):

    accelerate launch -m vcoder.pipelines.grpo --config configs/grpo/qwen2_5_vl_3b.yaml
    accelerate launch --config_file configs/accelerate/cpu_2proc.yaml -m vcoder.pipelines.grpo \
        --config configs/tiny_cpu_grpo.yaml
    vcoder train grpo --config configs/tiny_cpu_grpo.yaml --max_steps 20

(``vcoder/pipelines/training.py``, the file this pipeline had before, still launches it for existing scripts.)

The recipe is TRL's own ``GRPOConfig`` and ``ModelConfig`` (LoRA/quantisation through PEFT) plus
``VCoderScriptArguments`` in one flat YAML; command-line flags override it. ``--resume_from_checkpoint last``
continues the latest ``checkpoint-N`` of ``output_dir`` at the same step.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

logger = logging.getLogger(__name__)


def make_parser():
    """The ``TrlParser`` over (VCoderScriptArguments, GRPOConfig, ModelConfig)."""
    from trl import GRPOConfig, ModelConfig, TrlParser

    from vcoder.pipelines.grpo.args import VCoderScriptArguments

    return TrlParser((VCoderScriptArguments, GRPOConfig, ModelConfig), prog="vcoder train grpo")


def build_trainer(
    script_args,
    training_args,
    model_args,
    *,
    train_dataset=None,
    callbacks=None,
    reward_funcs=None,
    trainer_cls=None,
):
    """Everything ``main`` does before training: checks, rewards, data, model, trainer.

    Args:
        script_args: ``VCoderScriptArguments``.
        training_args: ``GRPOConfig``.
        model_args: ``ModelConfig``.
        train_dataset: rows to train on (default: built from ``script_args``).
        callbacks: extra ``TrainerCallback`` objects.
        reward_funcs: the reward callables, one per ``script_args.reward_funcs`` name (default: built from the
            recipe); e.g. the recipe's own, one of them wrapped to record what it returns.
        trainer_cls: a ``GRPOTrainer`` subclass to build (default: ``GRPOTrainer``).

    Returns:
        ``(trainer, holdout)``: the ``GRPOTrainer`` and the holdout rows (None without a holdout).
    """
    from trl import GRPOTrainer, get_peft_config

    from vcoder.pipelines.grpo.data import build_datasets, check_columns
    from vcoder.pipelines.recipes import build_reward_funcs, check_model_path, load_model_and_processor

    # cheap checks first: a typo must not cost a model load or a dataset download
    check_model_path(model_args.model_name_or_path)
    check_aggregation(training_args)
    environment_factory = None
    if script_args.environment == "refine":
        from vcoder.envs.trl import refine_environment
        from vcoder.pipelines.recipes import check_reward_weights

        # the recipe's reward mix is the environment's (scored on its last render); TRL then sees one reward, the
        # environment's get_reward, so GRPOConfig's weights (one per reward_funcs name) must not reach it
        check_reward_weights(script_args.reward_funcs, training_args.reward_weights)
        settings = script_args.refine_settings(training_args.reward_weights)
        training_args.reward_weights = None
        environment_factory = refine_environment(settings)
        reward_funcs = [] if reward_funcs is None else reward_funcs
    elif reward_funcs is None:
        reward_funcs = build_reward_funcs(script_args, training_args.reward_weights)
    holdout = None
    if train_dataset is None:
        train_dataset, holdout = build_datasets(script_args, progress=training_args.process_index == 0)
    check_columns(train_dataset, where="GRPO training dataset")
    model, processor = load_model_and_processor(model_args, training_args)
    if script_args.tool_chat_template:
        set_chat_template(processor, script_args.tool_chat_template)
    cls = trainer_cls or GRPOTrainer
    if script_args.advantage_baseline == "greedy":
        from vcoder.pipelines.grpo.greedy_baseline import GreedyBaselineMixin

        cls = type(f"GreedyBaseline{cls.__name__}", (GreedyBaselineMixin, cls), {})
    trainer = cls(
        model=model,
        reward_funcs=reward_funcs,
        args=training_args,
        train_dataset=train_dataset,
        processing_class=processor,
        peft_config=get_peft_config(model_args),
        callbacks=callbacks,
        environment_factory=environment_factory,
    )
    return trainer, holdout


#: GRPOConfig.multi_objective_aggregation's values in TRL 1.16 (GDPO is normalize_then_sum)
AGGREGATIONS = ("sum_then_normalize", "normalize_then_sum")


def check_aggregation(training_args) -> None:
    """Refuse a ``multi_objective_aggregation`` TRL would only reject at the first step.

    Raises:
        RecipeError: quoting the value and the accepted ones.
    """
    from vcoder.pipelines.recipes import RecipeError

    value = getattr(training_args, "multi_objective_aggregation", AGGREGATIONS[0])
    if value not in AGGREGATIONS:
        raise RecipeError(
            f"multi_objective_aggregation={value!r}; give one of {AGGREGATIONS} (GDPO: normalize_then_sum)"
        )


def set_chat_template(processor, template: str) -> None:
    """Give ``processor`` (and its tokenizer) another chat template: a name TRL bundles (``qwen3_vl``) or a file.

    Args:
        processor: a VLM processor or a tokenizer.
        template: ``trl/chat_templates/<name>.jinja``'s name, or the path of a ``.jinja`` file.

    Raises:
        RecipeError: when the template is neither.
    """
    import os

    from vcoder.models.tiny import chat_template
    from vcoder.pipelines.recipes import RecipeError

    if os.path.isfile(template):
        with open(template, encoding="utf-8") as handle:
            text = handle.read()
    else:
        try:
            text = chat_template(template)
        except RuntimeError as exc:
            raise RecipeError(
                f"tool_chat_template={template!r} is neither a .jinja file nor a template TRL bundles "
                "(e.g. 'qwen3_vl')"
            ) from exc
    processor.chat_template = text
    tokenizer = getattr(processor, "tokenizer", None)
    if tokenizer is not None:
        tokenizer.chat_template = text


def main(script_args, training_args, model_args) -> dict:
    """Train with GRPO, save the model to ``output_dir``, optionally score the holdout.

    Args:
        script_args: ``VCoderScriptArguments``.
        training_args: ``GRPOConfig``.
        model_args: ``ModelConfig``.

    Returns:
        A summary ``{"output_dir", "global_step", "train_runtime", "holdout": metrics or None}``.
    """
    from vcoder.pipelines.grpo.heldout import score_holdout
    from vcoder.pipelines.recipes import run_pipeline

    return run_pipeline(
        build_trainer, script_args, training_args, model_args, name="GRPO", score_holdout=score_holdout
    )


def cli(argv: Sequence[str] | None = None) -> int:
    """Parse a recipe plus overrides and run :func:`main` (the ``__main__`` entry and ``vcoder train grpo``)."""
    from vcoder.pipelines.recipes import parse_recipe

    script_args, training_args, model_args = parse_recipe(make_parser(), argv)
    main(script_args, training_args, model_args)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from vcoder.pipelines.recipes import run_cli

    sys.exit(run_cli(cli, "vcoder.pipelines.grpo"))
