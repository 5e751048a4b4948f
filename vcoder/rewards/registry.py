"""Short reward names -> their factories; dotted paths load a user's own reward.

Example:
    >>> from vcoder.rewards import build_rewards
    >>> [f.__name__ for f in build_rewards(["format", "validity"])]
    ['format_reward', 'validity_reward']
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any

from vcoder.rewards.gui import make_gui_agent_reward
from vcoder.rewards.judge import make_screenshot_judge_reward
from vcoder.rewards.markup import make_dom_reward, make_format_reward, make_validity_reward
from vcoder.rewards.orm import make_orm_reward
from vcoder.rewards.visual import (
    make_block_reward,
    make_clip_reward,
    make_color_reward,
    make_position_reward,
    make_ssim_reward,
    make_text_reward,
    make_visual_reward,
)
from vcoder.suggest import did_you_mean

# name -> factory; factories take flat RewardSettings parameters (or their own, for agent rewards)
REGISTRY: dict[str, Callable[..., Callable]] = {
    "format": make_format_reward,
    "validity": make_validity_reward,
    "dom": make_dom_reward,
    "ssim": make_ssim_reward,
    "clip": make_clip_reward,
    "block": make_block_reward,
    "text": make_text_reward,
    "position": make_position_reward,
    "color": make_color_reward,
    "visual": make_visual_reward,
    "gui_agent": make_gui_agent_reward,
    "screenshot_judge": make_screenshot_judge_reward,
    "orm": make_orm_reward,
}


def available_rewards() -> list[str]:
    """The registered short names."""
    return sorted(REGISTRY)


def _load(path: str) -> Any:
    module_name, sep, attr = path.partition(":")
    if not sep:  # also accept "pkg.module.func"
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise ValueError(f"reward {path!r} is neither a registered name nor a dotted path like 'my_pkg.rewards:f'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import module {module_name!r} for reward {path!r}: {exc}") from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(f"module {module_name!r} has no attribute {attr!r} (reward {path!r})") from None


def _accepted(factory: Callable, params: dict[str, Any]) -> dict[str, Any]:
    """The subset of shared parameters a factory takes (agent rewards have parameters of their own)."""
    sig = inspect.signature(factory)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return params
    return {k: v for k, v in params.items() if k in sig.parameters}


def build_reward(name: str, **params: Any) -> Callable:
    """Build one reward by short name (see `available_rewards`) or dotted path ``"pkg.module:func"``.

    A dotted path may name a reward function (used as is) or a factory named ``make_*`` (called with the params it
    accepts). Unknown short names raise with a "did you mean".
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"reward name must be a non-empty string, got {name!r}")
    name = name.strip()
    if name in REGISTRY:
        return REGISTRY[name](**params)
    if name.endswith("_reward") and name[: -len("_reward")] in REGISTRY:
        return build_reward(name[: -len("_reward")], **params)
    if "." not in name and ":" not in name:
        hint = did_you_mean(name, REGISTRY, n=3, cutoff=0.5)
        raise ValueError(f"unknown reward {name!r}{hint}; known: {', '.join(available_rewards())}, or a dotted path")
    obj = _load(name)
    if not callable(obj):
        raise ValueError(f"reward {name!r} resolves to a non-callable {type(obj).__name__}")
    if getattr(obj, "__name__", "").startswith("make_"):
        return obj(**_accepted(obj, params))
    return obj


def build_rewards(names: Sequence[str], **params: Any) -> list[Callable]:
    """Build rewards in order; the shared flat parameters go to every factory that accepts them.

    Raises:
        ValueError: an unknown name (with suggestions), or duplicated names (TRL would log them under one key).
    """
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    if not names:
        raise ValueError("no reward names given; e.g. reward_funcs: [format, validity, visual]")
    funcs = [build_reward(n, **params) for n in names]
    seen: dict[str, str] = {}
    for name, func in zip(names, funcs):
        key = _display_name(func)
        if key in seen:
            raise ValueError(f"rewards {seen[key]!r} and {name!r} would both be logged as {key!r}; list each once")
        seen[key] = name
    return funcs


def _display_name(func: Callable) -> str:
    while isinstance(func, functools.partial):
        func = func.func
    return getattr(func, "__name__", type(func).__name__)


def score_completions(reward: Callable, rows: Sequence[dict[str, Any]], texts: Sequence[str]) -> list[float | None]:
    """The reward of each text as TRL calls it (conversational completions, the rows' columns as keywords; an async
    reward, as vcoder's rendering rewards are, run to completion here): a value per text, None where the reward could
    not judge it (None or NaN). Call from outside a running event loop."""
    completions = [[{"role": "assistant", "content": text}] for text in texts]
    columns = {key: [row.get(key) for row in rows] for key in rows[0] if key != "prompt"} if rows else {}
    values = reward(prompts=[row["prompt"] for row in rows], completions=completions, **columns)
    if inspect.isawaitable(values):
        values = asyncio.run(values)
    return [None if v is None or math.isnan(float(v)) else float(v) for v in values]
