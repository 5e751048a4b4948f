"""WebRL's objective on a 3-step trajectory, every expected number worked out by hand in the comments."""

from __future__ import annotations

import math

import pytest
import torch

from vcoder.pipelines.curriculum.webrl_objective import (
    actor_loss,
    actor_loss_terms,
    adaptive_beta,
    advantages,
    binarise,
    critic_loss,
    critic_targets,
    head_probability,
    mc_returns,
    state_value,
    step_rewards,
    trajectory_advantages,
)

VALUES = [0.2, 0.5, 0.4]  # the critic's V(s_0), V(s_1), V(s_2)


def test_mc_returns_gamma_09():
    # G_2 = 1; G_1 = 0.5 + 0.9 * 1 = 1.4; G_0 = 0 + 0.9 * 1.4 = 1.26
    assert mc_returns([0.0, 0.5, 1.0]) == pytest.approx([1.26, 1.4, 1.0])
    # WebRL gives every step the outcome: success [1, 1, 1] -> G = [1 + 0.9 + 0.81, 1 + 0.9, 1] = [2.71, 1.9, 1]
    assert step_rewards(1.0, 3) == [1.0, 1.0, 1.0]
    assert mc_returns(step_rewards(1.0, 3)) == pytest.approx([2.71, 1.9, 1.0])
    assert mc_returns(step_rewards(0.0, 3)) == [0.0, 0.0, 0.0]
    # gamma 0.5: G = [1 + 0.5 + 0.25, 1.5, 1]
    assert mc_returns([1.0, 1.0, 1.0], gamma=0.5) == pytest.approx([1.75, 1.5, 1.0])
    with pytest.raises(ValueError, match="gamma"):
        mc_returns([1.0], gamma=1.5)


def test_critic_targets_and_values():
    assert critic_targets([2.71, 1.9, 1.0]) == [1, 1, 1]
    assert critic_targets([0.0, 0.0, 0.0]) == [0, 0, 0]
    assert critic_targets([0.0, 0.5, -0.1]) == [0, 1, 0]
    # softmax([0, ln 3])[1] = 3 / (1 + 3) = 0.75; softmax([ln 4, 0])[1] = 1 / 5 = 0.2; the value is the min
    assert head_probability([0.0, math.log(3.0)]) == pytest.approx(0.75)
    assert state_value([0.0, math.log(3.0)], [math.log(4.0), 0.0]) == pytest.approx(0.2)


def test_advantage_of_a_failed_and_a_successful_trajectory():
    # failure (r = G = 0): next values [0.5, 0.4, 0.4] (the last step's next state is itself)
    # A = [0.5 - 0.2 - 0.05, 0.4 - 0.5 - 0.05, 0.4 - 0.4 - 0.05] = [0.25, -0.15, -0.05]
    failed = trajectory_advantages(VALUES, 0.0)
    assert failed == pytest.approx([0.25, -0.15, -0.05])
    assert binarise(failed) == [1.0, -0.6, -0.6]
    # success: r = 1, G = [2.71, 1.9, 1]: A = clamp([0.3 - 0.05 + 1 + 2.71, -0.1 - 0.05 + 1 + 1.9, 0 - 0.05 + 2])
    #   = clamp([3.96, 2.75, 1.95]) = [1, 1, 1]
    assert trajectory_advantages(VALUES, 1.0) == [1.0, 1.0, 1.0]
    # the clamp at -1: V(s') - V(s) = -1 with no reward: -1 - 0.05 -> -1
    assert advantages([1.0], [0.0], [0.0], [0.0]) == [-1.0]
    assert binarise([0.0]) == [1.0]  # A >= 0 is positive


def test_adaptive_beta_before_its_cap():
    # positive & p_ref >= 0.8 -> 5; positive & p_ref < 0.8 -> 1; negative & p_ref < 0.9 -> 5; negative & >= 0.9 -> 1
    assert adaptive_beta([1.0, 1.0, -0.6, -0.6], [0.8, 0.79, 0.89, 0.9]) == [5.0, 1.0, 5.0, 1.0]


