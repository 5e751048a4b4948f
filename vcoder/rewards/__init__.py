"""TRL-shaped reward callables: ``name_reward(completions, *, image=None, html=None, **kwargs) -> list[float|None]``.

All rewards are async (TRL gathers them concurrently) and share one render per distinct completion and one per
reference. Scores lie in [0, 1]; 0.0 means the model's output is bad, None means "could not judge".

Example:
    >>> from vcoder.rewards import build_rewards
    >>> rewards = build_rewards(["format", "validity", "visual"], render_timeout_ms=10000)
    >>> # trl.GRPOTrainer(..., reward_funcs=rewards)
"""

from vcoder.rewards.gui import gui_agent_reward, make_gui_agent_reward
from vcoder.rewards.judge import make_screenshot_judge_reward, screenshot_judge_reward
from vcoder.rewards.markup import (
    dom_reward,
    format_reward,
    make_dom_reward,
    make_format_reward,
    make_validity_reward,
    validity_reward,
)
from vcoder.rewards.orm import make_orm_reward, orm_reward
from vcoder.rewards.registry import REGISTRY, available_rewards, build_reward, build_rewards, score_completions
from vcoder.rewards.settings import RewardSettings
from vcoder.rewards.visual import (
    block_reward,
    clip_reward,
    color_reward,
    make_block_reward,
    make_clip_reward,
    make_color_reward,
    make_position_reward,
    make_ssim_reward,
    make_text_reward,
    make_visual_reward,
    position_reward,
    ssim_reward,
    text_reward,
    visual_reward,
)

__all__ = [
    "REGISTRY",
    "RewardSettings",
    "available_rewards",
    "block_reward",
    "build_reward",
    "build_rewards",
    "clip_reward",
    "color_reward",
    "dom_reward",
    "format_reward",
    "gui_agent_reward",
    "make_block_reward",
    "make_clip_reward",
    "make_color_reward",
    "make_dom_reward",
    "make_format_reward",
    "make_gui_agent_reward",
    "make_orm_reward",
    "make_position_reward",
    "make_screenshot_judge_reward",
    "make_ssim_reward",
    "make_text_reward",
    "make_validity_reward",
    "make_visual_reward",
    "orm_reward",
    "position_reward",
    "score_completions",
    "screenshot_judge_reward",
    "ssim_reward",
    "text_reward",
    "validity_reward",
    "visual_reward",
]
