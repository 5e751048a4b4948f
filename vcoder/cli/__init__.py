"""The ``vcoder`` command line: a thin dispatcher.

Each subcommand lives in its own module ``vcoder.cli.<name>`` exposing ``add_parser(subparsers)`` and
``run(args) -> int``. Modules keep heavy imports inside ``run`` so ``vcoder --help`` stays instant.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

from vcoder.cli import (
    agent,
    assets,
    curriculum,
    data,
    evaluate,
    models,
    orm,
    plot,
    predict,
    quickstart,
    render,
    score,
    serve,
    serve_env,
    train,
)
from vcoder.cli.record import target_dir as record_dir
from vcoder.flag_names import respell_flags

# subcommand -> module; every module is imported here, so one that fails to import fails `vcoder` with its error
COMMANDS = {
    "render": render,
    "score": score,
    "eval": evaluate,
    "predict": predict,
    "train": train,
    "quickstart": quickstart,
    "plot": plot,
    "data": data,
    "models": models,
    "agent": agent,
    "assets": assets,
    "orm": orm,
    "curriculum": curriculum,
    "serve": serve,
    "serve-env": serve_env,
}


def build_parser() -> argparse.ArgumentParser:
    from vcoder.usage import OneLineParser

    # every subcommand's parser inherits the class: a usage error anywhere is one line with a did-you-mean
    parser = OneLineParser(
        prog="vcoder",
        description="Train vision-language models to write HTML/CSS from screenshots with rendering-based RL rewards.",
        epilog="Run `vcoder COMMAND --help` for a command's options.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        module.add_parser(sub, name)
    return parser


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every ``--flag`` of the parser and its subcommands."""
    found = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _option_strings(sub)
        found.update(o for o in action.option_strings if o.startswith("--"))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    # one spelling per flag: --visual_weights or an old name (--judge-url) is rewritten with a warning on stderr
    argv = respell_flags(list(sys.argv[1:] if argv is None else argv), _option_strings(parser))
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2) if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    record = record_dir(os.environ.get("VCODER_RECORD"))
    started = time.perf_counter()
    code = int(args.func(args) or 0)
    if record is not None and code == 0:  # VCODER_RECORD=1: a finished learning loop writes its result file
        from vcoder.cli.record import record_run

        record_run(args, argv, wall_s=time.perf_counter() - started, root=record)
    return code
