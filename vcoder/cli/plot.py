"""`vcoder plot [RUN_DIR ...] [--run_dir DIR] [--runs DIR ...] [--out DIR] [--checkpoint N] [--smooth K]`: curves.

Reads each run's trainer_state.json (the latest checkpoint's or the run's own, whichever has more steps; checkpoint-N
with --checkpoint N) and completions parquet, writes one PNG per metric with the runs overlaid plus a self-contained
report.html into RUN_DIR/plots/ (the first run's), and prints their paths. With no run named, it plots the latest run
under ./outputs/ (the run whose trainer_state.json was written last): VisionCoder's `python3 experiments/plot_run.py`.
A curriculum run folder (with curriculum.json) gets curriculum.png instead: success rate and pool size per phase.
"""

from __future__ import annotations

import argparse
import glob
import os

__all__ = ["RUNS_ROOT", "add_arguments", "add_parser", "latest_run", "run"]

RUNS_ROOT = "outputs"


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
    parser.add_argument(
        "run_dir",
        nargs="*",
        help=f"run output_dirs (trainer_state.json or checkpoint-N/), overlaid; default: the latest under {RUNS_ROOT}/",
    )
    parser.add_argument(
        "--run_dir", "--run-dir", dest="run_dir_opt", action="append", default=[], metavar="DIR", help="a run folder"
    )
    parser.add_argument("--runs", nargs="*", default=[], metavar="DIR", help="more runs to overlay")
    parser.add_argument("--labels", nargs="*", default=None, help="one legend label per run (default: folder names)")
    parser.add_argument("--out", default=None, help="output folder (default: RUN_DIR/plots)")
    parser.add_argument("--checkpoint", type=int, default=None, metavar="N", help="read checkpoint-N of each run")
    parser.add_argument("--smooth", type=int, default=1, metavar="K", help="moving-average window (default 1 = raw)")


def latest_run(root: str = RUNS_ROOT) -> str:
    """The run folder under ``root`` whose ``trainer_state.json`` (its own or a checkpoint's) was written last.

    Raises:
        FileNotFoundError: no run under ``root``, saying where it looked.
    """
    states = glob.glob(os.path.join(root, "**", "trainer_state.json"), recursive=True)
    if not states:
        raise FileNotFoundError(
            f"no run under {os.path.abspath(root)!r} (no trainer_state.json); name one: --run_dir outputs/RUN"
        )
    newest = os.path.dirname(max(states, key=os.path.getmtime))
    # a checkpoint's state belongs to the run folder above it
    return os.path.dirname(newest) if os.path.basename(newest).startswith("checkpoint-") else newest


def run(args) -> int:
    import json
    import sys

    from vcoder.pipelines.curriculum.plot import is_curriculum_dir, plot_curriculum
    from vcoder.pipelines.plots import plot_runs

    runs = [*args.run_dir, *args.run_dir_opt, *args.runs]
    try:
        runs = runs or [latest_run()]
    except FileNotFoundError as exc:
        print(f"vcoder plot: {exc}", file=sys.stderr)
        return 2
    out = args.out or os.path.join(runs[0], "plots")
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
