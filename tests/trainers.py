"""Trainer helpers for tests: one-step GRPO configurations (the tiny offline VLM on the CPU, nothing saved or
reported) and a comparison of saved weights."""

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


def same_weights(a: str, b: str) -> bool:
    """Whether two saved model folders hold identical tensors."""
    from pathlib import Path

    import torch
    from safetensors.torch import load_file

    def tensors(folder: str) -> dict:
        out = {}
        for path in sorted(Path(folder).glob("*.safetensors")):
            out.update(load_file(str(path)))
        return out

    left, right = tensors(a), tensors(b)
    return bool(left) and left.keys() == right.keys() and all(torch.equal(left[k], right[k]) for k in left)
