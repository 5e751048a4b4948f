"""``orm_reward``: the cheap stand-in for running the GUI agent: a trained ORM judges each completion's site.

WebRL (Qi et al., 2024) rewards its policy with an outcome reward model's P(YES) thresholded at 0.5. Here each
completion's HTML is rendered once through the shared reward context (the same render every other vcoder reward
uses), summarised (:func:`vcoder.orm.prompt.page_summary`) and judged in the ORM's ``site`` view against the
sample's ``instruction`` and ``test_cases`` columns; all completions of a call go through the ORM in batches.

Semantics: P(YES) in [0, 1], or 1.0 / 0.0 with ``orm_binary`` (P(YES) >= ``orm_threshold``); no HTML or a page that
fails to render -> 0.0; no instruction for the sample, the browser down or the ORM failing -> None. Never raises on
model output; bad configuration (not an ORM folder, an unknown parameter) raises when the reward is built.

Example:
    >>> reward = make_orm_reward(orm_model="outputs/orm", orm_binary=True)  # doctest: +SKIP
    >>> # trl.GRPOTrainer(..., reward_funcs=[reward]); the dataset needs 'instruction' and 'test_cases' columns
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import functools
import json
import logging
import threading
from dataclasses import dataclass
from typing import Any

from vcoder.rewards.common import column, completion_text
from vcoder.rewards.context import get_context
from vcoder.rewards.settings import RewardSettings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ORMSettings:
    """Parameters of ``orm_reward`` (validated by ``make_orm_reward``)."""

    model: str
    binary: bool = False
    threshold: float = 0.5
    batch_size: int = 8
    device: str | None = None


_MODELS: dict[tuple[str, str | None], Any] = {}
_MODELS_LOCK = threading.Lock()


def _orm(settings: ORMSettings):
    """The process's loaded ORM for these settings (loaded once, on first use)."""
    from vcoder.orm.model import OutcomeRewardModel

    key = (settings.model, settings.device)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = OutcomeRewardModel.load(settings.model, device=settings.device)
        return _MODELS[key]


