""" "Could not judge" only when the infrastructure fails now, never inherited, and never on a healthy page under load.

A render the browser fails (``FailureKind.BROWSER``; on a loaded machine Chromium can fail to give a screenshot)
gives None for the call it happens in; the next call renders the page again instead of re-using the failure, and a
reference whose render failed is rendered again before its prompt's completions are given up on (both on the real
pool, with the first render of one document failing as the browser's fault). Then 120 ladder pages scored by
the block and SSIM rewards with every core kept busy by another process: no page gets None.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from tests.rewards.pages import LADDERS, make_page, to_html
from vcoder.rendering.types import FailureKind, Rendered
from vcoder.rewards import build_reward
from vcoder.rewards.context import get_context

pytestmark = pytest.mark.browser

REWARDS = ["ssim", "block", "text", "position", "color"]


class FlakyPool:
    """The real pool, except that the first render of a document containing one of ``markers`` fails as the
    browser's fault (as Chromium failing to give a screenshot twice does)."""

    closed = False

    def __init__(self, pool, markers: list[str]):
        self.pool, self.markers, self.async_pool, self.failed = pool, set(markers), self, 0

    async def render(self, html, **kwargs):
        hit = next((m for m in self.markers if m in html), None)
        if hit is not None:
            self.markers.discard(hit)
            self.failed += 1
            return Rendered.failure(FailureKind.BROWSER, "browser: Chromium could not take the screenshot (scripted)")
        return await self.pool.async_pool.render(html, **kwargs)


@pytest.fixture
def flaky():
    from vcoder.rendering import get_default_pool

    ctx = get_context()

    def use(markers: list[str]) -> FlakyPool:
        pool = FlakyPool(get_default_pool(), markers)
        ctx.use_pool(pool)
        return pool

    yield use
    ctx.use_pool(None)


def score(names: list[str], completions: list[str], refs: list[str]) -> dict[str, list]:
    funcs = [build_reward(name, render_timeout_ms=15000) for name in names]

    async def go():
        return await asyncio.gather(
            *(f(prompts=[""] * len(completions), completions=completions, html=refs) for f in funcs)
        )

    return dict(zip(names, asyncio.run(go())))


def marked(html: str, marker: str) -> str:
    return html.replace("</body>", f"<!-- {marker} --></body>")


def test_a_browser_failure_is_not_inherited_by_the_next_call(flaky):
    ref = marked(to_html(make_page(31, n_blocks=3)), "ref-31")
    page = marked(to_html(make_page(31, n_blocks=3)), "page-31")
    pool = flaky(["page-31"])
    assert score(["block"], [page], [ref]) == {"block": [None]}  # the browser failed this render
    assert pool.failed == 1
    again = score(REWARDS, [page], [ref])  # before: every reward None, the failure served from the cache
    assert all(v[0] is not None and v[0] >= 0.99 for v in again.values()), again


def test_a_reference_whose_render_failed_is_rendered_again(flaky):
    blocks = make_page(32, n_blocks=3)
    ref = marked(to_html(blocks), "ref-32")
    pages = [to_html(blocks), to_html(LADDERS["move"](blocks, 2))]
    pool = flaky(["ref-32"])
    out = score(REWARDS, pages, [ref] * 2)
    assert pool.failed == 1
    assert all(v is not None for values in out.values() for v in values), out


@pytest.mark.slow
def test_no_none_on_a_busy_machine():
    """120 distinct pages (6 references x 4 damage ladders x 5 levels, level 0 the reference itself) scored by five
    rewards on one loop while a process per core spins (200 pages before: the same load per core, 40% less time)."""
    nonce = os.urandom(4).hex()  # pages no earlier test rendered: every one is rendered here, under load
    completions, refs, healthy = [], [], []
    for seed in range(40, 46):
        blocks = make_page(seed)
        ref = marked(to_html(blocks), f"{nonce}-{seed}")
        for ladder, damage in LADDERS.items():
            for level in range(5):
                completions.append(marked(to_html(damage(blocks, level, seed=seed)), f"{nonce}-{seed}-{ladder}"))
                refs.append(ref)
                healthy.append(level == 0)
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdout=subprocess.DEVNULL)
        for _ in range(os.cpu_count() or 2)
    ]
    try:
        out = score(REWARDS, completions, refs)
    finally:
        for proc in burners:
            proc.kill()
            proc.wait()
    nones = {name: [i for i, v in enumerate(values) if v is None] for name, values in out.items()}
    assert not any(nones.values()), f"could not judge: {nones}"
    low = {name: [round(v, 3) for v, h in zip(values, healthy) if h and v < 0.99] for name, values in out.items()}
    assert not any(low.values()), f"healthy pages scored below 0.99: {low}"
