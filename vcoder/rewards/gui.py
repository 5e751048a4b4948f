"""``gui_agent_reward``: does the generated page work? Mean verdict of its test cases, run by the scripted agent.

WebGen-Bench (Lu et al., 2025) grades a site by letting a GUI agent carry out test cases and answer YES / PARTIAL /
NO (1 / 0.5 / 0); WebGen-Agent rewards generation steps with that score. Here each completion's HTML is loaded in
the hermetic pool once per test case (fresh page per case), the structured cases of the sample (dataset column
``test_cases``) are run by :class:`~vcoder.agents.scripted.ScriptedPolicy`, and the reward is the mean verdict.

Semantics: score in [0, 1]; no HTML in the completion -> 0.0; a page that fails to load -> every case NO -> 0.0;
no usable (structured) test cases for the sample -> None; browser down -> None. Never raises on model output.

Example:
    >>> import asyncio  # doctest: +SKIP
    >>> asyncio.run(gui_agent_reward(["```html<button>..." ], test_cases=[[{"task": ..., "expect": [...]}]]))  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from dataclasses import dataclass
from typing import Any

from vcoder.rewards.common import column, completion_text

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GuiAgentSettings:
    """Parameters of ``gui_agent_reward`` (validated by ``make_gui_agent_reward``)."""

    step_limit: int = 15
    timeout_ms: int = 20000
    action_timeout_ms: int = 3000
    load_timeout_ms: int = 10000
    width: int = 1280
    height: int = 720


_DEFAULT = GuiAgentSettings()


async def gui_agent_reward(
    completions: list[Any], *, test_cases: Any = None, gui_settings: GuiAgentSettings = _DEFAULT, **kwargs: Any
) -> list[float | None]:
    """Score each completion's page by running its sample's test cases with the scripted agent.

    Args:
        completions: model outputs, strings or conversational ``[{"role": "assistant", "content": ...}]``.
        test_cases: the dataset column: per completion, a list of case dicts (or a JSON string of one), each with
            ``steps`` and ``expect`` (see :class:`vcoder.agents.policy.TestCase`); None or empty for samples
            without cases.
        gui_settings: limits (use ``make_gui_agent_reward`` to set them).
        **kwargs: other dataset columns and TRL extras (ignored).

    Returns:
        One value per completion: the mean verdict score in [0, 1], 0.0 without HTML, None when the sample has no
        structured cases or the browser failed.
    """
    n = len(completions)
    cases_col = column(test_cases, n)
    # identical (page, cases) pairs are graded once: GRPO groups often repeat completions
    memo: dict[tuple[str, str], asyncio.Future] = {}
    jobs = []
    for completion, cases in zip(completions, cases_col):
        key, job = _prepare(completion, cases)
        if job is None:
            jobs.append(_const(key))
            continue
        if key not in memo:
            memo[key] = asyncio.ensure_future(_grade(*job, gui_settings))
        jobs.append(memo[key])
    return list(await asyncio.gather(*jobs))


async def _const(value: Any) -> Any:
    return value


def _prepare(completion: Any, cases: Any) -> tuple[Any, tuple | None]:
    """(constant result, None) when no browser is needed, else (memo key, (html, parsed cases))."""
    from vcoder.agents.policy import CaseError, parse_cases
    from vcoder.metrics.extract import extract_html

    try:
        if cases is None or (isinstance(cases, (str, list, tuple)) and len(cases) == 0):
            return None, None
        parsed = [c for c in parse_cases(cases) if c.scriptable]
    except CaseError as exc:
        logger.warning("gui_agent_reward: unusable test_cases for a sample (%s); returning None", exc)
        return None, None
    if not parsed:
        return None, None  # natural-language cases only: the scripted agent cannot grade them
    try:
        html = extract_html(completion_text(completion))
    except Exception:  # extraction must never take the reward down
        logger.debug("extract_html failed", exc_info=True)
        html = None
    if not html or not html.strip():
        return 0.0, None
    key = (html, json.dumps([c.to_dict() for c in parsed], sort_keys=True))
    return key, (html, parsed)


async def _grade(html: str, cases: list, settings: GuiAgentSettings) -> float | None:
    from vcoder.agents.runner import InfrastructureError, arun_cases
    from vcoder.agents.scripted import ScriptedPolicy
    from vcoder.rendering import get_default_pool

    try:
        _, score = await arun_cases(
            html,
            cases,
            policy=ScriptedPolicy(),
            pool=get_default_pool().async_pool,
            width=settings.width,
            height=settings.height,
            step_limit=settings.step_limit,
            deadline_ms=settings.timeout_ms,
            action_timeout_ms=settings.action_timeout_ms,
            load_timeout_ms=settings.load_timeout_ms,
        )
    except InfrastructureError as exc:
        logger.warning("gui_agent_reward: browser failure, returning None: %s", exc)
        return None
    except Exception:
        logger.warning("gui_agent_reward: unexpected failure, returning None", exc_info=True)
        return None
    return min(1.0, max(0.0, float(score)))


def make_gui_agent_reward(
    *,
    step_limit: int = 15,
    timeout_ms: int = 20000,
    action_timeout_ms: int = 3000,
    render_timeout_ms: int = 10000,
    render_width: int = 1280,
    render_height: int = 720,
    **params: Any,
):
    """Build a configured ``gui_agent_reward`` (async, picklable, ``__name__ == "gui_agent_reward"``).

    Args:
        step_limit: actions per test case (WebGen-Bench: 15).
        timeout_ms: wall-clock deadline of one test case, in ms.
        action_timeout_ms: budget of one action, in ms (a click whose handler never returns costs about this
            plus 3 s before the case is scored NO).
        render_timeout_ms: budget for loading the page, in ms.
        render_width, render_height: viewport in CSS px.
        **params: ``gui_step_limit``, ``gui_timeout_ms``, ``gui_action_timeout_ms`` (prefixed aliases for flat YAML
            recipes), and the shared flat ``RewardSettings`` parameters that ``build_rewards`` passes to every
            reward (``clip_model``, ...), which are accepted and ignored.

    Returns:
        The reward callable.

    Raises:
        ValueError: a non-positive limit.
        TypeError: a parameter that is neither this reward's nor a shared reward setting.
    """
    import dataclasses

    from vcoder.rewards.settings import RewardSettings

    aliases = {
        "gui_step_limit": "step_limit",
        "gui_timeout_ms": "timeout_ms",
        "gui_action_timeout_ms": "action_timeout_ms",
    }
    shared = {f.name for f in dataclasses.fields(RewardSettings)}
    unknown = sorted(k for k in params if k not in aliases and k not in shared)
    if unknown:
        raise TypeError(
            f"make_gui_agent_reward got unknown parameter(s) {unknown}; known: step_limit, timeout_ms, "
            f"action_timeout_ms, render_timeout_ms, render_width, render_height, {', '.join(aliases)}"
        )
    overrides = {aliases[k]: v for k, v in params.items() if k in aliases}
    step_limit = overrides.get("step_limit", step_limit)
    timeout_ms = overrides.get("timeout_ms", timeout_ms)
    action_timeout_ms = overrides.get("action_timeout_ms", action_timeout_ms)
    values = dict(step_limit=step_limit, timeout_ms=timeout_ms, action_timeout_ms=action_timeout_ms,
                  load_timeout_ms=render_timeout_ms, width=render_width, height=render_height)  # fmt: skip
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"gui_agent_reward: {name} must be a positive integer, got {value!r}")
    if action_timeout_ms >= timeout_ms:
        raise ValueError(
            f"gui_agent_reward: action_timeout_ms ({action_timeout_ms}) must be below timeout_ms ({timeout_ms}), "
            "the deadline of a whole test case"
        )
    settings = GuiAgentSettings(**values)
    return functools.update_wrapper(functools.partial(gui_agent_reward, gui_settings=settings), gui_agent_reward)
