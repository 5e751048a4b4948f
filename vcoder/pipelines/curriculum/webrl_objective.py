"""WebRL's actor-critic objective (Qi et al., 2024, arXiv 2411.02337), term by term, on plain numbers.

The formulas are those of the public THUDM/WebRL code (``webrl/algorithms/webrl/trainer.py``,
``scripts/process_data.py``); this module is vcoder's own statement of them, used by
:class:`vcoder.pipelines.curriculum.webrl_trainer.WebRLTrainer`:

- **Rewards and returns.** A trajectory's outcome ``R`` (the ORM's or evaluator's 0/1 verdict) is the reward of
  *every* step (``build_policy_data`` writes the trajectory's score into each step), and each step's Monte Carlo
  return is ``G_t = sum_{k >= t} gamma^(k - t) r_k`` with ``gamma = 0.9`` (``add_mc_return``).
- **Critic.** Two heads (a double critic), each a 2-class classifier of ``G_t > 0`` trained with cross-entropy on
  the step's observation and on its next observation (the same target for both); a state's value is the smaller
  of the two heads' P(class 1). The last step's next observation is the step itself (the trajectory is done).
- **Advantage.** ``A_t = clamp(V(s_{t+1}) - V(s_t) - 0.05 + r_t + G_t, -1, 1)``, binarised to ``1.0`` when
  ``A_t >= 0`` and ``-0.6`` otherwise.
- **Actor loss.** With ``L``/``L_ref`` the summed log-probabilities of the action's tokens under the policy and the
  reference (the previous phase's policy), ``n`` its token count and ``p_ref = exp(L_ref / n)``: a per-sample
  ``beta`` starts at 1, is 5 when (``A >= 0`` and ``p_ref >= 0.8``) or (``A < 0`` and ``p_ref < 0.9``), and is capped
  at ``|A / r|`` where ``r = (L - L_ref) / N`` and ``N`` is the token count of the batch's positive-advantage samples
  (1 when there are none); then ``loss = mean_i( SmoothL1(beta_i r_i, A_i) / beta_i * [A_i > 0] )`` with ``beta``
  held constant (detached). Only positive-advantage samples carry loss, as in WebRL's code.

Deviation, stated: WebRL's step reward is the ORM's binary verdict; vcoder passes whatever 0/1 outcome the caller
decides (an evaluator's success where one exists, the ORM's verdict otherwise).

Example:
    >>> [round(g, 4) for g in mc_returns([0.0, 0.5, 1.0])]
    [1.26, 1.4, 1.0]
    >>> binarise([0.25, -0.15, 0.0])
    [1.0, -0.6, 1.0]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

GAMMA = 0.9
STEP_PENALTY = 0.05
POSITIVE, NEGATIVE = 1.0, -0.6
BETA_HIGH = 5.0
POSITIVE_REF_PROB, NEGATIVE_REF_PROB = 0.8, 0.9


def step_rewards(outcome: float, steps: int) -> list[float]:
    """WebRL's per-step rewards: the trajectory's outcome on every one of its ``steps`` steps."""
    if steps < 1:
        raise ValueError(f"steps={steps!r}: a trajectory has at least one step")
    return [float(outcome)] * steps


def mc_returns(rewards: Sequence[float], *, gamma: float = GAMMA) -> list[float]:
    """Discounted Monte Carlo return of every step: ``G_t = r_t + gamma G_{t+1}``, ``G_T = r_T``."""
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma={gamma!r} must lie in [0, 1] (WebRL: 0.9)")
    out, running = [], 0.0
    for reward in reversed(rewards):
        running = float(reward) + gamma * running
        out.append(running)
    return out[::-1]


def critic_targets(returns: Sequence[float]) -> list[int]:
    """The critic's class per step: 1 when the Monte Carlo return is positive, else 0."""
    return [int(g > 0) for g in returns]


def head_probability(logits: Sequence[float]) -> float:
    """P(class 1) of one critic head's two logits (a softmax)."""
    a, b = float(logits[0]), float(logits[1])
    return 1.0 / (1.0 + math.exp(a - b))


def state_value(logits1: Sequence[float], logits2: Sequence[float]) -> float:
    """A state's value: the smaller of the two heads' P(class 1) (the double critic's pessimism)."""
    return min(head_probability(logits1), head_probability(logits2))


