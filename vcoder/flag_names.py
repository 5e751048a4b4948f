"""One spelling per command-line flag, and retired flags still accepted (with a warning) while they are retired.

The flag side of :mod:`vcoder.names`: :func:`cli_flag` spells a setting's flag, :func:`respell_flags` and
:func:`rename_flags` rewrite an underscore spelling or an old name of :data:`vcoder.names.RENAMED` before a parser
reads the command line, and :func:`old_flag` keeps one command's retired flag working.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from vcoder.names import new_names

__all__ = ["cli_flag", "old_flag", "rename_flags", "respell_flags"]

logger = logging.getLogger(__name__)


def rename_flags(argv: Sequence[str], *, known: Iterable[str] | None = None) -> list[str]:
    """Command-line ``--old`` / ``--old=value`` flags of :data:`RENAMED` as their new names (a warning each; an old
    flag that meant several settings becomes one flag per setting, each with the value)."""
    return _rewrite(list(argv), lambda name: new_names(name, known), "--{}", "command line: --%s is now %s")


def _rewrite(argv: list[str], lookup, spell: str, message: str) -> list[str]:
    """``argv`` with each ``--name[=value]`` whose ``lookup(name)`` is not empty replaced by those flags (spelled with
    ``spell``), each given the value (``--name value`` takes the next item as its value)."""
    out = []
    i = 0
    while i < len(argv):
        item = argv[i]
        i += 1
        name, sep, value = item[2:].partition("=") if item.startswith("--") and len(item) > 2 else ("", "", "")
        news = lookup(name) if name else ()
        if not news:
            out.append(item)
            continue
        flags = [spell.format(n) for n in news]
        logger.warning(message + "; the old spelling still works, with this warning", name, " and ".join(flags))
        if len(flags) == 1 or sep:
            out += [f"{flag}{sep}{value}" for flag in flags]
        elif i < len(argv) and not argv[i].startswith("--"):
            value = argv[i]
            i += 1
            out += [part for flag in flags for part in (flag, value)]
        else:
            out += flags  # a switch, or a value missing: the parser says so
    return out


def cli_flag(name: str) -> str:
    """The one spelling of a setting's command-line flag: ``cli_flag("visual_weights") == "--visual-weights"``."""
    return "--" + name.replace("_", "-")


def respell_flags(argv: Sequence[str], known: Iterable[str]) -> list[str]:
    """``argv`` with every flag in its one spelling (:func:`cli_flag`): an underscore spelling (``--visual_weights``)
    or an old name of :data:`RENAMED` (``--judge-url``) whose new flag is in ``known`` and which is not itself in
    ``known`` is rewritten, with a warning; anything else is left to the parser."""
    accepted = set(known)

    def lookup(name: str) -> tuple[str, ...]:
        # a spelling some parser declares as it is stays (agent test's --action-timeout-ms is its own flag)
        if f"--{name}" in accepted:
            return ()
        key = name.replace("-", "_")
        news = tuple(cli_flag(n) for n in (new_names(key) or (key,)))
        return tuple(n for n in news if n in accepted) if news != (f"--{name}",) else ()

    return _rewrite(list(argv), lookup, "{}", "--%s is spelled %s")


class _OldFlag(argparse.Action):
    """A retired flag of one command: sets each new setting to its value, with a warning."""

    def __init__(self, option_strings, dest, *, news: tuple[str, ...], **kwargs):
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs)
        self.news = news

    def __call__(self, parser, namespace, values, option_string=None):
        flags = " and ".join(cli_flag(n) for n in self.news)
        logger.warning(
            "%s: %s is now %s; the old flag still works, with this warning", parser.prog, option_string, flags
        )
        for name in self.news:
            setattr(namespace, name, values)


def old_flag(parser: argparse.ArgumentParser, old: str, *news: str, type: Any = int) -> None:
    """Keep one command's retired flag ``old`` working: it sets the settings ``news`` (their new flags declared on
    ``parser``), with a warning, and is hidden from ``--help``. For a flag whose name now means something else in
    other commands (``--timeout-ms``: one request's budget), so :data:`RENAMED`, which renames everywhere, cannot.

    Example:
        >>> p = argparse.ArgumentParser(prog="vcoder orm collect")
        >>> _ = p.add_argument("--gui-deadline-ms", type=int, default=20000)
        >>> old_flag(p, "--timeout-ms", "gui_deadline_ms")
        >>> p.parse_args(["--timeout-ms", "9000"]).gui_deadline_ms
        9000
    """
    parser.add_argument(old, dest=news[0], action=_OldFlag, news=news, type=type)
