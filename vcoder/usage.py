"""The argument parser of every vcoder command line and script: a usage error is ONE line, with a "did you mean".

argparse prints the whole usage block before its error (hundreds of lines for the training parsers) and never
suggests the option the user meant. ``OneLineParser`` prints ``PROG: error: MESSAGE`` alone on stderr and exits 2;
an unknown option or subcommand gets the closest known one (``--batch_size`` finds ``--batch-size``: dashes and
underscores are compared alike). Subparsers inherit the class, so ``vcoder``'s whole tree behaves the same.

Example:
    >>> p = OneLineParser(prog="demo")
    >>> _ = p.add_argument("--max-tokens", type=int)
    >>> unknown_option_hint("--max_token", p)
    " (did you mean '--max-tokens'?)"
"""

from __future__ import annotations

import argparse
import sys

from vcoder.suggest import closest

__all__ = ["OneLineParser", "close_match", "key_values", "print_error", "unknown_option_hint"]


def _normal(flag: str) -> str:
    return flag.split("=", 1)[0].lstrip("-").replace("-", "_").lower()


def close_match(word: str, candidates, *, cutoff: float = 0.6) -> str | None:
    """The candidate closest to ``word`` (dashes and underscores compared alike), or None."""
    by_normal: dict[str, str] = {}
    for candidate in candidates:  # the first spelling of a name wins (--run_dir before its alias --run-dir)
        by_normal.setdefault(_normal(str(candidate)), str(candidate))
    found = closest(_normal(word), by_normal, cutoff=cutoff)
    return by_normal[found[0]] if found else None


def unknown_option_hint(flag: str, parser: argparse.ArgumentParser) -> str:
    """`` (did you mean '--x'?)`` for an option ``parser`` does not know, or ``""`` when nothing is close."""
    options = [s for action in parser._actions for s in action.option_strings if s.startswith("--")]
    close = close_match(flag, options)
    return f" (did you mean {close!r}?)" if close else ""


def _chosen_subparser(parser: argparse.ArgumentParser, namespace: argparse.Namespace) -> argparse.ArgumentParser:
    """The deepest subcommand parser the namespace's choices lead to (where an unknown option was meant)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(namespace, action.dest, None) or "")
            if chosen is not None:
                return _chosen_subparser(chosen, namespace)
    return parser


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr (exit status 2), with a did-you-mean."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            # reported by the subcommand the options were given to, so the hint comes from its own options
            owner = _chosen_subparser(self, parsed)
            flags = [item for item in extras if item.startswith("-")]
            hints = [f"{flag.split('=', 1)[0]}{unknown_option_hint(flag, owner)}" for flag in flags]
            shown = ", ".join(hints) if hints else " ".join(extras)
            owner.error(f"unrecognized argument(s) {shown}; `{owner.prog} --help` lists the options")
        return parsed

    def _check_value(self, action, value):
        # an unknown subcommand or choice: argparse lists the choices; the closest one goes first
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as exc:
            close = close_match(str(value), action.choices or [])
            if close is None:
                raise
            raise argparse.ArgumentError(action, f"{exc.message} (did you mean {close!r}?)") from None


def print_error(prog: str, message: str) -> int:
    """Print ``PROG: error: MESSAGE`` on stderr and return 2 (a command's usage error)."""
    sys.stderr.write(f"{prog}: error: {message}\n")
    return 2


def key_values(items: list[str], *, flag: str = "--set", example: str = "max_steps=2") -> dict:
    """``["key=value", ...]`` -> ``{key: value}``, each value read as YAML (``2`` is an int, ``a,b`` a string).

    The parser of every ``KEY=VALUE`` recipe override (``--set``, ``--grpo-set``); a malformed item raises
    ``ValueError`` naming ``flag`` and ``example``. Whether a key exists is the recipe's check, not this one's.

    Example:
        >>> key_values(["multi_objective_aggregation=normalize_then_sum", "max_steps=2"])
        {'multi_objective_aggregation': 'normalize_then_sum', 'max_steps': 2}
        >>> key_values(["max_steps"], flag="--grpo-set")
        Traceback (most recent call last):
        ValueError: --grpo-set 'max_steps': write KEY=VALUE, e.g. --grpo-set max_steps=2
    """
    import yaml

    out: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{flag} {item!r}: write KEY=VALUE, e.g. {flag} {example}")
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            problem = getattr(exc, "problem", None) or "not a YAML value"
            raise ValueError(f"{flag} {item!r}: the value is {problem}") from None
    return out
