"""The result of one render: the screenshot and the layout extracted from the same page state.

The layout records themselves (``Layout``, ``TextBlock``, ``ElementBox``, ``DomNode``) live in ``vcoder.layout``, a
leaf module the pure metrics share without importing the renderer.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property

from vcoder.layout import DomNode, ElementBox, Layout, TextBlock

__all__ = [
    "POOL_CLOSED",
    "BrowserUnavailable",
    "DomNode",
    "ElementBox",
    "FailureKind",
    "Layout",
    "Rendered",
    "TextBlock",
]


#: why a closed pool does not render
POOL_CLOSED = "this pool has been closed; create a new one (or use get_default_pool())"


class BrowserUnavailable(RuntimeError):
    """The pool cannot serve at all (closed, its event loop stopped, or Chromium would not start): not the page's
    fault. ``render`` returns this as a ``FailureKind.BROWSER`` result; the calls that cannot return a result
    (``start``, ``open_page``, ``run_on_loop``) raise it."""


class FailureKind(str, enum.Enum):
    """Why a render failed, typed: whether the page is at fault decides how a reward scores it.

    The page's fault (a reward scores the completion 0.0): ``EMPTY`` (no HTML), ``TOO_LARGE`` (over the size
    limit), ``TIMEOUT`` (did not finish within its deadline), ``PAGE_CRASH`` (its renderer process died, e.g. out
    of memory), ``NAVIGATION`` (it failed to load or left its document mid-render).
    Infrastructure (a reward gives None, "could not judge"): ``BROWSER`` (Chromium would not start, died twice in
    one render, or the pool was closed).
    """

    EMPTY = "empty"
    TOO_LARGE = "too_large"
    TIMEOUT = "timeout"
    PAGE_CRASH = "page_crash"
    NAVIGATION = "navigation"
    BROWSER = "browser"

    @property
    def infrastructure(self) -> bool:
        """True when the failure is ours (the browser), not the page's."""
        return self is FailureKind.BROWSER


@dataclass(frozen=True)
class Rendered:
    """The result of one render. Never raised: a page that could not render has ``ok=False`` and an ``error``.

    Attributes:
        ok: True when a screenshot and layout were taken.
        error: why the render failed, for people (``"timeout: ..."``, ``"crashed: ..."``, ...), None when ok.
        kind: why the render failed, for code (``FailureKind``), None when ok.
        png: the screenshot as PNG bytes (None when not ok).
        width: screenshot width in px.
        height: screenshot height in px.
        elapsed_ms: wall time of this render, queueing excluded.
        layout: the layout extracted in the same render (None when not ok).
        console_errors: console errors and uncaught page exceptions, in order (capped).
        truncated: True when the page was taller than the renderer's max height and the screenshot was cut.
        cached: True when this result was shared with an identical page rendered in the same batch or cache.
    """

    ok: bool
    error: str | None = None
    kind: FailureKind | None = None
    png: bytes | None = field(default=None, repr=False)
    width: int = 0
    height: int = 0
    elapsed_ms: float = 0.0
    layout: Layout | None = field(default=None, repr=False)
    console_errors: tuple[str, ...] = ()
    truncated: bool = False
    cached: bool = False

    @cached_property
    def image(self):
        """The screenshot as a ``(height, width, 3)`` uint8 RGB numpy array (decoded once, on first use)."""
        if self.png is None:
            raise ValueError(f"render failed ({self.error}); there is no screenshot to decode")
        from vcoder.images import decode_png

        return decode_png(self.png)

    def pil(self):
        """The screenshot as a PIL RGB image."""
        from PIL import Image

        return Image.fromarray(self.image)

    @property
    def infrastructure(self) -> bool:
        """True when the render failed for a reason that is not the page's fault (see ``FailureKind``)."""
        return self.kind is not None and self.kind.infrastructure

    @staticmethod
    def failure(kind: FailureKind, error: str, elapsed_ms: float = 0.0) -> Rendered:
        """A failed render: ``kind`` for code, ``error`` (the message) for people."""
        return Rendered(ok=False, error=error, kind=FailureKind(kind), elapsed_ms=elapsed_ms)

    @staticmethod
    def unavailable(why: BrowserUnavailable | str, elapsed_ms: float = 0.0) -> Rendered:
        """The ``FailureKind.BROWSER`` failure of a pool that cannot serve (``why`` says what happened)."""
        return Rendered.failure(FailureKind.BROWSER, f"browser: {why}", elapsed_ms)
