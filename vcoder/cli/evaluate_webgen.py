"""``vcoder eval webgen-bench``: build every WebGen-Bench site with a model server and test it with a GUI agent."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DESCRIPTION = """Build each site of WebGen-Bench's test.jsonl with the model at --base-url (one-shot: one reply;
agent mode with --max-turns N: N turns with appearance feedback, the test cases hidden), then run every test case on
the final site with the GUI agent at --gui-base-url (at most 15 actions; YES / PARTIAL / NO with its reason; a VLM
over marked screenshots, or with --gui-policy text the web agent in WebRL's text setting)
and grade the appearance (0-5) with the screenshot judge (default: the agent's endpoint). Writes OUT/results.jsonl
(one line per task, resumable: a re-run skips scored tasks and retries the others), OUT/summary.json, OUT/report.html
and OUT/tasks/<id>/. Accuracy = (YES + 0.5 x PARTIAL) / cases; a site that fails to build counts 0.
Exit status: 0 every task scored, 3 some tasks not scored (a server or the browser failed: run again to retry them),
2 usage or configuration error (bad tasks file, unreachable server: nothing written).

Protocols (--protocol): vcoder (default) grades as above. webgen-bench grades as WebGen-Bench's own scripts do: its
WebVoyager agent (up to 15 iterations, the last 3 screenshots in the conversation, temperature 1, a 1024x768
window) with the verdict read by substring of its last reply, and its 1-5 appearance prompt over up to 3 scrolled
1024x768 screenshots (the first digit after "Grade"; unreadable = 0); accuracy over all cases of all tasks,
appearance = the grades' sum / all tasks; --gui-step-limit is its iteration budget, and a case may take every
iteration's request budget (the benchmark bounds requests, not cases). --protocol vcoder,webgen-bench builds each
site once and grades it both ways (the first one gives the headline numbers; summary.json's by_protocol has each)."""


def add_parser(bench) -> None:
    from vcoder.cli.agent_build import add_turn_format_argument

    w = bench.add_parser(
        "webgen-bench",
        help="WebGen-Bench: build each site with a model server, test it with a GUI agent (accuracy, appearance)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    w.add_argument("--tasks", required=True, type=Path, help="WebGen-Bench's test.jsonl (or a folder holding it)")
    w.add_argument("--base-url", required=True, help="the site-building model's server, e.g. http://127.0.0.1:8000")
    w.add_argument("--model", required=True, help="model name as that server knows it")
    w.add_argument("--gui-base-url", required=True, help="the GUI agent's server (old flag: --agent-base-url)")
    w.add_argument("--gui-model", required=True, help="the GUI agent's model (old flag: --agent-model)")
    from vcoder.gui.agents import DEFAULT_GUI_POLICY, GUI_POLICIES

    w.add_argument(
        "--gui-policy",
        choices=GUI_POLICIES,
        default=DEFAULT_GUI_POLICY,
        help="protocol vcoder's GUI agent: vlm (default, a VLM over marked screenshots), text (the web agent: WebRL's "
        "text observation and actions, e.g. `vcoder serve` of a trained web agent) or text_screenshot (the web agent "
        "with the marked screenshot, a VLM); text and text_screenshot need --judge-base-url/--judge-model or "
        "--no-judge, and --protocol vcoder",
    )
    w.add_argument("--out", required=True, type=Path, help="output folder (created; a re-run resumes it)")
    w.add_argument(
        "--max-turns",
        type=int,
        help="turns per site: 1 = one-shot (default), N = agent mode (--agent-loop webgen_agent: 20, the seed's)",
    )
    w.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    w.add_argument("--judge-base-url", help="screenshot judge's server (default: --gui-base-url)")
    w.add_argument("--judge-model", help="screenshot judge's model (default: --gui-model)")
    w.add_argument("--no-judge", action="store_true", help="do not grade appearance (it is then null)")
    from vcoder.gui.limits import CaseLimits

    limits = CaseLimits()  # the one declaration of a test case's limits and their defaults
    w.add_argument(
        "--gui-step-limit",
        type=int,
        default=limits.step_limit,
        help="GUI-agent actions per case (default %(default)s, at most 15; old: --max-actions)",
    )
    from vcoder.eval.webgen_config import SERVED_VLM_TIMEOUT_MS, SITE_PAGES

    w.add_argument("--max-concurrency", type=int, default=2, help="tasks in flight (default 2; old: --concurrency)")
    w.add_argument("--timeout-ms", type=int, default=600_000, help="budget of one builder request (default 600000)")
    w.add_argument(
        "--gui-timeout-ms",
        type=int,
        default=SERVED_VLM_TIMEOUT_MS,
        help=f"budget of one GUI-agent request (default {SERVED_VLM_TIMEOUT_MS})",
    )
    w.add_argument(
        "--judge-timeout-ms",
        type=int,
        default=SERVED_VLM_TIMEOUT_MS,
        help=f"budget of one screenshot-judge request (default {SERVED_VLM_TIMEOUT_MS})",
    )
    w.add_argument(
        "--gui-deadline-ms",
        type=int,
        default=limits.deadline_ms,
        help="budget of one test case (default %(default)s; a served 32B agent needs more, e.g. 300000; old: "
        "--case-timeout-ms)",
    )
    w.add_argument(
        "--max-retries",
        type=int,
        default=2,
        help="request retries on errors, timeouts, 429, 5xx (default 2; old: --retries)",
    )
    w.add_argument("--max-tokens", type=int, default=8192, help="builder reply budget (default 8192)")
    w.add_argument(
        "--temperature",
        type=float,
        help="builder sampling temperature (default 0; --agent-loop webgen_agent: 0.5, the seed's)",
    )
    w.add_argument(
        "--agent-loop",
        choices=("none", "webgen_agent"),
        default="none",
        help="webgen_agent: WebGen-Agent's own loop (its infer_batch.py): backtrack to the best step after "
        "--error-limit consecutive errored steps, grade the best step's site, not the last (default none)",
    )
    w.add_argument(
        "--error-limit", type=int, default=5, help="--agent-loop webgen_agent: errored steps before backtracking (5)"
    )
    w.add_argument("--system-prompt", type=Path, metavar="FILE", help="the builder's system prompt, read from FILE")
    w.add_argument("--gui-max-tokens", type=int, default=256, help="agent reply budget per action (default 256)")
    w.add_argument("--feedback-images", action="store_true", help="screenshots in the feedback (a VLM builder)")
    w.add_argument("--extra-body", metavar="JSON", help="server-specific request fields for every server")
    w.add_argument("--ids", help="comma-separated task ids to run (default: all)")
    w.add_argument("--width", type=int, default=1280, help="viewport width in px (default 1280)")
    w.add_argument("--height", type=int, default=720, help="viewport height in px (default 720)")
    w.add_argument(
        "--max-pages", type=int, default=SITE_PAGES, help=f"concurrent browser pages (default {SITE_PAGES})"
    )
    w.add_argument(
        "--verdict-log",
        help="append every graded site (the final sites' test cases, the judge's grades of each turn) to this JSONL "
        "verdict log, the outcome reward model's training data (`vcoder orm train --verdicts`)",
    )
    w.add_argument(
        "--protocol",
        default="vcoder",
        help="how the final sites are graded: vcoder (default), webgen-bench (the benchmark's own agent, appearance "
        "prompt and arithmetic), or vcoder,webgen-bench (both, on sites built once)",
    )
    add_turn_format_argument(w)
    w.add_argument("--overwrite", action="store_true", help="start over instead of resuming")
    w.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def run_webgen_bench(args: argparse.Namespace) -> int:
    from vcoder.cli.agent_build import UsageError, extra_body
    from vcoder.eval.webgen_agent_loop import SEED_MAX_ITER, SEED_TEMPERATURE
    from vcoder.eval.webgen_bench import EndpointUnavailable, evaluate_webgen, summary_line
    from vcoder.eval.webgen_config import WebGenConfig

    def usage(message: str) -> int:
        print(f"vcoder eval webgen-bench: error: {message}", file=sys.stderr)
        return 2

    if bool(args.judge_base_url) != bool(args.judge_model):
        return usage(
            f"--judge-base-url and --judge-model go together (got {args.judge_base_url!r}, {args.judge_model!r})"
        )
    seed = args.agent_loop == "webgen_agent"
    max_turns = args.max_turns if args.max_turns is not None else (SEED_MAX_ITER if seed else 1)
    temperature = args.temperature if args.temperature is not None else (SEED_TEMPERATURE if seed else 0.0)
    system_prompt = None
    if args.system_prompt is not None:
        try:
            system_prompt = args.system_prompt.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return usage(f"--system-prompt {args.system_prompt}: {exc}")
    try:
        config = WebGenConfig(
            base_url=args.base_url,
            model=args.model,
            gui_base_url=args.gui_base_url,
            gui_model=args.gui_model,
            gui_policy=args.gui_policy,
            judge_base_url=args.judge_base_url,
            judge_model=args.judge_model,
            judge=not args.no_judge,
            max_turns=max_turns,
            gui_step_limit=args.gui_step_limit,
            max_concurrency=args.max_concurrency,
            timeout_ms=args.timeout_ms,
            gui_timeout_ms=args.gui_timeout_ms,
            judge_timeout_ms=args.judge_timeout_ms,
            gui_deadline_ms=args.gui_deadline_ms,
            max_retries=args.max_retries,
            max_tokens=args.max_tokens,
            temperature=temperature,
            gui_max_tokens=args.gui_max_tokens,
            extra_body=extra_body(args.extra_body),
            render_width=args.width,
            render_height=args.height,
            feedback_images=args.feedback_images,
            max_pages=args.max_pages,
            verdict_log=args.verdict_log,
            protocol=args.protocol,
            turn_format=args.turn_format,
            agent_loop=args.agent_loop,
            error_limit=args.error_limit,
            system_prompt=system_prompt,
        )
    except (UsageError, ValueError) as exc:
        return usage(str(exc))
    if config.turn_format == "bolt":
        from vcoder.sites.build import sandbox_problem

        problem = sandbox_problem()
        if problem:
            return usage(f"--turn-format bolt: {problem}")
    ids = [i.strip() for i in args.ids.split(",") if i.strip()] if args.ids else None
    try:
        summary = evaluate_webgen(
            args.tasks, args.out, config, ids=ids, overwrite=args.overwrite, progress=not args.no_progress
        )
    except (FileNotFoundError, ValueError, EndpointUnavailable) as exc:
        return usage(str(exc))
    print(json.dumps(summary) if args.json else summary_line(summary))
    if summary["missing_ids"]:
        print(
            f"vcoder eval webgen-bench: {len(summary['missing_ids'])} task(s) not scored: "
            + "; ".join(f"{k}: {v}" for k, v in summary["infrastructure"].items())
            + " (run the same command again to retry them)",
            file=sys.stderr,
        )
        return 3
    return 0
