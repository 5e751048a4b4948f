"""``screenshot_judge_reward``: a VLM's appearance grade of each completion's rendered page, in [0, 1].

WebGen-Agent (Lu et al., 2025) grades each step's screenshot 0-5 with a VLM; here the grade is /5. The page is
rendered once through the shared reward context (the same render the other rewards use), then sent to a
:class:`~vcoder.gui.judge.ScreenshotJudge` with the sample's ``instruction`` and/or reference ``image``.
No HTML or a page that fails to render by its own fault: 0.0. No endpoint configured, server errors, unparseable
grades or a browser failure: None (TRL skips it). Never raises on model output.

Example:
    >>> reward = make_screenshot_judge_reward(judge_base_url="http://127.0.0.1:8000", judge_model="judge")  # doctest: +SKIP
    >>> # trl.GRPOTrainer(..., reward_funcs=[reward])
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Any

from vcoder.gui.judge import ScreenshotJudge
from vcoder.rewards.common import column, configure, render_completion, takes_reward_settings
from vcoder.rewards.context import Page, get_context
from vcoder.rewards.settings import RewardSettings
from vcoder.rewards.verdict_columns import sample_tasks, step_meta

logger = logging.getLogger(__name__)

_DEFAULT = RewardSettings()


async def screenshot_judge_reward(
    completions: list[Any],
    *,
    image: Any = None,
    instruction: Any = None,
    settings: RewardSettings = _DEFAULT,
    **kwargs: Any,
) -> list[float | None]:
    """Appearance grade of each completion's rendered page by a VLM judge, in [0, 1].

    Args:
        completions: TRL completions (strings or conversational).
        image: the dataset's reference screenshots (sent beside the page when present).
        instruction: the dataset's text requests (what the page should be), when the task has them.
        settings: ``judge_*`` (endpoint, model, limits) and ``render_*`` parameters; an endpoint left unset is read
            from ``$VCODER_JUDGE_BASE_URL`` / ``$VCODER_JUDGE_MODEL`` when the reward runs.
        **kwargs: other dataset columns and TRL arguments; with ``verdict_log`` set, ``task_id``/``id``, ``prompts``
            and ``trainer_state`` name each logged grade (one record per graded completion, source ``judge``).

    Returns:
        One value per completion: the grade / 5; 0.0 when the completion has no HTML or its page fails to render;
        None when no judge is configured or it could not grade.
    """
    n = len(completions)
    judge = judge_for(settings)
    if not judge.enabled:
        return [None] * n
    try:
        images, instructions = column(image, n), column(instruction, n)
        tasks = sample_tasks(n, instruction=instruction, kwargs=kwargs) if settings.verdict_log else [(None, "")] * n
    except ValueError:
        logger.warning("screenshot_judge_reward: dataset columns do not match %d completions; no grades", n)
        return [None] * n
    get_context().new_step(kwargs.get("trainer_state"))

    async def one(i: int) -> float | None:
        page = await render_completion(completions[i], settings, name="screenshot_judge_reward")
        if not isinstance(page, Page):
            return page
        text = instructions[i] if isinstance(instructions[i], str) else None
        grade = await judge.grade(page.rendered.png, reference=images[i], instruction=text)
        if grade is not None and settings.verdict_log is not None:
            _log_verdict(settings.verdict_log, page, grade, tasks[i], kwargs)
        return grade

    return list(await asyncio.gather(*(one(i) for i in range(n))))


def _log_verdict(log: str, page: Page, grade: float, task: tuple[str | None, str], kwargs: dict[str, Any]) -> None:
    """Append the judge's grade of one page (its screenshot kept beside the log) to the verdict log."""
    from vcoder.verdicts.writing import append_record, keep_screenshot, site_record

    make = functools.partial(
        site_record,
        task_id=task[0],
        instruction=task[1],
        source="judge",
        score=grade,
        files={"index.html": page.source},
        screenshot=keep_screenshot(log, page.rendered.png),
        page_text=[b.text for b in page.layout.text_blocks] if page.layout is not None else None,
        meta=step_meta("screenshot_judge", kwargs),
    )
    append_record(log, make)


def judge_for(settings: RewardSettings) -> ScreenshotJudge:
    """The judge of these settings (one per process and configuration: its grade cache is shared)."""
    from vcoder.gui.judge import judge_server

    base_url, model = judge_server(settings.judge_base_url, settings.judge_model)  # $VCODER_JUDGE_* apply here
    return _judge(settings.judge_endpoint(base_url=base_url, model=model), settings.judge_max_image_side)


@functools.lru_cache(maxsize=8)
def _judge(endpoint, max_image_side: int) -> ScreenshotJudge:
    return ScreenshotJudge(endpoint, max_image_side=max_image_side)


def _check(settings: RewardSettings) -> None:
    """Build the judge now: an endpoint without a model (or the reverse) fails at build time, not mid-training."""
    if not judge_for(settings).enabled:
        logger.warning(
            "screenshot_judge_reward has no endpoint (judge_base_url / $VCODER_JUDGE_BASE_URL): it will return None"
        )


@takes_reward_settings
def make_screenshot_judge_reward(**params: Any) -> Callable:
    """Build a configured ``screenshot_judge_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(screenshot_judge_reward, params, check=_check)
