"""Step-GRPO (WebGen-Agent, Lu et al., 2025): GRPO over multi-turn site-building episodes with a reward per step.

For each prompt (a website request) G episodes are rolled out (:func:`vcoder.sites.episode.run_site_episode`:
the model writes files, the site is rendered and graded after every turn, the feedback is the next user turn).
Every step k of every trajectory has a reward r_k (weighted screenshot + GUI-agent grades, −1 for a malformed
turn). :func:`step_advantages` turns the G trajectories' step rewards into one advantage per step; each step's
advantage is then given to the tokens of that step's reply, while the feedback (environment) tokens are masked
out of the loss. Modes, as in the paper's main method and its ablations:

- ``step`` (Step-GRPO): pool every step reward of the prompt's trajectories, z-score each with the pool's mean and
  standard deviation; a step's advantage is its own z-score.
- ``cumulative``: a step's advantage is the sum of the z-scores of that step and every later step of its
  trajectory (reward-to-go, undiscounted).
- ``naive`` (standard GRPO on episodes): a trajectory's reward is the max of its step rewards, z-scored across the G
  trajectories; every step of a trajectory gets its trajectory's value.

The standard deviation is the sample one (n − 1 in the denominator, as torch's default ``std`` that GRPO
implementations use); a pool whose deviation is 0, or that has a single value, gives all-zero advantages (nothing
to prefer). No epsilon is added, so the values are exact z-scores.

Example:
    >>> step_advantages([[1.0, 5.0], [3.0]], "step")
    [[-1.0, 1.0], [0.0]]
    >>> step_advantages([[1.0, 5.0], [3.0]], "cumulative")
    [[0.0, 1.0], [0.0]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from vcoder.suggest import did_you_mean

__all__ = ["ADVANTAGE_MODES", "judged_step_advantages", "step_advantages"]

ADVANTAGE_MODES = ("step", "cumulative", "naive")


def _zscores(values: list[float]) -> list[float]:
    """Sample z-scores; all zeros for fewer than two values or no spread."""
    n = len(values)
    if n < 2:
        return [0.0] * n
    mean = math.fsum(values) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    if std == 0.0:
        return [0.0] * n
    return [(v - mean) / std for v in values]


def step_advantages(step_rewards: Sequence[Sequence[float]], mode: str = "step") -> list[list[float]]:
    """Per-step advantages of the trajectories of one prompt.

    Args:
        step_rewards: one list per trajectory (G of them), one float per step; trajectories may differ in length
            (an empty one gets an empty list).
        mode: ``"step"``, ``"cumulative"`` or ``"naive"`` (see the module docstring).

    Returns:
        One list per trajectory, one advantage per step, in the input's shape.

    Raises:
        ValueError: an unknown mode (with a suggestion), or a reward that is not a finite number (a step that could
            not be judged must be dropped or given a value before this).

    Example:
        >>> step_advantages([[1.0, 5.0], [3.0]], "naive")  # maxima 5 and 3: z = +-0.7071
        [[0.7071067811865475, 0.7071067811865475], [-0.7071067811865475]]
    """
    if mode not in ADVANTAGE_MODES:
        hint = did_you_mean(mode, ADVANTAGE_MODES)
        raise ValueError(f"unknown advantage mode {mode!r}{hint}; choose one of {', '.join(ADVANTAGE_MODES)}")
    trajectories = [list(t) for t in step_rewards]
    for i, trajectory in enumerate(trajectories):
        for k, reward in enumerate(trajectory):
            if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
                raise ValueError(
                    f"step reward [{i}][{k}] = {reward!r} is not a finite number; drop or fill unjudged steps first"
                )
    if mode == "naive":
        judged = [i for i, t in enumerate(trajectories) if t]
        z = dict(zip(judged, _zscores([float(max(trajectories[i])) for i in judged])))
        return [[z[i]] * len(t) if t else [] for i, t in enumerate(trajectories)]
    flat = _zscores([float(r) for t in trajectories for r in t])
    out, start = [], 0
    for trajectory in trajectories:
        own = flat[start : start + len(trajectory)]
        start += len(trajectory)
        if mode == "cumulative":
            own = [math.fsum(own[k:]) for k in range(len(own))]
        out.append(own)
    return out


def judged_step_advantages(step_rewards: Sequence[Sequence[float | None]], mode: str = "step") -> list[list[float]]:
    """``step_advantages`` over the judged steps only; a step whose reward is None (nothing could judge it) gets 0.0
    and takes no part in the pool, the maxima or the reward-to-go.

    Example:
        >>> judged_step_advantages([[4.0, None], [0.0]], "step")
        [[0.7071067811865475, 0.0], [-0.7071067811865475]]
    """
    judged = [[r for r in trajectory if r is not None] for trajectory in step_rewards]
    out = []
    for trajectory, values in zip(step_rewards, step_advantages(judged, mode), strict=True):
        it = iter(values)
        out.append([next(it) if r is not None else 0.0 for r in trajectory])
    return out
