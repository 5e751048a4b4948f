"""Reward semantics of every render failure kind: the page's fault scores 0.0, the browser's gives None.

Each kind on a pool that fails every render with it (the decision rule, for all six kinds, including EMPTY which a
completion cannot reach: empty output has no HTML and scores 0.0 before any render); then on real Chromium: a page
that never finishes (TIMEOUT), one over the size limit (TOO_LARGE), one that navigates away mid-render (NAVIGATION),
and the default pool's browser process tree killed twice during one reward call (BROWSER), for the rendering
rewards, the screenshot judge and the GUI agent.
"""

from __future__ import annotations

import asyncio
import threading
import time

import psutil
import pytest

from tests.rewards.pages import make_page, to_html
from tests.servers import ScriptedServer
from vcoder.rendering.types import FailureKind, Rendered
from vcoder.rewards import build_reward
from vcoder.rewards.context import get_context

pytestmark = pytest.mark.browser

REF = to_html(make_page(21, n_blocks=3))
RENDERING = ["ssim", "block", "text", "position", "color", "visual", "dom"]
PARAMS = {"render_timeout_ms": 20000}
HANG = "<html><body><p>never done</p><script>while (true) {}</script></body></html>"
# a page that keeps its renderer busy until the browser dies (a plain loop: page clocks are virtual, so a loop on
# Date.now() ends at once; if no kill came, the 60 s render timeout would score it 0.0 and the test would fail)
BUSY = "<html><body><p>busy {n}</p><script>for (;;) {{}}</script></body></html>"


def fenced(html: str) -> str:
    return f"```html\n{html}\n```"


class FailingPool:
    """Fails every render with one kind (the rest of the reward machinery is real)."""

    closed = False

    def __init__(self, kind: FailureKind):
        self.kind = kind
        self.async_pool = self

    async def render(self, html, **kwargs):
        return Rendered.failure(self.kind, f"{self.kind.value}: scripted failure")


@pytest.fixture
def failing_context():
    ctx = get_context()

    def use(kind: FailureKind):
        ctx.use_pool(FailingPool(kind))
        ctx.completions.items.clear()

    yield use
    ctx.use_pool(None)
    ctx.completions.items.clear()


@pytest.fixture(scope="module")
def rendered_reference():
    """The reference rendered once on the real pool, so only completions meet the failing pool."""
    from vcoder.rendering import get_default_pool

    get_context().use_pool(get_default_pool())
    for name in RENDERING:
        assert asyncio.run(build_reward(name, **PARAMS)(completions=[fenced(REF)], html=[REF]))[0] >= 0.99
    return REF


@pytest.mark.parametrize("kind", list(FailureKind))
def test_each_kind_of_render_failure(kind, failing_context, rendered_reference):
    failing_context(kind)
    expected = None if kind is FailureKind.BROWSER else 0.0
    page = fenced(f"<html><body><p>a page that fails with {kind.value}</p></body></html>")
    for name in RENDERING:
        out = asyncio.run(
            build_reward(name, **PARAMS)(completions=[page, "no html here"], html=[rendered_reference] * 2)
        )
        assert out == [expected, 0.0], (name, kind, out)
    with ScriptedServer("Score: 5") as server:
        judge = build_reward("screenshot_judge", judge_base_url=server.base_url, judge_model="scripted")
        assert asyncio.run(judge(completions=[page, "no html here"])) == [expected, 0.0], kind
    assert server.chat_hits == 0  # a page that did not render is never sent to the judge


@pytest.mark.slow
def test_real_page_faults_score_zero():
    from vcoder.rendering import get_default_pool

    pool = get_default_pool()
    pages = {
        FailureKind.TIMEOUT: HANG,
        FailureKind.TOO_LARGE: "<html><body><p>" + "big " * 2_100_000 + "</p></body></html>",
        FailureKind.NAVIGATION: "<p>x</p><script>setTimeout(() => location.replace('about:blank'), 10)</script>",
    }
    for kind, html in pages.items():  # the pages really fail that way (leaving mid-render is a race: most of the time)
        assert any(pool.render(html, timeout_ms=3000).kind is kind for _ in range(5)), kind
    rewards = [build_reward(name, render_timeout_ms=3000) for name in RENDERING]

    async def step():
        completions = [fenced(h) for h in pages.values()]
        return await asyncio.gather(*(f(completions=completions, html=[REF] * 3) for f in rewards))

    for name, out in zip(RENDERING, asyncio.run(step())):
        # (when the race is lost, the page left is about:blank, which scores 0.0 as well)
        assert out == [0.0, 0.0, 0.0], (name, out)


