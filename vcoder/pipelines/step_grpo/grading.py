"""The Step-GRPO grader, built from the recipe's values: the screenshot judge, the GUI agent, (for tasks without
test cases) the test writer and the outcome reward model (``orm_model``), on the process's shared browser pool.

The script arguments hold values and build the value objects once (``judge_endpoint()``, ``gui_endpoint()``,
``test_writer_endpoint()``, ``case_limits()``, ``orm_settings()``, ``episode_options()``); this is where those objects
become services (clients, a pool, a grader), each receiving its value object whole.
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
    from vcoder.chat import connect
    from vcoder.rendering import get_default_pool

    # the recipe's value objects, built once; below they only become services
    judge_at = args.judge_endpoint()
    gui_at = args.gui_endpoint()
    writer_at = args.test_writer_endpoint()
    limits = args.case_limits()
    options = args.episode_options()
    orm = args.orm_settings()
    pool = get_default_pool(max_pages=args.render_max_pages)
    gui_agent = make_agent(args.gui_policy, gui_at, step_budget=limits.step_limit) if gui_at.configured else None
    if args.agent_format == "webgen_agent":
        from vcoder.sites.seed_services import seed_services

        # WebGen-Agent's loop: judge_* is its VLM (every judging job, the GUI-test writer included, as in WebGen-RL),
        # gui_* its GUI agent (gui_policy; WebGen-RL runs WebVoyager on the same VLM)
        return seed_services(connect(args.seed_vlm_endpoint()), pool=pool, options=options, gui_agent=gui_agent)
    from vcoder.gui.judge import ScreenshotJudge
    from vcoder.sites.grading import SiteGrader

    orm_scorer = None
    if args.orm_weight > 0:
        from vcoder.rewards.orm import orm_site_scorer

        orm_scorer = orm_site_scorer(orm)
    services = dict(
        pool=pool,
        judge=ScreenshotJudge(judge_at) if judge_at.configured else None,
        gui_agent=gui_agent,
        verdict_log=args.verdict_log,
        orm_scorer=orm_scorer,
    )
    if args.dataset != "webgen_instruct":
        return SiteGrader(**services)
    from vcoder.sites.gui_tests import GuiTestWriter, WrittenTestGrader

    cache = os.path.join(output_dir, "gui_tests") if output_dir else None
    return WrittenTestGrader(GuiTestWriter(connect(writer_at), cache_dir=cache), **services)
