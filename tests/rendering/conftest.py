"""One shared Chromium pool for all rendering tests (launching is the expensive part)."""

from __future__ import annotations

import pytest

from vcoder.rendering import BrowserPool


@pytest.fixture(scope="session")
def pool():
    with BrowserPool(max_pages=2, timeout_ms=10000) as p:
        yield p
