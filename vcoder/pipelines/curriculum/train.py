"""One phase's KL-constrained update: the trainer starts from the previous phase's policy, which is also its reference.

TRL's ``GRPOTrainer`` (1.16) builds its reference model, when ``beta > 0`` and the policy is not a PEFT model, with
``create_model_from_path(get_config_model_id(model.config))``: it reloads whatever folder the policy was loaded
from. So loading phase k's policy from phase k−1's saved folder makes that folder the reference as well — WebRL's
reference reset to the previous phase's policy — with nothing to patch. With LoRA, TRL uses no reference copy and
disables the adapter instead, i.e. the reference is the base weights; that is why each phase's final policy is saved
*merged* (``merge_and_unload``): the next phase's base, and therefore its reference, is the previous phase's policy.
:func:`reference_model` reads which folder the built trainer really uses, and the phase report names it.
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)


def grpo_trainer(parsed: tuple, rows, recorder, *, success_reward: str, algorithm):
    """One-shot GRPO's phase trainer: the recipe's rewards (the success reward wrapped by ``recorder``) and the
    ``algorithm``'s update (:class:`~vcoder.pipelines.curriculum.modes.Algorithm`: TRL's GRPO loss or WebRL's),
    with :class:`~vcoder.pipelines.curriculum.replay.ReplayLossMixin` on top."""
    from vcoder.data import to_dataset
    from vcoder.pipelines import grpo
    from vcoder.pipelines.curriculum.replay import ReplayLossMixin
    from vcoder.pipelines.recipes import build_reward_funcs

    script_args, training_args, model_args = parsed
    funcs = build_reward_funcs(script_args, training_args.reward_weights)
    index = script_args.reward_funcs.index(success_reward)
    funcs[index] = recorder.wrap(funcs[index])
    cls = type(f"Curriculum{algorithm.class_stem}Trainer", (ReplayLossMixin, algorithm.trainer_base()), {})
    trainer, _ = grpo.build_trainer(
        script_args, training_args, model_args, train_dataset=to_dataset(rows), reward_funcs=funcs, trainer_cls=cls
    )
    return trainer


def step_trainer(parsed: tuple, rows, recorder, *, tasks, orm_model: str | None):
    """Step-GRPO's phase trainer (with the replay mixin); ``tasks`` without an evaluator (written tasks) are judged
    by the ORM in ``orm_model`` while the phase trains (a written task and no ORM: ValueError)."""
    from datasets import Dataset

    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.curriculum.orm import has_evaluator, orm_verdict_grader
    from vcoder.pipelines.curriculum.replay import ReplayLossMixin
    from vcoder.pipelines.step_grpo.grading import build_grader
    from vcoder.pipelines.step_grpo.trainer import StepGRPOTrainer

    script_args, training_args, model_args = parsed
    grader = None  # every task has an evaluator: the trainer builds the recipe's grader on first use
    if not all(has_evaluator(t) for t in tasks):  # the ORM's verdicts are the written tasks' outcomes at rollout time
        grader = orm_verdict_grader(orm_model, tasks, build_grader(script_args, output_dir=training_args.output_dir))
    cls = type("CurriculumStepGRPOTrainer", (ReplayLossMixin, StepGRPOTrainer), {})
    trainer = step_grpo.build_trainer(
        script_args, training_args, model_args, train_dataset=Dataset.from_list(rows), grader=grader, trainer_cls=cls
    )
    # TRL calls the trainer's reward list; the episode's final reward (0-10 scale) is recorded as a 0-1 score
    trainer.reward_funcs[0] = recorder.wrap(trainer.reward_funcs[0])
    return trainer


def step_score_scale(script_args) -> float:
    """The top of Step-GRPO's step reward scale (screenshot_weight + gui_weight + orm_weight; 10 by default)."""
    return float(script_args.screenshot_weight + script_args.gui_weight + script_args.orm_weight) or 1.0


def reference_model(trainer, expected: str) -> str:
    """The folder the trainer's KL reference comes from; refuses one that is not ``expected`` (the phase's start).

    Raises:
        RuntimeError: ``beta`` is 0 (no reference) or the reference is another model.
    """
    import os

    from peft import PeftModel
    from trl.trainer.utils import get_config_model_id

    if trainer.beta == 0.0:
        raise RuntimeError("the phase trainer has beta = 0: no KL reference; the curriculum needs beta > 0")
    model = trainer.accelerator.unwrap_model(trainer.model)
    if trainer.ref_model is None and isinstance(model, PeftModel):
        return expected  # TRL disables the adapter: the reference is the base, loaded from `expected`
    ref = trainer.accelerator.unwrap_model(trainer.ref_model)
    name = get_config_model_id(ref.config)
    if os.path.abspath(name) != os.path.abspath(expected):
        raise RuntimeError(
            f"the phase's KL reference was loaded from {name!r}, not from the phase's start {expected!r}"
        )
    return name


def save_policy(trainer, folder: str) -> None:
    """Save the trained policy (merged when it is a PEFT model) and its processor to ``folder``
    (:func:`vcoder.models.loading.save_policy`)."""
    from vcoder.models.loading import save_policy as save

    save(trainer.accelerator.unwrap_model(trainer.model), trainer.processing_class, folder)
