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
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from vcoder.rewards.common import column, completion_text, configure, takes_reward_settings
from vcoder.rewards.context import get_context
from vcoder.rewards.settings import RewardSettings

logger = logging.getLogger(__name__)

_DEFAULT = RewardSettings()


_MODELS: dict[tuple[str, str | None], Any] = {}
_MODELS_LOCK = threading.Lock()


def _orm(settings: RewardSettings):
    """The process's loaded ORM for these settings (loaded once, on first use)."""
    from vcoder.orm.model import OutcomeRewardModel

    key = (settings.orm_model, settings.orm_device)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = OutcomeRewardModel.load(settings.orm_model, device=settings.orm_device)
        return _MODELS[key]


def site_input(
    instruction: str, test_cases: list[dict[str, Any]], html: str, visible_text: list[str], image: Any
) -> Any:
    """What the ORM is shown of one rendered site, in its ``site`` view: an ``ORMInput``.

    Args:
        instruction: what the site was asked to do.
        test_cases: case dicts (``task``, optional ``expected_result``).
        html: the site's entry page source.
        visible_text: the rendered page's text blocks, in document order.
        image: the rendered screenshot (any image form ``vcoder.images`` reads).
    """
    from vcoder.orm.model import ORMInput
    from vcoder.orm.prompt import orm_prompt, page_summary

    return ORMInput(orm_prompt(instruction, test_cases, page_summary(html, visible_text)), image)


def judge_sites(inputs: list[Any], settings: RewardSettings) -> list[float | None]:
    """The ORM's scores of ``inputs`` (``site_input`` values): P(YES) in [0, 1], or 1.0 / 0.0 with ``orm_binary``;
    all None ("could not judge") when the ORM fails. Blocking (run it in a thread from a coroutine); never raises."""
    try:
        probs = _orm(settings).p_yes(inputs, batch_size=settings.orm_batch_size)
    except Exception:
        logger.warning("the ORM failed; scoring None", exc_info=True)
        return [None] * len(inputs)
    if settings.orm_binary:
        return [float(p >= settings.orm_threshold) for p in probs]
    return [min(1.0, max(0.0, float(p))) for p in probs]


def orm_site_scorer(settings: RewardSettings) -> Callable:
    """The ORM as a ``SiteGrader``'s ``orm_scorer`` (Step-GRPO's ``orm`` step reward): one rendered site judged by
    ``site_input`` + ``judge_sites``, this reward's own scorer. The ORM folder is checked now.

    Returns:
        ``async (instruction, case dicts, html, visible text blocks, screenshot) -> float | None``.
    """
    check_orm_settings(settings)

    async def score(
        instruction: str, test_cases: list[dict[str, Any]], html: str, visible_text: list[str], image: Any
    ) -> float | None:
        shown = site_input(instruction, test_cases, html, visible_text, image)
        return (await asyncio.to_thread(judge_sites, [shown], settings))[0]

    return score


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
    settings: RewardSettings = _DEFAULT,
    **kwargs: Any,
) -> list[float | None]:
    """Judge each completion's site with the ORM.

    Args:
        completions: model outputs, strings or conversational.
        instruction: the dataset column: what each site was asked to do.
        test_cases: the dataset column: per sample, case dicts or a JSON string of them (may be empty).
        settings: ``orm_*`` (the ORM folder, binary cut, batch, device) and ``render_*`` parameters (build it with
            ``make_orm_reward``).
        **kwargs: other columns and TRL extras (``trainer_state``, ``log_metric``; the rest ignored).

    Returns:
        One value per completion (see the module docstring).
    """
    if settings.orm_model is None:
        raise TypeError("orm_reward needs an ORM: build it with make_orm_reward(orm_model='path/to/orm')")
    from vcoder.metrics import extract_html

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
        found = site_input(task, _cases(cases[i]), html, [b.text for b in page.layout.text_blocks], page.image)
        return page.key + "\0" + found.text, found

    prepared = list(await asyncio.gather(*(prepare(i) for i in range(n))))
    # GRPO groups repeat completions: each distinct (page, prompt) is judged once
    unique = {p[0]: p[1] for p in prepared if isinstance(p, tuple)}
    scores = dict(zip(unique, await asyncio.to_thread(judge_sites, list(unique.values()), settings))) if unique else {}
    # decided without the ORM: 0.0 (bad page) or None (cannot judge)
    results = [scores[item[0]] if isinstance(item, tuple) else item for item in prepared]
    ctx.log(kwargs.get("log_metric"))
    log_metric = kwargs.get("log_metric")
    if log_metric is not None:
        try:  # how many distinct sites the ORM judged this call (the rest were decided without it)
            log_metric("vcoder/orm_judged", float(len(unique)))
        except Exception:
            logger.debug("log_metric failed", exc_info=True)
    return results


def check_orm_settings(settings: RewardSettings) -> None:
    """The ORM folder is checked when a reward or a step reward is built (not at the first training step)."""
    from vcoder.orm.model import ORMConfig

    if settings.orm_model is None:
        raise ValueError(
            "the orm reward needs orm_model='path/to/orm' (a `vcoder orm train --verdicts LOG --model-name-or-path "
            "BASE --out DIR` folder)"
        )
    ORMConfig.load(settings.orm_model)  # NotAnORMError (a ValueError) names the folder and how to make an ORM


@takes_reward_settings
def make_orm_reward(**params: Any) -> Callable:
    """Build a configured ``orm_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(orm_reward, params, check=check_orm_settings)
