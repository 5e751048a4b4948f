"""Rewards over the completion's markup: output format, HTML validity, DOM structure.

Each reward is ``async name_reward(completions, *, settings=..., **columns) -> list[float | None]`` with scores in
[0, 1]; ``make_<name>_reward(**params)`` builds a configured, picklable copy that keeps the name TRL logs.

``format`` and ``validity`` judge the form of the output, never its content: a page that hides, deletes or fakes
content scores what its markup deserves, and no more than an honest page with equally clean markup. ``dom`` compares
structure, which cannot see CSS either, so it is scaled by the evidence gate (``evidence_gate``, on by default):
the same tags with the text hidden, shrunk or missing do not score as the real page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from vcoder.rewards import features
from vcoder.rewards.common import (
    column,
    completion_text,
    configure,
    off_loop,
    score_rendered,
    takes_reward_settings,
)
from vcoder.rewards.settings import RewardSettings

logger = logging.getLogger(__name__)

_DEFAULT = RewardSettings()


async def format_reward(completions, *, settings: RewardSettings = _DEFAULT, **kwargs: Any) -> list[float | None]:
    """How well each completion follows the expected output format, in [0, 1].

    ``settings.format_style``: ``"fenced"`` (one ```html block), ``"think"`` (``<think>...</think>`` then the
    HTML), ``"bare"`` (a bare ``<html>`` document) or ``"any"``. Missing, duplicated or trailing content lowers it.

    Example:
        >>> import asyncio
        >>> asyncio.run(format_reward(["```html\\n<html><body>hi</body></html>\\n```"]))[0] > 0.9
        True
    """
    from vcoder.metrics import format_score

    return [float(format_score(completion_text(c), style=settings.format_style)) for c in completions]


async def validity_reward(completions, *, settings: RewardSettings = _DEFAULT, **kwargs: Any) -> list[float | None]:
    """Graded HTML validity of each completion's extracted HTML, in [0, 1]; 0.0 when there is no HTML.

    Counts unclosed, misnested and stray tags, missing doctype/head/body, content outside body, duplicate ids
    (see `vcoder.metrics.validity_score`): a well-formed page scores near 1, each kind of damage lowers it.
    """
    from vcoder.metrics import extract_html, validity_score

    out: list[float | None] = []
    for c in completions:
        html = extract_html(completion_text(c))
        out.append(float(validity_score(html)) if html else 0.0)
    return out


async def dom_reward(
    completions, *, settings: RewardSettings = _DEFAULT, html: Any = None, **kwargs: Any
) -> list[float | None]:
    """DOM structure similarity to the sample's reference ``html`` (`vcoder.metrics.dom_similarity`), scaled by the
    evidence gate, in [0, 1].

    None for samples without reference HTML; 0.0 when the completion has no HTML (or, with the gate on, its page
    fails to render).
    """
    if settings.evidence_gate:
        return await score_rendered(
            completions, settings, features.dom_score, html=html, needs_layout=True, name="dom_reward", **kwargs
        )
    from vcoder.metrics import dom_similarity, extract_html

    refs = column(html, len(completions))

    def score(i: int, c: Any) -> float | None:
        ref = refs[i]
        if not isinstance(ref, str) or not ref.strip():
            return None
        pred = extract_html(completion_text(c))
        if not pred:
            return 0.0
        try:
            return float(dom_similarity(ref, pred))
        except Exception:
            logger.warning("dom_reward: metric failed on completion %d; scoring None", i, exc_info=True)
            return None

    # parsing large pages is CPU work: keep it off the event loop where renders are being awaited
    return await off_loop(lambda: [score(i, c) for i, c in enumerate(completions)])


@takes_reward_settings
def make_format_reward(**params: Any) -> Callable:
    """Build a configured ``format_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(format_reward, params)


@takes_reward_settings
def make_validity_reward(**params: Any) -> Callable:
    """Build a configured ``validity_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(validity_reward, params)


@takes_reward_settings
def make_dom_reward(**params: Any) -> Callable:
    """Build a configured ``dom_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(dom_reward, params)
