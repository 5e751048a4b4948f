"""Choosing rows: filters, the hash holdout split and a deterministic random sample, in one or two passes.

In-memory and local sources use an exact sample (the ``max_samples`` rows with the smallest seeded hash of their
HTML, independent of order): a first pass reads only the HTML (and image headers when a size filter is set) and
keeps row indices, a second pass reads the chosen rows whole. Streams cannot be read twice, so they are
shuffled by the caller (``datasets``' seeded shard + buffer shuffle) and the first matching rows are taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from vcoder.data.common import RowFilter, bottom_k, in_split
from vcoder.images import image_size


def keeps(row: dict[str, Any], *, text_col: str, image_col: str, flt: RowFilter, split: str, holdout: float) -> bool:
    """Whether one row passes the HTML filter, the split and (when set) the image size filter."""
    html = row[text_col]
    if not isinstance(html, str) or not flt.keeps_html(html) or not in_split(html, split, holdout):
        return False
    if flt.checks_size:
        try:
            width, height = image_size(row[image_col])
        except Exception:  # an undecodable image cannot be trained on; skip it like a filtered row
            return False
        return flt.keeps_size(width, height)
    return True


def sample_indices(
    rows: Iterable[dict[str, Any]],
    *,
    text_col: str,
    image_col: str,
    flt: RowFilter,
    split: str,
    holdout: float,
    max_samples: int | None,
    seed: int,
) -> list[int]:
    """Indices of the kept rows: a seeded uniform sample of ``max_samples`` (in random order), or all in order."""
    candidates = (
        (row[text_col], i)
        for i, row in enumerate(rows)
        if keeps(row, text_col=text_col, image_col=image_col, flt=flt, split=split, holdout=holdout)
    )
    return bottom_k(candidates, max_samples, seed)


def pick(rows: Iterable[dict[str, Any]], indices: list[int]) -> Iterator[dict[str, Any]]:
    """Yield the rows at ``indices`` (in the order of ``indices``) from one sequential pass over ``rows``."""
    wanted = set(indices)
    found: dict[int, dict[str, Any]] = {}
    for i, row in enumerate(rows):
        if i in wanted:
            found[i] = row
            if len(found) == len(wanted):
                break
    for i in indices:
        yield found[i]


def stream_select(
    rows: Iterable[dict[str, Any]],
    *,
    text_col: str,
    image_col: str,
    flt: RowFilter,
    split: str,
    holdout: float,
    max_samples: int | None,
) -> Iterator[dict[str, Any]]:
    """The first ``max_samples`` rows of an (already shuffled) stream that pass filters and split."""
    taken = 0
    for row in rows:
        if max_samples is not None and taken >= max_samples:
            return
        if keeps(row, text_col=text_col, image_col=image_col, flt=flt, split=split, holdout=holdout):
            taken += 1
            yield row
