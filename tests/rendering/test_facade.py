"""The sync facade, cross-loop awaits and the default pool."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest

from vcoder.rendering import AsyncBrowserPool, BrowserPool, get_default_pool

ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize("name", ["__init__", "render", "render_many"])
def test_sync_facade_has_the_async_signatures(name):
    sync_sig = inspect.signature(getattr(BrowserPool, name))
    async_sig = inspect.signature(getattr(AsyncBrowserPool, name))
    # the one difference: the async pool may be bound to a loop, the sync facade brings its own
    assert list(sync_sig.parameters.values()) == [p for p in async_sig.parameters.values() if p.name != "loop"]
    options = [p for p in sync_sig.parameters.values() if p.name not in ("self", "html", "htmls")]
    assert options and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in options)
    assert sync_sig.return_annotation == async_sig.return_annotation


def test_default_pool_takes_the_constructor_options_by_name():
    params = inspect.signature(get_default_pool).parameters
    assert list(params) == [n for n in inspect.signature(BrowserPool).parameters]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is None for p in params.values())


@pytest.mark.browser
def test_sync_pool_refuses_inside_running_loop(pool):
    async def inside():
        with pytest.raises(RuntimeError, match="AsyncBrowserPool"):
            pool.render("<p>x</p>")
        # the async pool awaited from this foreign loop is forwarded to the pool's own loop
        r = await pool.async_pool.render("<p>from another loop</p>")
        return r

    r = asyncio.run(inside())
    assert r.ok and r.layout.text_blocks[0].text == "from another loop"


@pytest.mark.browser
def test_default_pool_is_shared():
    a, b = get_default_pool(), get_default_pool()
    assert a is b
    assert a.render("<b>shared</b>").layout.text_blocks[0].text == "shared"
    a.close()
    assert get_default_pool() is not a
    get_default_pool().close()


@pytest.mark.browser
def test_a_new_pool_serves_another_loop_at_once(monkeypatch):
    """Right after ``BrowserPool()`` returns, a render from another event loop works, even when the pool's thread is
    slow to get its loop running (a loaded machine): it used to be refused as a BROWSER failure in that window."""
    import asyncio
    import time

    from vcoder.rendering import sync

    class SlowStart(asyncio.SelectorEventLoop):
        def run_forever(self):
            time.sleep(0.5)
            super().run_forever()

    monkeypatch.setattr(sync.asyncio, "new_event_loop", SlowStart)
    pool = sync.BrowserPool()
    try:

        async def first():
            return await pool.async_pool.render("<p>first render</p>")

        rendered = asyncio.run(first())
        assert rendered.ok, (rendered.kind, rendered.error)
    finally:
        pool.close()
