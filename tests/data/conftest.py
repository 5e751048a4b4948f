"""Fixtures: small WebSight / Design2Code-shaped parquet files and folders made from synthetic pages."""

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


@pytest.fixture(name="png_bytes", scope="session")
def png_bytes_fixture():
    return png_bytes


@pytest.fixture(name="write_parquet", scope="session")
def write_parquet_fixture():
    return write_parquet


@pytest.fixture(scope="session")
def websight_parquet(tmp_path_factory):
    path = tmp_path_factory.mktemp("websight") / "websight.parquet"
    write_parquet(path, 60)
    return path
