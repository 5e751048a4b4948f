"""One-step GRPO configurations for tests: the tiny offline VLM on the CPU, nothing saved or reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def cpu_grpo_config(run_dir: str | Path, **overrides: Any):
    """A ``GRPOConfig`` for one logged CPU step (8 completions: 2 prompts x 4 generations); ``overrides`` win."""
    from trl import GRPOConfig

    settings: dict[str, Any] = dict(
        output_dir=str(run_dir),
        per_device_train_batch_size=8,
        num_generations=4,
        max_completion_length=32,
        max_steps=1,
        logging_steps=1,
        learning_rate=1e-5,
        bf16=False,
        use_cpu=True,
        report_to=[],
        save_strategy="no",
        gradient_checkpointing=False,
    )
    settings.update(overrides)
    return GRPOConfig(**settings)
