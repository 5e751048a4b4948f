"""``vcoder data site-tasks`` (the site-kind tasks of a split as JSONL) and ``vcoder data trajectories`` (multi-turn
agent SFT episodes: scripted attempts, feedback from the real site environment)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

#: the teacher runs WebGen-Agent's loop as the seed does, in its Bolt markup (an episode's default: vcoder), with
#: 10 min per teacher or judge request (whole sites, a grade of every step; a reward's judge: 60 s)
SEED_FORMAT, TEACHER_TIMEOUT_MS = "bolt", 600_000


def add_parsers(sub) -> None:
    """Add both subcommands to ``vcoder data``'s subparsers (nothing heavy is imported: ``--help`` stays instant)."""
    fmt = argparse.ArgumentDefaultsHelpFormatter
    tasks = sub.add_parser("site-tasks", help="write site-building tasks of one split as JSONL", formatter_class=fmt)
    _task_args(tasks, split=True)
    tasks.add_argument("--out", type=Path, required=True, help="JSONL file to write")
    tasks.set_defaults(func=run_site_tasks)

    traj = sub.add_parser(
        "trajectories",
        help="write multi-turn agent trajectories ({'messages': [...]} JSONL) graded by the real site environment",
        formatter_class=fmt,
    )
    traj.add_argument(
        "--tasks",
        default="train",
        help="a split of the generated site tasks (train, validation, test) or a JSONL file of site-task rows "
        "(with 'kind' and 'seed', as `vcoder data site-tasks` writes)",
    )
    _task_args(traj, split=False)
    traj.add_argument("--out", type=Path, required=True, help="JSONL file to write (+ OUT.meta.jsonl beside it)")
    traj.add_argument("--flawed-share", type=float, default=0.75, help="share of first attempts that are flawed")
    traj.add_argument("--layouts", default="single,split", help="site layouts to draw from: single, split")
    traj.add_argument("--max-concurrency", type=int, default=4, help="episodes graded at once")
    from vcoder.sites.grading import SCRIPTED_EXPECT_MS

    traj.add_argument(
        "--expect-timeout-ms", type=int, default=SCRIPTED_EXPECT_MS, help="how long unmet expectations are re-checked"
    )
    traj.add_argument("--choice-seed", type=int, default=0, help="seed of the per-trajectory choices")
    traj.add_argument("--width", type=int, default=1280, help="viewport width")
    traj.add_argument("--height", type=int, default=720, help="viewport height")
    teacher = traj.add_argument_group(
        "teacher trajectories (WebGen-Agent's way: a teacher model over WebGen-Instruct, filtered; "
        "vcoder.eval.teacher_trajectories)"
    )
    teacher.add_argument(
        "--teacher-base-url",
        help="the teacher's OpenAI-compatible server; --tasks is then "
        "WebGen-Instruct's JSONL (webgen-agent_train_step-grpo.jsonl) or its folder",
    )
    teacher.add_argument("--teacher-model", help="the teacher's model name on that server")
    teacher.add_argument("--judge-base-url", help="the screenshot judge's server (a VLM; grades every step)")
    teacher.add_argument("--judge-model", help="the screenshot judge's model")
    teacher.add_argument("--system-prompt", type=Path, metavar="FILE", help="the teacher's system prompt (the seed's)")
    from vcoder.eval.webgen_agent_loop import SEED_ERROR_LIMIT, SEED_MAX_ITER, SEED_TEMPERATURE

    teacher.add_argument("--turn-format", default=SEED_FORMAT, choices=("bolt", "vcoder"), help="the teacher's markup")
    teacher.add_argument("--max-samples", type=int, default=None, help="the first N WebGen-Instruct tasks")
    teacher.add_argument(
        "--max-turns", type=int, default=SEED_MAX_ITER, help="iterations per task (the seed's max-iter)"
    )
    teacher.add_argument("--error-limit", type=int, default=SEED_ERROR_LIMIT, help="errored steps before backtracking")
    teacher.add_argument(
        "--temperature", type=float, default=SEED_TEMPERATURE, help="the teacher's sampling temperature"
    )
    teacher.add_argument("--max-tokens", type=int, default=8192, help="the teacher's reply budget")
    teacher.add_argument(
        "--teacher-timeout-ms", type=int, default=TEACHER_TIMEOUT_MS, help="budget of one teacher request"
    )
    teacher.add_argument(
        "--judge-timeout-ms", type=int, default=TEACHER_TIMEOUT_MS, help="budget of one judge request"
    )
    from vcoder.flag_names import old_flag

    old_flag(traj, "--timeout-ms", "teacher_timeout_ms", "judge_timeout_ms")
    teacher.add_argument("--min-appearance", type=float, default=3.0, help="keep: the best step's grade (0-5)")
    teacher.add_argument("--keep-unfinished", action="store_true", help="keep: trajectories that never finished")
    teacher.add_argument("--keep-malformed", action="store_true", help="keep: trajectories with a malformed reply")
    traj.set_defaults(func=run_trajectories)


