"""The agent quickstart's recipes: the site kinds and draw (``DATA``, ``KINDS``, the fixed held-out seed), the short
system prompt and style, the episode, the agent-SFT and Step-GRPO stages' embedded recipes, the first attempts'
flaws and the ``--fast`` shrink. Values only; :mod:`.stages` runs them and :mod:`.run` chains the stages.
"""

from __future__ import annotations

from typing import Any

from vcoder.data.splits import SCORED_SPLITS

#: the site kinds trained and scored: four short-page kinds (replies of 40-60 tokens, at most ~100) that the SFT model
#: gets partly right (a validation-split pilot of 16 kinds: counter alone reached 0.94-0.95 held-out and left
#: Step-GRPO nothing to gain; the kinds with 100+ token pages were cut off at ``max_turn_tokens``)
KINDS = ("counter", "message", "pagination", "navigation")
#: the scored tasks (test or validation) come from this dataset seed for every run, so every seed is scored on the
#: same tasks
HELDOUT_SEED = 0
#: the splits a run may be scored on: ``test`` (reported) or ``validation`` (pilots, sweeps, recipe choices)
EVAL_SPLITS = SCORED_SPLITS
DATA = {"n_train": 128, "n_heldout": 32, "max_turns": 3, "arch": "qwen3", "size": "small"}

#: a short system prompt: the tiny model learns the turn format from the trajectories, and vcoder's full prompt (the
#: libraries, the file rules) was a third of every sequence it trained on
SYSTEM_PROMPT = (
    'Build the website. Reply with the whole page as <file path="index.html">...</file>. Each turn is tested; fix '
    "what failed, or reply <finish/> when every test passes."
)
#: the sites' style: one accent rule instead of a styled card (the cases never look at style; 5x fewer tokens)
STYLE = "accent"

#: how long the TRAINING grader (trajectories, Step-GRPO) re-checks an unmet expectation: these sites answer a click at
#: once, so an unmet one stays unmet, and the environment's default (5 s) made a wrong site cost 5 s a case; the
#: held-out scoring keeps the environment's default grader
TRAIN_EXPECT_MS = 1000

# the policy is in-process: a reply that takes long means a busy machine, never a failed model (a shared 2-core
# machine once took over the default 300 s for one round of replies), so the episodes wait for it
EPISODE = {
    "max_turns": DATA["max_turns"],
    "render_width": 1280,
    "render_height": 720,
    "reply_timeout_ms": 3_600_000,
    "system_prompt": SYSTEM_PROMPT,
}

SFT_RECIPE: dict[str, Any] = {
    "dtype": "float32",
    "dataset": "trajectories",
    "assistant_only_loss": True,
    "packing": False,
    "max_length": 2048,
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
    "learning_rate": 2.0e-3,
    "lr_scheduler_type": "cosine",
    "warmup_steps": 10,
    "per_device_train_batch_size": 4,
    "max_steps": 300,
    "logging_steps": 5,
    "save_strategy": "no",
    "report_to": "none",
    "disable_tqdm": True,
    "dataloader_num_workers": 0,
}

STEP_GRPO_RECIPE: dict[str, Any] = {
    "dtype": "float32",
    "dataset": "site_kinds",
    "max_turns": DATA["max_turns"],
    "max_turn_tokens": 128,
    "render_width": EPISODE["render_width"],
    "render_height": EPISODE["render_height"],
    "render_max_pages": 4,
    "reply_timeout_ms": EPISODE["reply_timeout_ms"],
    "system_prompt": SYSTEM_PROMPT,
    "use_cpu": True,
    "bf16": False,
    "gradient_checkpointing": False,
    # round 5: 8 steps at 2e-4 (round 4: 12 at 5e-5, whose first step had a learning rate of 0), each step one task
    # of every kind (the training tasks cycle through KINDS and are not shuffled, so 4 tasks = 4 kinds)
    "learning_rate": 2.0e-4,
    "lr_scheduler_type": "constant",
    "warmup_steps": 0,
    "shuffle_dataset": False,
    "per_device_train_batch_size": 32,
    "num_generations": 8,
    "max_completion_length": 640,
    "temperature": 1.0,
    "beta": 0.04,
    "loss_type": "dapo",
    "mask_truncated_completions": True,
    "max_steps": 8,
    "logging_steps": 1,
    "log_completions": False,
    "save_strategy": "no",
    "report_to": "none",
    "disable_tqdm": True,
    "dataloader_num_workers": 0,
}

#: the first attempts' flaws, drawn uniformly: wrong values (the site of another request) three times as often as
#: each other flaw, because copying the request's values is what this model gets wrong
FLAWS = ("wrong_values",) * 3 + ("handler_missing", "wrong_label", "broken_markup", "cut_off")

# --fast: the same path end to end with everything shrunk (tests)
FAST = {"n_train": 16, "n_heldout": 4, "sft_steps": 6, "grpo_steps": 2}
