"""What every loader shares: row filters, stable hashing for sampling and holdout, image decoding and resizing.

Sampling and holdout are functions of the page's HTML, never of its position, so they are the same in streaming and
in-memory mode, the same after a dataset is re-sharded, and a holdout page can never appear in training.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT, make_conversation
from vcoder.images import resize_to_max_pixels

# Qwen2-VL's processor default (1280 merged 28-px patches): screenshots are never bigger than the model sees
DEFAULT_MAX_PIXELS = 1280 * 28 * 28
SPLITS = ("train", "holdout")


@dataclass(frozen=True)
class RowFilter:
    """Bounds a row must meet to be kept (``None`` = unbounded). Sizes are the source image's, in pixels."""

    min_html_chars: int = 0
    max_html_chars: int | None = None
    min_width: int | None = None
    max_width: int | None = None
    min_height: int | None = None
    max_height: int | None = None

    def __post_init__(self):
        for lo, hi in (("min_html_chars", "max_html_chars"), ("min_width", "max_width"), ("min_height", "max_height")):
            a, b = getattr(self, lo), getattr(self, hi)
            if a is not None and b is not None and a > b:
                raise ValueError(f"{lo}={a} is larger than {hi}={b}; swap them or widen the range")

    def keeps_html(self, html: str) -> bool:
        n = len(html)
        return n >= self.min_html_chars and (self.max_html_chars is None or n <= self.max_html_chars)

    @property
    def checks_size(self) -> bool:
        return any(v is not None for v in (self.min_width, self.max_width, self.min_height, self.max_height))

    def keeps_size(self, width: int, height: int) -> bool:
        return (
            (self.min_width is None or width >= self.min_width)
            and (self.max_width is None or width <= self.max_width)
            and (self.min_height is None or height >= self.min_height)
            and (self.max_height is None or height <= self.max_height)
        )


def make_filter(filters: dict[str, Any]) -> RowFilter:
    """Build a :class:`RowFilter` from keyword arguments, naming the valid ones on a typo."""
    try:
        return RowFilter(**filters)
    except TypeError:
        valid = ", ".join(RowFilter.__dataclass_fields__)
        raise TypeError(f"unknown filter(s) {sorted(filters)}; valid filters are: {valid}") from None


def unit_hash(text: str, salt: str = "") -> float:
    """A stable hash of ``text`` mapped to [0, 1): identical on every machine and Python process."""
    digest = hashlib.sha1(f"{salt}\x00{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def in_split(html: str, split: str, holdout: float) -> bool:
    """Whether a page belongs to ``split`` when a ``holdout`` fraction is reserved by hash of its HTML.

    Args:
        html: the page's reference HTML (identical pages always land on the same side).
        split: ``"train"`` or ``"holdout"``.
        holdout: fraction in [0, 1) reserved for ``"holdout"``.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    if not 0.0 <= holdout < 1.0:
        raise ValueError(f"holdout must be a fraction in [0, 1), got {holdout!r}")
    reserved = unit_hash(html, "vcoder-holdout") < holdout
    return reserved if split == "holdout" else not reserved


def bottom_k(items: Iterable[tuple[str, Any]], k: int | None, seed: int) -> list[Any]:
    """A deterministic uniform random sample of ``k`` items keyed by text (all items, in stream order, if k is None).

    Keeps the ``k`` items whose seeded hash of the key is smallest: a uniform sample without replacement that does
    not depend on the order or sharding of the input. The result is in ascending hash order (a random order).
    """
    if k is None:
        return [item for _, item in items]
    if k < 0:
        raise ValueError(f"max_samples must be >= 0 or None, got {k}")
    heap: list[tuple[float, int, Any]] = []  # max-heap on hash through negation; the counter breaks ties
    for i, (key, item) in enumerate(items):
        h = unit_hash(key, f"vcoder-sample:{seed}")
        if len(heap) < k:
            heapq.heappush(heap, (-h, -i, item))
        elif -h > heap[0][0]:
            heapq.heapreplace(heap, (-h, -i, item))
    return [item for _, _, item in sorted(heap, key=lambda e: (-e[0], -e[1]))]


def check_columns(found: Iterable[str], expected: Iterable[str], where: str) -> None:
    """Raise a ValueError naming the columns found and the ones expected when some are missing."""
    found, expected = list(found), list(expected)
    missing = [c for c in expected if c not in found]
    if missing:
        raise ValueError(
            f"{where} has columns {found} but needs {expected} (missing: {missing}); "
            "rename the columns or pick the matching loader"
        )


def make_row(
    row_id: str,
    html: str,
    image,
    *,
    max_pixels: int | None,
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
    user_prompt: str = DEFAULT_USER_PROMPT,
) -> dict[str, Any]:
    """The row every loader yields: ``{"prompt", "image", "html", "id"}`` (TRL's conversational VLM format)."""
    return {
        "prompt": make_conversation(None, system_prompt=system_prompt, user_prompt=user_prompt),
        "image": resize_to_max_pixels(image, max_pixels),
        "html": html,
        "id": str(row_id),
    }


def to_dataset(rows: Iterable[dict[str, Any]]):
    """Loader rows as a ``datasets.Dataset`` for TRL trainers (``image`` as an Image feature), None for no rows.

    The conversational ``prompt`` gets an explicit schema: inferred from a few rows, an image part's missing
    ``text`` would make the column's type depend on which rows came first.
    """
    from datasets import Dataset, Features, Image, Value

    rows = list(rows)
    if not rows:
        return None
    known = {
        "prompt": [{"role": Value("string"), "content": [{"type": Value("string"), "text": Value("string")}]}],
        "image": Image(),
        "html": Value("string"),
        "id": Value("string"),
    }
    dataset = Dataset.from_list(rows)
    features = Features({name: known.get(name, feature) for name, feature in dataset.features.items()})
    return dataset.cast(features) if features != dataset.features else dataset


def limit(rows: Iterator[Any], n: int | None) -> Iterator[Any]:
    """The first ``n`` items of an iterator (all when ``n`` is None)."""
    for i, row in enumerate(rows):
        if n is not None and i >= n:
            return
        yield row
