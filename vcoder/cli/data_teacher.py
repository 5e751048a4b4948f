"""``vcoder data trajectories --teacher-base-url URL --teacher-model NAME``: a teacher model over WebGen-Instruct in
WebGen-Agent's loop and format, filtered, written as agent-SFT JSONL (:mod:`vcoder.eval.teacher_trajectories`)."""

from __future__ import annotations

import asyncio
import json
import sys


def _usage(message: str) -> int:
    print(f"vcoder data trajectories: error: {message}", file=sys.stderr)
    return 2


def run_teacher(args) -> int:
    """Run the teacher path of ``vcoder data trajectories``; 0 when done, 2 on a usage error, 3 when none was kept."""
    from vcoder.chat import Endpoint, connect
    from vcoder.data.webgen_instruct import load_webgen_instruct
    from vcoder.eval.teacher_trajectories import TeacherFilter, teacher_trajectories, write_rows
    from vcoder.gui.judge import ScreenshotJudge
    from vcoder.rendering import get_default_pool
    from vcoder.sites.grading import SiteGrader
    from vcoder.sites.records import EpisodeOptions

    if not (args.teacher_base_url and args.teacher_model):
        return _usage("--teacher-base-url and --teacher-model go together")
    if not (args.judge_base_url and args.judge_model):
        return _usage("--judge-base-url and --judge-model are needed: the filter reads each step's appearance grade")
    if args.error_limit < 1 or args.max_turns < 1:
        return _usage(f"--error-limit and --max-turns must be >= 1, got {args.error_limit}, {args.max_turns}")
    system_prompt = None
    try:
        if args.system_prompt is not None:
            system_prompt = args.system_prompt.read_text(encoding="utf-8")
        tasks = load_webgen_instruct(args.tasks, max_samples=args.max_samples)
        options = EpisodeOptions(
            max_turns=args.max_turns,
            turn_format=args.turn_format,
            system_prompt=system_prompt,
            temperature=args.temperature,
            max_reply_tokens=args.max_tokens,
            reply_timeout_ms=args.teacher_timeout_ms * 3 + 30_000,
            gui_weight=0.0,  # WebGen-Instruct has no test cases: each step is graded on its appearance
            render_width=args.width,
            render_height=args.height,
        )
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return _usage(str(exc))
    keep = TeacherFilter(
        min_appearance=args.min_appearance,
        require_finish=not args.keep_unfinished,
        allow_malformed=args.keep_malformed,
    )

    async def main():
        teacher = connect(
            Endpoint(args.teacher_base_url, args.teacher_model, timeout_ms=args.teacher_timeout_ms, max_retries=2)
        )
        judge = ScreenshotJudge(
            Endpoint(args.judge_base_url, args.judge_model, timeout_ms=args.judge_timeout_ms, max_retries=2)
        )
        try:
            grader = SiteGrader(pool=get_default_pool(), judge=judge)
            return await teacher_trajectories(
                tasks,
                teacher,
                grader=grader,
                options=options,
                error_limit=args.error_limit,
                keep=keep,
                concurrency=args.max_concurrency,
            )
        finally:
            await judge.aclose()
            await teacher.aclose()

    summary = write_rows(args.out, asyncio.run(main()))
    print(json.dumps(summary))
    return 0 if summary["kept"] else 3
