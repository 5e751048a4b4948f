"""The only code in vcoder that talks to a browser: a hermetic, contained, fast Chromium pool.

``AsyncBrowserPool`` is the implementation, ``BrowserPool`` its synchronous facade and ``get_default_pool()`` the
process-wide shared instance that rewards use. Importing the package is light: the pools load on first use,
Playwright when a pool starts, and the shared pool's exit and fork hooks are registered when it is created.

Live pages: ``AsyncBrowserPool.open_page`` lends a loaded hermetic page to its caller (the GUI agent), who owns it
for the ``async with`` block and drives it with Playwright's own ``Page`` API (click, fill, evaluate, screenshot);
``snapshot(page)`` takes a ``Rendered`` of its current state and ``discard_page(page)`` gives up a hung one. The page
lives on the pool's home event loop: run the code that drives it there with ``run_on_loop``.
"""

from typing import TYPE_CHECKING

from vcoder.layout import DomNode, ElementBox, Layout, TextBlock
from vcoder.rendering.types import BrowserUnavailable, FailureKind, Rendered

if TYPE_CHECKING:  # the names the lazy table below serves, for readers and tools
    from vcoder.rendering.pool import AsyncBrowserPool
    from vcoder.rendering.sync import BrowserPool, get_default_pool, pool_or_private

# the pools load on first use (tests/test_exports.py checks this table against the imports above): importing the
# package loads no asyncio machinery, starts nothing and registers no exit or fork hook
_EXPORTS = {
    "AsyncBrowserPool": "pool",
    "BrowserPool": "sync",
    "get_default_pool": "sync",
    "pool_or_private": "sync",
}

__all__ = [
    "AsyncBrowserPool",
    "BrowserPool",
    "BrowserUnavailable",
    "DomNode",
    "ElementBox",
    "FailureKind",
    "Layout",
    "Rendered",
    "TextBlock",
    "get_default_pool",
    "pool_or_private",
]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vcoder.rendering' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"vcoder.rendering.{module}"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
