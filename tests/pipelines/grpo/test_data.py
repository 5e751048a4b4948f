"""Training rows for the pipelines: synthetic pages screenshotted through the pool the caller gives."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_synthetic_rows_render_in_the_given_pool():
    from vcoder.data.synthetic import page_digest
    from vcoder.pipelines.grpo.data import synthetic_rows
    from vcoder.rendering import BrowserPool

    with BrowserPool(max_pages=2) as pool:
        pool.start()
        browser = pool.browser_pids()[0]
        before = pool.stats()["renders"]
        rows = synthetic_rows(3, seed=5, pool=pool, width=200, height=150)
        assert pool.stats()["renders"] - before == 3  # every screenshot went through this pool
        assert pool.browser_pids()[0] == browser  # and no other browser was started for them
        again = synthetic_rows(2, seed=5, pool=pool, width=200, height=150, exclude={page_digest(rows[0]["html"])})
    # full-page screenshots at the asked viewport: its width, at least its height
    assert all(r["image"].width == 200 and r["image"].height >= 150 for r in rows)
    assert page_digest(again[0]["html"]) != page_digest(rows[0]["html"])  # an excluded page is skipped
    assert again[0]["html"] == rows[1]["html"]
