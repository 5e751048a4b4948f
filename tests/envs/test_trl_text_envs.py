"""The site-building and browsing environments through TRL's own GRPOTrainer(environment_factory=...) on the tiny
causal LM, 2 steps each: the tools run the real episodes (grading with the task's cases; WebArena's evaluators)."""

from __future__ import annotations

import pytest

from tests.envs.scripted import tool_call

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _train(train_with_env, model_dir, factory, rows, replies):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    trainer, scripted, batches = train_with_env(model, tokenizer, rows, factory, replies, max_completion_length=3000)
    written = sum(len(ids) for ids in scripted.reply_ids())
    for batch in batches:  # the environment's tokens are masked from the loss: only the model's replies count
        loss_mask = batch["completion_mask"] * batch["tool_mask"]
        assert loss_mask.sum(dim=1).tolist() == [written] * len(loss_mask)
        assert (batch["completion_mask"].sum(dim=1) > written).all()
    return trainer.state.log_history, scripted


def test_site_env_under_grpo_trainer(tool_lm_dir, train_with_env):
    from vcoder.data.site_kinds.pages import make_page
    from vcoder.envs.trl import site_environment
    from vcoder.sites.records import EpisodeOptions

    page = make_page("counter", 1)
    rows = [
        {
            "prompt": [{"role": "user", "content": page["instruction"]}],
            "instruction": page["instruction"],
            "test_cases": page["test_cases"],
        }
    ] * 2
    options = EpisodeOptions(
        max_turns=2, screenshot_weight=0.0, render_width=640, render_height=400, settle_timeout_ms=20_000
    )
    calls = tool_call("write_file", path="index.html", content=page["html"]).removesuffix("<|im_end|>")
    replies = [calls + "\n" + tool_call("build"), "Done.<|im_end|>"]
    logs, scripted = _train(train_with_env, tool_lm_dir, site_environment(options, show_images=False), rows, replies)
    steps = [entry for entry in logs if "rewards/SiteEnv/mean" in entry]
    assert len(steps) == 2
    assert steps[-1]["tools/call_frequency"] == pytest.approx(2.0)  # write_file and build, in every rollout
    assert steps[-1]["tools/failure_frequency"] == pytest.approx(0.0)
    # the task's cases ran on the built page and all passed: gui_weight (5) x 1.0, appearance switched off
    assert steps[-1]["rewards/SiteEnv/mean"] == pytest.approx(5.0)
    after = scripted.tokenizer.decode(scripted.calls[1]["ids"][0])
    assert "Functionality" in after  # the build's feedback reached the model's next turn


def test_browse_env_under_grpo_trainer(tool_lm_dir, train_with_env):
    import json

    from vcoder.browse.generate import generate_tasks
    from vcoder.envs.trl import browse_environment

    task = generate_tasks("shop", seed=0, n=1)[0]
    answer = task.eval.reference_answers["must_include"][0]
    rows = [{"prompt": [{"role": "user", "content": task.intent}], "task": json.dumps(task.to_dict())}] * 2
    replies = [
        tool_call("act", action='do(action="Scroll Down")'),
        tool_call("act", action=f'exit(message="{answer}")'),
        "Done.<|im_end|>",
    ]
    logs, scripted = _train(train_with_env, tool_lm_dir, browse_environment(step_budget=4), rows, replies)
    steps = [entry for entry in logs if "rewards/BrowseEnv/mean" in entry]
    assert len(steps) == 2
    assert steps[-1]["tools/call_frequency"] == pytest.approx(2.0)  # a scroll, then exit with the answer
    assert steps[-1]["rewards/BrowseEnv/mean"] == pytest.approx(1.0)  # WebArena's string match on the answer
    first = scripted.tokenizer.decode(scripted.calls[0]["ids"][0])
    assert "Search products" in first  # reset's observation (WebRL's simplified HTML) is in the prompt
