"""The quickstart's GRPO raises its own reward: a short real run, the same pages probed greedily before and after."""

from __future__ import annotations

import pytest

from vcoder.pipelines.quickstart import DATA

PROBE_PAGES = DATA["probe_pages"]  # the quickstart's own probe: 16 training pages


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(2400)  # ~5 min on 2 idle cores (the quickstart's whole SFT, then 12 GRPO steps)
@pytest.mark.xfail(
    strict=True,
    reason="open (issue 14 section 1): measured, GRPO lowers its greedy reward on the 16 pages it trains on, "
    "3.112 -> 2.703 of 6 with the quickstart's recipe (Design2Code block 0.371 -> 0.266 while SSIM rises 0.687 -> "
    "0.705); with the earlier recipe and a 60-step SFT 1.251 -> 1.222 of 5. Not a greedy-decoding artefact: the "
    "mean reward of 8 samples a page (GRPO's own objective) on the same pages moves 2.419 -> 2.346 with this run, "
    "and +0.04 to +0.13 with 5x-10x the learning rate or twice the steps, 8-10 of 16 pages up (noise). Remove this "
    "mark when a recipe makes the probe rise.",
)
def test_grpo_raises_the_greedy_reward_on_the_pages_it_trains_on(tmp_path, record_property):
    import torch

    from vcoder.data import to_dataset
    from vcoder.models.tiny import build_tiny_vlm
    from vcoder.pipelines import grpo, sft
    from vcoder.pipelines.probe import reward_probe
    from vcoder.pipelines.quickstart import GRPO_RECIPE, SFT_RECIPE, train_stage
    from vcoder.pipelines.training_data import synthetic_rows
    from vcoder.rendering import BrowserPool
    from vcoder.rewards import build_rewards

    init = str(build_tiny_vlm(tmp_path / "init", arch="qwen2_5_vl", size="small", seed=0))
    with BrowserPool(max_pages=2) as pool:
        rows = synthetic_rows(DATA["n_train"], seed=0, width=DATA["width"], height=DATA["height"], pool=pool)
    # the quickstart's SFT: a model that reads the screenshot (a shorter SFT writes one page for every screenshot,
    # and GRPO can then only swap one guess for another)
    recipe = dict(SFT_RECIPE, model_name_or_path=init, output_dir=str(tmp_path / "sft"), seed=0)
    train_stage(sft, recipe, to_dataset(rows), label="SFT", progress=False)

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # GRPO's sampling differs across thread counts; one thread keeps this run the same
    try:
        probe = rows[:PROBE_PAGES]
        funcs = build_rewards(GRPO_RECIPE["reward_funcs"], render_width=DATA["width"], render_height=DATA["height"])
        weights = GRPO_RECIPE["reward_weights"]
        start = reward_probe(str(tmp_path / "sft"), probe, reward_funcs=funcs, reward_weights=weights)

        # the quickstart's GRPO recipe, shortened, on the probe pages themselves: 16 pages x 4 completions a step
        recipe = dict(GRPO_RECIPE, model_name_or_path=str(tmp_path / "sft"), output_dir=str(tmp_path / "grpo"))
        recipe.update(seed=0, max_steps=12, per_device_train_batch_size=4 * PROBE_PAGES, log_completions=False)
        train_stage(grpo, recipe, to_dataset(probe), label="GRPO", progress=False)
        end = reward_probe(str(tmp_path / "grpo"), probe, reward_funcs=funcs, reward_weights=weights)
    finally:
        torch.set_num_threads(threads)

    record_property("probe_reward", {"start": start, "end": end})
    assert start["pages"] == end["pages"] == PROBE_PAGES
    # greedy decoding on the same pages: only the policy changed between the two scores
    assert end["reward"] > start["reward"] + 0.1, (start, end)