def advantages(
    values: Sequence[float],
    next_values: Sequence[float],
    rewards: Sequence[float],
    returns: Sequence[float],
    *,
    penalty: float = STEP_PENALTY,
) -> list[float]:
    """``clamp(V(s') - V(s) - penalty + r + G, -1, 1)`` per step."""
    if not len(values) == len(next_values) == len(rewards) == len(returns):
        raise ValueError("values, next_values, rewards and returns must have one entry per step")
    return [
        max(-1.0, min(1.0, nv - v - penalty + r + g)) for v, nv, r, g in zip(values, next_values, rewards, returns)
    ]


def trajectory_advantages(values: Sequence[float], outcome: float, *, gamma: float = GAMMA) -> list[float]:
    """The advantages of one trajectory's steps from the critic's values of its observations and its outcome (the
    last step's next observation is itself)."""
    rewards = step_rewards(outcome, len(values))
    next_values = [*values[1:], values[-1]]
    return advantages(values, next_values, rewards, mc_returns(rewards, gamma=gamma))


def binarise(advantage: Sequence[float]) -> list[float]:
    """WebRL's binarised advantage: ``1.0`` where ``A >= 0``, ``-0.6`` elsewhere."""
    return [POSITIVE if a >= 0 else NEGATIVE for a in advantage]


def adaptive_beta(binarised: Sequence[float], ref_probs: Sequence[float]) -> list[float]:
    """The per-sample beta before its cap: 5 where a positive action is already likely under the reference
    (``p_ref >= 0.8``) or a negative one is not (``p_ref < 0.9``), else 1."""
    out = []
    for a, p in zip(binarised, ref_probs, strict=True):
        high = (a >= 0 and p >= POSITIVE_REF_PROB) or (a < 0 and p < NEGATIVE_REF_PROB)
        out.append(BETA_HIGH if high else 1.0)
    return out


def actor_loss_terms(logp_sums, ref_logp_sums, n_tokens, binarised) -> dict:
    """Every term of the actor loss as 1-D tensors (``loss``: the scalar; gradients flow through ``logp_sums``).

    Args:
        logp_sums: per sample, the summed log-probabilities of the action's tokens under the policy (a tensor that
            may require grad, or numbers).
        ref_logp_sums: the same under the reference policy.
        n_tokens: the action's token count per sample.
        binarised: the binarised advantages (:func:`binarise`).

    Returns:
        ``{"ref_prob", "beta0", "mask", "count", "log_ratio", "beta", "per_sample", "loss"}``.
    """
    import torch

    logp = torch.as_tensor(logp_sums, dtype=torch.float64) if not torch.is_tensor(logp_sums) else logp_sums
    dtype, device = logp.dtype, logp.device
    ref = torch.as_tensor(ref_logp_sums, dtype=dtype, device=device)
    n = torch.as_tensor(n_tokens, dtype=dtype, device=device)
    adv = torch.as_tensor(binarised, dtype=dtype, device=device)
    ref_prob = torch.exp(ref / n.clamp(min=1.0))
    beta0 = torch.as_tensor(adaptive_beta(adv.tolist(), ref_prob.tolist()), dtype=dtype, device=device)
    mask = (adv > 0).to(dtype)
    count = n[mask.bool()].sum()
    count = torch.where(count > 0, count, torch.ones_like(count))
    log_ratio = (logp - ref) / count
    beta = torch.minimum(beta0, (adv / log_ratio.detach()).abs()).detach()  # |A / 0| = inf: the cap stays off
    per_sample = torch.nn.functional.smooth_l1_loss(beta * log_ratio, adv, reduction="none") / beta * mask
    return {
        "ref_prob": ref_prob,
        "beta0": beta0,
        "mask": mask,
        "count": count,
        "log_ratio": log_ratio,
        "beta": beta,
        "per_sample": per_sample,
        "loss": per_sample.mean(),
    }


def actor_loss(logp_sums, ref_logp_sums, n_tokens, binarised):
    """WebRL's actor loss (a scalar tensor); see :func:`actor_loss_terms`."""
    return actor_loss_terms(logp_sums, ref_logp_sums, n_tokens, binarised)["loss"]


def critic_loss(logits1, logits2, next_logits1, next_logits2, targets):
    """The double critic's loss: cross-entropy of each head on the observation and on the next observation, summed
    (each a mean over the batch); logits are (B, 2) tensors, ``targets`` the classes of :func:`critic_targets`."""
    import torch

    target = torch.as_tensor(targets, dtype=torch.long, device=logits1.device)
    ce = torch.nn.functional.cross_entropy
    return ce(logits1, target) + ce(logits2, target) + ce(next_logits1, target) + ce(next_logits2, target)
