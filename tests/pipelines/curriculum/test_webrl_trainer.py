"""One real WebRL step on the tiny offline VLM inside TRL's trainer: the loss TRL backpropagates equals WebRL's actor
loss worked out here, independently, from the batch's log-probabilities; those are checked against plain forward
passes of the policy as it was before the step and of the reference model loaded from its folder."""

from __future__ import annotations

import copy
import math

import pytest
import torch

pytestmark = pytest.mark.slow


def _parity_reward(completions, **_):
    """1.0 for a completion of even length, else 0.0: a deterministic mix of successes and failures."""
    return [float(len(c[0]["content"]) % 2 == 0) for c in completions]


def _completion_logp_sums(model, last) -> list[float]:
    ids = torch.cat([last["prompt_ids"], last["completion_ids"]], dim=1)
    attention = torch.cat([last["prompt_mask"], last["completion_mask"]], dim=1)
    with torch.no_grad():
        logits = model(
            input_ids=ids,
            attention_mask=attention,
            pixel_values=last["pixel_values"],
            image_grid_thw=last["image_grid_thw"],
        ).logits.float()
    width = last["completion_ids"].size(1)
    logps = torch.log_softmax(logits[:, -width - 1 : -1], dim=-1)
    token = logps.gather(2, last["completion_ids"][:, :, None])[:, :, 0]
    return (token * last["completion_mask"]).sum(1).tolist()


def _hand_loss(logp, ref_logp, n, adv) -> float:
    # WebRL's trainer.py, restated: p_ref = exp(L_ref / n); beta 5 where (A >= 0 and p_ref >= 0.8) or (A < 0 and
    # p_ref < 0.9), else 1; N = tokens of the A > 0 samples (1 if none); r = (L - L_ref) / N; beta = min(beta, |A/r|);
    # loss = mean(SmoothL1(beta r, A) / beta * [A > 0])
    count = sum(k for k, a in zip(n, adv) if a > 0) or 1.0
    total = 0.0
    for lp, rp, k, a in zip(logp, ref_logp, n, adv):
        p_ref = math.exp(rp / k)
        beta = 5.0 if (a >= 0 and p_ref >= 0.8) or (a < 0 and p_ref < 0.9) else 1.0
        r = (lp - rp) / count
        if r != 0:
            beta = min(beta, abs(a / r))
        d = abs(beta * r - a)
        smooth = 0.5 * d * d if d < 1 else d - 0.5
        total += smooth / beta * (a > 0)
    return total / len(adv)


def test_one_webrl_step_backpropagates_the_hand_formula(tiny_vlm_dir, tmp_path):
    from datasets import Dataset
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from tests.trainers import cpu_grpo_config
    from vcoder.pipelines.curriculum.webrl_trainer import WebRLTrainer

    rows = [
        {
            "prompt": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": f"Write page {i}."}]}],
            "image": Image.new("RGB", (64, 48), colour),
        }
        for i, colour in enumerate(("white", "navy"))
    ]
    processor = AutoProcessor.from_pretrained(tiny_vlm_dir)

    class Recording(WebRLTrainer):
        def _compute_loss(self, model, inputs):
            loss = super()._compute_loss(model, inputs)
            self.webrl_last.update(pixel_values=inputs["pixel_values"], image_grid_thw=inputs["image_grid_thw"])
            return loss

    args = cpu_grpo_config(tmp_path / "run", max_completion_length=16, seed=0, beta=0.04)
    trainer = Recording(
        model=str(tiny_vlm_dir),
        reward_funcs=[_parity_reward],
        args=args,
        train_dataset=Dataset.from_list(rows),
        processing_class=processor,
    )
    trainer.set_webrl(success_index=0, threshold=0.5)
    torch.manual_seed(1)
    with torch.no_grad():  # move the policy off the reference so log(pi / pi_ref) is not 0
        for param in trainer.model.parameters():
            param.add_(0.05 * torch.randn_like(param))
    before = copy.deepcopy(trainer.model).eval()
    critic_before = [p.detach().clone() for p in trainer.critic.parameters()]
    trainer.train()

    last = trainer.webrl_last
    texts = processor.batch_decode(last["completion_ids"], skip_special_tokens=True)
    # one-step trajectories: A = clamp(2R - 0.05, -1, 1) -> 1.0 for a success, -0.6 (binarised -0.05) otherwise
    expected_adv = [1.0 if len(t) % 2 == 0 else -0.6 for t in texts]
    assert last["advantages"] == pytest.approx(expected_adv)
    assert 0 < sum(a > 0 for a in expected_adv) < len(expected_adv)  # the batch mixes both kinds

    reference = AutoModelForImageTextToText.from_pretrained(tiny_vlm_dir, dtype=torch.float32).eval()
    logp, ref_logp = _completion_logp_sums(before, last), _completion_logp_sums(reference, last)
    n = last["completion_mask"].sum(1).tolist()
    # TRL's fused LM head (chunked, its own matmul order) differs from a plain forward by ~1e-4 per token
    assert last["logp"] == pytest.approx(logp, rel=2e-3)
    assert last["ref_logp"] == pytest.approx(ref_logp, rel=2e-3)
    assert last["n_tokens"] == n
    assert logp != pytest.approx(ref_logp, abs=1e-2)  # the ratio term is really exercised
    hand = _hand_loss(last["logp"], last["ref_logp"], n, expected_adv)
    assert hand > 0
    assert last["loss"] == pytest.approx(hand, rel=1e-5)
    logged = next(entry for entry in trainer.state.log_history if "loss" in entry)
    assert logged["loss"] == pytest.approx(hand, rel=1e-5)
    # the critic took a step on the batch's Monte Carlo targets (success of each one-step trajectory)
    assert math.isfinite(last["critic_loss"])
    assert any(not torch.equal(a, b) for a, b in zip(critic_before, trainer.critic.parameters()))


