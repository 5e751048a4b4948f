"""Fixtures: small WebSight / Design2Code-shaped parquet files and folders made from synthetic pages."""

from __future__ import annotations

import pytest

from tests.data.parquet import png_bytes, write_parquet


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