def test_actor_loss_on_the_failed_trajectory():
    # binarised [1, -0.6, -0.6]; action tokens n = [2, 3, 4]; L = [-1, -2, -3]; L_ref = [-1.4, -1.5, -2.0]
    # p_ref = exp(L_ref / n) = [e^-0.7 = 0.497, e^-0.5 = 0.607, e^-0.5 = 0.607] -> beta0 = [1, 5, 5]
    # mask = [1, 0, 0]; N = 2 (the positive sample's tokens); r = (L - L_ref) / 2 = [0.2, -0.25, -0.5]
    # cap |A / r| = [5, 2.4, 1.2] -> beta = [1, 2.4, 1.2]; beta r = [0.2, -0.6, -0.6]
    # SmoothL1(0.2, 1) = 0.5 * 0.8^2 = 0.32, / beta 1 = 0.32; the others are masked (and 0: beta r = A)
    # loss = (0.32 + 0 + 0) / 3 = 0.106667
    logp = torch.tensor([-1.0, -2.0, -3.0], dtype=torch.float64, requires_grad=True)
    terms = actor_loss_terms(logp, [-1.4, -1.5, -2.0], [2, 3, 4], [1.0, -0.6, -0.6])
    assert terms["ref_prob"].tolist() == pytest.approx([math.exp(-0.7), math.exp(-0.5), math.exp(-0.5)])
    assert terms["beta0"].tolist() == [1.0, 5.0, 5.0]
    assert terms["mask"].tolist() == [1.0, 0.0, 0.0] and float(terms["count"]) == 2.0
    assert terms["log_ratio"].tolist() == pytest.approx([0.2, -0.25, -0.5])
    assert terms["beta"].tolist() == pytest.approx([1.0, 2.4, 1.2])
    assert terms["per_sample"].tolist() == pytest.approx([0.32, 0.0, 0.0])
    assert terms["loss"].item() == pytest.approx(0.32 / 3)
    # d loss / d L_0 = (beta r - A) / (N * 3) = (0.2 - 1) / 6 = -0.133333 (descent raises the positive action)
    terms["loss"].backward()
    assert logp.grad.tolist() == pytest.approx([-0.8 / 6, 0.0, 0.0])


def test_actor_loss_on_the_successful_trajectory():
    # binarised [1, 1, 1]; n = [1, 2, 2]; L = [-0.05, -1.0, -0.6]; L_ref = [-0.1, -0.8, -0.6]
    # p_ref = [e^-0.1 = 0.905, e^-0.4 = 0.670, e^-0.3 = 0.741] -> beta0 = [5, 1, 1]; N = 1 + 2 + 2 = 5
    # r = [0.05 / 5, -0.2 / 5, 0 / 5] = [0.01, -0.04, 0]; cap |1 / r| = [100, 25, inf] -> beta = [5, 1, 1]
    # beta r - A = [0.05 - 1, -0.04 - 1, 0 - 1] = [-0.95, -1.04, -1]
    # SmoothL1 = [0.5 * 0.9025, 1.04 - 0.5, 0.5 * 1] = [0.45125, 0.54, 0.5]; / beta = [0.09025, 0.54, 0.5]
    # loss = 1.13025 / 3 = 0.37675
    logp = torch.tensor([-0.05, -1.0, -0.6], dtype=torch.float64, requires_grad=True)
    terms = actor_loss_terms(logp, [-0.1, -0.8, -0.6], [1, 2, 2], [1.0, 1.0, 1.0])
    assert terms["beta0"].tolist() == [5.0, 1.0, 1.0] and float(terms["count"]) == 5.0
    assert terms["log_ratio"].tolist() == pytest.approx([0.01, -0.04, 0.0])
    assert terms["beta"].tolist() == pytest.approx([5.0, 1.0, 1.0])
    assert terms["per_sample"].tolist() == pytest.approx([0.09025, 0.54, 0.5])
    assert terms["loss"].item() == pytest.approx(0.37675)
    # gradient: clamp(beta r - A, -1, 1) / (N * 3) = [-0.95, -1, -1] / 15 (beta is held constant)
    terms["loss"].backward()
    assert logp.grad.tolist() == pytest.approx([-0.95 / 15, -1 / 15, -1 / 15])
    assert float(actor_loss([-0.05, -1.0, -0.6], [-0.1, -0.8, -0.6], [1, 2, 2], [1.0, 1.0, 1.0])) == pytest.approx(
        0.37675
    )


def test_actor_loss_without_positive_samples_is_zero():
    # no positive sample: N falls back to 1 and every sample is masked
    terms = actor_loss_terms([-1.0, -2.0], [-1.5, -1.0], [2, 2], [-0.6, -0.6])
    assert float(terms["count"]) == 1.0 and terms["loss"].item() == 0.0


def test_critic_loss_sums_four_cross_entropies():
    # head logits [0, ln 3] give P(1) = 0.75: CE for class 1 = -ln 0.75, for class 0 = -ln 0.25
    logits = torch.tensor([[0.0, math.log(3.0)], [0.0, math.log(3.0)], [0.0, math.log(3.0)]])
    targets = critic_targets(mc_returns(step_rewards(1.0, 3)))  # [1, 1, 1]
    assert float(critic_loss(logits, logits, logits, logits, targets)) == pytest.approx(-4 * math.log(0.75))
    # targets [0, 0, 0]: each mean CE is -ln 0.25
    assert float(critic_loss(logits, logits, logits, logits, [0, 0, 0])) == pytest.approx(-4 * math.log(0.25))
