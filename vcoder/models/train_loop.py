"""The run loop, once: resolve the resume point, ``trainer.train``, save model + processor, the trainer state, a
summary.

Every TRL trainer vcoder drives runs through :func:`run_training`: the GRPO, SFT and Step-GRPO recipes
(``vcoder.pipelines.recipes.train_and_save``, which adds the holdout score), a curriculum phase
(``vcoder.pipelines.curriculum.phase``) and the ORM's training (``vcoder.orm.train``). What each caller saves
differs, and is an argument: a recipe saves through ``trainer.save_model`` (adapters only under LoRA, gathered
across processes under DeepSpeed/FSDP), the ORM saves a merged, plain model folder. Like :mod:`.loading` it sits in
``vcoder.models`` so that ``vcoder.orm``, below the pipelines, can use it.

The web agent's ``filtered_bc`` phases (``vcoder.pipelines.web_agent``) train with their own small NLL loop on a
causal LM, not a TRL trainer, so they use :mod:`.loading` but not this loop; its ``webrl`` phases run
``WebAgentWebRLTrainer`` (a TRL ``SFTTrainer``) through it.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


class ResumeError(ValueError):
    """A ``resume_from_checkpoint`` that names no folder; the message says what to give."""


def resolve_resume(resume: str | bool | None, output_dir: str) -> str | None:
    """Turn ``resume_from_checkpoint`` into a checkpoint folder (or None to start fresh).

    ``true``/``last`` mean "the latest checkpoint-N in output_dir, if any": rerunning an interrupted command with
    the same flags continues it, and a first run with the flag simply starts.

    Args:
        resume: None, a path, or ``true``/``last``.
        output_dir: the run's output folder.

    Returns:
        The checkpoint folder to resume from, or None.

    Raises:
        ResumeError: an explicit path that does not exist.
    """
    if resume in (None, False, "", "false", "False"):
        return None
    if resume in (True, "true", "True", "last", "latest"):
        from transformers.trainer_utils import get_last_checkpoint

        last = get_last_checkpoint(output_dir) if os.path.isdir(output_dir) else None
        if last is None:
            logger.warning("resume requested but %s has no checkpoint-N folder yet; starting from step 0", output_dir)
        else:
            logger.info("resuming from %s", last)
        return last
    if not os.path.isdir(str(resume)):
        raise ResumeError(
            f"resume_from_checkpoint={resume!r} is not a folder; give a checkpoint-N folder, or 'last' for the "
            f"latest checkpoint in output_dir={output_dir!r}"
        )
    return str(resume)


def run_training(
    trainer,
    *,
    resume: str | bool | None = None,
    save_dir: str | Path | None = None,
    merged_dir: str | Path | None = None,
    save_state: bool = True,
) -> dict[str, Any]:
    """Train (resuming if asked), then save what the caller keeps and return a summary.

    Before training it warns (:func:`vcoder.models.precision.check_master_weights`) when the trainer would update
    16-bit weights with no fp32 master copy (a bf16 full fine-tune without DeepSpeed ZeRO or FSDP).

    Args:
        trainer: a ``transformers.Trainer`` (TRL's GRPO / SFT / Step-GRPO / WebRL trainers).
        resume: ``resume_from_checkpoint`` as a recipe gives it (see :func:`resolve_resume`).
        save_dir: save through ``trainer.save_model`` there (model and processor; adapters only under LoRA; every
            process must call it under DeepSpeed/FSDP).
        merged_dir: save a plain model folder there (LoRA merged, processor beside it) with
            :func:`vcoder.models.loading.save_policy`.
        save_state: write the trainer's ``trainer_state.json`` (the log history `vcoder plot` reads) to its
            ``output_dir``.

    Returns:
        ``{"output_dir", "global_step", "train_runtime", "train_loss", "model"}``: ``model`` is the trained model
        (the merged one when ``merged_dir`` is given), unwrapped from accelerate.
    """
    from vcoder.models.precision import check_master_weights

    check_master_weights(trainer)  # 16-bit weights with no fp32 master copy lose most updates: say so before hours
    result = trainer.train(resume_from_checkpoint=resolve_resume(resume, trainer.args.output_dir))
    if save_dir is not None:
        trainer.save_model(str(save_dir))
    if save_state:
        trainer.save_state()
    model = trainer.accelerator.unwrap_model(trainer.model)
    if merged_dir is not None:
        from vcoder.models.loading import save_policy

        model = save_policy(model, trainer.processing_class, merged_dir)
    return {
        "output_dir": trainer.args.output_dir,
        "global_step": trainer.state.global_step,
        "train_runtime": result.metrics.get("train_runtime"),
        "train_loss": result.training_loss,
        "model": model,
    }
