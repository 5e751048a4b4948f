"""The web agent's phase update learns what transfers to validation tasks: one real phase of the curriculum
(``vcoder curriculum run`` with configs/curriculum/web_agent_tiny_cpu.yaml's update, shrunk: sampled episodes in
Chromium, the filtered-BC update on the successes and the replayed demonstrations) raises the likelihood of the
scripted solver's actions on validation tasks it never saw, beside a learning-rate-0 control run through the same
code."""

from __future__ import annotations

import pytest

from tests.pipelines.runs import same_weights

# The recipe's update and shapes (qwen3-shaped tiny LM, digits apart, "# Element:" notes, 768-token prompts,
# 64 new tokens, 6 steps an episode, batch 8, learning rate 2e-3 over 2 passes), on one site with 8 training tasks.
SETTINGS = dict(
    sites=("shop",),
    train_per_site=8,
    validation_per_site=4,
    heldout_per_site=1,
    heldout_split="validation",
    train_instances=2,
    heldout_instances=1,
    phases=1,
    rollouts_per_task=1,
    rollout_tasks=1,
    temperature=0.7,
    step_budget=6,
    learning_rate=2e-3,
    epochs=2.0,
    batch_size=8,
    max_prompt_tokens=768,
    max_new_tokens=64,
    # WebRL's window keeps a replayed step whose confidence (per-token geometric mean probability under the start)
    # lies in (0.5, 0.95]: the recipe's SFT start has ~3000 update steps behind it, this one 16 (confidence ~0.07),
    # so the window would drop every demonstration and, with no successful rollout, leave the update empty. The test
    # widens the window's low end; the update is the recipe's code on the data the window lets through.
    replay_low=0.0,
    replay_high=0.95,
    replay_demos=True,
    new_tasks_per_phase=2,
    system_prompt=False,
    torch_threads=1,
    sft_base="tiny",
    sft_size="tiny",
    sft_arch="qwen3",
    sft_split_digits=True,
    sft_element_comment=True,
    sft_learning_rate=4e-3,
    device="cpu",
)
# 4 passes over the 30 training demonstrations (16 steps): the format is half learned (loss 7.06 -> 2.58), so more
# of the same update can show on unseen tasks. 10 passes (40 steps, loss 0.85) is past it: a phase replaying every
# demonstration then LOWERED the validation figure (-2.243 -> -2.397), the 8 training tasks' entities overfitted.
SFT_EPOCHS = 4.0
# The lr-0 control: the same phase at learning rate 0. AdamW's update is scaled by the rate (weight decay 0 here),
# so the weights after one step are the weights after any number: a tenth of a pass (one step) stands for the phase.
CONTROL_EPOCHS = 0.1
# mean log-probability per action token on the validation demonstrations (15 steps of 4 tasks), measured 2026-11-28 on
# 2 cores: SFT start -3.286, after the phase -3.010, lr-0 control -3.286 (its weights are the start's); with
# SETTINGS["learning_rate"] = 0.0 the trained run is the start's -3.286 too and this test fails
MARGIN = 0.1


@pytest.fixture(scope="session")
def web_sft_start(tmp_path_factory):
    """A short SFT start of the web agent (the scripted solvers' demonstrations of the training tasks, a tiny LM
    trained on them for :data:`SFT_EPOCHS` passes), built once per session: its folder."""
    from vcoder.pipelines.web_agent.config import WebAgentConfig
    from vcoder.pipelines.web_agent.sft import sft_start

    out = tmp_path_factory.mktemp("web-sft") / "start"
    sft_start(WebAgentConfig(**SETTINGS, sft_epochs=SFT_EPOCHS), out)
    return str(out)


