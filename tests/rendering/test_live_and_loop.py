"""The pool's home loop (run_on_loop, loop binding) and live pages (open_page, snapshot, discard_page)."""

from __future__ import annotations

import asyncio

import pytest

from vcoder.rendering import AsyncBrowserPool, BrowserUnavailable

pytestmark = pytest.mark.browser


def test_run_on_loop_runs_on_the_home_loop_from_a_foreign_loop(pool):
    async def probe(x, *, times):
        return asyncio.get_running_loop(), x * times

    loop, value = asyncio.run(pool.async_pool.run_on_loop(probe, 21, times=2))
    assert loop is pool.async_pool.loop and value == 42


def test_a_bound_loop_that_is_not_running_is_refused():
    apool = AsyncBrowserPool(loop=asyncio.new_event_loop())

    async def nothing():
        return None

    with pytest.raises(BrowserUnavailable, match="not running"):
        asyncio.run(apool.run_on_loop(nothing))


def test_an_unbound_pool_follows_successive_asyncio_runs():
    apool = AsyncBrowserPool(max_pages=1)

    async def one(text):
        r = await apool.render(f"<p>{text}</p>")
        return apool.loop is asyncio.get_running_loop(), [b.text for b in r.layout.text_blocks]

    try:
        assert asyncio.run(one("first")) == (True, ["first"])
        assert asyncio.run(one("second")) == (True, ["second"])  # the first loop is closed: adopt the new one
    finally:
        asyncio.run(apool.close())


def test_open_page_snapshot_and_discard_page(pool):
    apool = pool.async_pool
    html = "<button onclick=\"document.getElementById('out').textContent = 'clicked'\">Go</button><p id=\"out\">-</p>"

    async def episode():
        async with apool.open_page(html, width=800, height=600) as page:
            await page.click("button")
            shot = await apool.snapshot(page)
            before = apool.stats()["page_replacements"]
            await apool.discard_page(page)
            closed = page.is_closed()
        return shot, closed, before

    shot, closed, before = asyncio.run(apool.run_on_loop(episode))
    assert shot.ok and [b.text for b in shot.layout.text_blocks] == ["Go", "clicked"]
    assert (shot.width, shot.height) == (800, 600)
    assert closed and pool.stats()["page_replacements"] == before + 1  # the slot was replaced, not handed on
    assert pool.render("<p>after</p>").ok


def test_open_page_must_run_on_the_home_loop(pool):
    async def foreign():
        async with pool.async_pool.open_page("<p>x</p>"):
            pass

    with pytest.raises(RuntimeError, match="own event loop"):
        asyncio.run(foreign())
