"""Fixtures of the environment tests: tiny models whose chat templates can render a tool-calling conversation
(Qwen3-VL's and Qwen2.5's, as TRL bundles them; Qwen2.5-VL's template has no tools), built offline once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tool_vlm_dir(tmp_path_factory) -> Path:
    """The tiny random Qwen3-VL (``$VCODER_TINY_TOOL_VLM`` reuses a built one)."""
    given = os.environ.get("VCODER_TINY_TOOL_VLM")
    if given and (Path(given) / "config.json").exists():
        return Path(given)
    from vcoder.models.tiny import build_tiny_vlm

    return build_tiny_vlm(tmp_path_factory.mktemp("tool-vlm") / "model", arch="qwen3_vl")


@pytest.fixture(scope="session")
def tool_lm_dir(tmp_path_factory) -> Path:
    """The tiny random Qwen2.5 causal LM (``$VCODER_TINY_TOOL_LM`` reuses a built one)."""
    given = os.environ.get("VCODER_TINY_TOOL_LM")
    if given and (Path(given) / "config.json").exists():
        return Path(given)
    from vcoder.models.tiny_lm import build_tiny_lm

    return build_tiny_lm(tmp_path_factory.mktemp("tool-lm") / "model")


@pytest.fixture
def train_with_env(tmp_path):
    """TRL's own ``GRPOTrainer(environment_factory=...)`` for 2 CPU steps (2 rows x 2 generations), the model's
    ``generate`` replaced by scripted replies: a callable
    ``(model, processing_class, rows, factory, replies, *, max_completion_length) -> (trainer, scripted, batches)``
    (``batches``: every step's scored batch, as ``_generate_and_score_completions`` returned it)."""

    def train(model, processing_class, rows, factory, replies, *, max_completion_length: int):
        from unittest.mock import patch

        from datasets import Dataset
        from trl import GRPOTrainer

        from tests.envs.scripted import ScriptedGenerate
        from tests.trainers import cpu_grpo_config

        os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
        args = cpu_grpo_config(
            tmp_path,
            per_device_train_batch_size=2,
            num_generations=2,
            max_steps=2,
            max_completion_length=max_completion_length,
        )
        trainer = GRPOTrainer(
            model=model,
            processing_class=processing_class,
            args=args,
            train_dataset=rows if isinstance(rows, Dataset) else Dataset.from_list(rows),
            environment_factory=factory,
        )
        scripted = ScriptedGenerate(getattr(processing_class, "tokenizer", processing_class), replies)
        batches = []
        score = trainer._generate_and_score_completions

        def recorded(inputs):
            batches.append(score(inputs))
            return batches[-1]

        with (
            patch.object(trainer.model, "generate", side_effect=scripted),
            patch.object(trainer, "_generate_and_score_completions", side_effect=recorded),
        ):
            trainer.train()
        return trainer, scripted, batches

    return train
