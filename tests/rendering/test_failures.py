"""Every way a render can fail comes back as a typed ``Rendered`` failure, never as an exception."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import psutil
import pytest

from vcoder.rendering import AsyncBrowserPool, BrowserPool, BrowserUnavailable, FailureKind
from vcoder.rendering.types import POOL_CLOSED

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("html", [None, 123, ["<p>x</p>"], "", b"  \n", "\t"])
def test_no_html_is_an_empty_failure(pool, html):
    r = pool.render(html)
    assert (r.ok, r.kind, r.infrastructure) == (False, FailureKind.EMPTY, False)
    assert r.error.startswith("empty:") and r.png is None and r.layout is None


def test_render_many_returns_one_result_per_input_whatever_the_input(pool):
    rs = pool.render_many([None, "<p>fine</p>", {"not": "html"}, "<p>fine</p>", b"<p>bytes</p>"])
    assert [r.kind for r in rs] == [FailureKind.EMPTY, None, FailureKind.EMPTY, None, None]
    assert [b.text for b in rs[1].layout.text_blocks] == ["fine"] and rs[3].cached
    assert [b.text for b in rs[4].layout.text_blocks] == ["bytes"]


def test_too_large_is_typed(pool):
    r = pool.render("<p>" + "x" * 8_000_001 + "</p>")
    assert (r.ok, r.kind) == (False, FailureKind.TOO_LARGE) and r.error.startswith("too_large:")


def test_a_page_that_never_finishes_is_a_timeout(pool):
    r = pool.render("<p>x</p><script>while (true) {}</script>", timeout_ms=2000)
    assert (r.ok, r.kind, r.infrastructure) == (False, FailureKind.TIMEOUT, False) and r.error.startswith("timeout:")


@pytest.mark.slow
def test_a_renderer_process_killed_under_a_render_is_a_page_crash(pool):
    pool.start()

    def kill_renderers():  # every page's renderer process (the idle slot's too), not the browser
        time.sleep(1.0)
        for pid in pool.browser_pids()[1:]:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc = psutil.Process(pid)
                if "--type=renderer" in proc.cmdline():
                    proc.kill()

    relaunches = pool.stats()["relaunches"]
    killer = threading.Thread(target=kill_renderers)
    killer.start()
    r = pool.render("<p>x</p><script>while (true) {}</script>", timeout_ms=20000)
    killer.join()
    assert (r.ok, r.kind, r.infrastructure) == (False, FailureKind.PAGE_CRASH, False), r.error
    assert pool.stats()["relaunches"] == relaunches  # the browser itself lived on
    # both slots work again: the one whose page crashed while idle is replaced before it renders
    after = pool.render_many(["<p>one</p>", "<p>two</p>", "<p>three</p>"])
    assert [x.ok and x.layout.text_blocks[0].text for x in after] == ["one", "two", "three"]


@pytest.fixture
def no_chromium(tmp_path):
    """An executable that exits at once: Chromium "would not start"."""
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    return str(fake)


def test_a_chromium_that_cannot_start_gives_browser_failures(no_chromium):
    with BrowserPool(executable_path=no_chromium) as dead:
        r = dead.render("<p>x</p>")
        assert (r.ok, r.kind, r.infrastructure) == (False, FailureKind.BROWSER, True)
        assert r.error.startswith("browser: Chromium would not start")
        rs = dead.render_many(["<p>a</p>", "<p>b</p>", None])
        assert [x.kind for x in rs] == [FailureKind.BROWSER, FailureKind.BROWSER, FailureKind.EMPTY]
        with pytest.raises(BrowserUnavailable, match="would not start"):
            dead.start()


def test_a_missing_executable_is_refused_when_the_pool_is_built(tmp_path):
    with pytest.raises(FileNotFoundError, match="executable_path"):
        BrowserPool(executable_path=tmp_path / "no-such-chromium")


def test_a_closed_pool_gives_browser_failures():
    p = BrowserPool(max_pages=1)
    assert p.render("<p>open</p>").ok
    p.close()
    r = p.render("<p>closed</p>")
    assert (r.kind, r.error) == (FailureKind.BROWSER, f"browser: {POOL_CLOSED}")
    assert [x.kind for x in p.render_many(["<p>a</p>", "<p>b</p>"])] == [FailureKind.BROWSER] * 2
    with pytest.raises(BrowserUnavailable):
        p.start()


def test_closing_a_pool_mid_batch_ends_every_render_with_a_result():
    apool = AsyncBrowserPool(max_pages=1)

    async def batch_then_close():
        pages = [f"<p>page {i}</p>" for i in range(8)]
        batch = asyncio.ensure_future(apool.render_many(pages))
        while apool.stats()["renders"] < 2:
            await asyncio.sleep(0.02)
        await apool.close()
        results = await asyncio.wait_for(batch, 30)
        after = await apool.render("<p>after</p>")
        with pytest.raises(BrowserUnavailable):
            await apool.run_on_loop(asyncio.sleep, 0)
        return results, after

    results, after = asyncio.run(batch_then_close())
    assert len(results) == 8 and results[0].ok
    assert all(r.ok or r.kind is FailureKind.BROWSER for r in results)
    assert any(r.kind is FailureKind.BROWSER for r in results)
    assert after.kind is FailureKind.BROWSER


@pytest.mark.slow
def test_chromium_killed_twice_in_one_render_is_a_browser_failure_and_the_pool_recovers(pool):
    pool.start()
    first = pool.browser_pids()[0]
    relaunches = pool.stats()["relaunches"]
    kills: list[int] = []

    def browser() -> int | None:
        pids = pool.browser_pids()  # empty while Chromium is being relaunched
        return pids[0] if pids else None

    def kill_twice():
        time.sleep(1.0)
        for attempt in range(2):
            if attempt:  # wait for the relaunched browser, and for the retry to be under way in it
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and browser() in (None, first):
                    time.sleep(0.05)
                time.sleep(1.5)
            pids = pool.browser_pids()
            kills.append(pids[0] if pids else None)
            for pid in pids:
                with contextlib.suppress(psutil.NoSuchProcess):
                    psutil.Process(pid).kill()

    killer = threading.Thread(target=kill_twice)
    killer.start()
    r = pool.render("<p>never done</p><script>while (true) {}</script>", timeout_ms=30000)
    killer.join()
    assert None not in kills and len(set(kills)) == 2, kills  # two different browsers were killed
    assert (r.ok, r.kind, r.infrastructure) == (False, FailureKind.BROWSER, True), r.error
    assert r.error.startswith("browser: Chromium died twice")
    assert pool.stats()["relaunches"] == relaunches + 2
    after = pool.render("<p>fine again</p>")
    assert after.ok and [b.text for b in after.layout.text_blocks] == ["fine again"]
