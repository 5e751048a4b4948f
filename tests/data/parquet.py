"""Small WebSight / Design2Code-shaped parquet files made from synthetic pages (for the data and CLI tests)."""

from __future__ import annotations

import io

import pytest

from vcoder.data.synthetic import generate_page


def png_bytes(width: int, height: int, color=(200, 30, 30)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, format="PNG")
    return buf.getvalue()


def write_parquet(path, n: int, *, html_col: str = "text", idea: bool = True, difficulty: int = 1, start: int = 0):
    """n rows with WebSight's columns; image sizes vary with the seed so size filters have something to do."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pages = [generate_page(start + i, difficulty=difficulty) for i in range(n)]
    images = [{"bytes": png_bytes(64 + 8 * (i % 5), 48 + 4 * (i % 3)), "path": None} for i in range(n)]
    columns = {"image": images, html_col: [p.html for p in pages]}
    if idea:
        columns["llm_generated_idea"] = [f"idea {i}" for i in range(n)]
    pq.write_table(pa.table(columns), path)
    return pages