def _cases(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return []
    return [c for c in value or () if isinstance(c, dict) and isinstance(c.get("task"), str)]


async def orm_reward(
    completions: list[Any],
    *,
    instruction: Any = None,
    test_cases: Any = None,
    orm_settings: ORMSettings | None = None,
    settings: RewardSettings = RewardSettings(),
    **kwargs: Any,
) -> list[float | None]:
    """Judge each completion's site with the ORM.

    Args:
        completions: model outputs, strings or conversational.
        instruction: the dataset column: what each site was asked to do.
        test_cases: the dataset column: per sample, case dicts or a JSON string of them (may be empty).
        orm_settings: the ORM and its output (use ``make_orm_reward``).
        settings: render settings (shared ``RewardSettings``).
        **kwargs: other columns and TRL extras (``trainer_state``, ``log_metric``; the rest ignored).

    Returns:
        One value per completion (see the module docstring).
    """
    if orm_settings is None:
        raise TypeError("orm_reward needs an ORM: build it with make_orm_reward(orm_model='path/to/orm')")
    from vcoder.metrics import extract_html
    from vcoder.orm.model import ORMInput
    from vcoder.orm.prompt import orm_prompt, page_summary

    ctx = get_context()
    ctx.new_step(kwargs.get("trainer_state"))
    n = len(completions)
    instructions, cases = column(instruction, n), column(test_cases, n)

    async def prepare(i: int) -> Any:
        """An ``ORMInput`` for completion i, or its final value when the ORM need not (or cannot) be asked."""
        task = instructions[i]
        if not isinstance(task, str) or not task.strip():
            return None
        html = extract_html(completion_text(completions[i]))
        if not html:
            return 0.0
        try:
            page = await ctx.render(html, settings)
        except Exception:
            logger.warning("orm_reward: rendering infrastructure failed", exc_info=True)
            return None
        if not page.ok:
            return None if page.rendered.infrastructure else 0.0
        text = orm_prompt(task, _cases(cases[i]), page_summary(html, [b.text for b in page.layout.text_blocks]))
        return page.key + "\0" + text, ORMInput(text, page.image)

    prepared = list(await asyncio.gather(*(prepare(i) for i in range(n))))
    # GRPO groups repeat completions: each distinct (page, prompt) is judged once
    unique = {p[0]: p[1] for p in prepared if isinstance(p, tuple)}
    probs: dict[str, float | None] = dict.fromkeys(unique)
    if unique:
        try:
            orm = await asyncio.to_thread(_orm, orm_settings)
            found = await asyncio.to_thread(orm.p_yes, list(unique.values()), batch_size=orm_settings.batch_size)
            probs = dict(zip(unique, found))
        except Exception:
            logger.warning("orm_reward: the ORM failed; scoring None", exc_info=True)

    def value(item: Any) -> float | None:
        if not isinstance(item, tuple):
            return item  # decided without the ORM: 0.0 (bad page) or None (cannot judge)
        p = probs[item[0]]
        if p is None:
            return None
        return float(p >= orm_settings.threshold) if orm_settings.binary else min(1.0, max(0.0, float(p)))

    results = [value(item) for item in prepared]
    ctx.log(kwargs.get("log_metric"))
    log_metric = kwargs.get("log_metric")
    if log_metric is not None:
        try:  # how many distinct sites the ORM judged this call (the rest were decided without it)
            log_metric("vcoder/orm_judged", float(len(unique)))
        except Exception:
            logger.debug("log_metric failed", exc_info=True)
    return results


def make_orm_reward(
    *,
    orm_model: str,
    orm_binary: bool = False,
    orm_threshold: float = 0.5,
    orm_batch_size: int = 8,
    orm_device: str | None = None,
    **params: Any,
):
    """Build a configured ``orm_reward`` (async, picklable, ``__name__ == "orm_reward"``).

    Args:
        orm_model: an ORM folder (``vcoder orm train`` output); checked now.
        orm_binary: return 1.0 / 0.0 (P(YES) >= ``orm_threshold``, WebRL's binary reward) instead of P(YES).
        orm_threshold: the binary cut, in (0, 1).
        orm_batch_size: sites per ORM forward pass.
        orm_device: torch device of the ORM (default: CUDA if available).
        **params: shared flat ``RewardSettings`` parameters (``render_width``, ``render_timeout_ms``, ...).

    Returns:
        The reward callable.

    Raises:
        ValueError: not an ORM folder, or a bad value. TypeError: an unknown parameter (with a did-you-mean).
    """
    from vcoder.orm.model import ORMConfig

    known = {f.name for f in dataclasses.fields(RewardSettings)}
    unknown = sorted(k for k in params if k not in known)
    if unknown:
        own = ["orm_model", "orm_binary", "orm_threshold", "orm_batch_size", "orm_device"]
        hints = []
        for key in unknown:
            close = difflib.get_close_matches(key, own + sorted(known), n=1)
            hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise TypeError(f"make_orm_reward got unknown parameter(s) {', '.join(hints)}; its own are {', '.join(own)}")
    if not isinstance(orm_threshold, (int, float)) or isinstance(orm_threshold, bool) or not 0 < orm_threshold < 1:
        raise ValueError(f"orm_threshold={orm_threshold!r} must be a number in (0, 1) (WebRL uses 0.5)")
    if isinstance(orm_batch_size, bool) or not isinstance(orm_batch_size, int) or orm_batch_size < 1:
        raise ValueError(f"orm_batch_size={orm_batch_size!r} must be a positive integer")
    ORMConfig.load(orm_model)  # NotAnORMError (a ValueError) names the folder and how to make an ORM
    orm = ORMSettings(str(orm_model), bool(orm_binary), float(orm_threshold), orm_batch_size, orm_device)
    settings = RewardSettings.from_params(**params)
    return functools.update_wrapper(functools.partial(orm_reward, orm_settings=orm, settings=settings), orm_reward)
