"""`vcoder eval design2code` (score a predictions folder on a Design2Code testset) and `vcoder eval webgen-bench`
(build and test every WebGen-Bench site with model servers, :mod:`vcoder.cli.evaluate_webgen`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

STDOUT_KEYS = ("n", "missing", "failed", "block_match", "text", "position", "color", "clip", "overall", "overall_of")


def add_parser(sub, name: str) -> None:
    p = sub.add_parser(
        name, help="evaluate on a benchmark (Design2Code, WebGen-Bench)", description="Evaluate on a benchmark."
    )
    bench = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    d = bench.add_parser(
        "design2code",
        help="Design2Code: Block-Match, Text, Position, Colour, CLIP (+ results.jsonl, summary.json, report.html)",
        description="Render every reference and prediction once (1280x720, full page, hermetic; assets from the "
        "testset folder), score them with the Design2Code definitions, and write OUT/results.jsonl (one line per "
        "sample, resumable), OUT/summary.json and OUT/report.html. A missing or unrenderable prediction scores 0 on "
        "every metric. Prints the summary JSON.",
    )
    d.add_argument("--testset", required=True, type=Path, help="folder of <id>.html references (+ rick.jpg)")
    d.add_argument("--predictions", required=True, type=Path, help="folder of <id>.html predictions (or raw output)")
    d.add_argument("--out", required=True, type=Path, help="output folder (created)")
    d.add_argument("--json", action="store_true", help="print the summary as one JSON object (the default too)")
    d.add_argument("--overwrite", action="store_true", help="re-score every sample instead of resuming")
    d.add_argument("--no-clip", action="store_true", help="skip CLIP (overall then averages the four block metrics)")
    d.add_argument("--clip-model", default="ViT-B-32", help="open_clip model (default ViT-B-32, the benchmark's)")
    d.add_argument(
        "--clip-pretrained",
        default="openai",
        help="open_clip tag resolved offline (default openai), or a local checkpoint PATH (for OpenAI's own weights "
        "file use --clip-model ViT-B-32-quickgelu)",
    )
    d.add_argument("--clip-tiny", action="store_true", help="tiny random CLIP (smoke tests only)")
    d.add_argument("--workers", type=int, default=None, help="metric processes (default: one per core; 0: inline)")
    d.add_argument("--max-pages", type=int, default=2, help="concurrent browser pages (default 2)")
    d.add_argument("--render-timeout-ms", type=int, default=15000, help="render deadline per page (default 15000)")
    from vcoder.flag_names import old_flag

    old_flag(d, "--timeout-ms", "render_timeout_ms")
    d.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    from vcoder.cli import evaluate_webgen

    evaluate_webgen.add_parser(bench)
    p.set_defaults(func=run, _eval_parser=p)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "benchmark", None) == "webgen-bench":
        from vcoder.cli.evaluate_webgen import run_webgen_bench

        return run_webgen_bench(args)
    if getattr(args, "benchmark", None) != "design2code":
        args._eval_parser.print_help(sys.stderr)
        return 2
    return run_design2code(args)


def run_design2code(args: argparse.Namespace) -> int:
    if args.workers is not None and args.workers < 0:
        print(f"vcoder eval design2code: --workers must be >= 0, got {args.workers}", file=sys.stderr)
        return 2
    if args.max_pages < 1 or args.render_timeout_ms <= 0:
        print(
            f"vcoder eval design2code: --max-pages must be >= 1 and --render-timeout-ms > 0, got "
            f"{args.max_pages}, {args.render_timeout_ms}",
            file=sys.stderr,
        )
        return 2
    from vcoder.eval.design2code import evaluate

    try:
        summary = evaluate(
            args.testset,
            args.predictions,
            args.out,
            overwrite=args.overwrite,
            clip=not args.no_clip,
            clip_model=args.clip_model,
            clip_pretrained=args.clip_pretrained,
            clip_tiny=args.clip_tiny,
            workers=args.workers,
            max_pages=args.max_pages,
            timeout_ms=args.render_timeout_ms,
            progress=not args.no_progress,
        )
    except (FileNotFoundError, ValueError) as exc:
        print(f"vcoder eval design2code: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({k: summary.get(k) for k in STDOUT_KEYS}))
    return 0