def _task_args(parser, *, split: bool) -> None:
    if split:
        parser.add_argument(
            "--split", default="train", help="which split: train, validation or test (pilots read validation)"
        )
    parser.add_argument("--n", type=int, default=42, help="number of tasks (cycling through the kinds)")
    parser.add_argument("--kinds", default=None, help="comma-separated kinds (default: every kind of the split)")
    parser.add_argument("--seed", type=int, default=0, help="first task seed")


def _kinds(args) -> tuple[str, ...] | None:
    """The kinds named by --kinds; None (every kind the split has) without it."""
    return tuple(k.strip() for k in args.kinds.split(",") if k.strip()) if args.kinds else None


def run_site_tasks(args) -> int:
    from vcoder.data.site_kinds import kind_tasks

    try:
        rows = kind_tasks(args.n, args.seed, split=args.split, kinds=_kinds(args))
    except ValueError as exc:
        print(f"error: {exc}")
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps({k: v for k, v in row.items() if k != "prompt"}) + "\n")
    print(json.dumps({"out": str(args.out), "n": len(rows), "split": rows[0]["split"] if rows else args.split}))
    return 0


def _load_tasks(args) -> list[dict]:
    from vcoder.data.site_kinds import SPLITS, kind_task, kind_tasks

    if args.tasks in (*SPLITS, "heldout"):
        return kind_tasks(args.n, args.seed, split=args.tasks, kinds=_kinds(args))
    path = Path(args.tasks)
    if not path.is_file():
        raise ValueError(f"--tasks {args.tasks!r} is neither a split ({', '.join(SPLITS)}) nor a JSONL file")
    rows = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        if not isinstance(row, dict) or "kind" not in row or not isinstance(row.get("seed"), int):
            raise ValueError(
                f"{path}:{i}: a task row needs 'kind' and an integer 'seed' (see `vcoder data site-tasks`)"
            )
        rows.append(kind_task(row["kind"], row["seed"]))
    return rows


def run_trajectories(args) -> int:
    from vcoder.sites.trajectories import TrajectoryOptions, write_trajectories

    if args.teacher_base_url or args.teacher_model:
        from vcoder.cli.data_teacher import run_teacher

        return run_teacher(args)

    try:
        tasks = _load_tasks(args)
        options = TrajectoryOptions(
            flawed_share=args.flawed_share,
            layouts=tuple(s.strip() for s in args.layouts.split(",") if s.strip()),
            seed=args.choice_seed,
            concurrency=args.max_concurrency,
            expect_timeout_ms=args.expect_timeout_ms,
            episode={"render_width": args.width, "render_height": args.height},
        )
    except (ValueError, json.JSONDecodeError) as exc:
        print(f"error: {exc}")
        return 2
    summary = write_trajectories(args.out, tasks, options=options)
    summary["dropped"] = [m["id"] for m in summary["dropped"]]
    print(json.dumps(summary))
    return 3 if summary["dropped"] else 0
