"""``vcoder data synth`` (synthetic pages + screenshots), ``vcoder data design2code`` (export a test set), and the
site-building tasks and agent trajectories of :mod:`vcoder.cli.data_sites`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from vcoder.cli import data_sites
from vcoder.usage import print_error


def add_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(
        name, help="make datasets: synthetic pages, Design2Code test sets, site tasks, agent trajectories"
    )
    sub = parser.add_subparsers(dest="data_command", metavar="ACTION")
    fmt = argparse.ArgumentDefaultsHelpFormatter

    synth = sub.add_parser(
        "synth", help="generate synthetic pages (<id>.html, <id>.png, metadata.jsonl)", formatter_class=fmt
    )
    synth.add_argument("--n", type=int, required=True, help="number of pages")
    synth.add_argument("--out", type=Path, required=True, help="output folder")
    synth.add_argument("--seed", type=int, default=0, help="first page seed (page i uses seed+i)")
    synth.add_argument("--difficulty", type=int, default=0, choices=[0, 1, 2, 3], help="0 tiny ... 3 WebSight-like")
    synth.add_argument(
        "--width", type=int, default=None, help="viewport width (default 320 at difficulty 0, else 1280)"
    )
    synth.add_argument(
        "--height", type=int, default=None, help="viewport height (default 240 at difficulty 0, else 720)"
    )
    synth.add_argument("--no-screenshots", action="store_true", help="write the HTML only (no browser needed)")
    synth.set_defaults(func=run_synth)

    d2c = sub.add_parser(
        "design2code", help="export a Design2Code test set (<id>.html, <id>.png, rick.jpg)", formatter_class=fmt
    )
    d2c.add_argument(
        "--source",
        required=True,
        help="parquet file/folder (SALT-NLP/Design2Code-hf), the original folder release, or a hub name",
    )
    d2c.add_argument("--out", type=Path, required=True, help="test set folder to write")
    d2c.add_argument("--max-samples", type=int, default=None, help="export only the first N pages")
    d2c.set_defaults(func=run_design2code)
    data_sites.add_parsers(sub)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def run_synth(args) -> int:
    from vcoder.data.synth_writer import write_synthetic

    if args.n < 0:
        return print_error("vcoder data synth", f"--n must be >= 0, got {args.n}")
    records = write_synthetic(
        args.out,
        args.n,
        seed=args.seed,
        difficulty=args.difficulty,
        width=args.width,
        height=args.height,
        screenshots=not args.no_screenshots,
        progress=True,
    )
    failed = [r["id"] for r in records if r["error"]]
    print(
        json.dumps(
            {"out": str(args.out), "n": len(records), "failed": failed, "metadata": str(args.out / "metadata.jsonl")}
        )
    )
    return 3 if failed else 0


def run_design2code(args) -> int:
    from vcoder.data.design2code import export_testset

    try:
        ids = export_testset(args.source, args.out, max_samples=args.max_samples)
    except (FileNotFoundError, ValueError) as exc:
        return print_error("vcoder data design2code", str(exc))
    print(json.dumps({"out": str(args.out), "n": len(ids), "first_ids": ids[:5]}))
    return 0


run = run_synth
