"""step_advantages: each mode against hand-computed numbers (pools chosen so mean and sample std are round)."""

from __future__ import annotations

import math

import pytest

from vcoder.pipelines.step_grpo.advantages import step_advantages

R2 = 1 / math.sqrt(2)


def close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g == pytest.approx(w, abs=1e-12), (got, want)


def test_step_mode_pools_every_step_of_the_group():
    # pool [4, 0, 2, 0, 4]: mean 2, sample variance (4+4+0+4+4)/4 = 4, std 2
    close(step_advantages([[4.0, 0.0, 2.0], [0.0, 4.0]], "step"), [[1.0, -1.0, 0.0], [-1.0, 1.0]])


def test_cumulative_mode_sums_the_z_scores_of_later_steps():
    # z = [[1, -1, 0], [-1, 1]] as above; reward-to-go: [1-1+0, -1+0, 0] and [-1+1, 1]
    close(step_advantages([[4.0, 0.0, 2.0], [0.0, 4.0]], "cumulative"), [[0.0, -1.0, 0.0], [0.0, 1.0]])


def test_naive_mode_gives_every_step_its_trajectorys_max_z_score():
    # maxima [4, 2, 0]: mean 2, sample variance (4+0+4)/2 = 4, std 2 -> z [1, 0, -1]
    got = step_advantages([[-1.0, 4.0, 3.0], [2.0], [0.0, -1.0]], "naive")
    close(got, [[1.0, 1.0, 1.0], [0.0], [-1.0, -1.0]])


def test_malformed_steps_pool_with_the_others():
    # a malformed turn (-1) next to graded ones: pool [-1, 3, 1], mean 1, variance (4+4+0)/2 = 4, std 2
    close(step_advantages([[-1.0, 3.0], [1.0]]), [[-1.0, 1.0], [0.0]])


@pytest.mark.parametrize("mode", ["step", "cumulative", "naive"])
def test_no_spread_gives_zeros(mode):
    close(step_advantages([[2.0, 2.0], [2.0]], mode), [[0.0, 0.0], [0.0]])


def test_naive_with_equal_maxima_gives_zeros_even_when_steps_differ():
    close(step_advantages([[1.0, 3.0], [3.0, 0.0]], "naive"), [[0.0, 0.0], [0.0, 0.0]])


def test_single_trajectory():
    # step: the pool is its own steps [1, 3, 5] (mean 3, std 2); naive: one trajectory, nothing to compare
    close(step_advantages([[1.0, 3.0, 5.0]], "step"), [[-1.0, 0.0, 1.0]])
    close(step_advantages([[1.0, 3.0, 5.0]], "cumulative"), [[0.0, 1.0, 1.0]])
    close(step_advantages([[1.0, 3.0, 5.0]], "naive"), [[0.0, 0.0, 0.0]])
    close(step_advantages([[7.0]], "step"), [[0.0]])


def test_different_lengths_and_an_empty_trajectory():
    # pool [1, 3]: mean 2, sample variance 2, std sqrt(2)
    close(step_advantages([[], [1.0, 3.0]], "step"), [[], [-R2, R2]])
    close(step_advantages([[], [1.0], [3.0]], "naive"), [[], [-R2], [R2]])


def test_step_mode_z_scores_have_mean_0_and_sample_std_1():
    flat = [a for t in step_advantages([[0.5, 9.0, 3.0], [1.0], [7.5, 2.0]]) for a in t]
    mean = sum(flat) / len(flat)
    assert mean == pytest.approx(0.0, abs=1e-12)
    assert math.sqrt(sum((a - mean) ** 2 for a in flat) / (len(flat) - 1)) == pytest.approx(1.0)


def test_integers_accepted_and_input_untouched():
    rewards = [[4, 0, 2], [0, 4]]
    close(step_advantages(rewards), [[1.0, -1.0, 0.0], [-1.0, 1.0]])
    assert rewards == [[4, 0, 2], [0, 4]]


def test_bad_mode_and_bad_rewards_raise():
    with pytest.raises(ValueError, match="did you mean 'step'"):
        step_advantages([[1.0]], "stpe")
    with pytest.raises(ValueError, match=r"\[0\]\[1\] = None"):
        step_advantages([[1.0, None]])
    with pytest.raises(ValueError, match="not a finite number"):
        step_advantages([[1.0], [float("nan")]])