def validation_demos(config) -> list[tuple[list, str]]:
    """The scripted solvers' solved episodes on the validation split, one ``(prompt messages, action)`` per step."""
    import asyncio

    from vcoder.browse import ScriptedSolver, arun_episode
    from vcoder.browse.records import sft_rows
    from vcoder.pipelines.web_agent.split import web_splits
    from vcoder.rendering import BrowserPool

    async def play(tasks, pool):
        solver = lambda t: ScriptedSolver(t.solution, comment=config.sft_element_comment)  # noqa: E731
        return [await arun_episode(t, solver(t), pool=pool, step_budget=config.step_budget) for t in tasks]

    with BrowserPool(max_pages=1) as pool:
        episodes = asyncio.run(play(web_splits(config)["validation"], pool))
    rows = [row for e in episodes if e.evaluation.success for row in sft_rows(e)]
    return [(r["messages"][:-1], r["messages"][-1]["content"]) for r in rows]


def action_likelihood(model_dir: str, config, demos: list) -> float:
    """Mean over ``demos`` of the policy's mean log-probability per action token (the prompt as the policy reads it)."""
    from vcoder.pipelines.web_agent.lm import completion_logprobs
    from vcoder.pipelines.web_agent.run import load_policy

    model, tokenizer = load_policy(model_dir, config)
    values = completion_logprobs(
        model, tokenizer, demos, max_prompt_tokens=config.max_prompt_tokens, system=config.system_prompt
    )
    return sum(values) / len(values)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.learning
@pytest.mark.timeout(1800)
def test_a_phase_raises_the_validation_actions_likelihood_against_a_learning_rate_0_control(
    web_sft_start, tmp_path, record_property
):
    """What it measures: the mean per-token log-likelihood of the scripted solver's actions (WebRL's "# Element:"
    note and the action) on the validation tasks, under the SFT start and under the policy one phase of the
    curriculum's filtered-BC update made from it. Why that is learning on held-out content: the validation tasks run on
    a site instance no training task uses and share no entity, reference answer, URL or intent with a training task
    (:mod:`vcoder.pipelines.web_agent.split`, checked below); the phase trains only on training tasks' steps (its
    rollouts and the replayed training demonstrations), so a rise here is what the update taught that carries over to
    unseen tasks. The lr-0 control runs the same phase at learning rate 0: its weights must be the start's and its
    figure the start's, so the gain comes from the update and not from the measurement."""
    from dataclasses import replace

    from vcoder.browse.splits import content_keys
    from vcoder.pipelines.web_agent.config import WebAgentConfig
    from vcoder.pipelines.web_agent.run import run_web_curriculum
    from vcoder.pipelines.web_agent.split import web_splits

    config = WebAgentConfig(**SETTINGS, sft_epochs=SFT_EPOCHS, model_name_or_path=web_sft_start)
    splits = web_splits(config)
    train_keys = {k for t in splits["train"] for k in content_keys(t)}
    assert not train_keys & {k for t in splits["validation"] for k in content_keys(t)}
    demos = validation_demos(config)
    assert len(demos) >= 8  # every validation task solved by its scripted solver, a few steps each

    trained = run_web_curriculum(config, tmp_path / "trained")
    control = run_web_curriculum(replace(config, learning_rate=0.0, epochs=CONTROL_EPOCHS), tmp_path / "lr0")

    figures = {
        "start": action_likelihood(web_sft_start, config, demos),
        "trained": action_likelihood(trained["final_model"], config, demos),
        "lr0": action_likelihood(control["final_model"], config, demos),
        "train": trained["phases"][0]["train"],
        "replay": trained["phases"][0]["replay"],
    }
    record_property("validation_action_loglik", figures)
    assert figures["train"]["steps"] >= 1 and control["phases"][0]["train"]["steps"] >= 1  # both updates ran
    # the control did not move: the start's very weights, so the same likelihood
    assert same_weights(web_sft_start, control["final_model"]), figures
    assert figures["lr0"] == pytest.approx(figures["start"], abs=1e-6), figures
    # the same validation demonstrations: only the learning rate differs between the trained run and the control
    assert figures["trained"] > figures["lr0"] + MARGIN, figures
