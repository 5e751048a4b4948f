"""The refinement environment through TRL's own GRPOTrainer(environment_factory=...) on the tiny VLM, 2 steps."""

from __future__ import annotations

import pytest

from tests.envs.scripted import tool_call

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REF = "<html><body style='margin:0'><h1>Hello</h1><p>A page of text.</p></body></html>"
ATTEMPT = "<html><body><h1>Hello</h1></body></html>"


def test_refine_env_under_grpo_trainer(tool_vlm_dir, pool, train_with_env):
    from datasets import Dataset
    from transformers import AutoModelForImageTextToText, AutoProcessor

    from vcoder.envs.refine import RefineSettings
    from vcoder.envs.trl import refine_environment
    from vcoder.images import to_pil

    shot = to_pil(pool.render(REF, width=320, height=240).image)
    rows = Dataset.from_list(
        [{"prompt": [{"role": "user", "content": "Write the HTML of this page."}], "image": shot, "html": REF}] * 2
    )
    processor = AutoProcessor.from_pretrained(tool_vlm_dir)
    model = AutoModelForImageTextToText.from_pretrained(tool_vlm_dir)
    settings = RefineSettings(rewards=("ssim", "text"), reward_params=(("render_width", 320), ("render_height", 240)))
    envs = []

    def factory():
        env = refine_environment(settings)()
        envs.append(env)
        return env

    replies = [tool_call("render", html=ATTEMPT), "Done.<|im_end|>"]
    trainer, scripted, batches = train_with_env(model, processor, rows, factory, replies, max_completion_length=512)

    logs = trainer.state.log_history
    step_logs = [entry for entry in logs if "rewards/RefineEnv/mean" in entry]
    assert len(step_logs) == 2
    # the tool ran: every rollout rendered once; the reward is the mix of the attempt (text and ssim below 1)
    assert all(len(env._core.steps) == 1 and env._core.steps[0].ok for env in envs[-2:])
    assert step_logs[-1]["tools/call_frequency"] == pytest.approx(1.0)
    assert step_logs[-1]["tools/failure_frequency"] == pytest.approx(0.0)
    assert 0.0 < step_logs[-1]["rewards/RefineEnv/mean"] < 1.0
    # the screenshot reached the model: the post-tool generation got more image patches than the first turn
    # environment tokens are masked from the loss: only the model's own replies count
    written = sum(len(ids) for ids in scripted.reply_ids())
    for batch in batches:
        loss_mask = batch["completion_mask"] * batch["tool_mask"]
        assert loss_mask.sum(dim=1).tolist() == [written] * len(loss_mask)
        assert (batch["completion_mask"].sum(dim=1) > written + 20).all()  # the tool response (image included)
        image_pad = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
        assert (loss_mask[batch["completion_ids"] == image_pad] == 0).all()
    first, after = scripted.calls[0], scripted.calls[1]
    assert after["pixel_values"] > first["pixel_values"] > 0
    image_pad = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    assert sum(t == image_pad for t in after["ids"][0]) > sum(t == image_pad for t in first["ids"][0])
