"""``algorithm: webrl`` for the browsing agent: every term on a 3-step browsing trajectory worked out by hand, the
actor loss through the TRL trainer on a real tiny LM, and one real phase (tiny LM, real Chromium)."""

from __future__ import annotations

import json
import math

import pytest

from vcoder.browse import generate_tasks
from vcoder.browse.episode import WebEpisode, WebStep
from vcoder.browse.evaluators import Evaluation
from vcoder.pipelines.curriculum.webrl_objective import actor_loss_terms, advantages, binarise
from vcoder.pipelines.web_agent.config import WebAgentConfig
from vcoder.pipelines.web_agent.webrl import phase_transitions, trajectory_items

TASK = generate_tasks("shop", seed=0, n=1)[0]
PAGES = ["[1] <a> Catalogue\n[2] <a> Cart", "[3] <a> Lamp $12.50\n[4] <button> Add", "[5] <span> Lamp $12.50"]
ACTIONS = ['do(action="Click", element="1")', 'do(action="Click", element="3")', 'exit(message="$12.50")']


def episode(success: bool, actions=ACTIONS) -> WebEpisode:
    steps = tuple(WebStep(f"/p{i}", page, action, True) for i, (page, action) in enumerate(zip(PAGES, actions)))
    return WebEpisode(TASK, "test", steps, "$12.50", "__SHOP__/#/p2", Evaluation(1.0 if success else 0.0))


def test_returns_targets_and_next_observations_of_a_browsing_trajectory():
    won, lost = trajectory_items(episode(True), phase=2), trajectory_items(episode(False), phase=2)
    # success: r = [1, 1, 1]; G_2 = 1, G_1 = 1 + 0.9 = 1.9, G_0 = 1 + 0.9 * 1.9 = 2.71; every class 1
    assert [it["reward"] for it in won] == [1.0, 1.0, 1.0]
    assert [it["mc_return"] for it in won] == pytest.approx([2.71, 1.9, 1.0])
    assert [it["target"] for it in won] == [1, 1, 1]
    # failure: r = G = 0, class 0
    assert [(it["reward"], it["mc_return"], it["target"]) for it in lost] == [(0.0, 0.0, 0)] * 3
    # s_{t+1} is the next step's prompt (its page and the history so far); the last step's is itself
    assert PAGES[1] in won[0]["next_task"][-1]["content"] and ACTIONS[0] in won[0]["next_task"][-1]["content"]
    assert won[1]["next_task"] == won[2]["task"] and won[2]["next_task"] == won[2]["task"]
    assert [it["done"] for it in won] == [False, False, True] and won[2]["completion"] == ACTIONS[2]
    assert {it["phase"] for it in won} == {2} and [it["step"] for it in won] == [0, 1, 2]


def test_one_success_per_intent_and_every_failure():
    # WebRL's process_data: a task's second success is dropped, failures all stay
    items = phase_transitions([episode(True), episode(False), episode(True), episode(False)], phase=0)
    assert [it["target"] for it in items] == [1, 1, 1] + [0] * 6


