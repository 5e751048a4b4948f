"""Write a synthetic dataset folder: ``<id>.html``, ``<id>.png`` (rendered) and ``metadata.jsonl``.

The folder is a local dataset: :func:`vcoder.data.local.load_local` reads it back as training rows.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from vcoder.data.synthetic import generate_page

logger = logging.getLogger(__name__)

# pages rendered per batch: keeps screenshots of one batch in memory only, and the progress bar moving
RENDER_BATCH = 32


def write_synthetic(
    out_dir: str | Path,
    n: int,
    *,
    seed: int = 0,
    difficulty: int = 0,
    width: int | None = None,
    height: int | None = None,
    screenshots: bool = True,
    progress: bool = False,
    pool=None,
) -> list[dict[str, Any]]:
    """Generate ``n`` pages with seeds ``seed .. seed+n-1`` and write them (and their screenshots) to ``out_dir``.

    Args:
        out_dir: destination folder (created).
        n: number of pages.
        seed: first page seed; page ``i`` uses ``seed + i`` and gets id ``d<difficulty>-<seed+i>``.
        difficulty: 0..3, see :func:`vcoder.data.synthetic.generate_page`.
        width, height: viewport of the screenshots (default 320x240 for difficulty 0, 1280x720 otherwise).
        screenshots: render ``<id>.png`` with the rendering engine (full page); False writes HTML only.
        progress: show a progress bar on stderr.
        pool: a started ``vcoder.rendering.BrowserPool`` to reuse (default: one is started and closed here).

    Returns:
        The metadata records written to ``metadata.jsonl`` (one per page, ``png`` None without screenshots,
        ``error`` set when a page failed to render).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pages = [generate_page(seed + i, difficulty=difficulty, width=width, height=height) for i in range(n)]
    records = []
    for page in pages:
        (out / f"{page.id}.html").write_text(page.html, encoding="utf-8")
        records.append({"id": page.id, "html": f"{page.id}.html", "png": None, "error": None, **page.meta})
    if screenshots and pages:
        _render(out, pages, records, progress, pool)
    with open(out / "metadata.jsonl", "w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record) + "\n")
    failed = sum(r["error"] is not None for r in records)
    if failed:
        logger.warning("%d of %d synthetic pages failed to render; see metadata.jsonl", failed, len(records))
    return records


def _render(out: Path, pages, records, progress: bool, pool) -> None:
    from tqdm.auto import tqdm

    from vcoder.rendering import pool_or_private

    bar = tqdm(total=len(pages), desc="render", unit="page", disable=not progress)
    with pool_or_private(pool) as renderer, bar:
        for start in range(0, len(pages), RENDER_BATCH):
            batch = pages[start : start + RENDER_BATCH]
            # one viewport per call: pages of one dataset share it unless the caller mixes sizes
            results = renderer.render_many(
                [p.html for p in batch], width=batch[0].meta["width"], height=batch[0].meta["height"]
            )
            for page, record, rendered in zip(batch, records[start : start + RENDER_BATCH], results):
                if rendered.ok:
                    (out / f"{page.id}.png").write_bytes(rendered.png)
                    record["png"] = f"{page.id}.png"
                else:
                    record["error"] = rendered.error
            bar.update(len(batch))
