"""Shared by the tests that run training in subprocesses: their environment, the two-process launch and the state."""

from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_env(**extra: str) -> dict[str, str]:
    """The environment of a training subprocess: offline, one OpenMP thread (two spinning threads per process on
    shared cores were ~10x slower here), plus ``extra``."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return {**env, **extra}


def two_process_command(module: list[str]) -> list[str]:
    """``accelerate launch`` of ``module`` (``["-m", "pkg.mod"]``) as two CPU processes (configs/accelerate/cpu_2proc)."""
    config = os.path.join(ROOT, "configs", "accelerate", "cpu_2proc.yaml")
    return [sys.executable, "-m", "accelerate.commands.launch", "--config_file", config, *module]


def read_state(path) -> dict:
    """A run's ``trainer_state.json``."""
    with open(path) as handle:
        return json.load(handle)


def same_weights(a, b) -> bool:
    """Whether two saved model folders hold identical tensors (the lr-0 controls' check)."""
    from pathlib import Path

    import torch
    from safetensors.torch import load_file

    def tensors(folder) -> dict:
        out = {}
        for path in sorted(Path(folder).glob("*.safetensors")):
            out.update(load_file(str(path)))
        return out

    left, right = tensors(a), tensors(b)
    return bool(left) and left.keys() == right.keys() and all(torch.equal(left[k], right[k]) for k in left)
