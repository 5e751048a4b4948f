"""The web agent's training side: the task split, the recipe, and the likelihood maths on a real tiny LM."""

from __future__ import annotations

import dataclasses

import pytest

from vcoder.browse.prompt import step_prompt
from vcoder.browse.splits import overlap, split_of_instance
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.split import split_tasks, web_splits


def test_heldout_tasks_are_never_trained_on():
    config = WebAgentConfig(train_per_site=4, heldout_per_site=3, validation_per_site=2, seed=1)
    train, heldout = split_tasks(config)
    assert len(train) == 16 and len(heldout) == 12
    assert not overlap(train, heldout)
    assert len({t.task_id for t in [*train, *heldout]}) == 28
    assert split_tasks(config) == (train, heldout)  # seeded
    validation = split_tasks(dataclasses.replace(config, heldout_split="validation"))[1]
    assert len(validation) == 8 and not overlap(train, validation) and not overlap(validation, heldout)
    with pytest.raises(ValueError, match="heldout_split='train' must be validation or test"):
        WebAgentConfig(heldout_split="train")


def test_the_pool_grows_on_training_instances_apart_from_the_evaluation_splits():
    from vcoder.pipelines.web_agent.run import new_instances

    config = WebAgentConfig(train_per_site=6, heldout_per_site=2, validation_per_site=2, new_tasks_per_phase=4, seed=2)
    splits = web_splits(config)
    fresh = [t for site in new_instances(config, 1, splits["train"], splits["test"]) for t in site]
    assert len(fresh) >= 4 * len(config.sites)
    assert {split_of_instance(t.site_seed) for t in fresh} == {"train"}
    assert not overlap(fresh, [*splits["validation"], *splits["test"]])
    assert not {t.intent for t in fresh} & {t.intent for t in splits["train"]}


def test_the_recipe_is_checked():
    with pytest.raises(ValueError, match="did you mean 'phases'"):
        WebAgentConfig.from_dict({"phase": 2})
    with pytest.raises(ValueError, match="trainer: web_agent"):
        WebAgentConfig.from_dict({"trainer": "grpo"})
    assert WebAgentConfig.from_dict(WebAgentConfig(sites=("shop",)).to_dict()).sites == ("shop",)


@pytest.mark.timeout(300)
def test_training_raises_the_likelihood_of_the_action_only(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from vcoder.models.tiny_lm import build_tiny_lm
    from vcoder.pipelines.web_agent.lm import LocalPolicy, completion_logprobs, train_nll

    messages = step_prompt("Open the cart", [], '<a id="1">Shop</a> <a id="2">Cart</a>', route="/")
    action = 'do(action="Click", element="2")'
    path = build_tiny_lm(tmp_path / "lm", size="tiny", corpus=[m["content"] for m in messages] + [action] * 3)
    model, tok = AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)
    sample = [(messages, action)]
    other = [(messages, 'exit(message="no")')]
    before = completion_logprobs(model, tok, sample + other, max_prompt_tokens=256)
    stats = train_nll(model, tok, sample, epochs=80, learning_rate=1e-2, batch_size=1, max_prompt_tokens=256, seed=0)
    after = completion_logprobs(model, tok, sample + other, max_prompt_tokens=256)
    assert stats["steps"] == 80 and stats["loss_last"] < stats["loss_first"]
    assert after[0] > before[0] + 1.0 and after[0] > after[1]
    assert LocalPolicy(model, tok, max_prompt_tokens=256).generate(messages).strip() == action


@pytest.mark.parametrize("name", ["web_agent_tiny_cpu.yaml", "web_agent_llama3_1_8b.yaml", "web_agent_glm4_9b.yaml"])
def test_the_web_agent_recipes_parse(name):
    import os

    import yaml

    path = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "curriculum", name)
    with open(path) as f:
        config = WebAgentConfig.from_dict(yaml.safe_load(f))
    assert set(config.sites) == {"shop", "admin", "forum", "repo"}
    if "tiny" in name:
        assert config.device == "cpu" and config.sft_base == "tiny"
    else:  # WebRL's hyperparameters
        assert (config.learning_rate, config.sft_learning_rate, config.temperature) == (1e-6, 1e-5, 1.0)
        assert config.dtype == "bfloat16" and config.system_prompt
        # WebRL's update, with its run config's critic_lr, critic/actor epochs and batch size (the headers cite them)
        assert config.algorithm == "webrl" and (config.critic_learning_rate, config.critic_epochs) == (1e-6, 1.0)
        assert (config.epochs, config.batch_size, config.replay_max_items) == (1.0, 1, 100000)


