"""The Step-GRPO grader, built from the recipe's values: the screenshot judge, the GUI agent, (for tasks without
test cases) the test writer and the outcome reward model (``orm_model``), on the process's shared browser pool.

The script arguments hold values only; this is where they become services (clients, a pool, a grader).
"""

from __future__ import annotations

import os
from typing import Any

from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments

__all__ = ["build_grader"]


def build_grader(args: StepGRPOScriptArguments, output_dir: str | None = None) -> Any:
    """The ``SiteGrader`` the arguments describe; for ``dataset=webgen_instruct`` a ``WrittenTestGrader`` whose
    written tests are kept in ``output_dir/gui_tests``.

    Args:
        args: the recipe's Step-GRPO arguments (``judge_*``, ``gui_*`` (``gui_policy`` names the agent of the
            natural-language cases, built as the ``gui_agent`` reward builds it), ``test_writer_*``,
            ``render_max_pages``, ``verdict_log``, ``orm_model``).
        output_dir: the run's folder (the written tests' cache goes under it); None: no cache.

    Returns:
        A ``vcoder.sites.grading.SiteGrader`` (or its ``WrittenTestGrader`` subclass); for
        ``agent_format=webgen_agent`` the ``SeedServices`` of WebGen-Agent's loop (judge_* is its VLM).
    """
    from vcoder.browse.policies import make_agent
    from vcoder.gui.judge import ScreenshotJudge
    from vcoder.gui.vlm_policy import gui_endpoint
    from vcoder.rendering import get_default_pool
    from vcoder.sites.grading import SiteGrader

    judge = gui_agent = None
    if args.judge_base_url:
        judge = ScreenshotJudge(args.judge_base_url, args.judge_model, timeout_ms=args.judge_timeout_ms)
    if args.gui_base_url:
        gui_agent = make_agent(args.gui_policy, gui_endpoint(args), step_budget=args.gui_step_limit)
    orm_scorer = None
    if args.orm_weight > 0:
        from vcoder.rewards.orm import orm_site_scorer

        orm_scorer = orm_site_scorer(args.orm_settings())
    pool = get_default_pool(max_pages=args.render_max_pages)
    if args.agent_format == "webgen_agent":
        return _seed_services(args, pool, gui_agent)
    if args.dataset != "webgen_instruct":
        return SiteGrader(
            pool=pool, judge=judge, gui_agent=gui_agent, verdict_log=args.verdict_log, orm_scorer=orm_scorer
        )
    from vcoder.chat import Endpoint, connect
    from vcoder.names import from_flat
    from vcoder.sites.gui_tests import GuiTestWriter, WrittenTestGrader

    # the test writer defaults to the GUI agent's server and model (its own request budget)
    server = dict(
        base_url=args.test_writer_base_url or args.gui_base_url, model=args.test_writer_model or args.gui_model
    )
    client = connect(from_flat("test_writer", Endpoint, args, **server))
    cache = os.path.join(output_dir, "gui_tests") if output_dir else None
    return WrittenTestGrader(
        GuiTestWriter(client, cache_dir=cache),
        pool=pool,
        judge=judge,
        gui_agent=gui_agent,
        verdict_log=args.verdict_log,
        orm_scorer=orm_scorer,
    )


def _seed_services(args: StepGRPOScriptArguments, pool: Any, gui_agent: Any) -> Any:
    """WebGen-Agent's loop on the sandbox and pool: ``judge_*`` is its VLM (every judging job, the GUI-test writer
    included, as in WebGen-RL), ``gui_*`` its GUI agent (``gui_policy``; WebGen-RL runs WebVoyager on the same VLM)."""
    from vcoder.chat import Endpoint, connect
    from vcoder.names import from_flat
    from vcoder.sites.seed_services import seed_services

    vlm = connect(from_flat("judge", Endpoint, args))
    return seed_services(vlm, pool=pool, options=args.episode_options(), gui_agent=gui_agent)
