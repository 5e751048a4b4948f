"""The result of one render: the screenshot and the layout extracted from the same page state.

The layout records themselves (``Layout``, ``TextBlock``, ``ElementBox``, ``DomNode``) live in ``vcoder.layout``, a
leaf module the pure metrics share without importing the renderer.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import cached_property

from vcoder.layout import DomNode, ElementBox, Layout, TextBlock

__all__ = ["DomNode", "ElementBox", "Layout", "Rendered", "TextBlock"]


@dataclass(frozen=True)
class Rendered:
    """The result of one render. Never raised: a page that could not render has ``ok=False`` and an ``error``.

    Attributes:
        ok: True when a screenshot and layout were taken.
        error: why the render failed (``"timeout: ..."``, ``"crashed: ..."``, ...), None when ok.
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
        import cv2
        import numpy as np

        # OpenCV decodes PNG about twice as fast as PIL; this sits on every reward's hot path
        bgr = cv2.imdecode(np.frombuffer(self.png, dtype=np.uint8), cv2.IMREAD_COLOR)
        if bgr is None:
            from PIL import Image

            with Image.open(io.BytesIO(self.png)) as img:
                return np.asarray(img.convert("RGB"))
        return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)

    def pil(self):
        """The screenshot as a PIL RGB image."""
        from PIL import Image

        return Image.fromarray(self.image)

    @staticmethod
    def failure(error: str, elapsed_ms: float = 0.0) -> Rendered:
        return Rendered(ok=False, error=error, elapsed_ms=elapsed_ms)
