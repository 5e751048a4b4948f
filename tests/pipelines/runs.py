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