def test_advantages_and_actor_loss_of_the_browsing_trajectories():
    # the critic's V(s_0..2) = [0.3, 0.6, 0.55]; next values [0.6, 0.55, 0.55]
    values, nexts = [0.3, 0.6, 0.55], [0.6, 0.55, 0.55]
    won, lost = trajectory_items(episode(True), phase=0), trajectory_items(episode(False), phase=0)
    a_won = advantages(values, nexts, [it["reward"] for it in won], [it["mc_return"] for it in won])
    a_lost = advantages(values, nexts, [it["reward"] for it in lost], [it["mc_return"] for it in lost])
    # success: clamp([0.3 - 0.05 + 1 + 2.71, -0.05 - 0.05 + 1 + 1.9, 0 - 0.05 + 1 + 1]) = [1, 1, 1]
    assert a_won == [1.0, 1.0, 1.0]
    # failure: [0.6 - 0.3 - 0.05, 0.55 - 0.6 - 0.05, 0 - 0.05] = [0.25, -0.1, -0.05] -> binarised [1, -0.6, -0.6]:
    # the step that reached a page the critic rates higher is credited even in a failed episode
    assert a_lost == pytest.approx([0.25, -0.1, -0.05]) and binarise(a_lost) == [1.0, -0.6, -0.6]
    # the actor loss on the six steps: action tokens n = 2 each, L = [-1, -1, -1, -2, -2, -2],
    # L_ref = [-1.2, -1, -0.2, -2, -2.2, -2]; p_ref = exp(L_ref / 2) = [0.549, 0.607, 0.905, 0.368, 0.333, 0.368]
    # binarised [1, 1, 1, 1, -0.6, -0.6] -> beta0 = [1, 1, 5, 1, 5, 5]; N = 4 positives x 2 tokens = 8
    # r = (L - L_ref) / 8 = [0.025, 0, -0.1, 0, 0.025, 0]; cap |A / r| = [40, inf, 10, inf, 24, inf] -> beta = beta0
    # SmoothL1(beta r, A) for the positives: (0.025 - 1)^2 / 2 = 0.475313, 0.5, |−0.5 − 1| − 0.5 = 1.0 (/5 = 0.2), 0.5
    # loss = (0.475313 + 0.5 + 0.2 + 0.5) / 6 = 0.279219
    terms = actor_loss_terms(
        [-1.0, -1.0, -1.0, -2.0, -2.0, -2.0],
        [-1.2, -1.0, -0.2, -2.0, -2.2, -2.0],
        [2] * 6,
        binarise(a_won) + binarise(a_lost),
    )
    assert terms["beta0"].tolist() == [1.0, 1.0, 5.0, 1.0, 5.0, 5.0] and float(terms["count"]) == 8.0
    assert terms["log_ratio"].tolist() == pytest.approx([0.025, 0.0, -0.1, 0.0, 0.025, 0.0])
    assert terms["beta"].tolist() == pytest.approx([1.0, 1.0, 5.0, 1.0, 5.0, 5.0])
    assert terms["per_sample"].tolist() == pytest.approx([0.4753125, 0.5, 0.2, 0.5, 0.0, 0.0])
    assert terms["loss"].item() == pytest.approx(1.6753125 / 6)


