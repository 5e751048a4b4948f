"""The policy's side of replay on the real tiny VLM: per-token log-probabilities of a recorded completion agree with
what ``generate`` scored while writing it, and the replay term is ``weight * NLL`` with a gradient."""

from __future__ import annotations

import math

import pytest
from PIL import Image

from vcoder.data.prompts import make_conversation
from vcoder.pipelines.curriculum.policy import completion_token_logps, geometric_mean_probs
from vcoder.pipelines.curriculum.replay import ReplayLossMixin


@pytest.fixture(scope="module")
def policy(tiny_vlm_dir):
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    torch.manual_seed(0)
    model = AutoModelForImageTextToText.from_pretrained(tiny_vlm_dir, dtype=torch.float32)
    return model, AutoProcessor.from_pretrained(tiny_vlm_dir)


def _row():
    return {"prompt": make_conversation(), "image": Image.new("RGB", (64, 48), (200, 40, 40))}


def _greedy(model, processor, row, n=6):
    """Greedy tokens and their log-probabilities as generate scored them (an independent path)."""
    import torch
    from trl.data_utils import prepare_multimodal_messages

    messages = prepare_multimodal_messages(row["prompt"], images=[row["image"]])
    text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    inputs = processor(text=[text], images=[[row["image"]]], return_tensors="pt")
    with torch.no_grad():
        out = model.generate(
            **inputs,
            max_new_tokens=n,
            do_sample=False,
            output_scores=True,
            return_dict_in_generate=True,
            eos_token_id=None,
            pad_token_id=processor.tokenizer.pad_token_id,
        )
    ids = out.sequences[0, inputs["input_ids"].shape[1] :]
    logps = [float(torch.log_softmax(s[0].float(), -1)[t]) for s, t in zip(out.scores, ids)]
    return ids.tolist(), logps


def test_logps_match_generate_scores(policy):
    model, processor = policy
    row = _row()
    ids, expected = _greedy(model, processor, row)
    text = processor.tokenizer.decode(ids, skip_special_tokens=True)
    if processor.tokenizer(text, add_special_tokens=False)["input_ids"] != ids:
        pytest.skip("the greedy tokens do not survive decode/encode with this tokenizer")
    got = completion_token_logps(model, processor, row, text)
    assert got.numel() == len(ids) + 1  # the reply's tokens, then end-of-turn
    assert [round(float(v), 4) for v in got[: len(ids)]] == [round(v, 4) for v in expected]
    (gm,) = geometric_mean_probs(model, processor, [row], [text])
    assert gm == pytest.approx(math.exp(float(got.mean())), rel=1e-5)
    assert 0.0 < gm < 1.0


def test_replay_loss_adds_weighted_nll_with_gradient(policy):
    import torch

    model, processor = policy
    row = _row()

    class Base:
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            return torch.tensor(1.0)

    class Trainer(ReplayLossMixin, Base):
        processing_class = processor

    trainer = Trainer()
    completions = ["<html><body>hi</body></html>", "<div>x</div>"]
    trainer.set_replay([row, row], completions, weight=0.5, batch_size=2)
    model.train()
    model.zero_grad()
    loss = trainer.compute_loss(model, {})
    nll = [-float(completion_token_logps(model, processor, row, c).mean()) for c in completions]
    assert float(loss.detach()) == pytest.approx(1.0 + 0.5 * sum(nll) / 2, rel=1e-5)
    loss.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())
    assert trainer.replay_nll == [pytest.approx(sum(nll) / 2, rel=1e-5)]
    trainer.set_replay([row], completions[:1], weight=0.0, batch_size=2)
    assert float(trainer.compute_loss(model, {})) == 1.0  # weight 0: replay off


def test_replay_as_rl_data_weights_each_sample_by_its_recorded_advantage(policy):
    import torch

    model, processor = policy
    row = _row()

    class Base:
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            return torch.tensor(1.0)

    class Trainer(ReplayLossMixin, Base):
        processing_class = processor

    trainer = Trainer()
    completions = ["<html><body>hi</body></html>", "<div>x</div>"]
    # recorded score - baseline of the sample's group: 1.0 - 0.5 and 0.5 - 0.75
    trainer.set_replay([row, row], completions, weight=0.5, batch_size=2, mode="rl", advantages=[0.5, -0.25])
    model.train()
    model.zero_grad()
    loss = trainer.compute_loss(model, {})
    mean_logp = [float(completion_token_logps(model, processor, row, c).mean()) for c in completions]
    hand = 1.0 + 0.5 * (-0.5 * mean_logp[0] + 0.25 * mean_logp[1]) / 2
    assert float(loss.detach()) == pytest.approx(hand, rel=1e-5)
    nll_form = 1.0 + 0.5 * -(mean_logp[0] + mean_logp[1]) / 2
    assert float(loss.detach()) != pytest.approx(nll_form, rel=1e-3)  # not the SFT form
    loss.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())
    assert trainer.replay_used == {0, 1}
    with pytest.raises(ValueError, match="2 advantages for 1 replay samples"):
        trainer.set_replay([row], completions[:1], weight=0.5, batch_size=2, mode="rl", advantages=[0.5, 0.1])
    with pytest.raises(ValueError, match="choose rl or sft"):
        trainer.set_replay([row], completions[:1], weight=0.5, batch_size=2, mode="ppo")
