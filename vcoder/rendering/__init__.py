"""The only code in vcoder that talks to a browser: a hermetic, contained, fast Chromium pool.

``AsyncBrowserPool`` is the implementation, ``BrowserPool`` its synchronous facade and ``get_default_pool()`` the
process-wide shared instance that rewards use. Playwright is imported only when a pool starts.
"""

from vcoder.layout import DomNode, ElementBox, Layout, TextBlock
from vcoder.rendering.pool import AsyncBrowserPool
from vcoder.rendering.sync import BrowserPool, get_default_pool
from vcoder.rendering.types import FailureKind, Rendered

__all__ = [
    "AsyncBrowserPool",
    "BrowserPool",
    "DomNode",
    "ElementBox",
    "FailureKind",
    "Layout",
    "Rendered",
    "TextBlock",
    "get_default_pool",
]
