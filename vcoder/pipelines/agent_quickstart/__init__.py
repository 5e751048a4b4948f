"""The agent quickstart loop behind ``vcoder quickstart --agent``: tiny LM -> agent SFT -> Step-GRPO -> held-out.

:mod:`.run` holds the loop (its docstring describes every stage), :mod:`.formats` whose turn format it speaks
(``--agent-format``: vcoder's or WebGen-Agent's) and :mod:`.evaluation` scores a site-building
policy on held-out tasks (greedy episodes in the real environment, WebGen-Bench accuracy). The names below are their
public surface, importable from here as they were from the former module ``vcoder/pipelines/agent_quickstart.py``;
the former ``vcoder.pipelines.agent_eval`` is :mod:`vcoder.pipelines.agent_quickstart.evaluation`.

Example:
    >>> from vcoder.pipelines.agent_quickstart import KINDS
    >>> KINDS[0]
    'counter'
"""

from vcoder.pipelines.agent_quickstart.evaluation import GreedyTurns, episode_scores, evaluate_agent, summarize
from vcoder.pipelines.agent_quickstart.formats import AGENT_FORMATS, AgentFormat, agent_format
from vcoder.pipelines.agent_quickstart.run import (
    DATA,
    EPISODE,
    EVAL_SPLITS,
    FAST,
    FLAWS,
    HELDOUT_SEED,
    KINDS,
    SFT_RECIPE,
    STEP_GRPO_RECIPE,
    STYLE,
    SYSTEM_PROMPT,
    TRAIN_EXPECT_MS,
    accuracy_by_kind,
    build_model,
    cpu_seconds,
    make_trajectories,
    read_jsonl_dataset,
    run_agent_quickstart,
    task_row,
    train_agent_sft,
    train_step_grpo,
)

__all__ = [
    "AGENT_FORMATS",
    "DATA",
    "EPISODE",
    "EVAL_SPLITS",
    "FAST",
    "FLAWS",
    "HELDOUT_SEED",
    "KINDS",
    "SFT_RECIPE",
    "STEP_GRPO_RECIPE",
    "STYLE",
    "SYSTEM_PROMPT",
    "TRAIN_EXPECT_MS",
    "AgentFormat",
    "GreedyTurns",
    "accuracy_by_kind",
    "agent_format",
    "build_model",
    "cpu_seconds",
    "episode_scores",
    "evaluate_agent",
    "make_trajectories",
    "read_jsonl_dataset",
    "run_agent_quickstart",
    "summarize",
    "task_row",
    "train_agent_sft",
    "train_step_grpo",
]
