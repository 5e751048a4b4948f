"""Train / validation / test, decided by content: what a policy could memorise, never how a task is worded.

Every loop names, for each of its tasks, a *content key*: a canonical string of what a policy that memorised the task
could reuse on another one (a site task's checked behaviour, a synthetic page's text and layout). The key alone
decides the split (:func:`content_split`), so two tasks with the same content always share a split, however their
wording, title or colours differ. Pilots, sweeps and recipe choices read ``validation``; ``test`` is scored once per
recipe change. A results file names its split and the split's digest (:func:`split_digest`: a hash of the sorted
content keys it was measured on), so two results are comparable only when their digests agree.

The old name of the test split, ``heldout``, is still accepted, with a warning (:func:`check_split`).

Example:
    >>> content_split("counter:[\\"Visitors\\", 3, 1]", salt="site") in SPLITS
    True
    >>> split_digest(["b", "a"]) == split_digest(["a", "b", "a"])
    True
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable

logger = logging.getLogger(__name__)

#: split -> share of the 100 hash buckets it owns, in order
SHARES = {"train": 80, "validation": 10, "test": 10}
SPLITS = tuple(SHARES)
#: old split names -> their name now (accepted with a warning)
OLD_NAMES = {"heldout": "test"}


def check_split(split: str, *, where: str = "split") -> str:
    """The split's name, with an old name (``heldout``) turned into its new one (``test``) and a warning.

    Raises:
        ValueError: an unknown split (the known ones are named).

    Example:
        >>> check_split("validation")
        'validation'
    """
    if split in OLD_NAMES:
        logger.warning(
            "%s %r is now called %r; the old name still works, with this warning", where, split, OLD_NAMES[split]
        )
        return OLD_NAMES[split]
    if split not in SHARES:
        raise ValueError(f"unknown {where} {split!r}; choose among {', '.join(SPLITS)}")
    return split


def content_split(key: str, *, salt: str) -> str:
    """The split a content key belongs to: a stable hash of ``salt`` (the loop) and the key, in buckets.

    Args:
        key: the content key (identical content, identical key).
        salt: the loop's name, so the loops' splits are drawn independently.

    Returns:
        One of :data:`SPLITS`.
    """
    bucket = int(hashlib.sha256(f"{salt}\n{key}".encode()).hexdigest()[:8], 16) % 100
    for name, share in SHARES.items():
        if bucket < share:
            return name
        bucket -= share
    raise AssertionError("SHARES must cover 100 buckets")


def split_digest(keys: Iterable[str]) -> str:
    """A short digest of the distinct content keys a measurement used (order and repeats do not matter)."""
    return hashlib.sha256("\n".join(sorted(set(keys))).encode()).hexdigest()[:16]
