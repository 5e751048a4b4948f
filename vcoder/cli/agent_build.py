"""``vcoder agent build``: one site-building episode against any OpenAI-compatible server, folder by folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """Build a website over up to --max-turns turns: each turn the model at --base-url writes files
(<file path="...">...</file>, <delete path="..."/>, <finish/>; or, with --turn-format bolt, WebGen-Agent's Bolt
markup, whose Vite + React project is installed offline and built in a sandbox), the site is rendered in hermetic Chromium and graded
(appearance by the screenshot judge at --judge-base-url, test cases by the scripted policy or, for natural-language
cases, the VLM GUI agent at --gui-base-url), and the feedback goes back to the model. A malformed turn scores -1 and
changes nothing. Step reward = 5 x appearance + 5 x test cases (0-10; a component without an endpoint is left out).
TASK.json is {"instruction", "test_cases": [...], "id"?} or a WebGen-Bench record (with "ui_instruct").
OUT/step_<k>/ holds the turn's site/, reply.txt, feedback.md, screenshot.png and step.json; OUT/episode.json the
whole result. --json prints {"steps": [{"turn", "malformed", "files", "screenshot", "gui", "reward", "error"}],
"finished", "final_reward", "error"}.
Exit status: 0 done (whatever the rewards), 2 usage or configuration error (nothing written), 3 the episode failed
for infrastructure reasons (a server or the browser failed; what was done is still in OUT and printed)."""


def add_parser(sub) -> None:
    b = sub.add_parser(
        "build",
        help="build a website over several turns with a model server (the Step-GRPO episode)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = b.add_mutually_exclusive_group(required=True)
    what.add_argument("--task", metavar="TASK.json", type=Path, help="the task (instruction, test cases)")
    what.add_argument("--instruction", metavar="TEXT", help="the website request (test cases from --cases)")
    b.add_argument("--cases", metavar="CASES.json", type=Path, help="test cases (JSON list); replace the task's")
    b.add_argument("--base-url", required=True, help="the site-building model's server, e.g. http://127.0.0.1:8000")
    b.add_argument("--model", required=True, help="model name as that server knows it")
    b.add_argument("--judge-base-url", help="screenshot judge's server (appearance; default: not judged)")
    b.add_argument("--judge-model", help="screenshot judge's model")
    b.add_argument("--gui-base-url", help="GUI agent's server for natural-language cases (default: those not run)")
    b.add_argument("--gui-model", help="GUI agent's model")
    from vcoder.gui.agents import DEFAULT_GUI_POLICY, GUI_POLICIES

    b.add_argument(
        "--gui-policy",
        choices=GUI_POLICIES,
        default=DEFAULT_GUI_POLICY,
        help="the GUI agent at --gui-base-url (the gui_agent reward's gui_policy): vlm (default), text (the web agent) "
        "or text_screenshot (the web agent with the marked screenshot)",
    )
    b.add_argument("--max-turns", type=int, default=5, help="turns before the episode ends (default 5)")
    add_turn_format_argument(b)
    b.add_argument(
        "--system-prompt",
        metavar="FILE",
        type=Path,
        help="the builder's system prompt from a text file (e.g. WebGen-Agent's src/prompts/system.py text, which "
        "its released models were trained with); default: vcoder's prompt for the turn format",
    )
    b.add_argument("--out", required=True, type=Path, help="the episode folder (must be empty or absent)")
    b.add_argument("--json", action="store_true", help="print the result as one JSON object")
    b.add_argument("--temperature", type=float, default=1.0, help="sampling temperature of the builder (default 1)")
    b.add_argument("--max-tokens", type=int, default=8192, help="reply budget of the builder (default 8192)")
    b.add_argument("--timeout-ms", type=int, default=300_000, help="budget of one builder reply (default 300000)")
    b.add_argument("--max-retries", type=int, default=2, help="request retries on errors, timeouts, 429, 5xx")
    b.add_argument("--feedback-images", action="store_true", help="screenshots in the feedback (a VLM builder)")
    b.add_argument("--width", type=int, default=1280, help="viewport width in px (default 1280)")
    b.add_argument("--height", type=int, default=720, help="viewport height in px (default 720)")
    b.add_argument("--extra-body", metavar="JSON", help="server-specific request fields for every endpoint")
    b.set_defaults(func=run)


def add_turn_format_argument(parser) -> None:
    """``--turn-format vcoder|bolt`` (``EpisodeOptions.turn_format``), for every command that runs site episodes."""
    from vcoder.sites.records import TURN_FORMATS

    parser.add_argument(
        "--turn-format",
        choices=TURN_FORMATS,
        default="vcoder",
        help="the builder's markup: vcoder (<file path> blocks, a static site; default) or bolt (WebGen-Agent's "
        "<boltArtifact>/<boltAction>: a Vite + React project installed offline and built in a sandbox)",
    )


class UsageError(ValueError):
    """What the user must fix; printed with exit status 2."""


def read_task(path: Path) -> Any:
    """The ``SiteTask`` of a task file (a task object or a WebGen-Bench record).

    Raises:
        UsageError: the file is missing, not one JSON object, or a field is wrong (the line or field is named).
    """
    from vcoder.data.webgen_bench import webgen_row
    from vcoder.gui.policy import CaseError
    from vcoder.sites.records import SiteTask

    if not path.is_file():
        raise UsageError(f"no such task file: {path} (pass a JSON object with 'instruction' and 'test_cases')")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path} line {exc.lineno} column {exc.colno}: {exc.msg}; --task takes one JSON object "
            '{"instruction": ..., "test_cases": [...]} (a file of many tasks is for `vcoder eval webgen-bench`)'
        ) from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text ({exc})") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path} must hold one JSON object with 'instruction', got a {type(data).__name__}")
    try:
        if "ui_instruct" in data:  # a WebGen-Bench record
            data = webgen_row(data, where=str(path))
        return SiteTask.from_dict(data)
    except CaseError as exc:
        raise UsageError(f"{path}: 'test_cases' {exc}") from exc
    except ValueError as exc:
        raise UsageError(f"{path}: {exc}") from exc


def _pair(args, role: str) -> tuple[str, str] | None:
    """``(--ROLE-base-url, --ROLE-model)`` when both are given, None when neither is."""
    url, model = getattr(args, f"{role}_base_url"), getattr(args, f"{role}_model")
    if bool(url) != bool(model):
        raise UsageError(f"--{role}-base-url and --{role}-model go together (got {url!r}, {model!r})")
    return (url, model) if url else None


def _task(args) -> Any:
    import dataclasses

    from vcoder.cli.cases import load_cases
    from vcoder.sites.records import SiteTask

    task = read_task(args.task) if args.task is not None else None
    if task is None:
        try:
            task = SiteTask(args.instruction)
        except ValueError as exc:
            raise UsageError(f"--instruction: {exc}") from exc
    if args.cases is not None:
        cases, problem = load_cases(args.cases)
        if problem:
            raise UsageError(problem)
        task = dataclasses.replace(task, test_cases=tuple(cases))
    return task


def _options(args) -> Any:
    from vcoder.sites.records import EpisodeOptions

    numbers = {"max_turns": args.max_turns, "max_tokens": args.max_tokens, "timeout_ms": args.timeout_ms}
    numbers.update(width=args.width, height=args.height)
    bad = {k: v for k, v in numbers.items() if v < 1}
    if bad or args.max_retries < 0:
        raise UsageError(
            f"these options must be >= 1 (--max-retries >= 0): {bad or {'max_retries': args.max_retries}}"
        )
    return EpisodeOptions(
        max_turns=args.max_turns,
        turn_format=args.turn_format,
        system_prompt=_system_prompt(args.system_prompt),
        feedback_images=args.feedback_images,
        render_width=args.width,
        render_height=args.height,
        reply_timeout_ms=args.timeout_ms * (args.max_retries + 1) + 10_000,
        max_reply_tokens=args.max_tokens,
        temperature=args.temperature,
    )


def _system_prompt(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--system-prompt {path}: cannot read it ({exc})") from exc
    if not text.strip():
        raise UsageError(f"--system-prompt {path} is empty")
    return text


def extra_body(text: str | None) -> dict[str, Any] | None:
    """``--extra-body`` as a dict (None when not given). Raises ``UsageError`` for anything but a JSON object."""
    if text is None:
        return None
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--extra-body is not valid JSON ({exc}): {text[:80]!r}") from exc
    if not isinstance(body, dict):
        raise UsageError(f"--extra-body must be a JSON object of request fields, got {text[:80]!r}")
    return body


def run(args: argparse.Namespace) -> int:
    try:
        task = _task(args)
        options = _options(args)
        judge_at, gui_at = _pair(args, "judge"), _pair(args, "gui")
        body = extra_body(args.extra_body)
        if args.turn_format == "bolt":
            from vcoder.sites.build import sandbox_problem

            if sandbox_problem():
                raise UsageError(f"--turn-format bolt: {sandbox_problem()}")
        if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
            raise UsageError(f"--out {str(args.out)!r} exists and is not an empty folder; give a new folder")
    except UsageError as exc:
        return _usage(str(exc))
    natural = sum(not c.scriptable for c in task.test_cases)
    if natural and gui_at is None:
        _note(f"{natural} natural-language test case(s) will not be run: give --gui-base-url and --gui-model (a VLM)")
    if judge_at is None:
        _note("appearance will not be judged: give --judge-base-url and --judge-model (a VLM)")
    import asyncio

    from vcoder.browse.policies import make_agent
    from vcoder.chat import Endpoint, WatchedClient, connect
    from vcoder.gui.agents import gui_endpoint
    from vcoder.gui.judge import JUDGE_DEFAULTS, ScreenshotJudge
    from vcoder.rendering import BrowserPool
    from vcoder.sites.audit import AuditedGrader, check_endpoints

    retries = args.max_retries
    try:
        client = connect(
            Endpoint(args.base_url, args.model, timeout_ms=args.timeout_ms, max_retries=retries, extra_body=body)
        )
        judge = None
        if judge_at:
            base_url, model = judge_at
            judge = ScreenshotJudge(
                JUDGE_DEFAULTS.replace(base_url=base_url, model=model, max_retries=retries, extra_body=body)
            )
        agent = None
        if gui_at:
            endpoint = gui_endpoint(args, max_retries=retries, extra_body=body)
            step_budget = options.gui_step_limit
            agent = make_agent(args.gui_policy, endpoint, wrap=WatchedClient, step_budget=step_budget)
    except ValueError as exc:  # a URL that is not http(s)://
        return _usage(str(exc))
    endpoints = {"--base-url": client}
    if judge is not None:
        endpoints["--judge-base-url"] = judge.client
    if agent is not None:
        endpoints["--gui-base-url"] = agent.client
    # before anything is written or launched: a dead server or a wrong model name is a configuration error
    problem = asyncio.run(check_endpoints(endpoints))
    if problem:
        return _usage(f"{problem} (nothing was written)")
    with BrowserPool(max_pages=2) as pool:
        grader = AuditedGrader(pool=pool, judge=judge, gui_agent=agent)
        result = asyncio.run(_episode(task, client, grader, options, args.out, endpoints.values()))
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        _print_table(result)
    problems = ([result.error] if result.error else []) + list(grader.problems)
    for problem in problems:
        print(f"vcoder agent build: infrastructure: {problem}", file=sys.stderr)
    return 3 if problems else 0


async def _episode(task, client, grader, options, out: Path, clients) -> Any:
    from vcoder.sites.episode import run_site_episode

    try:
        return await run_site_episode(task, client, grader=grader, options=options, out_dir=out)
    finally:
        for endpoint in clients:
            await endpoint.aclose()


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


def _print_table(result) -> None:
    for s in result.steps:
        what = f"malformed ({s.error})" if s.malformed else (", ".join(s.files) or "no files")
        print(f"turn {s.turn}: screenshot {_fmt(s.screenshot)}  gui {_fmt(s.gui)}  reward {_fmt(s.reward)}  {what}")
    final = "-" if result.final_reward is None else f"{result.final_reward:.2f}"
    print(f"finished: {'yes' if result.finished else 'no'}; final reward {final}; folder {result.out_dir}")


def _note(message: str) -> None:
    print(f"vcoder agent build: note: {message}", file=sys.stderr)


def _usage(message: str) -> int:
    print(f"vcoder agent build: error: {message}", file=sys.stderr)
    return 2
