"""How much a training run will write to ``output_dir``, and a warning before training when the disk is smaller.

Measured on an H100 with the 3B full fine-tune recipe (3.75B parameters, bf16): a 7.5 GB model and a ~21.5 GB
checkpoint, as the model plus AdamW's two moments in the parameters' dtype. The estimate here is the same
arithmetic, on the model built from its config on the meta device (no weights are loaded):

- a saved model: parameters x dtype size (a LoRA run saves only the adapter, float32 under PEFT's autocast);
- a checkpoint: that, plus the optimizer state unless ``save_only_model`` (AdamW: 2 moments in the trained
  parameters' dtype; under DeepSpeed ZeRO 12 bytes per trained parameter, fp32 master weights and moments, and
  below stage 3 a 16-bit copy of the module too; 1 byte per moment with an 8-bit optimizer), plus tokenizer and
  trainer files;
- at the peak, ``save_total_limit + 1`` checkpoints (Trainer deletes the oldest only after writing the newest),
  never more than the run makes, or the kept checkpoints plus the final model. GB here are 10^9 bytes.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from dataclasses import dataclass
from typing import NamedTuple

logger = logging.getLogger(__name__)

__all__ = ["DiskEstimate", "ParameterCount", "check_free_space", "count_parameters", "estimate_disk", "free_bytes"]

GB = 10**9
# tokenizer, processor and generation configs, trainer_state/rng/scheduler files written with every save
# (Qwen2.5-VL's tokenizer files alone are ~11 MB)
SAVE_OVERHEAD_BYTES = 16 * 2**20


@dataclass(frozen=True)
class DiskEstimate:
    """What a run writes to ``output_dir`` (bytes), from :func:`estimate_disk`.

    Attributes:
        parameters: the model's parameters (an adapter's excluded).
        trained: the parameters the optimizer updates (the adapter's under LoRA).
        model_bytes: one saved model (or adapter), overhead included.
        checkpoint_bytes: one ``checkpoint-N`` folder.
        kept: checkpoint folders left at the end (``save_total_limit`` or every save).
        peak_bytes: the most on disk at once: ``kept + 1`` checkpoints while the oldest is rotated out, or the
            kept ones plus the final model, whichever is more.
    """

    parameters: int
    trained: int
    model_bytes: int
    checkpoint_bytes: int
    kept: int
    peak_bytes: int

    def describe(self) -> str:
        """One line for logs and recipe headers."""
        return (
            f"{self.peak_bytes / GB:.1f} GB at the peak ({self.kept} checkpoint(s) kept, "
            f"{self.checkpoint_bytes / GB:.1f} GB each; final model {self.model_bytes / GB:.1f} GB; "
            f"{self.parameters / 1e9:.2f}B parameters, {self.trained / 1e9:.3f}B trained)"
        )


class ParameterCount(NamedTuple):
    """Parameters of a model as the run trains it (from :func:`count_parameters`)."""

    parameters: int  # the model's own (adapter excluded)
    parameter_bytes: int  # bytes per element of the model's weights
    trained: int  # what the optimizer updates: all parameters, or the adapter's
    trained_bytes: int  # bytes per element of the trained parameters
    adapter: bool  # LoRA: only the adapter is saved


def count_parameters(model_args, *, trust_remote_code: bool = False) -> ParameterCount:
    """Count the model's parameters on the meta device (its config only; no weights are read).

    Args:
        model_args: TRL ``ModelConfig`` (model, revision, dtype, LoRA settings).
        trust_remote_code: passed to ``AutoConfig``.

    Returns:
        A ``ParameterCount``.
    """
    import torch
    from transformers import AutoConfig, AutoModelForImageTextToText
    from trl import get_peft_config

    config = AutoConfig.from_pretrained(
        model_args.model_name_or_path, revision=model_args.model_revision, trust_remote_code=trust_remote_code
    )
    dtype = model_args.dtype
    if dtype in (None, "auto"):
        dtype = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None) or torch.float32
    dtype = getattr(torch, dtype) if isinstance(dtype, str) else dtype
    peft_config = get_peft_config(model_args)
    with torch.device("meta"):
        model = AutoModelForImageTextToText.from_config(config, dtype=dtype, trust_remote_code=trust_remote_code)
        if peft_config is not None:
            from peft import get_peft_model

            model = get_peft_model(model, peft_config)
    params = list(model.parameters())
    trained = [p for p in params if p.requires_grad]
    frozen = sum(p.numel() for p in params if not p.requires_grad)
    return ParameterCount(
        parameters=frozen if peft_config is not None else sum(p.numel() for p in params),
        parameter_bytes=dtype.itemsize,
        trained=sum(p.numel() for p in trained),
        trained_bytes=trained[0].element_size() if trained else 0,
        adapter=peft_config is not None,
    )


def _deepspeed_stage(training_args) -> int | None:
    """The ZeRO stage of this run (None: no DeepSpeed), from the trainer config or what accelerate launch set."""
    config = training_args.deepspeed
    if not config and os.environ.get("ACCELERATE_USE_DEEPSPEED", "").lower() != "true":
        return None
    config = config or os.environ.get("ACCELERATE_DEEPSPEED_CONFIG_FILE")
    if isinstance(config, str) and os.path.isfile(config):
        with open(config) as handle:
            config = json.load(handle)
    if isinstance(config, dict):
        return int(config.get("zero_optimization", {}).get("stage", 0))
    return int(os.environ.get("ACCELERATE_DEEPSPEED_ZERO_STAGE", 2))


def _optimizer_bytes_per_element(training_args, *, trained_bytes: int, parameter_bytes: int) -> int:
    stage = _deepspeed_stage(training_args)
    if stage is not None:
        # fp32 master weights + two fp32 moments; below stage 3 the engine also saves a 16-bit module copy
        return 12 + (parameter_bytes if stage < 3 else 0)
    if "8bit" in str(training_args.optim):
        return 2
    return 2 * trained_bytes  # AdamW's two moments in the trained parameters' dtype


def _saves(training_args) -> int | None:
    strategy = str(getattr(training_args.save_strategy, "value", training_args.save_strategy))
    if strategy == "no":
        return 0
    max_steps = training_args.max_steps
    if strategy == "epoch":
        return None if max_steps and max_steps > 0 else int(training_args.num_train_epochs)
    if max_steps is None or max_steps <= 0:
        return None  # epoch-based length: the step count depends on the dataset
    every = training_args.save_steps
    every = max(1, round(every * max_steps)) if every < 1 else int(every)
    return max_steps // every


def estimate_disk(training_args, model_args) -> DiskEstimate:
    """Estimate what a run with these settings writes to ``output_dir``.

    Args:
        training_args: ``GRPOConfig`` or ``SFTConfig`` (save strategy, limit, ``save_only_model``, optimizer).
        model_args: TRL ``ModelConfig``.

    Returns:
        A ``DiskEstimate``. When the number of saves depends on the dataset (an epoch-based length), it counts
        ``save_total_limit + 1`` checkpoints, or one without a limit (and logs that it did).
    """
    count = count_parameters(model_args, trust_remote_code=bool(getattr(training_args, "trust_remote_code", False)))
    weights = count.trained * count.trained_bytes if count.adapter else count.parameters * count.parameter_bytes
    model_bytes = weights + SAVE_OVERHEAD_BYTES
    checkpoint_bytes = model_bytes
    if not training_args.save_only_model:
        per_element = _optimizer_bytes_per_element(
            training_args, trained_bytes=count.trained_bytes, parameter_bytes=count.parameter_bytes
        )
        checkpoint_bytes += count.trained * per_element
    saves = _saves(training_args)
    limit = training_args.save_total_limit or 0
    if saves is None:
        if not limit:
            logger.info("the number of checkpoints depends on the dataset's length; counting one")
        saves = limit + 1 if limit else 1
    kept = min(saves, limit) if limit else saves
    rotating = kept + 1 if limit and saves > limit else kept
    return DiskEstimate(
        parameters=count.parameters,
        trained=count.trained,
        model_bytes=model_bytes,
        checkpoint_bytes=checkpoint_bytes,
        kept=kept,
        peak_bytes=max(rotating * checkpoint_bytes, kept * checkpoint_bytes + model_bytes),
    )


def free_bytes(path: str) -> int:
    """Free bytes on the file system that holds ``path`` (or would: its nearest existing parent)."""
    path = os.path.abspath(path)
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return shutil.disk_usage(path).free


def check_free_space(training_args, model_args) -> DiskEstimate | None:
    """Log a warning when ``output_dir`` has less free space than the run will write (never refuses).

    Args:
        training_args: ``GRPOConfig`` or ``SFTConfig``.
        model_args: TRL ``ModelConfig``.

    Returns:
        The estimate, or None when the model's config could not be read (offline and not cached): then nothing
        is checked and the reason is logged.
    """
    try:
        estimate = estimate_disk(training_args, model_args)
    except Exception as exc:  # a disk check must never stop a run that would otherwise start
        logger.info("disk check skipped: could not build %s from its config (%s)", model_args.model_name_or_path, exc)
        return None
    free = free_bytes(training_args.output_dir)
    if free < estimate.peak_bytes:
        logger.warning(
            "output_dir=%s has %.1f GB free, but this run writes up to %s. Lower save_total_limit, set "
            "save_only_model: true (checkpoints without optimizer state cannot be resumed), or point output_dir "
            "at a larger disk.",
            training_args.output_dir,
            free / GB,
            estimate.describe(),
        )
    else:
        logger.info(
            "output_dir=%s: %.1f GB free; this run writes up to %s",
            training_args.output_dir,
            free / GB,
            estimate.describe(),
        )
    return estimate
