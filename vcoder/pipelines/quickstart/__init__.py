"""The one-shot quickstart loop behind ``vcoder quickstart``: tiny VLM -> synthetic pages -> SFT -> GRPO -> held-out.

:mod:`.run` holds the loop (its docstring describes every stage); the names below are its public surface, importable
from here as they were from the former module ``vcoder/pipelines/quickstart.py``.

Example:
    >>> from vcoder.pipelines.quickstart import FAST
    >>> FAST["grpo_steps"]
    4
"""

from vcoder.pipelines.quickstart.run import (
    DATA,
    EVAL_SPLITS,
    FAST,
    GRPO_RECIPE,
    SFT_RECIPE,
    StageClock,
    auto_threads,
    check_grpo_overrides,
    evaluate_policy,
    quiet,
    reward_window,
    rows_digest,
    run_quickstart,
    train_stage,
)

__all__ = [
    "DATA",
    "EVAL_SPLITS",
    "FAST",
    "GRPO_RECIPE",
    "SFT_RECIPE",
    "StageClock",
    "auto_threads",
    "check_grpo_overrides",
    "evaluate_policy",
    "quiet",
    "reward_window",
    "rows_digest",
    "run_quickstart",
    "train_stage",
]
