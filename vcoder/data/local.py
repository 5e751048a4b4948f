"""Your own pages: a folder of ``<id>.html`` (+ ``<id>.png``) or a parquet file/folder with html + image columns.

Pages without a screenshot are rendered with the rendering engine (hermetic Chromium), so a folder of HTML alone
is a dataset. Sampling, holdout and filters work as for WebSight (see :mod:`vcoder.data.selection`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vcoder.data.common import DEFAULT_MAX_PIXELS, check_columns, in_split, make_filter, make_row
from vcoder.data.prompts import DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT
from vcoder.data.selection import pick, sample_indices
from vcoder.data.sources import TableSource

logger = logging.getLogger(__name__)

HTML_COLUMNS = ("html", "text")  # "text" is WebSight's / Design2Code's name for the HTML


def load_local(
    source: str | Path,
    *,
    split: str = "train",
    holdout: float = 0.0,
    max_samples: int | None = None,
    seed: int = 0,
    max_pixels: int | None = DEFAULT_MAX_PIXELS,
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
    user_prompt: str = DEFAULT_USER_PROMPT,
    render_width: int = 1280,
    render_height: int = 720,
    **filters: Any,
) -> Iterator[dict[str, Any]]:
    """Rows ``{"prompt", "image", "html", "id"}`` from a local folder or parquet source.

    Args:
        source: a folder of ``<id>.html`` files (screenshots ``<id>.png`` beside them are used, missing ones are
            rendered at ``render_width`` x ``render_height``, full page), or a parquet file / folder /
            ``save_to_disk`` folder with an ``html`` (or ``text``) and an ``image`` column (``id`` optional).
        split, holdout, max_samples, seed, **filters: as in :func:`vcoder.data.websight.load_websight`.
        max_pixels: screenshots are downscaled to at most this many pixels, keeping aspect (``None``: unchanged).
        system_prompt, user_prompt: the prompt in every row.
        render_width, render_height: viewport for pages that have no screenshot.

    Returns:
        A lazy iterator of rows.
    """
    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(f"local dataset {str(path)!r} does not exist; pass a folder of .html files or parquet")
    flt = make_filter(filters)
    in_split("", split, holdout)  # validates split and holdout now, not at the first row
    select = {"flt": flt, "split": split, "holdout": holdout, "max_samples": max_samples, "seed": seed}
    kwargs = {"max_pixels": max_pixels, "system_prompt": system_prompt, "user_prompt": user_prompt}
    if path.is_dir() and any(path.glob("*.html")):
        rows = _folder_rows(path, select, render_width, render_height)
        return (make_row(r["id"], r["html"], r["image"], **kwargs) for r in rows)
    table = TableSource(path)
    columns = table.columns
    html_col = next((c for c in HTML_COLUMNS if c in columns), "html")
    check_columns(columns, [html_col, "image"], f"local dataset {str(path)!r}")
    first = [html_col, "image"] if flt.checks_size else [html_col]
    indices = sample_indices(table.iter_rows(first), text_col=html_col, image_col="image", **select)
    wanted = [html_col, "image"] + (["id"] if "id" in columns else [])
    rows = pick(table.iter_rows(wanted), indices)
    return (
        make_row(r.get("id", i) if r.get("id") is not None else i, r[html_col], r["image"], **kwargs)
        for i, r in zip(indices, rows)
    )


def _folder_rows(folder: Path, select: dict, width: int, height: int) -> Iterator[dict[str, Any]]:
    pages = sorted(folder.glob("*.html"))
    records = [
        {"id": p.stem, "html": p.read_text(encoding="utf-8", errors="replace"), "image": p.with_suffix(".png")}
        for p in pages
    ]
    flt = select["flt"]
    if flt.checks_size:
        _render_missing(records, width, height)
    indices = sample_indices(records, text_col="html", image_col="image", **select)
    chosen = [records[i] for i in indices]
    _render_missing(chosen, width, height)
    return iter(chosen)


def _render_missing(records: list[dict[str, Any]], width: int, height: int) -> None:
    """Replace missing screenshot paths by rendered PNG bytes (in place)."""
    todo = [r for r in records if isinstance(r["image"], Path) and not r["image"].exists()]
    if not todo:
        return
    from vcoder.rendering import BrowserPool

    logger.info("rendering %d page(s) that have no screenshot", len(todo))
    with BrowserPool() as pool:
        results = pool.render_many([r["html"] for r in todo], width=width, height=height, progress=len(todo) > 20)
    for record, rendered in zip(todo, results):
        if not rendered.ok:
            raise RuntimeError(f"page {record['id']!r} has no screenshot and failed to render: {rendered.error}")
        record["image"] = rendered.png
