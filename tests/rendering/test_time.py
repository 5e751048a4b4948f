"""Deterministic time: Date, performance.now and timers run on a virtual clock (init.js), so the same HTML gives the
same pixels; pages that wait on time still reach their final state; vcoder's own waits stay on real time."""

from __future__ import annotations

import asyncio

import pytest

from vcoder.rendering import BrowserPool

pytestmark = pytest.mark.browser

CLOCK = """<body style="margin:0;font:16px monospace"><p id="a"></p><p id="b"></p><p id="c"></p><p id="d"></p><script>
a.textContent = "now " + Date.now();
b.textContent = new Date().toISOString();
c.textContent = "perf " + performance.now();
setTimeout(() => (d.textContent = "later " + new Date().toISOString() + " " + performance.now()), 1234);
</script></body>"""
# the clock starts at 2024-01-01T00:00:00Z and moves 0.1 ms per read; a timer jumps it to the timer's due time
CLOCK_TEXT = ["now 1704067200000", "2024-01-01T00:00:00.000Z", "perf 0.3", "later 2024-01-01T00:00:01.234Z 1234.5"]

WAITING = {
    "timeout_chain": (
        "<p id=o>start</p><script>let n = 0; const step = () => { o.textContent = 'step ' + ++n;"
        " if (n < 5) setTimeout(step, 200); }; setTimeout(step, 200);</script>",
        ["step 5"],
    ),
    "interval": (
        "<p id=o>count 0</p><script>let n = 0; const h = setInterval(() => { o.textContent = 'count ' + ++n;"
        " if (n === 10) clearInterval(h); }, 100);</script>",
        ["count 10"],
    ),
    "animation_frames": (
        "<p id=o>frames 0</p><script>let n = 0; const t0 = performance.now(); const f = (ts) => { n++;"
        " if (ts - t0 < 1000) requestAnimationFrame(f); else o.textContent = 'frames ' + n; };"
        " requestAnimationFrame(f);</script>",
        ["frames 61"],  # 60 frames a second, every 16.667 ms of virtual time
    ),
    "loading_then_loaded": (
        "<p id=o>loading…</p><script>setTimeout(() => o.textContent = 'Loaded', 500)</script>",
        ["Loaded"],
    ),
    "fetch_after_timer": (
        "<p id=o>waiting</p><script>setTimeout(() => fetch('/missing.json').catch(() => null)"
        ".then(() => setTimeout(() => o.textContent = 'fetched', 300)), 200)</script>",
        ["fetched"],
    ),
    "busy_wait_on_date": (
        "<p id=o>busy</p><script>const t = Date.now(); let k = 0; while (Date.now() - t < 150) k++;"
        " o.textContent = 'spun ' + k;</script>",
        ["spun 1498"],
    ),
    # a ticking clock never ends: fast-forward stops at 2 s of virtual time, then a rendered page is frozen
    "ticking_forever": (
        "<p id=o>tick 0</p><script>let n = 0; setInterval(() => o.textContent = 'tick ' + ++n + ' '"
        " + new Date().toISOString(), 1000);</script>",
        ["tick 2 2024-01-01T00:00:02.000Z"],
    ),
    "carousel_every_3s": (
        "<p id=o>slide 1</p><script>let n = 1; setInterval(() => o.textContent = 'slide ' + ++n, 3000);</script>",
        ["slide 1"],
    ),
    "popup_after_a_minute": (
        "<p id=o>early</p><script>setTimeout(() => o.textContent = 'late', 60000)</script>",
        ["early"],
    ),
}


def texts(r) -> list[str]:
    assert r.ok, r.error
    return [b.text for b in r.layout.text_blocks]


def test_printed_time_is_the_same_in_every_render_fresh_or_reused_slots_and_across_pools(pool):
    reused = [pool.render(CLOCK) for _ in range(3)]
    with BrowserPool(max_pages=1, recycle_after=1, timeout_ms=10000) as fresh_pool:  # a new context every render
        fresh = [fresh_pool.render(CLOCK) for _ in range(2)]
    first = reused[0]
    assert texts(first) == CLOCK_TEXT
    for r in reused[1:] + fresh:
        assert r.png == first.png and texts(r) == CLOCK_TEXT


@pytest.mark.parametrize("name", list(WAITING))
def test_pages_that_wait_on_time_render_their_final_state_the_same_every_time(pool, name):
    html, expected = WAITING[name]
    first, second = pool.render(html), pool.render(html)
    assert texts(first) == expected and texts(second) == expected
    assert first.png == second.png


def test_fast_forward_is_bounded_and_vcoder_waits_on_its_own_real_clock(pool):
    # a page that ticks every 10 ms forever: 2 s of virtual time fast-forwarded (200 ticks), then frozen -- in a
    # render whose deadline (1.5 s) is shorter than those 2 s
    html = "<p id=o>0</p><script>let n = 0; setInterval(() => o.textContent = String(++n), 10);</script>"
    assert texts(pool.render(html, timeout_ms=1500)) == ["200"]
    # three thousand timers due at once: fast-forward stops after 2000 callbacks
    many = "<p id=o>0</p><script>let n = 0; for (let i = 0; i < 3000; i++) setTimeout(() => o.textContent = ++n);</script>"
    assert texts(pool.render(many)) == ["2000"]
    # a document stream left open never fires its load event, and this page breaks its own setTimeout: the capture
    # still waits for the load (half the deadline) on the real timer init.js kept, then captures the page as it is
    unclosed = (
        "<script>window.setTimeout = () => 0;"
        " addEventListener('load', () => { document.open(); document.write('<p>open stream</p>'); });</script>"
    )
    assert texts(pool.render(unclosed, timeout_ms=3000)) == ["open stream"]


def test_a_live_page_s_timers_follow_real_time_past_the_budget(pool):
    apool = pool.async_pool
    # an endless animation loop spends the fast-forward budget at once; a click's 300 ms timer must still fire
    html = (
        "<p id=o>idle</p><button onclick=\"setTimeout(() => o.textContent = 'clicked', 300)\">Go</button>"
        "<script>const f = () => requestAnimationFrame(f); f();</script>"
    )

    async def episode():
        async with apool.open_page(html) as page:
            await asyncio.sleep(0.5)
            await page.click("button")
            await page.wait_for_function("document.getElementById('o').textContent === 'clicked'", timeout=5000)
            return await page.evaluate("document.getElementById('o').textContent")

    assert asyncio.run(apool.run_on_loop(episode)) == "clicked"
