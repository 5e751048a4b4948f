"""A Step-GRPO trajectory as recorded for replay: its tokens, whose they are, and the per-step values it trained with.

The curriculum replays past successes as RL data of a later phase (WebRL's ``process_data.py`` stage 2). A
trajectory reaches TRL's rewards as one decoded text in which the model's turns and the environment's feedback are
mixed, so the trainer records, at rollout time, what a replay needs (:attr:`StepGRPOTrainer.trajectory_log
<vcoder.pipelines.step_grpo.trainer.StepGRPOTrainer>`): the prompt and completion ids exactly as trained on, each
completion token's turn (0 = environment, masked as ``env_mask`` masks it), the step rewards and the Step-GRPO
advantage each step got in its group.

The replay term of one trajectory (:func:`replay_policy_loss`) is the policy-gradient step Step-GRPO gave it then,
with ratio 1 (the perplexity window bounds how off-policy it is), normalised over the model's tokens::

    L = -(1 / |M|) * sum_{t in M} A_{turn(t)} * log p(token_t | prompt, tokens_<t)

M being the completion tokens with ``env_mask`` 1. For a one-step trajectory this is the one-shot replay's
``-(score - baseline) * mean log p``.

Example:
    >>> r = RecordedTrajectory([1], [5, 6, 9, 7], [1, 1, 0, 2], [2.5, 10.0], [-0.5, 1.0])
    >>> r.model_mask(), r.token_advantages()
    ([1, 1, 0, 1], [-0.5, -0.5, 0.0, 1.0])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from vcoder.pipelines.step_grpo.tokens import ENV_TURN, token_advantages


@dataclass(frozen=True)
class RecordedTrajectory:
    """One trajectory's tokens and per-step values, as plain JSON-able lists.

    Attributes:
        prompt_ids: the first request, templated.
        completion_ids: replies and feedback turns, in order.
        turns: per completion token, its reply number (1, 2, ...) or 0 for the environment's tokens.
        step_rewards: per reply, its step reward (None: not judged).
        advantages: per reply, the Step-GRPO advantage it was trained with.
        images: paths of the trajectory's images in order (feedback screenshots of a VLM policy).
    """

    prompt_ids: list[int]
    completion_ids: list[int]
    turns: list[int]
    step_rewards: list[float | None]
    advantages: list[float]
    images: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.turns) != len(self.completion_ids):
            raise ValueError(f"{len(self.turns)} turn tags for {len(self.completion_ids)} completion tokens")
        replies = max(self.turns, default=0)
        if len(self.advantages) != replies:
            raise ValueError(f"{len(self.advantages)} advantages for a trajectory of {replies} replies")

    def model_mask(self) -> list[int]:
        """1 for the model's tokens, 0 for the environment's (Step-GRPO's ``env_mask``)."""
        return [int(turn != ENV_TURN) for turn in self.turns]

    def token_advantages(self) -> list[float]:
        """Per completion token, its step's advantage (0.0 on environment tokens)."""
        return token_advantages([self.turns], [self.advantages], len(self.turns))[0]

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON values."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RecordedTrajectory:
        """The record :meth:`to_dict` wrote."""
        return cls(**data)


def replay_policy_loss(logps, advantages, mask):
    """The replay term of one recorded trajectory (module docstring): ``-sum(mask * A * log p) / sum(mask)``.

    Args:
        logps: 1-D tensor, the current policy's log-probability of each completion token.
        advantages: 1-D tensor, each token's recorded step advantage.
        mask: 1-D tensor, 1 on the model's tokens.

    Returns:
        A 0-d tensor (0 when no token is the model's).
    """
    mask = mask.to(logps.dtype)
    return -(mask * advantages.to(logps.dtype) * logps).sum() / mask.sum().clamp(min=1.0)
