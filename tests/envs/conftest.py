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