def test_the_recipe_names_its_update():
    assert WebAgentConfig().algorithm == "filtered_bc"
    with pytest.raises(ValueError, match="no GRPO update"):
        WebAgentConfig(algorithm="grpo")
    assert WebAgentConfig.from_dict({"algorithm": "webrl", "critic_epochs": 3}).critic_epochs == 3


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    from vcoder.models.tiny_lm import build_tiny_lm

    corpus = [m["content"] for chat in episode(True).step_messages() for m in chat] * 2
    return build_tiny_lm(tmp_path_factory.mktemp("webrl-lm") / "lm", size="tiny", corpus=corpus)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_trainer_computes_webrl_loss_and_raises_the_credited_actions(tiny_lm, tmp_path):
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from vcoder.pipelines.web_agent.webrl import Collator, WebAgentWebRLTrainer, WebRLCritic, encode
    from vcoder.pipelines.web_agent.webrl_phase import _sft_config

    model, tok = AutoModelForCausalLM.from_pretrained(tiny_lm), AutoTokenizer.from_pretrained(tiny_lm)
    config = WebAgentConfig(batch_size=6, epochs=3.0, learning_rate=3e-3, critic_epochs=0.0, max_prompt_tokens=128)
    lost = ['do(action="Click", element="2")', 'do(action="Click", element="4")', 'exit(message="no")']
    items = trajectory_items(episode(True), phase=0) + trajectory_items(episode(False, lost), phase=0)
    rows = encode(items, model, tok, max_prompt_tokens=128, system=True)
    critic = WebRLCritic(model.config.hidden_size)
    with torch.no_grad():  # every state worth 0.75 to both heads: softmax([0, ln 3])[1]
        for head in (critic.head1, critic.head2):
            head[-1].weight.zero_()
            head[-1].bias.copy_(torch.tensor([0.0, math.log(3.0)]))
    trainer = WebAgentWebRLTrainer(
        model=model,
        args=_sft_config(config, tmp_path, 0),
        train_dataset=Dataset.from_list(rows),
        processing_class=tok,
        data_collator=Collator(tok.pad_token_id),
        critic=critic,
        critic_learning_rate=0.0,
        critic_epochs=0.0,
    )
    batch = Collator(tok.pad_token_id)(rows)
    loss = trainer.compute_loss(model, batch)
    # the policy is the reference: r = 0, beta = beta0, SmoothL1(0, 1) = 0.5 per positive sample (divided by beta);
    # success A = 1 (x3); failure A = 0.75 - 0.75 - 0.05 < 0 -> -0.6 (x3, masked). A random LM's p_ref < 0.8 -> beta 1:
    # loss = 3 x 0.5 / 6 = 0.25
    assert trainer.webrl_last["binarised"] == [1.0, 1.0, 1.0, -0.6, -0.6, -0.6]
    assert trainer.webrl_last["logp"] == pytest.approx([r["ref_logp"] for r in rows], abs=1e-4)
    assert loss.item() == pytest.approx(0.25, abs=1e-5)
    trainer.train()
    after = encode(items, model, tok, max_prompt_tokens=128, system=True)
    gain = [a["ref_logp"] - b["ref_logp"] for a, b in zip(after, rows)]
    assert min(gain[:3]) > 0.5  # the credited actions became likelier
    assert trainer.webrl_stats["actor_loss"][-1] < 0.25


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_webrl_phases_on_real_sites(tiny_lm, tmp_path):
    from vcoder.pipelines.web_agent.run import run_web_curriculum

    config = WebAgentConfig(
        model_name_or_path=str(tiny_lm),
        sites=("shop",),
        train_per_site=1,
        heldout_per_site=1,
        phases=2,
        rollouts_per_task=2,
        step_budget=3,
        max_prompt_tokens=256,
        max_new_tokens=16,
        new_tasks_per_phase=1,
        band_low=0.0,
        band_high=1.0,
        algorithm="webrl",
        critic_epochs=2.0,
    )
    summary = run_web_curriculum(config, tmp_path)
    report = json.loads((tmp_path / "phase_0" / "report.json").read_text())
    assert report == summary["phases"][0]
    assert report["algorithm"] == "webrl" and report["reference_model"] == str(tiny_lm)
    # the next phase's reference is this phase's policy
    assert summary["phases"][1]["reference_model"] == str(tmp_path / "phase_0" / "model")
    # 1 task x 2 rollouts, up to 3 steps each: every step is a transition the critic was fitted on
    assert 2 <= report["critic"]["transitions"] <= 6 and report["critic"]["steps"] >= 1
    assert report["train"]["steps"] >= 1 and report["train"]["loss_first"] is not None
    assert report["candidates"]["probed"] == 3 and report["accepted"] == 1  # band [0, 1] keeps every value
    assert report["rejected"] == {"critic_band": 0, "over_limit": 2} and summary["phases"][1]["pool_size"] == 2
    assert all(0.0 <= v <= 1.0 for v in report["candidates"]["predicted_success"])
    assert (tmp_path / "phase_0" / "critic.pt").is_file() and (tmp_path / "phase_0" / "model").is_dir()
    assert report["heldout_success"] is not None


def test_the_webrl_recipe_parses():
    import os

    import yaml

    path = os.path.join(
        os.path.dirname(__file__), "..", "..", "configs", "curriculum", "web_agent_tiny_cpu_webrl.yaml"
    )
    with open(path) as f:
        config = WebAgentConfig.from_dict(yaml.safe_load(f))
    assert config.algorithm == "webrl" and config.critic_learning_rate == 1e-3 and config.device == "cpu"


def test_a_run_folder_from_before_the_algorithm_settings_still_resumes(tmp_path):
    import dataclasses

    from vcoder.pipelines.web_agent.run import LATER_DEFAULTS, run_web_curriculum

    config = WebAgentConfig(sites=("shop",), train_per_site=1, heldout_per_site=1, phases=1)
    assert {k: getattr(config, k) for k in LATER_DEFAULTS} == LATER_DEFAULTS  # the defaults an old folder means
    old = {k: v for k, v in config.to_dict().items() if k not in LATER_DEFAULTS}
    (tmp_path / "config.json").write_text(json.dumps({"config": old}))
    (tmp_path / "phase_0").mkdir()
    report = {"phase": 0, "heldout_success_before": 0.0, "heldout_success": 0.0, "heldout": {"success": 0.0}}
    (tmp_path / "phase_0" / "report.json").write_text(json.dumps(report))
    (tmp_path / "phase_0" / "next_pool.jsonl").write_text("")
    (tmp_path / "phase_0" / "replay_buffer.jsonl").write_text("")
    assert run_web_curriculum(config, tmp_path)["complete"]  # the complete phase is read, nothing reruns
    with pytest.raises(ValueError, match="another web_agent config"):
        run_web_curriculum(dataclasses.replace(config, algorithm="webrl"), tmp_path)
