"""What a grading reward (``gui_agent``, ``screenshot_judge``) needs to write its verdicts to ``verdict_log``: each
sample's task id and instruction from the dataset columns, and the training step.

A sample's task id is its ``task_id`` or ``id`` column (None: the record is named by its site's hash); its
instruction is the ``instruction`` column, else the text of its prompt's last user turn (TRL passes ``prompts``).
"""

from __future__ import annotations

from typing import Any

from vcoder.rewards.common import column, completion_text


def sample_tasks(n: int, *, instruction: Any, kwargs: dict[str, Any]) -> list[tuple[str | None, str]]:
    """``(task_id, instruction)`` per sample, from the columns TRL passed."""
    ids = column(kwargs.get("task_id", kwargs.get("id")), n)
    texts = column(instruction, n)
    prompts = column(kwargs.get("prompts"), n)
    out = []
    for task_id, text, prompt in zip(ids, texts, prompts):
        if not isinstance(text, str) or not text.strip():
            if isinstance(prompt, list):  # conversational: the last user turn
                users = [m for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
                prompt = completion_text(users[-1:])
            text = prompt if isinstance(prompt, str) else ""
        out.append((None if task_id is None else str(task_id), text))
    return out


def step_meta(reward: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``{"reward", "step"}``: which reward graded, at which training step (None outside a trainer)."""
    state = kwargs.get("trainer_state")
    return {"reward": reward, "step": getattr(state, "global_step", None)}
