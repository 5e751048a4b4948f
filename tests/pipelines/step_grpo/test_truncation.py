"""Over-long trajectories leave the loss, as WebGen-RL masks them: a reply cut by the trajectory's token budget ends
the trajectory without an end-of-turn token, and TRL's ``mask_truncated_completions`` (set by every Step-GRPO recipe)
zeroes that trajectory's completion mask, while a trajectory that ended on its own keeps its tokens in the loss."""

from __future__ import annotations

import pytest

from tests.pipelines.step_grpo.test_batch import make_trainer, rollout, tiny_model  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

BUDGET = ["--max_turn_tokens", "48", "--max_completion_length", "48"]


@pytest.mark.parametrize("masked", [True, False], ids=["recipe", "mask-off"])
def test_a_trajectory_cut_by_its_budget_leaves_the_loss(tiny_model, tmp_path, masked):  # noqa: F811
    import torch

    torch.set_num_threads(1)
    flags = [] if masked else ["--mask_truncated_completions", "false"]
    trainer = make_trainer(tiny_model, tmp_path / "run", *BUDGET, *flags)
    assert trainer.args.mask_truncated_completions is masked  # the recipe (tiny_cpu.yaml) turns it on
    # trajectory 0: the full counter page, longer than the budget (cut); trajectory 1: a short reply, then the
    # feedback turn does not fit and the episode ends after a complete turn
    out, _ = rollout(trainer, [["full"], ["prose"]])
    eos = set(trainer.eos_token_ids)
    ids = out["completion_ids"].tolist()
    lengths = [int(n) for n in (out["completion_ids"] != trainer.chat.tokenizer.pad_token_id).sum(dim=1)]
    assert ids[0][lengths[0] - 1] not in eos and ids[1][lengths[1] - 1] in eos  # cut vs ended
    kept = out["completion_mask"].sum(dim=1).tolist()
    assert kept[1] > 0
    assert (kept[0] == 0) is masked
