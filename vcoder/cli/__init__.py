"""The ``vcoder`` command line: a thin dispatcher.

Each subcommand lives in its own module ``vcoder.cli.<name>`` exposing ``add_parser(subparsers)`` and
``run(args) -> int``. Modules keep heavy imports inside ``run`` so ``vcoder --help`` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

# subcommand -> module; a module that is not there yet is simply not offered
COMMANDS = {
    "render": "vcoder.cli.render",
    "score": "vcoder.cli.score",
    "eval": "vcoder.cli.evaluate",
    "predict": "vcoder.cli.predict",
    "train": "vcoder.cli.train",
    "quickstart": "vcoder.cli.quickstart",
    "plot": "vcoder.cli.plot",
    "data": "vcoder.cli.data",
    "models": "vcoder.cli.models",
    "agent": "vcoder.cli.agent",
    "assets": "vcoder.cli.assets",
    "orm": "vcoder.cli.orm",
    "curriculum": "vcoder.cli.curriculum",
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
    for name, module_name in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        module.add_parser(sub, name)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2) if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)
