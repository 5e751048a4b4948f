"""The render path's fast parts keep the guarantees: the CDP screenshot, the browser's flags and binary, a
screenshot Chromium cannot give, and the tab state (window.name, history) one render could leave for the next."""

from __future__ import annotations

import asyncio

import numpy as np
import psutil
import pytest

from vcoder.images import decode_png
from vcoder.rendering import BrowserPool, FailureKind
from vcoder.rendering.browser import (
    HEADLESS_SHELL,
    OUR_DISABLED_FEATURES,
    PLAYWRIGHT_DISABLED_FEATURES,
    find_executable,
    launch_args,
    lost_features,
)
from vcoder.rendering.capture import NO_FRAME, capture

pytestmark = pytest.mark.browser

TALL = "<body style='margin:0'>" + "".join(
    f"<div style='height:300px;background:hsl({i * 37 % 360},60%,50%)'><h2 style='margin:0'>Block {i}</h2></div>"
    for i in range(12)
)


def test_one_disable_features_switch_keeps_every_list():
    args, _ = launch_args(("--disable-features=Foo,Bar", "--lang=en-US"), disabled=("Baz",))
    lists = [a for a in args if a.startswith("--disable-features=")]
    assert len(lists) == 1 and args[-1] == lists[0]  # the one Chromium keeps is ours, last
    names = lists[0].split("=", 1)[1].split(",")
    assert names == [*PLAYWRIGHT_DISABLED_FEATURES, *OUR_DISABLED_FEATURES, "Baz", "Foo", "Bar"]
    assert "--lang=en-US" in args
    assert lost_features(["--disable-features=A,B,C", "--x", "--disable-features=B"]) == ("A", "C")
    assert lost_features(["--disable-features=A", "--disable-features=A,B"]) == ()


def test_the_launched_browser_keeps_playwrights_features_off_and_ours(pool):
    assert pool.render("<p>started</p>").ok
    argv = psutil.Process(pool.async_pool.browser_pids()[0]).cmdline()
    assert lost_features(argv) == ()  # Playwright's own --disable-features comes first; ours repeats it
    last = [a for a in argv if a.startswith("--disable-features=")][-1].split("=", 1)[1].split(",")
    assert {"PaintHolding", "ThirdPartyStoragePartitioning"} <= set(last)


def test_the_headless_shell_is_preferred_when_installed(monkeypatch):
    monkeypatch.delenv("VCODER_CHROMIUM", raising=False)
    try:
        open(HEADLESS_SHELL).close()
    except OSError:
        pytest.skip("chromium-headless-shell is not installed (apt-get install chromium-headless-shell)")
    assert find_executable(None, None) == HEADLESS_SHELL
    assert find_executable("/usr/bin/chromium", None) == "/usr/bin/chromium"  # an explicit path wins


def test_cdp_screenshot_has_the_pixels_of_playwrights_full_page_screenshot(pool):
    async def both():
        apool = pool.async_pool
        async with apool.open_page(TALL, width=800, height=600) as page:
            shot = await apool.snapshot(page)
            reference = await page.screenshot(full_page=True)
        return shot, reference

    shot, reference = asyncio.run(pool.async_pool.run_on_loop(both))
    assert shot.ok, shot.error
    assert (shot.width, shot.height) == (800, 3600)
    theirs = decode_png(reference)
    assert theirs.shape == shot.image.shape and np.array_equal(theirs, shot.image)
    assert tuple(shot.image[3600 - 5, 400]) != tuple(shot.image[5, 400])  # the last block is there, not the first


CLOCK_TEXT = "<body style='margin:0;font:16px monospace'><p>now 1704067200000</p><p>2024-01-01T00:00:00.000Z</p>"


def test_a_tall_page_leaves_nothing_in_the_next_renders_pixels():
    # chromium-headless-shell with RenderDocument off kept a full-page screenshot's raster state for the tab's next
    # document: the same text came out a subpixel lower (6631 pixels differed)
    with BrowserPool(max_pages=1, timeout_ms=10000) as one:
        first = one.render(CLOCK_TEXT)
        tall = one.render(
            "<body style='margin:0'><div style='height:3000px'>tall</div><script>scrollTo(0, 500)</script>"
        )
        assert tall.height == 3000
        again = one.render(CLOCK_TEXT)
    assert first.ok and again.ok and np.array_equal(first.image, again.image)


class NoFrameSession:
    """The slot's real CDP session, except that the first ``fail`` screenshots get Chromium's no-frame answer."""

    def __init__(self, real, fail: int):
        self.real, self.fail = real, fail

    async def send(self, method, params=None):
        if method == "Page.captureScreenshot" and self.fail > 0:
            self.fail -= 1
            raise RuntimeError(f"Protocol error (Page.captureScreenshot): {NO_FRAME}")
        return await self.real.send(method, params)


@pytest.mark.parametrize("fail", [1, 2])
def test_a_screenshot_chromium_cannot_give_is_retried_once_then_infrastructure(pool, fail):
    async def shoot():
        apool = pool.async_pool
        async with apool.open_page("<h1>Hello</h1>", width=640, height=360) as page:
            real = await page.context.new_cdp_session(page)
            return await capture(
                page, full_page=True, max_height=8192, timeout_ms=5000, console=[], cdp=NoFrameSession(real, fail)
            )

    r = asyncio.run(pool.async_pool.run_on_loop(shoot))
    if fail == 1:  # asked again after the next frame: fine
        assert r.ok and [b.text for b in r.layout.text_blocks] == ["Hello"], r.error
    else:  # not the page's fault: a reward gives "could not judge", not 0.0
        assert (r.ok, r.kind, r.infrastructure) == (False, FailureKind.BROWSER, True)
        assert NO_FRAME in r.error


READER = (
    "<p id=r></p><script>document.getElementById('r').textContent = "
    "[window.name || 'none', history.length, location.hash || 'none', document.cookie || 'none'].join(' ');</script>"
)


def test_window_name_history_and_cookies_do_not_carry_to_the_next_render(pool):
    def state() -> str:
        r = pool.render(READER)
        assert r.ok, r.error
        return " ".join(b.text for b in r.layout.text_blocks)

    before = state()
    assert before == "none 2 none none"  # a tab's first document after about:blank
    writers = [
        f"<p>writer {i}</p><script>window.name = 'leaked {i}'; history.pushState({{}}, '', '#pushed');"
        f"history.pushState({{}}, '', '#again'); document.cookie = 'c={i}; domain=vcoder.invalid; path=/';</script>"
        for i in range(2)
    ]
    assert all(r.ok for r in pool.render_many(writers))  # both slots written
    assert [state(), state()] == [before, before]


def test_a_live_page_keeps_window_name_across_its_own_navigation(pool):
    site = {
        "index.html": "<a id=go href='next.html'>next</a><script>window.name = 'kept';</script>",
        "next.html": "<p id=r></p><script>document.getElementById('r').textContent = window.name || 'none';</script>",
    }

    async def follow():
        async with pool.async_pool.open_page(files=site) as page:
            async with page.expect_navigation():
                await page.click("#go")
            return await page.inner_text("#r")

    assert asyncio.run(pool.async_pool.run_on_loop(follow)) == "kept"
