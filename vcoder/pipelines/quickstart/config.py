"""The quickstart's recipes: the page draw (``DATA``), the SFT and GRPO stages' embedded recipes (ordinary pipeline
recipes, parsed by the same parsers as ``vcoder train``), the ``--fast`` shrink and the splits a run may be scored
on. Values only; :mod:`.stages` runs them and :mod:`.run` chains the stages.
"""

from __future__ import annotations

from typing import Any

from vcoder.data.splits import SCORED_SPLITS

# shared by both stages; the scored pages come from another split than the training pages (split by content)
# 128 held-out pages: a page scores 0 or ~0.8 by whether any block matched, so 48 left the mean noisy
DATA = {"n_train": 320, "n_holdout": 128, "width": 320, "height": 240, "difficulty": 0, "probe_pages": 16}

SFT_RECIPE: dict[str, Any] = {
    "dtype": "float32",
    "dataset": "synthetic",
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
    "learning_rate": 2.0e-3,
    "lr_scheduler_type": "cosine",
    "warmup_steps": 10,
    "per_device_train_batch_size": 16,
    "max_length": None,
    # measured on the held-out pages: the loss sits at ~0.33 (what the page template alone gives) until step ~250,
    # then falls as the model starts to read the screenshot. Stopped at 240 steps the model wrote nearly the same
    # page for every screenshot (seed 2: first block's colour right on 29% of pages, 8 colours; overall 0.630),
    # and GRPO on top had nothing image-dependent to sharpen. At 480 steps: 75%, overall 0.837 (seed 0 0.379 ->
    # 0.755, seed 1 0.455 -> 0.530), ~205 s on 2 cores.
    "max_steps": 480,
    "logging_steps": 5,
    "save_strategy": "no",
    "report_to": "none",
    "disable_tqdm": True,
    "dataloader_num_workers": 0,
}

GRPO_RECIPE: dict[str, Any] = {
    "dtype": "float32",
    "dataset": "synthetic",
    # Design2Code components of the rendered page vs the rendered reference, validity, and SSIM. The block components
    # see text blocks only: the reference page with its grid set to the wrong number of columns scores 4.91 of 5 on
    # them, with the wrong box height 4.96, so alone they gave GRPO almost no signal on the layout and it drifted (seed
    # 2, validation pages: right column count 72% -> 36% of pages). SSIM sees the boxes: 0.65-0.90 for those pages.
    "reward_funcs": ["validity", "block", "text", "position", "color", "ssim"],
    "reward_weights": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    "render_width": DATA["width"],
    "render_height": DATA["height"],
    "render_timeout_ms": 10000,
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
    "learning_rate": 1.0e-4,
    "lr_scheduler_type": "constant_with_warmup",
    "warmup_steps": 3,
    # 64 completions a generation, each generation used for two optimizer steps (PPO-clipped); measured here, one step
    # per generation at this learning rate let the entropy run away mid-run (0.37 -> 1.4). 8 completions a page on 8
    # pages, chosen on the VALIDATION pages of seeds 0-2 (issue 35; experiments/results/quickstart_generations_validation.json):
    # GRPO - SFT -0.009 / +0.067 / -0.006 (mean +0.017), against -0.063 / +0.084 / -0.009 (+0.004) with 4 on 16. Most of
    # a group's spread is whether a sample guessed the heading (right on ~13% of samples); 4 samples rarely hold one.
    "per_device_train_batch_size": 64,
    "num_generations": 8,
    "num_iterations": 2,
    # Raw reward differences as advantages: dividing by each group's standard deviation turned differences of a few
    # thousandths (four near-identical completions) into advantages of +-1. The heading is the largest text block and
    # the small model can hardly read it (right on 13% of sampled pages), so it is most of the reward's spread; a KL
    # term to the SFT model keeps what the rewards barely see (page background, heading guesses) from drifting.
    "scale_rewards": "none",
    "beta": 0.04,
    "max_completion_length": 48,
    # sampled at 0.7, chosen on the VALIDATION pages of seeds 0-2 (issue 35, round 9;
    # experiments/results/quickstart_temperature_validation.json): GRPO - SFT +0.015 / +0.110 / -0.002 (mean +0.041),
    # against -0.009 / +0.067 / -0.006 (+0.017) at 1.0. The model is scored greedily; at 1.0 a sample was far from
    # its greedy page (the greedy reward on training pages fell while the sampled one held).
    "temperature": 0.7,
    "max_steps": 40,
    "logging_steps": 1,
    "log_completions": True,
    "num_completions_to_print": 0,
    "save_strategy": "no",
    "report_to": "none",
    "disable_tqdm": True,
    "dataloader_num_workers": 0,
}

# --fast: the same path end to end with everything shrunk (tests)
FAST = {"n_train": 32, "n_holdout": 8, "sft_steps": 10, "grpo_steps": 4}
#: the splits a run may be scored on: ``test`` (reported) or ``validation`` (pilots, sweeps, recipe choices)
EVAL_SPLITS = SCORED_SPLITS
