"""`vcoder plot RUN_DIR [RUN_DIR ...] [--runs DIR ...] [--out DIR] [--checkpoint N] [--smooth K]`: training curves.

Reads each run's trainer_state.json (latest checkpoint or the run's own by default) and completions parquet,
writes one PNG per metric with the runs overlaid plus a self-contained report.html, and prints their paths.
A curriculum run folder (with curriculum.json) gets curriculum.png instead: success rate and pool size per phase.
"""

from __future__ import annotations

import argparse


def add_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(
        name,
        help="plot training curves of one or more runs (PNGs + one HTML page)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments shared with experiments/plot_run.py."""
    parser.add_argument("run_dir", nargs="+", help="run output_dirs (trainer_state.json or checkpoint-N/); overlaid")
    parser.add_argument("--runs", nargs="*", default=[], metavar="DIR", help="more runs to overlay")
    parser.add_argument("--labels", nargs="*", default=None, help="one legend label per run (default: folder names)")
    parser.add_argument("--out", default=None, help="output folder (default: RUN_DIR/curves)")
    parser.add_argument("--checkpoint", type=int, default=None, metavar="N", help="read checkpoint-N of each run")
    parser.add_argument("--smooth", type=int, default=1, metavar="K", help="moving-average window (default 1 = raw)")


def run(args) -> int:
    import json
    import os
    import sys

    from vcoder.pipelines.curriculum.plot import is_curriculum_dir, plot_curriculum
    from vcoder.pipelines.plots import plot_runs

    runs = [*args.run_dir, *args.runs]
    out = args.out or os.path.join(runs[0], "curves")
    if len(runs) == 1 and is_curriculum_dir(runs[0]):
        try:
            print(json.dumps(plot_curriculum(runs[0], out)))
        except ValueError as exc:
            print(f"vcoder plot: {exc}", file=sys.stderr)
            return 2
        return 0
    try:
        result = plot_runs(runs, out, labels=args.labels, smooth=args.smooth, checkpoint=args.checkpoint)
    except (FileNotFoundError, ValueError) as exc:
        print(f"vcoder plot: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"html": result["html"], "pngs": result["pngs"], "states": result["states"]}, indent=1))
    return 0
