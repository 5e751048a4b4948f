"""``gui_agent_reward``: does the generated page work? Mean verdict of its test cases, run by a GUI agent.

WebGen-Bench (Lu et al., 2025) grades a site by letting a GUI agent carry out test cases and answer YES / PARTIAL /
NO (1 / 0.5 / 0); WebGen-Agent rewards generation steps with that score. Here each completion's HTML is loaded in
the hermetic pool once per test case (fresh page per case). Structured cases (with ``expect``) are run by
:class:`~vcoder.gui.scripted.ScriptedPolicy`; natural-language cases by the agent served at ``gui_base_url`` /
``gui_model`` when one is configured, else they are not graded: ``gui_policy: vlm`` (default) is the prompted VLM
over marked screenshots (:class:`~vcoder.gui.vlm_policy.VLMPolicy`), ``gui_policy: text`` the web agent in WebRL's
text setting (:class:`vcoder.browse.policies.WebAgentCasePolicy`: the page's interactive elements as text with
ids, WebRL's actions, its ``exit`` message read as YES / PARTIAL / NO; no verdict within ``gui_step_limit``
actions -> NO), ``gui_policy: text_screenshot`` the same with the marked screenshot beside the text (a VLM); the
agent is built by :func:`vcoder.browse.policies.make_agent`, as in Step-GRPO's grader and WebGen-Bench.
The reward is the mean verdict over the graded cases.

Semantics: score in [0, 1]; no HTML in the completion -> 0.0; a page that fails to load -> every case NO -> 0.0;
no case the configured agents can grade -> None; the browser failing, or the agent endpoint failing or timing out
on any case of a page -> None (nothing can be said about the page). Never raises on model output.

Example:
    >>> reward = make_gui_agent_reward(gui_step_limit=10)  # doctest: +SKIP
    >>> await reward(completions, test_cases=[[{"task": "Add an item", "expect": [...]}], ...])  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Callable
from typing import Any

from vcoder.rewards.common import column, completion_text, configure, takes_reward_settings
from vcoder.rewards.settings import RewardSettings

logger = logging.getLogger(__name__)

_DEFAULT = RewardSettings()


async def gui_agent_reward(
    completions: list[Any], *, test_cases: Any = None, settings: RewardSettings = _DEFAULT, **kwargs: Any
) -> list[float | None]:
    """Score each completion's page by running its sample's test cases with the GUI agents.

    Args:
        completions: model outputs, strings or conversational ``[{"role": "assistant", "content": ...}]``.
        test_cases: the dataset column: per completion, a list of case dicts (or a JSON string of one), each with a
            ``task`` and either ``steps``/``expect`` (scripted) or an ``expected_result`` in words (VLM agent; see
            :class:`vcoder.gui.policy.TestCase`); None or empty for samples without cases.
        settings: ``gui_*`` limits and endpoint, ``render_*`` viewport and load timeout (``make_gui_agent_reward``).
        **kwargs: other dataset columns and TRL extras; with ``verdict_log`` set, ``task_id``/``id``,
            ``instruction``, ``prompts`` and ``trainer_state`` name each logged verdict (one record per distinct
            page the agents could judge).

    Returns:
        One value per completion: the mean verdict score in [0, 1], 0.0 without HTML, None when the sample has no
        case the configured agents can grade, or the browser or the agent endpoint failed.
    """
    n = len(completions)
    cases_col = column(test_cases, n)
    with_vlm = settings.gui_base_url is not None
    # identical (page, cases) pairs are graded once: GRPO groups often repeat completions
    memo: dict[tuple[str, str], asyncio.Future] = {}
    first: dict[tuple[str, str], int] = {}  # the sample a graded page is logged under
    jobs = []
    for i, (completion, cases) in enumerate(zip(completions, cases_col)):
        key, job = _prepare(completion, cases, with_vlm=with_vlm)
        if job is None:
            jobs.append(_const((key, ())))
            continue
        if key not in memo:
            memo[key], first[key] = asyncio.ensure_future(_grade(*job, settings)), i
        jobs.append(memo[key])
    graded = list(await asyncio.gather(*jobs))
    if settings.verdict_log is not None and first:
        graded_pages = {k: (i, memo[k].result()) for k, i in first.items()}
        _log_verdicts(settings.verdict_log, graded_pages, n, kwargs.get("instruction"), kwargs)
    return [score for score, _ in graded]


async def _const(value: Any) -> Any:
    return value


def _log_verdicts(log: str, graded: dict, n: int, instruction: Any, kwargs: dict[str, Any]) -> None:
    """Append one record per distinct graded page (those the agents could judge) to the verdict log."""
    from vcoder.rewards.verdict_columns import sample_tasks, step_meta
    from vcoder.verdicts.writing import append_record, site_record

    try:
        tasks = sample_tasks(n, instruction=instruction, kwargs=kwargs)
    except ValueError:  # a column of another length: the records cannot be named
        logger.warning("gui_agent_reward: dataset columns do not match %d completions; verdicts not logged", n)
        return
    meta = step_meta("gui_agent", kwargs)
    for (html, _), (i, (score, pairs)) in graded.items():
        if score is None:
            continue
        task_id, text = tasks[i]
        make = functools.partial(
            site_record,
            task_id=task_id,
            instruction=text,
            source="gui_agent",
            score=score,
            files={"index.html": html},
            cases=[c for c, _ in pairs],
            results=[r for _, r in pairs],
            meta=meta,
        )
        append_record(log, make)


def _prepare(completion: Any, cases: Any, *, with_vlm: bool) -> tuple[Any, tuple | None]:
    """(constant result, None) when no browser is needed, else (memo key, (html, parsed cases))."""
    from vcoder.gui.policy import CaseError, parse_cases
    from vcoder.metrics.extract import extract_html

    try:
        if cases is None or (isinstance(cases, (str, list, tuple)) and len(cases) == 0):
            return None, None
        parsed = [c for c in parse_cases(cases) if c.scriptable or with_vlm]
    except CaseError as exc:
        logger.warning("gui_agent_reward: unusable test_cases for a sample (%s); returning None", exc)
        return None, None
    if not parsed:
        return None, None  # natural-language cases only, and no agent endpoint to run them
    html = extract_html(completion_text(completion))
    if not html or not html.strip():
        return 0.0, None
    key = (html, json.dumps([c.to_dict() for c in parsed], sort_keys=True))
    return key, (html, parsed)


@functools.lru_cache(maxsize=4)
def _chat_client(endpoint):
    """One client per endpoint for the process (retries: ``GUI_AGENT_DEFAULTS``'s, one try per request)."""
    from vcoder.chat import connect

    return connect(endpoint)


def _agent(settings: RewardSettings):
    """The agent of the natural-language cases (``gui_policy``'s) and its client: a fresh watch over the shared client
    of the ``gui_*`` endpoint (this page's endpoint failures, and no other page's)."""
    from vcoder.browse.policies import make_agent
    from vcoder.chat import WatchedClient

    endpoint = settings.gui_endpoint()
    watched = WatchedClient(_chat_client(endpoint), owned=False)
    policy = make_agent(settings.gui_policy, endpoint, client=watched, step_budget=settings.gui_step_limit)
    return policy, watched


async def _grade(html: str, cases: list, settings: RewardSettings) -> tuple[float | None, tuple]:
    """The page's mean verdict and its ``(case, result)`` pairs; ``(None, ())`` when it could not be judged."""
    from vcoder.gui.runner import InfrastructureError, arun_cases
    from vcoder.gui.scripted import ScriptedPolicy
    from vcoder.rendering import get_default_pool

    scripted = [c for c in cases if c.scriptable]
    spoken = [c for c in cases if not c.scriptable]
    watched = None
    runs = []
    limits = dict(pool=get_default_pool().async_pool, render=settings.render_spec(), limits=settings.case_limits())
    if scripted:
        runs.append(arun_cases(html, scripted, policy=ScriptedPolicy(), **limits))
    if spoken:
        policy, watched = _agent(settings)
        runs.append(arun_cases(html, spoken, policy=policy, **limits))
    try:
        outcomes = await asyncio.gather(*runs)
    except InfrastructureError as exc:
        logger.warning("gui_agent_reward: browser failure, returning None: %s", exc)
        return None, ()
    except Exception:
        logger.warning("gui_agent_reward: unexpected failure, returning None", exc_info=True)
        return None, ()
    if watched is not None and watched.failures:
        logger.warning("gui_agent_reward: the agent endpoint failed (%s); returning None", watched.failures[-1])
        return None, ()
    groups = [group for group in (scripted, spoken) if group]
    pairs = tuple((c, r) for group, (results, _) in zip(groups, outcomes) for c, r in zip(group, results))
    if not pairs:
        return None, ()
    return min(1.0, max(0.0, sum(r.verdict.score for _, r in pairs) / len(pairs))), pairs


@takes_reward_settings
def make_gui_agent_reward(**params: Any) -> Callable:
    """Build a configured ``gui_agent_reward`` from flat ``RewardSettings`` parameters (validated now)."""
    return configure(gui_agent_reward, params)
