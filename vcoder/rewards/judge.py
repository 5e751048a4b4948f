"""``screenshot_judge_reward``: a VLM's appearance grade of each completion's rendered page, in [0, 1].

WebGen-Agent (Lu et al., 2025) grades each step's screenshot 0-5 with a VLM; here the grade is /5. The page is
rendered once through the shared reward context (the same render the other rewards use), then sent to a
:class:`~vcoder.agents.judge.ScreenshotJudge` with the sample's ``instruction`` and/or reference ``image``.
No HTML or a page that fails to render: 0.0. No endpoint configured, server errors, unparseable grades or a
rendering-infrastructure failure: None (TRL skips it). Never raises on model output.

Example:
    >>> reward = make_screenshot_judge_reward(base_url="http://127.0.0.1:8000", model="judge")  # doctest: +SKIP
    >>> # trl.GRPOTrainer(..., reward_funcs=[reward])
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
from typing import Any

from vcoder.agents.judge import ScreenshotJudge
from vcoder.rewards.common import column, completion_text
from vcoder.rewards.context import get_context
from vcoder.rewards.settings import RewardSettings

logger = logging.getLogger(__name__)

_DEFAULT_SETTINGS = RewardSettings()
_JUDGE_PARAMS = ("timeout_ms", "max_retries", "max_concurrency", "max_tokens", "temperature", "max_image_side")


async def screenshot_judge_reward(
    completions: list[Any],
    *,
    image: Any = None,
    instruction: Any = None,
    judge: ScreenshotJudge | None = None,
    settings: RewardSettings = _DEFAULT_SETTINGS,
    **kwargs: Any,
) -> list[float | None]:
    """Appearance grade of each completion's rendered page by a VLM judge, in [0, 1].

    Args:
        completions: TRL completions (strings or conversational).
        image: the dataset's reference screenshots (sent beside the page when present).
        instruction: the dataset's text requests (what the page should be), when the task has them.
        judge: the configured judge (default: from ``$VCODER_JUDGE_BASE_URL`` / ``$VCODER_JUDGE_MODEL``).
        settings: render parameters (viewport, timeout).
        **kwargs: other dataset columns and TRL arguments (ignored).

    Returns:
        One value per completion: the grade / 5; 0.0 when the completion has no HTML or does not render;
        None when no judge is configured or it could not grade.
    """
    from vcoder.metrics.extract import extract_html

    n = len(completions)
    judge = judge if judge is not None else _env_judge()
    if not judge.enabled:
        return [None] * n
    try:
        images, instructions = column(image, n), column(instruction, n)
    except ValueError:
        logger.warning("screenshot_judge_reward: dataset columns do not match %d completions; no grades", n)
        return [None] * n
    ctx = get_context()
    ctx.new_step(kwargs.get("trainer_state"))

    async def one(i: int) -> float | None:
        try:
            html = extract_html(completion_text(completions[i]))
        except Exception:
            html = None
        if not html:
            return 0.0
        try:
            page = await ctx.render(html, settings)
        except Exception:
            logger.warning("screenshot_judge_reward: rendering infrastructure failed", exc_info=True)
            return None
        if not page.ok:
            return None if page.rendered.infrastructure else 0.0
        text = instructions[i] if isinstance(instructions[i], str) else None
        return await judge.grade(page.rendered.png, reference=images[i], instruction=text)

    return list(await asyncio.gather(*(one(i) for i in range(n))))


@functools.lru_cache(maxsize=4)
def _env_judge_for(base_url: str | None, model: str | None) -> ScreenshotJudge:
    return ScreenshotJudge(base_url, model)


def _env_judge() -> ScreenshotJudge:
    import os

    return _env_judge_for(os.environ.get("VCODER_JUDGE_BASE_URL"), os.environ.get("VCODER_JUDGE_MODEL"))


def make_screenshot_judge_reward(
    *,
    base_url: str | None = None,
    model: str | None = None,
    judge_base_url: str | None = None,
    judge_model: str | None = None,
    **params: Any,
):
    """Build a configured ``screenshot_judge_reward`` (stable ``__name__``, picklable, async).

    Args:
        base_url: the judge's OpenAI-compatible endpoint (alias ``judge_base_url`` for flat YAML recipes);
            default ``$VCODER_JUDGE_BASE_URL``. No endpoint at all: the reward returns None for every completion.
        model: the judge model name (alias ``judge_model``); default ``$VCODER_JUDGE_MODEL``.
        **params: ``judge_timeout_ms``, ``judge_max_retries``, ``judge_max_concurrency``, ``judge_max_tokens``,
            ``judge_temperature``, ``judge_max_image_side`` (also without the ``judge_`` prefix), and the shared
            flat ``RewardSettings`` parameters (render size and timeout); other shared reward parameters
            (``clip_model``, ...) are accepted and ignored.

    Returns:
        The reward callable.

    Raises:
        ValueError / TypeError: an endpoint without a model (or the reverse), or an unknown ``judge_*`` parameter.
    """
    judge_kwargs: dict[str, Any] = {}
    for key in list(params):
        bare = key[len("judge_") :] if key.startswith("judge_") else key
        if bare in _JUDGE_PARAMS:
            judge_kwargs[bare] = params.pop(key)
        elif key.startswith("judge_"):
            raise TypeError(f"unknown screenshot judge parameter {key!r}; known: judge_base_url, judge_model, "
                            + ", ".join(f"judge_{p}" for p in _JUDGE_PARAMS))  # fmt: skip
    fields = {f.name for f in dataclasses.fields(RewardSettings)}
    settings = RewardSettings.from_params(**{k: v for k, v in params.items() if k in fields})
    judge = ScreenshotJudge(base_url or judge_base_url, model or judge_model, **judge_kwargs)
    if not judge.enabled:
        logger.warning("screenshot_judge_reward has no endpoint (base_url/VCODER_JUDGE_BASE_URL): it will return None")
    return functools.update_wrapper(
        functools.partial(screenshot_judge_reward, judge=judge, settings=settings), screenshot_judge_reward
    )
