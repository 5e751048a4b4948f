"""Step-GRPO's launch script: the recipe, the trainer and ``main`` (the maths is :mod:`.advantages`).

The pipeline (``accelerate launch -m vcoder.pipelines.step_grpo --config configs/step_grpo/...``, or
``vcoder train step-grpo --config ...``): a recipe is TRL's ``GRPOConfig`` and ``ModelConfig`` plus
:class:`~vcoder.pipelines.step_grpo.args.StepGRPOScriptArguments` in one flat YAML; the trainer is
:class:`~vcoder.pipelines.step_grpo.trainer.StepGRPOTrainer` (rollouts, env mask, per-token advantages, logs).
``--resume_from_checkpoint last`` continues the latest ``checkpoint-N`` of ``output_dir`` at the same step.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments

__all__ = ["build_trainer", "check_step_config", "main", "cli", "make_parser"]

logger = logging.getLogger(__name__)


def make_parser():
    """The ``TrlParser`` over (StepGRPOScriptArguments, GRPOConfig, ModelConfig)."""
    from trl import GRPOConfig, ModelConfig, TrlParser

    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments

    return TrlParser((StepGRPOScriptArguments, GRPOConfig, ModelConfig), prog="vcoder train step-grpo")


def check_step_config(script_args: StepGRPOScriptArguments, training_args) -> None:
    """Cross-checks between the Step-GRPO arguments and TRL's ``GRPOConfig``.

    Raises:
        ValueError: naming both values and the fix.
    """
    budget = training_args.max_completion_length
    if budget is None or script_args.max_turn_tokens > budget:
        raise ValueError(
            f"max_turn_tokens={script_args.max_turn_tokens} exceeds max_completion_length={budget}, the "
            "trajectory's whole budget (every reply and feedback turn); raise max_completion_length (e.g. max_turns "
            "x (max_turn_tokens + feedback)) or lower max_turn_tokens"
        )
    if training_args.num_generations < 2:
        raise ValueError(
            f"num_generations={training_args.num_generations}: Step-GRPO compares the G trajectories of a task; "
            "use at least 2 (WebGen-Agent: 5)"
        )
    if script_args.dataset == "webgen_instruct" and not script_args.gui_base_url:
        raise ValueError(
            "dataset=webgen_instruct has no test cases: a writer LLM writes one GUI-agent test per task and a VLM GUI "
            "agent runs it; set gui_base_url and gui_model (and test_writer_base_url / test_writer_model "
            "for another writer model)"
        )
    if script_args.dataset == "webgen_bench" and not (script_args.gui_base_url or script_args.judge_base_url):
        raise ValueError(
            "dataset=webgen_bench has natural-language test cases, which only a VLM GUI agent can run, and no "
            "reference pages: with neither gui_base_url nor judge_base_url no step can be judged; set them "
            "(with gui_model / judge_model), or train on dataset=site_tasks, whose cases are scripted"
        )


def build_trainer(
    script_args, training_args, model_args, *, train_dataset=None, grader=None, callbacks=None, trainer_cls=None
):
    """Checks, tasks, model and the ``StepGRPOTrainer`` (TRL loads the model from ``model_name_or_path``).

    Args:
        script_args: ``StepGRPOScriptArguments``.
        training_args: ``GRPOConfig``.
        model_args: ``ModelConfig`` (dtype, attention, revision, LoRA, quantisation).
        train_dataset: task rows (default: ``step_data.task_rows(script_args)``).
        grader: a ``SiteGrader`` (default: built from ``script_args`` on first use; for ``agent_format=webgen_agent``
            that needs the seed's VLM, ``judge_base_url``, checked here).
        callbacks: extra ``TrainerCallback`` objects.
        trainer_cls: a ``StepGRPOTrainer`` subclass to build (default: ``StepGRPOTrainer``).

    Returns:
        The trainer.
    """
    from datasets import Dataset
    from trl import get_peft_config, get_quantization_config

    from vcoder.models.loading import recipe_init_kwargs
    from vcoder.pipelines.recipes import check_model_path
    from vcoder.pipelines.step_grpo.data import task_rows
    from vcoder.pipelines.step_grpo.trainer import StepGRPOTrainer

    if grader is None and script_args.agent_format == "webgen_agent" and not script_args.judge_base_url:
        # the grader built from the recipe needs the seed's VLM (a caller may hand in its own, e.g. offline ones)
        raise ValueError("agent_format=webgen_agent needs judge_base_url and judge_model: the seed's VLM")
    check_model_path(model_args.model_name_or_path)
    check_step_config(script_args, training_args)
    if train_dataset is None:
        train_dataset = Dataset.from_list(task_rows(script_args))
    # TRL loads the model by name (and the reference from the same name): hand it the shared loading arguments
    training_args.model_init_kwargs = recipe_init_kwargs(model_args, training_args)
    return (trainer_cls or StepGRPOTrainer)(
        model_args.model_name_or_path,
        args=training_args,
        step_args=script_args,
        train_dataset=train_dataset,
        grader=grader,
        callbacks=callbacks,
        peft_config=get_peft_config(model_args),
        quantization_config=get_quantization_config(model_args),
    )


def main(script_args, training_args, model_args) -> dict:
    """Train with Step-GRPO and save the model and the trainer state to ``output_dir``.

    Returns:
        ``{"output_dir", "global_step", "train_runtime", "holdout": None}``.
    """
    from vcoder.pipelines.recipes import run_pipeline

    def build(script_args, training_args, model_args):
        # no holdout: WebGen-Bench (`vcoder eval webgen-bench`) measures the policy
        return build_trainer(script_args, training_args, model_args), None

    return run_pipeline(build, script_args, training_args, model_args, name="Step-GRPO")


def cli(argv: Sequence[str] | None = None) -> int:
    """Parse a recipe plus overrides and run :func:`main` (the ``__main__`` entry and ``vcoder train step-grpo``)."""
    from vcoder.pipelines.recipes import parse_recipe

    script_args, training_args, model_args = parse_recipe(make_parser(), argv)
    main(script_args, training_args, model_args)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from vcoder.pipelines.recipes import run_cli

    sys.exit(run_cli(cli, "vcoder.pipelines.step_grpo"))
