"""One-shot GRPO and SFT (VisionCoder): screenshot -> HTML, scored by the rendering rewards.

``args``: the recipes' script arguments (dataset, prompts, rewards); ``data``: the training rows; ``train``: the GRPO
launch script (``accelerate launch -m vcoder.pipelines.grpo --config ...``); ``sft``: the SFT one
(``-m vcoder.pipelines.grpo.sft``); ``heldout``: scoring held-out pages; ``greedy_baseline``: the start-of-run
greedy score; ``probe``: the reward of a policy on a few pages. Heavy imports happen inside functions.
"""

from vcoder.pipelines.grpo.train import build_trainer, cli, main, make_parser

__all__ = ["build_trainer", "cli", "main", "make_parser"]