def test_a_phase_rolls_out_a_seeded_draw_of_the_pool():
    from vcoder.pipelines.web_agent.run import rollout_tasks

    config = WebAgentConfig(train_per_site=6, heldout_per_site=2, rollout_tasks=5, seed=3)
    pool, _ = split_tasks(config)
    drawn = rollout_tasks(config, 1, pool)
    assert len(drawn) == 5 and all(t in pool for t in drawn)
    assert [t.task_id for t in drawn] == sorted(t.task_id for t in drawn)  # pool order
    assert drawn == rollout_tasks(config, 1, pool) and drawn != rollout_tasks(config, 2, pool)
    assert rollout_tasks(WebAgentConfig(rollout_tasks=0), 1, pool) == pool
    assert rollout_tasks(WebAgentConfig(rollout_tasks=len(pool) + 1), 1, pool) == pool
    with pytest.raises(ValueError, match="rollout_tasks"):
        WebAgentConfig(rollout_tasks=-1)


def test_the_sft_demonstrations_seed_the_replay_buffer(tmp_path):
    import json

    from vcoder.pipelines.web_agent.run import demo_replay

    messages = step_prompt("Open the cart", [], '<a id="1">Shop</a> <a id="2">Cart</a>', route="/")
    action = '# Element: Cart\ndo(action="Click", element="2")'
    row = {"messages": [*messages, {"role": "assistant", "content": action}], "task_id": 3, "step": 0, "score": 1.0}
    (tmp_path / "demos.jsonl").write_text(json.dumps(row) + "\n")
    assert demo_replay(tmp_path) == [{"task": messages, "completion": action, "score": 1.0, "phase": -1}]
    with pytest.raises(ValueError, match="web-sft"):
        demo_replay(tmp_path / "missing")


def test_the_tiny_sft_shape_is_checked():
    assert WebAgentConfig().sft_arch == "qwen2_5"  # what folders made before the setting were
    with pytest.raises(ValueError, match="sft_arch='llama' must be qwen2_5 or qwen3"):
        WebAgentConfig(sft_arch="llama")


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_qwen3_sft_start_reloads_with_the_tokenizer_it_was_trained_with(tmp_path):
    """The recipe's tiny start is qwen3-shaped because its folder reloads with the trained tokenizer: the same ids as
    the tokenizer trained in memory (merges across words kept), so a prompt stays a few dozen tokens."""
    import json

    from transformers import AutoTokenizer

    from vcoder.models.tiny import SIZES
    from vcoder.models.tokenizer import train_tokenizer
    from vcoder.pipelines.web_agent.sft import sft_start

    config = WebAgentConfig(
        sites=("shop",), train_per_site=2, heldout_per_site=1, sft_size="tiny", sft_arch="qwen3", sft_epochs=0.5,
        sft_split_digits=True, sft_element_comment=True, system_prompt=False,
    )  # fmt: skip
    info = sft_start(config, tmp_path / "sft")
    assert info["arch"] == "qwen3" and info["demos"] >= 2 and info["steps"] >= 1
    assert json.loads((tmp_path / "sft" / "sft.json").read_text())["arch"] == "qwen3"
    rows = [json.loads(line) for line in (tmp_path / "sft" / "demos.jsonl").read_text().splitlines()]
    corpus = [m["content"] for r in rows for m in r["messages"]] * 2
    trained = train_tokenizer(corpus, vocab_size=SIZES["tiny"].vocab, split_digits=True)
    reloaded = AutoTokenizer.from_pretrained(tmp_path / "sft")
    prompt = rows[0]["messages"][-2]["content"]
    assert reloaded(prompt)["input_ids"] == trained(prompt)["input_ids"]
    assert len(reloaded(prompt)["input_ids"]) < len(prompt.split())  # merges across words survived the reload