def _kill_browser_twice(pool, done: threading.Event) -> list[int]:
    """Twice: wait for a browser not killed yet, wait until one of its renderers is busy (the page's script is
    running: its CPU time grew by 0.3 s), then kill the whole process tree. Returns the killed browsers' pids."""
    killed: list[int] = []
    while len(killed) < 2 and not done.is_set():
        pids = pool.browser_pids()
        if not pids or pids[0] in killed:
            time.sleep(0.05)
            continue
        baseline: dict[int, float] = {}
        while not done.is_set():
            try:
                children = psutil.Process(pids[0]).children(recursive=True)
                busy = False
                for child in children:
                    cpu = child.cpu_times().user
                    busy |= cpu - baseline.setdefault(child.pid, cpu) >= 0.3
            except psutil.NoSuchProcess:
                break  # died on its own: wait for the next one
            if busy:
                for pid in [pids[0], *(c.pid for c in children)]:
                    try:
                        psutil.Process(pid).kill()
                    except psutil.NoSuchProcess:
                        pass
                killed.append(pids[0])
                break
            time.sleep(0.1)
    return killed


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_chromium_killed_twice_during_a_reward_call_gives_none():
    from vcoder.rendering import get_default_pool

    pool = get_default_pool()
    ctx = get_context()
    ctx.use_pool(pool)
    block = build_reward("block", render_timeout_ms=60000)
    assert asyncio.run(block(completions=[fenced(REF)], html=[REF])) == [pytest.approx(1.0)]  # reference cached
    done = threading.Event()
    killer = threading.Thread(target=lambda: killed.extend(_kill_browser_twice(pool, done)))
    killed: list[int] = []
    killer.start()
    try:
        out = asyncio.run(block(completions=[fenced(BUSY.format(n=1))], html=[REF]))
    finally:
        done.set()
        killer.join()
    assert len(killed) == 2, "the browser was not killed twice during the call"
    assert out == [None]
    assert pool.render("<p>alive again</p>").ok  # and the pool recovers


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_judge_and_gui_agent_give_none_when_chromium_dies_and_zero_for_a_hung_page():
    from vcoder.data.site_kinds.pages import make_page as interactive_page
    from vcoder.rendering import get_default_pool

    pool = get_default_pool()
    get_context().use_pool(pool)
    counter = interactive_page("counter", 7)
    gui = build_reward("gui_agent", render_timeout_ms=4000, gui_deadline_ms=8000)
    # a page that never finishes loading is the page's fault: every case NO
    hung = asyncio.run(gui(completions=[fenced(HANG)], test_cases=[counter["test_cases"]]))
    assert hung == [0.0]
    with ScriptedServer("Score: 5") as server:
        endpoint = {"judge_base_url": server.base_url, "judge_model": "scripted"}
        quick = build_reward("screenshot_judge", render_timeout_ms=3000, **endpoint)
        assert asyncio.run(quick(completions=[fenced(HANG)])) == [0.0]
        judge = build_reward("screenshot_judge", render_timeout_ms=60000, **endpoint)

        for name, call in (
            ("judge", lambda: asyncio.run(judge(completions=[fenced(BUSY.format(n=2))]))),
            (
                "gui_agent",
                lambda: asyncio.run(
                    build_reward("gui_agent", render_timeout_ms=60000)(
                        completions=[fenced(BUSY.format(n=3))], test_cases=[counter["test_cases"]]
                    )
                ),
            ),
        ):
            done = threading.Event()
            killed: list[int] = []
            killer = threading.Thread(target=lambda k=killed, d=done: k.extend(_kill_browser_twice(pool, d)))
            killer.start()
            try:
                out = call()
            finally:
                done.set()
                killer.join()
            assert killed, f"{name}: the browser was not killed during the call"
            assert out == [None], (name, out)
    assert server.chat_hits == 0
    assert pool.render("<p>alive again</p>").ok


def test_the_scoring_threads_find_the_metrics_modules_imported():
    # the first scoring threads of a process raced to import scipy (KeyError: 'scipy' -> a None reward): the pool
    # imports them once before it starts, in a fresh process where nothing imported them yet
    import subprocess
    import sys

    code = (
        "import sys, asyncio\n"
        "from vcoder.rewards.common import off_loop\n"
        "assert not any(m in sys.modules for m in ('scipy.optimize', 'skimage.color')), 'imported too early'\n"
        "wanted = ('cv2', 'scipy.optimize', 'scipy.sparse', 'skimage.color')\n"
        "found = asyncio.run(off_loop(lambda: [m in sys.modules for m in wanted]))\n"
        "assert all(found), found\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
