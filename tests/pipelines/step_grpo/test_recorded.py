"""A recorded Step-GRPO trajectory (what the curriculum replays) and its replay loss, on hand-made numbers."""

from __future__ import annotations

import json

import pytest

from vcoder.pipelines.step_grpo.recorded import RecordedTrajectory, replay_policy_loss


def test_replay_loss_weights_each_model_token_by_its_steps_advantage():
    import torch

    # two replies (turn 1: 2 tokens, turn 2: 1 token) with one feedback token between them
    recorded = RecordedTrajectory([7, 8], [5, 6, 9, 4], [1, 1, 0, 2], [2.5, 10.0], [-0.5, 1.0])
    assert recorded.model_mask() == [1, 1, 0, 1]
    assert recorded.token_advantages() == [-0.5, -0.5, 0.0, 1.0]
    logps = torch.tensor([-1.0, -2.0, -3.0, -4.0])
    loss = replay_policy_loss(logps, torch.tensor(recorded.token_advantages()), torch.tensor(recorded.model_mask()))
    # -((-0.5)(-1) + (-0.5)(-2) + (1.0)(-4)) / 3 model tokens = -(0.5 + 1 - 4) / 3 = 2.5 / 3 (the feedback's -3 is out)
    assert float(loss) == pytest.approx(2.5 / 3)
    assert RecordedTrajectory.from_dict(json.loads(json.dumps(recorded.to_dict()))) == recorded


def test_a_record_must_be_consistent():
    with pytest.raises(ValueError, match="3 turn tags for 2 completion tokens"):
        RecordedTrajectory([1], [5, 6], [1, 0, 2], [1.0, 2.0], [0.1, 0.2])
    with pytest.raises(ValueError, match="1 advantages for a trajectory of 2 replies"):
        RecordedTrajectory([1], [5, 6], [1, 2], [1.0, 2.0], [0.1])
