"""A render spec, declared once: the viewport and the deadline of one render or page load.

Recipes and CLIs carry it flat under the ``render`` prefix (``render_width``, ``render_height``,
``render_timeout_ms``; see :func:`vcoder.names.flat_fields`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vcoder.rendering import defaults

__all__ = ["RenderSpec"]


@dataclass(frozen=True)
class RenderSpec:
    """How a page is rendered: viewport in CSS px and the deadline of one render (or page load), ms.

    Example:
        >>> RenderSpec(width=800).height
        720
    """

    width: int = field(default=defaults.WIDTH, metadata={"help": "Viewport width in CSS px."})
    height: int = field(default=defaults.HEIGHT, metadata={"help": "Viewport height in CSS px."})
    timeout_ms: int = field(default=defaults.TIMEOUT_MS, metadata={"help": "Deadline of one render or page load, ms."})

    def __post_init__(self) -> None:
        for name in ("width", "height", "timeout_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name}={value!r} must be a positive integer")
