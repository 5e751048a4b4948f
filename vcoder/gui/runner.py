"""Run a page's test cases with a policy: each case on a fresh load of the page, through the hermetic pool.

``arun_cases`` is the implementation (async, used by ``gui_agent_reward``); ``run_cases`` is the blocking form for
scripts and the CLI. The score is WebGen-Bench accuracy: mean verdict score, (YES + 0.5 PARTIAL) / cases.

Example:
    >>> from vcoder.gui.runner import run_cases  # doctest: +SKIP
    >>> from vcoder.gui.scripted import ScriptedPolicy  # doctest: +SKIP
    >>> results, score = run_cases(html, cases, policy=ScriptedPolicy())  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from vcoder.gui.env import GuiEnv
from vcoder.gui.limits import CaseLimits, case_limits
from vcoder.gui.policy import CaseResult, Policy, TestCase, Verdict, mean_score, parse_cases
from vcoder.rendering.spec import RenderSpec

logger = logging.getLogger(__name__)

#: a test case's page load: the default viewport, 10 s to load (a site-building episode's too)
CASE_PAGE = RenderSpec(timeout_ms=10_000)
#: a site's page settles (network idle, DOM quiet) before its screenshot or a case's first action: the quiet that ends
#: the wait and the most time it may take, ms (EpisodeOptions' and Step-GRPO's settle_quiet_ms / settle_timeout_ms)
SETTLE_QUIET_MS, SETTLE_TIMEOUT_MS = 200, 8000

#: seconds over the episode deadline before the runner cancels a policy that ignores it
GRACE_S = 2.0


class InfrastructureError(RuntimeError):
    """The browser itself failed (would not start, died twice): nothing can be said about the page."""


async def arun_cases(
    html: str,
    cases: Any,
    *,
    policy: Policy,
    pool: Any = None,
    render: RenderSpec = CASE_PAGE,
    limits: CaseLimits | None = None,
    base_dir: str | None = None,
    **limit_fields: int,
) -> tuple[list[CaseResult], float]:
    """Run every case on its own fresh load of ``html`` (cases run concurrently, bounded by the pool's pages).

    Args:
        html: the page.
        cases: ``TestCase`` objects, case dicts or a JSON string of them (validated first).
        policy: the policy that carries the cases out.
        pool: an ``AsyncBrowserPool`` or ``BrowserPool`` (default: ``get_default_pool()``); works from any event
            loop (the episode runs on the pool's own loop, where its pages live).
        render: the page's viewport and load deadline (default :data:`CASE_PAGE`).
        limits: each case's step limit, deadline and action budget (default: ``CaseLimits()``).
        base_dir: folder whose files the page may load by relative URL (images beside the HTML file).
        **limit_fields: ``CaseLimits`` fields to replace in ``limits`` (``deadline_ms=9000``).

    Returns:
        ``(results, score)``: one ``CaseResult`` per case in order, and the mean verdict score in [0, 1]. A page
        that fails to load gives every case NO with the load error.

    Raises:
        CaseError: invalid cases.
        InfrastructureError: the browser could not be started or died (not the page's fault).
    """
    loose = sorted(set(limit_fields) & {"width", "height", "load_timeout_ms"})
    if loose:
        raise TypeError(f"arun_cases takes {loose} as render=RenderSpec(width=, height=, timeout_ms=)")
    cases = parse_cases(cases)
    apool = _async_pool(pool)
    opts = _Options(render, case_limits(limits, **limit_fields), base_dir)
    from vcoder.rendering import BrowserUnavailable

    try:
        # Playwright pages belong to the loop that made them: run the whole episode there (TRL awaits from its own)
        results = await apool.run_on_loop(_run_all, html, cases, policy, apool, opts)
    except BrowserUnavailable as exc:  # a closed pool, a stopped loop: nothing can be said about the page
        raise InfrastructureError(str(exc)) from exc
    return results, mean_score(results)


def run_cases(html: str, cases: Any, *, policy: Policy, pool: Any = None, **kwargs) -> tuple[list[CaseResult], float]:
    """Blocking ``arun_cases`` (same arguments); must not be called from inside a running event loop."""
    from vcoder.rendering import get_default_pool

    pool = pool if pool is not None else get_default_pool()
    # a BrowserPool's pages live on its background loop; arun_cases hands the episode over to it, this loop waits
    return asyncio.run(arun_cases(html, cases, policy=policy, pool=pool, **kwargs))


def _async_pool(pool: Any) -> Any:
    if pool is None:
        from vcoder.rendering import get_default_pool

        pool = get_default_pool()
    return getattr(pool, "async_pool", pool)


@dataclass(frozen=True)
class _Options:
    render: RenderSpec
    limits: CaseLimits
    base_dir: str | None


async def _run_all(html: str, cases: list[TestCase], policy: Policy, apool, opts: _Options) -> list[CaseResult]:
    try:
        await apool.start()
    except Exception as exc:
        raise InfrastructureError(f"the browser pool could not start: {exc}") from exc
    return list(await asyncio.gather(*(_run_one(html, c, policy, apool, opts) for c in cases)))


async def _run_one(html: str, case: TestCase, policy: Policy, apool, opts: _Options) -> CaseResult:
    deadline_ms = opts.limits.deadline_ms
    try:
        async with apool.open_page(
            html,
            width=opts.render.width,
            height=opts.render.height,
            timeout_ms=opts.render.timeout_ms,
            base_dir=opts.base_dir,
        ) as page:
            env = GuiEnv(page, limits=opts.limits)
            try:
                result = await asyncio.wait_for(policy.run_case(env, case), deadline_ms / 1000 + GRACE_S)
            except asyncio.TimeoutError:
                env.page_broken = True
                result = CaseResult(
                    case.task, Verdict.NO, env.steps_taken, f"deadline: case exceeded {deadline_ms:g} ms"
                )
            except Exception as exc:  # a policy bug must not take the other cases down
                logger.warning("policy %s raised on case %r", policy.name, case.task, exc_info=True)
                result = CaseResult(
                    case.task, Verdict.NO, env.steps_taken, f"policy error: {type(exc).__name__}: {exc}"
                )
            env.close()
            if env.page_broken:
                await apool.discard_page(page)  # the pool replaces the hung tab's slot instead of handing it on
            return result
    except RuntimeError as exc:
        message = str(exc)
        if any(s in message for s in ("Chromium died", "pool's own event loop", "has been closed")):
            raise InfrastructureError(message) from exc
        return CaseResult(case.task, Verdict.NO, 0, f"load: {message}")
