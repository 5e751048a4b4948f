"""``vcoder agent test`` (GUI test cases on a page: scripted, VLM or web-agent policy) and ``vcoder agent build``
(a site-building episode, :mod:`vcoder.cli.agent_build`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DESCRIPTION = """Run test cases on an HTML page in hermetic Chromium (fresh page per case) and print the verdicts.
CASES.json is a list of cases (or {"test_cases": [...]}), each {"task", "expected_result", "task_category",
"steps": [{"action", "target", "value"}], "expect": [{"target", "text"|"value"|"visible"|"count"}]}; the scripted
policy needs "expect"; the vlm policy (a VLM over marked screenshots), the text policy (the web agent: WebRL's
text observation and actions, e.g. a model trained by `vcoder curriculum run` behind `vcoder serve`) and the
text_screenshot policy (the web agent's text with the marked screenshot, for a VLM) read "task" and
"expected_result" and ask the model at --base-url.
--json prints {"cases": [{"task", "verdict", "steps_taken", "error"}], "score"}.
Exit status: 0 done (whatever the score), 1 the browser failed, 2 usage error."""


def add_parser(subparsers, name: str) -> None:
    p = subparsers.add_parser(
        name,
        help="GUI agent: run test cases on a page; build a website over several turns",
        description="Run GUI test cases on a page (test), or build a website with a model server (build).",
    )
    sub = p.add_subparsers(dest="agent_command", metavar="SUBCOMMAND")
    t = sub.add_parser(
        "test",
        help="run test cases on a page (YES / PARTIAL / NO per case, mean score)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    t.add_argument("page", metavar="PAGE.html", help="the page to test")
    t.add_argument("--cases", required=True, metavar="CASES.json", help="test cases (JSON list)")
    from vcoder.gui.agents import GUI_POLICIES

    t.add_argument(
        "--policy",
        choices=("scripted", *GUI_POLICIES),
        default="scripted",
        help="who runs the cases (the others are gui_policy's choices: the gui_agent reward's, Step-GRPO's, "
        "webgen-bench's)",
    )
    t.add_argument(
        "--base-url", help="OpenAI-compatible endpoint of any --policy but scripted (e.g. http://127.0.0.1:8000/v1)"
    )
    t.add_argument("--model", help="model name on --base-url")
    from vcoder.flag_names import old_flag
    from vcoder.gui.limits import CaseLimits

    limits = CaseLimits()  # the one declaration of a test case's limits and their defaults
    t.add_argument(
        "--gui-step-limit", type=int, default=limits.step_limit, help="actions per test case (default %(default)s)"
    )
    t.add_argument(
        "--gui-deadline-ms",
        type=int,
        default=limits.deadline_ms,
        help="deadline of one test case in ms (default %(default)s)",
    )
    t.add_argument(
        "--gui-action-timeout-ms",
        type=int,
        default=limits.action_timeout_ms,
        help="budget of one action in ms (default %(default)s)",
    )
    for old, new in (("--step-limit", "gui_step_limit"), ("--timeout-ms", "gui_deadline_ms")):
        old_flag(t, old, new)
    old_flag(t, "--action-timeout-ms", "gui_action_timeout_ms")
    t.add_argument("--width", type=int, default=1280, help="viewport width in px (default 1280)")
    t.add_argument("--height", type=int, default=720, help="viewport height in px (default 720)")
    t.add_argument("--json", action="store_true", help="print the JSON result instead of a table")
    t.set_defaults(func=run)
    from vcoder.cli import agent_build

    agent_build.add_parser(sub)
    p.set_defaults(
        func=lambda args: _usage(
            "give a subcommand: vcoder agent test PAGE.html --cases CASES.json, or vcoder agent build --task "
            "TASK.json --base-url URL --model NAME --out DIR"
        )
    )


def _usage(msg: str) -> int:
    print(f"vcoder agent: error: {msg}", file=sys.stderr)
    return 2


def _make_policy(args):
    """The policy, or an error message for the user."""
    if args.policy == "scripted":
        from vcoder.gui.scripted import ScriptedPolicy

        return ScriptedPolicy(), None
    if not args.base_url or not args.model:
        return None, f"--policy {args.policy} needs --base-url URL and --model NAME (an OpenAI-compatible server)"
    try:
        from vcoder.browse.policies import make_agent
        from vcoder.gui.agents import gui_endpoint
    except ImportError as exc:
        return None, f"the {args.policy} policy is not available in this install ({exc}); use --policy scripted"
    # the request settings the rewards and the evaluations use (GUI_AGENT_DEFAULTS): only the server is a flag here
    try:
        endpoint = gui_endpoint(args, base_url=args.base_url, model=args.model)
        return make_agent(args.policy, endpoint, step_budget=args.gui_step_limit), None
    except ValueError as exc:  # a URL that is not http(s)://
        return None, str(exc)


def run(args) -> int:
    page = Path(args.page)
    if not page.is_file():
        return _usage(f"no such page: {page} (pass an existing .html file)")
    from vcoder.flag_names import cli_flag
    from vcoder.gui.limits import CaseLimits

    bad = {k: v for k in ("width", "height") if (v := getattr(args, k)) <= 0}
    if bad:
        return _usage(f"these options must be positive: {bad}")
    try:
        limits = CaseLimits(args.gui_step_limit, args.gui_deadline_ms, args.gui_action_timeout_ms)
    except ValueError as exc:
        import re

        return _usage(
            re.sub(r"\b(step_limit|deadline_ms|action_timeout_ms)\b", lambda m: cli_flag("gui_" + m[1]), str(exc))
        )
    from vcoder.cli.cases import load_cases

    cases, problem = load_cases(Path(args.cases))
    if problem:
        return _usage(problem)
    policy, problem = _make_policy(args)
    if problem:
        return _usage(problem)
    for i, case in enumerate(cases):
        why = policy.check_case(case)
        if why:
            return _usage(f"case {i} ({case.task!r}): {why}")
    html = page.read_bytes().decode("utf-8", errors="replace")

    from vcoder.gui.runner import CASE_PAGE, InfrastructureError, run_cases
    from vcoder.rendering import BrowserPool
    from vcoder.rendering.spec import RenderSpec

    pool = BrowserPool(max_pages=2)
    try:
        results, score = run_cases(
            html,
            cases,
            policy=policy,
            pool=pool,
            render=RenderSpec(width=args.width, height=args.height, timeout_ms=CASE_PAGE.timeout_ms),
            limits=limits,
            base_dir=str(page.resolve().parent),
        )
    except InfrastructureError as exc:
        print(f"vcoder agent: browser failure: {exc}", file=sys.stderr)
        return 1
    finally:
        pool.close()
    if args.json:
        print(json.dumps({"cases": [r.to_dict() for r in results], "score": score}))
    else:
        for r in results:
            print(f"{r.verdict.value:8s} {r.steps_taken:3d} steps  {r.task}" + (f"  ({r.error})" if r.error else ""))
        print(f"score {score:.3f} over {len(results)} cases")
    return 0
