"""The agent quickstart's Step-GRPO raises its own step reward: a short real run, the same training tasks played
greedily before and after (the one-shot learning test's pattern, tests/pipelines/test_quickstart_learns.py)."""

from __future__ import annotations

import pytest

# Step-GRPO trains on these tasks themselves, every task in every step
TASKS = 4
GENERATIONS = 4
STEPS = 8


def _mean_step_reward(evaluation) -> float:
    rewards = [r for task in evaluation["tasks"] for r in task["rewards"] if r is not None]
    return sum(rewards) / len(rewards)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(2400)
def test_step_grpo_raises_the_greedy_step_reward_on_the_tasks_it_trains_on(tmp_path, record_property):
    import torch

    from vcoder.data.site_kinds import kind_tasks
    from vcoder.pipelines.agent_eval import evaluate_agent
    from vcoder.pipelines.agent_quickstart import (
        DATA,
        EPISODE,
        KINDS,
        SFT_RECIPE,
        STEP_GRPO_RECIPE,
        build_model,
        make_trajectories,
        read_jsonl_dataset,
        task_row,
        train_step_grpo,
    )
    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.quickstart import train_stage
    from vcoder.rendering import get_default_pool
    from vcoder.sites.grading import SiteGrader
    from vcoder.sites.records import EpisodeOptions

    pool = get_default_pool(max_pages=STEP_GRPO_RECIPE["render_max_pages"])
    tasks = kind_tasks(DATA["n_train"], 0, split="train", kinds=KINDS)
    trajectories, _ = make_trajectories(str(tmp_path / "trajectories"), tasks, pool=pool, seed=0)
    init = build_model(str(tmp_path / "init"), trajectories, seed=0)
    # the quickstart's agent SFT: a model that writes well-formed sites, right on some of the requests
    recipe = dict(SFT_RECIPE, model_name_or_path=init, output_dir=str(tmp_path / "sft"), seed=0)
    train_stage(
        sft, dict(recipe, dataset_source=trajectories), read_jsonl_dataset(trajectories), label="SFT", progress=False
    )

    grader, options = SiteGrader(pool=pool), EpisodeOptions(**EPISODE)
    probe = [task_row(r) for r in tasks[:TASKS]]
    budget, turn = STEP_GRPO_RECIPE["max_completion_length"], STEP_GRPO_RECIPE["max_turn_tokens"]

    def score(model_dir: str) -> float:
        evaluation = evaluate_agent(
            model_dir, probe, grader=grader, options=options, max_turn_tokens=turn, budget=budget
        )
        return _mean_step_reward(evaluation)

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # sampling differs across thread counts; one thread keeps this run the same
    try:
        start = score(str(tmp_path / "sft"))
        recipe = dict(STEP_GRPO_RECIPE, model_name_or_path=str(tmp_path / "sft"), output_dir=str(tmp_path / "rl"))
        recipe.update(seed=0, max_steps=STEPS, num_generations=GENERATIONS)
        recipe.update(per_device_train_batch_size=TASKS * GENERATIONS)  # every task in every step
        train_step_grpo(recipe, read_rows(probe), grader=grader, progress=False)
        end = score(str(tmp_path / "rl"))
    finally:
        torch.set_num_threads(threads)

    record_property("step_reward", {"start": start, "end": end})
    # greedy episodes on the same tasks: only the policy changed between the two scores
    assert end > start + 0.5, (start, end)


def read_rows(rows):
    from datasets import Dataset

    return Dataset.from_list(rows)
