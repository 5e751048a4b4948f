"""What every reward shares: completion text, dataset columns, and the render-then-score loop with its semantics.

Semantics (the contract of every vcoder reward): one value per completion; 0.0 when the model's output is bad (no
HTML, the page fails to render); ``None`` when the reward cannot judge (no usable reference, browser down, a metric
failure) so TRL skips it; never raises on model output.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib
import inspect
import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from vcoder.rewards.context import Page, get_context
from vcoder.rewards.settings import RewardSettings

logger = logging.getLogger(__name__)


def completion_text(completion: Any) -> str:
    """The text of one completion: a string, or TRL's conversational form (list of messages / content parts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if isinstance(completion, Sequence):
        parts: list[str] = []
        for message in completion:
            content = message.get("content", "") if isinstance(message, dict) else message
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, Sequence):
                parts.extend(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        return "".join(parts)
    return "" if completion is None else str(completion)


def column(values: Any, n: int) -> list[Any]:
    """A dataset column as a list of length n (TRL passes lists; a scalar or None is broadcast)."""
    if values is None or isinstance(values, str | bytes) or not isinstance(values, Sequence):
        return [values] * n
    values = list(values)
    if len(values) != n:
        raise ValueError(f"a reward column has {len(values)} values for {n} completions")
    return values


def clamp01(value: float | None) -> float | None:
    if value is None:
        return None
    value = float(value)
    if value != value:  # NaN: the metric could not judge
        return None
    return min(1.0, max(0.0, value))


ScoreFn = Callable[[Page | None, Page, RewardSettings], float | None]

_EXECUTOR: ThreadPoolExecutor | None = None
_EXECUTOR_PID: int | None = None


def scoring_workers() -> int:
    """Threads that score off the event loop: half the cores, 1 to 4. The scoring shares the cores with the browser
    rendering the step's pages; measured on the 2-core machine, the full reward set of 64 rendered completions took
    1.3-1.7 CPU s on one thread and 1.65-2.2 on asyncio's default 6 (the threads contend for the GIL and for
    OpenCV's and torch's own threads), at no gain in wall time."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


# modules the metrics import lazily: imported for the first time by several scoring threads at once, scipy has
# raised KeyError('scipy') (seen in bench/rewards.py's warm-up), i.e. None ("could not judge") for a healthy page
WARM_IMPORTS = ("cv2", "scipy.optimize", "scipy.sparse", "skimage.color")


def _executor() -> ThreadPoolExecutor:
    global _EXECUTOR, _EXECUTOR_PID
    if _EXECUTOR is None or _EXECUTOR_PID != os.getpid():  # a forked child gets threads of its own
        for module in WARM_IMPORTS:  # once, in this thread, before any scoring thread can race for them
            importlib.import_module(module)
        _EXECUTOR = ThreadPoolExecutor(scoring_workers(), thread_name_prefix="vcoder-scoring")
        _EXECUTOR_PID = os.getpid()
    return _EXECUTOR


async def off_loop(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on the rewards' scoring threads (``scoring_workers``), awaited without blocking the loop."""
    return await asyncio.get_running_loop().run_in_executor(_executor(), functools.partial(fn, *args))


async def render_completion(completion: Any, settings: RewardSettings, *, name: str) -> Page | float | None:
    """The rendered page of one completion, or its final score when it cannot be rendered.

    The one place that decides "bad output" vs "could not judge" for rendering rewards: no HTML in the completion,
    or a page that fails by its own fault (``Rendered.kind``: empty, too large, timeout, page crash, navigation) ->
    0.0; the browser failing (``FailureKind.BROWSER``) or the rendering machinery raising -> None.
    """
    from vcoder.metrics import extract_html

    html = extract_html(completion_text(completion))
    if not html:
        return 0.0
    try:
        page = await get_context().render(html, settings)
    except Exception:
        logger.warning("%s: rendering infrastructure failed", name, exc_info=True)
        return None
    if not page.ok:
        return None if page.rendered.infrastructure else 0.0
    return page


async def score_rendered(
    completions: Sequence[Any],
    settings: RewardSettings,
    score: ScoreFn,
    *,
    image: Any = None,
    html: Any = None,
    needs_reference: bool = True,
    needs_layout: bool = False,
    name: str = "reward",
    prepare: Callable[[list[Page], RewardSettings], None] | None = None,
    prepare_page: Callable[[Page, RewardSettings], None] | None = None,
    **kwargs: Any,
) -> list[float | None]:
    """Render each completion's HTML once (shared across rewards) and score it against the sample's reference.

    Args:
        completions: TRL completions (strings or conversational).
        settings: the reward's settings.
        score: ``score(reference_page, page, settings)`` run off the event loop; returns a float or None.
        image: the dataset's ``image`` column (reference screenshots).
        html: the dataset's ``html`` column (reference HTML; rendered, enables layout metrics).
        needs_reference: return None for samples without a usable reference.
        needs_layout: the score needs the reference's layout (only a rendered reference HTML has one).
        name: reward name for log messages.
        prepare: optional ``prepare(pages, settings)`` run once, off the loop, over every rendered page and
            reference of the batch before scoring (e.g. one batched CLIP forward instead of one per page).
        prepare_page: optional ``prepare_page(page, settings)`` run off the loop on each page and reference as soon
            as it is rendered, when ``prepare`` is given (the per-page part of the batch work, e.g. CLIP's squash,
            done while other pages still render instead of after the last one).
        **kwargs: TRL's extra arguments (``trainer_state``, ``log_metric``, other columns: ignored).

    Returns:
        One score in [0, 1] or None per completion.
    """
    ctx = get_context()
    ctx.new_step(kwargs.get("trainer_state"))
    n = len(completions)
    images, htmls = column(image, n), column(html, n)

    async def fetch(i: int) -> tuple[Page | None, Page | None] | float | None:
        """The (reference, page) pair of completion i, or its final score when there is nothing to compare."""
        ref = None
        if needs_reference:
            try:
                ref = await ctx.reference(settings, html=htmls[i], image=images[i])
            except Exception:
                logger.warning("%s: reference of sample %d is unusable", name, i, exc_info=True)
                return None
            if ref is None or not ref.ok or (needs_layout and ref.layout is None):
                return None
        page = await render_completion(completions[i], settings, name=name)
        return (ref, page) if isinstance(page, Page) else page

    async def judge(i: int, pair) -> float | None:
        if not isinstance(pair, tuple):
            return pair
        try:
            return clamp01(await off_loop(score, pair[0], pair[1], settings))
        except Exception:
            logger.warning("%s: metric failed on completion %d; scoring None", name, i, exc_info=True)
            return None

    async def one(i: int) -> float | None:
        return await judge(i, await fetch(i))

    async def fetch_prepared(i: int):
        pair = await fetch(i)
        if prepare_page is not None and isinstance(pair, tuple):
            try:
                await off_loop(lambda: [prepare_page(p, settings) for p in pair if p is not None])
            except Exception:  # the batch preparation (or the scoring) will meet the problem again and report it
                logger.debug("%s: preparing completion %d failed", name, i, exc_info=True)
        return pair

    if prepare is None:  # score each completion as soon as its render is in (overlaps scoring with rendering)
        results = list(await asyncio.gather(*(one(i) for i in range(n))))
    else:
        pairs = list(await asyncio.gather(*(fetch_prepared(i) for i in range(n))))
        pages = [p for pair in pairs if isinstance(pair, tuple) for p in pair if p is not None]
        try:
            await off_loop(prepare, pages, settings)
        except Exception:
            logger.warning("%s: batch preparation failed; scoring pages one by one", name, exc_info=True)
        results = list(await asyncio.gather(*(judge(i, pair) for i, pair in enumerate(pairs))))
    ctx.log(kwargs.get("log_metric"))
    return results


def configure(func: Callable, params: dict[str, Any], *, check: Callable[[RewardSettings], None] | None = None):
    """What every ``make_<name>(**params)`` returns: ``func`` bound to validated ``RewardSettings``.

    The flat parameters are validated with a did-you-mean on unknown names, ``check(settings)`` runs now (e.g. it
    loads CLIP so missing weights fail at build time), and the result is a picklable partial that keeps ``func``'s
    name and TRL's async detection.
    """
    settings = RewardSettings.from_params(**params)
    if check is not None:
        check(settings)
    return functools.update_wrapper(functools.partial(func, settings=settings), func)


def takes_reward_settings(make: Callable) -> Callable:
    """Decorate a ``make_<name>(**params)`` factory so ``help()`` lists every ``RewardSettings`` field it takes."""
    make.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
            for f in dataclasses.fields(RewardSettings)
        ]
    )
    return make
