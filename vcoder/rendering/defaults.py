"""The rendering defaults, declared once: ``AsyncBrowserPool``, ``BrowserPool`` and ``get_default_pool`` share them."""

from __future__ import annotations

#: concurrent page slots of a pool
MAX_PAGES = 2
#: per-render deadline, in ms
TIMEOUT_MS = 15000
#: screenshot height cap in px (taller pages are cut, ``Rendered.truncated``)
MAX_HEIGHT = 8192
#: renders after which a slot's context is replaced (memory flat over 500 renders at 100; +16% at 500)
RECYCLE_AFTER = 100
#: viewport in px
WIDTH, HEIGHT = 1280, 720
