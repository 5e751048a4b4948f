"""``vcoder orm``: make a verdict log, train the outcome reward model on it, score sites, report, check a log."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

DESCRIPTION = """The outcome reward model (WebRL): P(YES) that a site does what its task asks.
  vcoder orm collect --n 300 --out runs/verdicts.jsonl        scripted GUI agent over interactive pages + broken ones
  vcoder orm check --verdicts runs/verdicts.jsonl             validate a log (line and field of the first problem)
  vcoder orm train --verdicts LOG --model-name-or-path BASE --out DIR     TRL SFT on the YES/NO answer; DIR/report.json
  vcoder orm score --orm-model DIR --task TASK.json --site DIR_OR_HTML    one site's P(YES) as JSON
  vcoder orm report --orm-model DIR --verdicts LOG     held-out accuracy / AUC / ECE vs the majority class
  (--model, the old name of both, still works with a warning)
Exit status: 0 done, 1 the browser failed, 2 bad input (the message says what to fix)."""


def add_parser(subparsers, name: str) -> None:
    p = subparsers.add_parser(
        name,
        help="outcome reward model: collect verdicts, train, score, report",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="orm_command", metavar="SUBCOMMAND")
    fmt = argparse.ArgumentDefaultsHelpFormatter

    c = sub.add_parser(
        "collect", help="grade interactive pages and broken variants into a verdict log", formatter_class=fmt
    )
    c.add_argument("--n", type=int, required=True, help="number of sites (records) to grade")
    c.add_argument("--out", required=True, help="verdict log to append to (screenshots go beside it)")
    c.add_argument("--seed", type=int, default=0, help="first page seed")
    c.add_argument("--kinds", default=None, help="comma-separated page kinds (default: all)")
    c.add_argument("--no-dropped", action="store_true", help="leave out the handler_dropped (partly broken) variant")
    from vcoder.flag_names import old_flag
    from vcoder.gui.limits import CaseLimits

    deadline = CaseLimits().deadline_ms  # the one declaration of a test case's deadline
    c.add_argument("--gui-deadline-ms", type=int, default=deadline, help="deadline of one test case in ms")
    old_flag(c, "--timeout-ms", "gui_deadline_ms")
    c.set_defaults(func=_collect)

    k = sub.add_parser("check", help="validate a verdict log and summarise it", formatter_class=fmt)
    k.add_argument("--verdicts", required=True, help="the verdict log")
    k.set_defaults(func=_check)

    t = sub.add_parser("train", help="train an ORM on a verdict log (TRL SFT)", formatter_class=fmt)
    t.add_argument("--verdicts", required=True, help="the verdict log")
    t.add_argument(
        "--model-name-or-path", default=None, help="base VLM (folder or hub id), e.g. from `vcoder models tiny`"
    )
    old_flag(t, "--model", "model_name_or_path", type=str)
    t.add_argument("--out", required=True, help="ORM folder to write")
    t.add_argument("--holdout", type=float, default=0.2, help="share of task ids held out for the report")
    t.add_argument(
        "--views",
        default="site,agent",
        help="prompt views to train on: site, agent (browsing records: trajectory, always)",
    )
    t.add_argument("--label-threshold", type=float, default=0.5, help="site score at or above which the label is YES")
    t.add_argument("--image-width", type=int, default=320, help="screenshot width fed to the model (0: text only)")
    t.add_argument("--max-steps", type=int, default=300, help="optimiser steps")
    t.add_argument("--batch-size", type=int, default=8, help="examples per step")
    t.add_argument("--learning-rate", type=float, default=1e-3, help="peak learning rate")
    t.add_argument("--lora-r", type=int, default=0, help="LoRA rank (0: full fine-tuning)")
    t.add_argument("--seed", type=int, default=0, help="split and training seed")
    t.add_argument(
        "--no-balance", action="store_true", help="train on the log's label mix (default: oversample the rarer label)"
    )
    t.add_argument(
        "--no-tune-threshold", action="store_true", help="answer YES at P(YES) >= 0.5 (default: tuned on training)"
    )
    t.set_defaults(func=_train)

    s = sub.add_parser("score", help="P(YES) of one site for one task", formatter_class=fmt)
    s.add_argument("--orm-model", default=None, help="the ORM folder")
    old_flag(s, "--model", "orm_model", type=str)
    s.add_argument("--task", required=True, help='task JSON: {"instruction": ..., "test_cases": [...]}')
    s.add_argument("--site", required=True, help="an .html file or a folder with index.html")
    s.add_argument("--device", default=None, help="torch device (default: CUDA if available)")
    s.set_defaults(func=_score)

    r = sub.add_parser("report", help="held-out metrics of an ORM on a verdict log", formatter_class=fmt)
    r.add_argument("--orm-model", default=None, help="the ORM folder")
    old_flag(r, "--model", "orm_model", type=str)
    r.add_argument("--verdicts", required=True, help="the verdict log")
    r.add_argument("--all", action="store_true", help="every record, not only the ORM's held-out tasks")
    r.add_argument("--device", default=None, help="torch device (default: CUDA if available)")
    r.set_defaults(func=_report)
    p.set_defaults(func=lambda args: _usage("give a subcommand: collect, check, train, score or report"))


def _usage(msg: str) -> int:
    print(f"vcoder orm: error: {msg}", file=sys.stderr)
    return 2


def _input_errors() -> tuple[type[Exception], ...]:
    from vcoder.orm.model import NotAnORMError
    from vcoder.orm.score import TaskError
    from vcoder.orm.train import BaseModelError
    from vcoder.verdicts.records import VerdictLogError

    return VerdictLogError, NotAnORMError, TaskError, BaseModelError


def _guarded(run) -> int:
    """Run ``run()``; bad input becomes exit 2 with its message, a browser failure exit 1."""
    from vcoder.gui.runner import InfrastructureError

    try:
        # the trainer and the progress bars print to stdout; stdout carries the result JSON only
        with contextlib.redirect_stdout(sys.stderr):
            result = run()
        print(json.dumps(result))
    except _input_errors() as exc:
        return _usage(str(exc))
    except InfrastructureError as exc:
        print(f"vcoder orm: browser failure: {exc}", file=sys.stderr)
        return 1
    return 0


def _collect(args) -> int:
    from vcoder.gui.limits import case_limits
    from vcoder.orm.collect import collect_verdicts

    if args.n < 1:
        return _usage(f"--n must be positive, got {args.n}")
    try:
        limits = case_limits(deadline_ms=args.gui_deadline_ms)
    except ValueError as exc:
        return _usage(f"--gui-deadline-ms: {exc}")
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip()) if args.kinds else None
    try:
        return _guarded(
            lambda: collect_verdicts(
                args.n, args.out, seed=args.seed, kinds=kinds, dropped=not args.no_dropped, limits=limits
            )
        )
    except ValueError as exc:  # an unknown page kind
        return _usage(str(exc))


def _check(args) -> int:
    from vcoder.verdicts.log import read_verdicts
    from vcoder.verdicts.records import VerdictLogError

    def summary():
        records = read_verdicts(args.verdicts)
        if not records:
            raise VerdictLogError(f"verdict log {args.verdicts!r} is empty; fill it with `vcoder orm collect`")
        sources: dict[str, int] = {}
        for r in records:
            sources[r.source] = sources.get(r.source, 0) + 1
        return {
            "verdicts": args.verdicts,
            "records": len(records),
            "tasks": len({r.task_id for r in records}),
            "score_ge_0.5": sum(r.score >= 0.5 for r in records) / len(records),
            "sources": sources,
        }

    return _guarded(summary)


def _train(args) -> int:
    from vcoder.orm.train import TrainOptions, train_orm

    try:
        options = TrainOptions(
            holdout=args.holdout,
            views=tuple(v.strip() for v in args.views.split(",") if v.strip()),
            label_threshold=args.label_threshold,
            image_width=args.image_width,
            max_steps=args.max_steps,
            batch_size=args.batch_size,
            learning_rate=args.learning_rate,
            lora_r=args.lora_r,
            seed=args.seed,
            balance_classes=not args.no_balance,
            tune_threshold=not args.no_tune_threshold,
        )
    except ValueError as exc:
        return _usage(str(exc))
    if not args.model_name_or_path:
        return _usage("orm train: give the base VLM with --model-name-or-path (a folder or hub id)")
    return _guarded(lambda: train_orm(args.verdicts, args.model_name_or_path, args.out, options=options))


def _score(args) -> int:
    from vcoder.orm.score import score_site

    if not args.orm_model:
        return _usage("orm score: give the ORM folder with --orm-model")
    return _guarded(lambda: score_site(args.orm_model, args.task, args.site, device=args.device))


def _report(args) -> int:
    from vcoder.orm.train import report_on_log

    if not args.orm_model:
        return _usage("orm report: give the ORM folder with --orm-model")
    return _guarded(
        lambda: report_on_log(args.orm_model, args.verdicts, heldout_only=not args.all, device=args.device)
    )