def test_replayed_success_takes_webrls_actor_loss_against_the_reference(tiny_vlm_dir, tmp_path):
    """Replay as RL data under WebRL: a kept success (R = 1, advantage 1) gets the actor loss worked out by hand from
    plain forward passes of the policy and of the reference loaded from its folder."""
    from datasets import Dataset
    from PIL import Image
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from tests.trainers import cpu_grpo_config
    from vcoder.data.prompts import make_conversation
    from vcoder.pipelines.curriculum.policy import completion_token_logps
    from vcoder.pipelines.curriculum.replay import ReplayLossMixin
    from vcoder.pipelines.curriculum.webrl_trainer import WebRLTrainer

    row = {"prompt": make_conversation(), "image": Image.new("RGB", (64, 48), "navy")}
    processor = AutoProcessor.from_pretrained(tiny_vlm_dir)
    cls = type("ReplayWebRL", (ReplayLossMixin, WebRLTrainer), {})
    args = cpu_grpo_config(tmp_path / "run", max_completion_length=8, seed=0, beta=0.04)
    trainer = cls(
        model=str(tiny_vlm_dir),
        reward_funcs=[_parity_reward],
        args=args,
        train_dataset=Dataset.from_list([row]),
        processing_class=processor,
    )
    trainer.set_webrl(success_index=0, threshold=0.5)
    torch.manual_seed(2)
    with torch.no_grad():
        for param in trainer.model.parameters():
            param.add_(0.05 * torch.randn_like(param))
    completions = ["<html><body>hi</body></html>", "<div>x</div>"]
    trainer.set_replay([row, row], completions, weight=0.5, batch_size=2, mode="rl")
    model = trainer.model.train()
    logps = [completion_token_logps(model, processor, row, c, grad=True) for c in completions]
    loss = trainer.replay_actor_loss([row, row], completions, logps)

    reference = AutoModelForImageTextToText.from_pretrained(tiny_vlm_dir, dtype=torch.float32).eval()
    ref = [float(completion_token_logps(reference, processor, row, c).sum()) for c in completions]
    mine = [float(lp.detach().sum()) for lp in logps]
    n = [lp.numel() for lp in logps]
    assert mine != pytest.approx(ref, abs=1e-2)
    hand = _hand_loss(mine, ref, n, [1.0, 1.0])
    assert hand > 0 and float(loss.detach()) == pytest.approx(hand, rel=1e-5)
    loss.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())

    class Zero:  # the mixin adds weight x the actor loss to what the trainer's own loss gives
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            return torch.tensor(0.0)

    mixed = type("Mixed", (ReplayLossMixin, Zero), {})()
    mixed.__dict__.update(
        processing_class=processor,
        webrl_success_index=0,
        replay_actor_loss=lambda rows, comps, lps: trainer.replay_actor_loss(rows, comps, lps),
    )
    mixed.set_replay([row, row], completions, weight=0.5, batch_size=2, mode="rl")
    assert float(mixed.compute_loss(model, {})) == pytest.approx(0.5 * hand, rel=1e-4)
    assert mixed.replay_used == {0, 1}
