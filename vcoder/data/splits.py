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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

#: split -> share of the 100 hash buckets it owns, in order
SHARES = {"train": 80, "validation": 10, "test": 10}
SPLITS = tuple(SHARES)
#: the splits a measurement may be scored on: ``test`` (reported) or ``validation`` (pilots, sweeps, recipe choices)
SCORED_SPLITS = ("test", "validation")
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


def scored_split(split: str) -> str:
    """:func:`check_split` for the split a run is scored on (never ``train``).

    Raises:
        ValueError: an unknown split, or ``train``.

    Example:
        >>> scored_split("heldout")
        'test'
    """
    split = check_split(split)
    if split not in SCORED_SPLITS:
        raise ValueError(f"split {split!r} cannot be scored; choose among {', '.join(SCORED_SPLITS)}")
    return split


@dataclass(frozen=True)
class Drawn:
    """The rows a run trains on and is scored on, with the digests its results record (:meth:`record`)."""

    split: str
    train: list[Any]
    scored: list[Any]
    split_digest: str
    train_digest: str

    def record(self) -> dict[str, str]:
        """``{"split", "split_digest", "train_digest"}``: what a results file says it was measured on."""
        return {"split": self.split, "split_digest": self.split_digest, "train_digest": self.train_digest}


def draw_split(
    draw: Callable[[int, int, str], list[Any]],
    key: Callable[[Any], str],
    *,
    n_train: int,
    n_scored: int,
    train_seed: int,
    scored_seed: int,
    split: str,
) -> Drawn:
    """Draw a run's training rows (``train``) and scored rows (``split``), and digest their content keys.

    Args:
        draw: ``(n, seed, split) -> rows``, the loop's generator.
        key: a row's content key.
        n_train: training rows.
        n_scored: scored rows (0: none drawn).
        train_seed: the training rows' seed (a run's seed).
        scored_seed: the scored rows' seed (fixed across seeds where every seed is scored on the same rows).
        split: the scored split (``test`` or ``validation``; see :func:`scored_split`).

    Example:
        >>> rows = lambda n, seed, split: [f"{split}-{seed}-{i}" for i in range(n)]
        >>> drawn = draw_split(rows, str, n_train=2, n_scored=1, train_seed=3, scored_seed=0, split="test")
        >>> drawn.scored, drawn.split_digest == split_digest(["test-0-0"])
        (['test-0-0'], True)
    """
    split = scored_split(split)
    train = draw(n_train, train_seed, "train")
    scored = draw(n_scored, scored_seed, split) if n_scored else []
    return Drawn(split, train, scored, split_digest(map(key, scored)), split_digest(map(key, train)))
