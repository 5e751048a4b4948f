"""WebSight (HuggingFaceM4/WebSight, v0.1 and v0.2): screenshot/HTML pairs, from the hub or a local copy.

Columns: ``image`` (screenshot), ``text`` (HTML) and, in v0.2, ``llm_generated_idea`` (the page's one-line brief,
kept in rows as ``idea``). WebSight has no id column: a row's id is a digest of its HTML.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vcoder.data.common import DEFAULT_MAX_PIXELS, check_columns, in_split, make_filter, make_row
from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT
from vcoder.data.selection import pick, sample_indices, stream_select
from vcoder.data.sources import TableSource
from vcoder.data.synthetic import page_digest

logger = logging.getLogger(__name__)

HUB_ID = "HuggingFaceM4/WebSight"
VERSIONS = ("v0.1", "v0.2")
COLUMNS = ["image", "text"]


def load_websight(
    version: str = "v0.2",
    *,
    split: str = "train",
    streaming: bool = True,
    max_samples: int | None = None,
    seed: int = 0,
    holdout: float = 0.0,
    source: str | Path | None = None,
    max_pixels: int | None = DEFAULT_MAX_PIXELS,
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
    user_prompt: str = DEFAULT_USER_PROMPT,
    shuffle_buffer: int = 10_000,
    **filters: Any,
) -> Iterator[dict[str, Any]]:
    """Rows ``{"prompt", "image", "html", "id"}`` (+ ``"idea"`` for v0.2) from WebSight.

    Args:
        version: ``"v0.2"`` (Tailwind pages with ``llm_generated_idea``) or ``"v0.1"`` (plain CSS).
        split: ``"train"`` or ``"holdout"``: pages whose HTML hash falls below ``holdout`` are held out, so the two
            can never overlap, whatever the order or sharding of the source.
        streaming: hub only: stream instead of downloading the whole dataset (local sources are always lazy).
        max_samples: how many rows; a deterministic random sample for ``seed``, not the first N. ``None``: all.
        seed: sampling seed (the holdout does not depend on it).
        holdout: fraction of pages in [0, 1) reserved for the ``"holdout"`` split.
        source: a local parquet file, folder of parquet files or ``save_to_disk`` folder; ``None`` loads
            ``HuggingFaceM4/WebSight`` from the hub with ``datasets.load_dataset``.
        max_pixels: screenshots are downscaled to at most this many pixels, keeping aspect (``None``: unchanged).
        system_prompt, user_prompt: the prompt in every row (see :mod:`vcoder.data.prompts`).
        shuffle_buffer: hub streaming only: ``datasets``' shuffle buffer; a stream is sampled by a seeded shard +
            buffer shuffle and its first matching rows, since it cannot be read twice.
        **filters: bounds from :class:`vcoder.data.common.RowFilter` (``min_html_chars``, ``max_html_chars``,
            ``min_width``, ``max_width``, ``min_height``, ``max_height``).

    Returns:
        An iterator of rows (lazy: nothing is read until it is iterated).

    Example:
        >>> rows = load_websight(source="websight.parquet", max_samples=100, holdout=0.05)  # doctest: +SKIP
    """
    if version not in VERSIONS:
        raise ValueError(f"unknown WebSight version {version!r}; choose one of {', '.join(VERSIONS)}")
    flt = make_filter(filters)
    in_split("", split, holdout)  # validates split and holdout now, not at the first row
    select = {"text_col": "text", "image_col": "image", "flt": flt, "split": split, "holdout": holdout}
    row_kwargs = {"max_pixels": max_pixels, "system_prompt": system_prompt, "user_prompt": user_prompt}
    if source is not None:
        table = TableSource(source)
        check_columns(table.columns, COLUMNS, f"WebSight source {str(source)!r}")
        extra = ["llm_generated_idea"] if "llm_generated_idea" in table.columns else []
        first_cols = ["text", "image"] if flt.checks_size else ["text"]
        indices = sample_indices(table.iter_rows(first_cols), max_samples=max_samples, seed=seed, **select)
        rows = pick(table.iter_rows(COLUMNS + extra), indices)
    else:
        rows = _hub_rows(
            version,
            streaming=streaming,
            seed=seed,
            shuffle_buffer=shuffle_buffer,
            select=select,
            max_samples=max_samples,
        )
    return (_to_row(r, row_kwargs) for r in rows)


def _hub_rows(version, *, streaming, seed, shuffle_buffer, select, max_samples):
    from datasets import load_dataset

    logger.info("loading %s (%s) from the hub, streaming=%s", HUB_ID, version, streaming)
    ds = load_dataset(HUB_ID, name=version, split="train", streaming=streaming)
    if ds.column_names is not None:  # a stream may not know its columns before the first row
        check_columns(ds.column_names, COLUMNS, f"{HUB_ID} ({version})")
    if streaming:
        return stream_select(ds.shuffle(seed=seed, buffer_size=shuffle_buffer), max_samples=max_samples, **select)
    first_cols = ["text", "image"] if select["flt"].checks_size else ["text"]
    indices = sample_indices(ds.select_columns(first_cols), max_samples=max_samples, seed=seed, **select)
    return iter(ds.select(indices))


def _to_row(raw: dict[str, Any], row_kwargs: dict[str, Any]) -> dict[str, Any]:
    html = raw["text"]
    row = make_row(f"ws-{page_digest(html)}", html, raw["image"], **row_kwargs)
    if raw.get("llm_generated_idea") is not None:
        row["idea"] = raw["llm_generated_idea"]
    return row
