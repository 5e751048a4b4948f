"""The "did you mean" of every user-facing error about a name: written once, so every message reads the same.

Example:
    >>> did_you_mean("blok", ["block", "text"])
    " (did you mean 'block'?)"
    >>> did_you_mean("base_url", ["gui_base_url", "judge_base_url", "render_width"], prefixed=True)
    " (did you mean 'gui_base_url' or 'judge_base_url'?)"
    >>> unknown_names(["blok", "zzz"], ["block", "text"])
    "'blok' (did you mean 'block'?), 'zzz'"
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(
    name: object, choices: Iterable[str], *, n: int = 1, cutoff: float = 0.6, prefixed: bool = False
) -> str:
    """``" (did you mean 'x'?)"`` for a name close to one of ``choices``, else ``""``.

    Args:
        name: what the user wrote (anything; its ``str`` is compared).
        choices: the names that would have been accepted.
        n: at most this many close matches are offered (``'x' or 'y'``).
        cutoff: ``difflib``'s similarity cutoff in [0, 1].
        prefixed: the choices are prefixed settings (``gui_base_url``): a name that is their unprefixed tail
            (``base_url``) suggests every one of them.

    Returns:
        The suggestion with a leading space, ready to follow the quoted name.
    """
    text, options = str(name), list(choices)
    tails = [c for c in options if c.endswith("_" + text)] if prefixed else []
    close = tails or closest(text, options, n=n, cutoff=cutoff)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def closest(name: object, choices: Iterable[str], *, n: int = 1, cutoff: float = 0.6) -> list[str]:
    """The choices closest to ``name``, best first (at most ``n``; none below ``difflib``'s ``cutoff``): the one
    matching rule behind every suggestion (:func:`did_you_mean`, the command lines' :mod:`vcoder.usage`)."""
    return difflib.get_close_matches(str(name), list(choices), n, cutoff)


def unknown_names(names: Iterable[object], choices: Iterable[str], *, prefixed: bool = False) -> str:
    """``"'a' (did you mean 'b'?), 'c'"``: each unknown name quoted, with its suggestion (see :func:`did_you_mean`)."""
    options = list(choices)
    return ", ".join(f"{name!r}" + did_you_mean(name, options, prefixed=prefixed) for name in names)
