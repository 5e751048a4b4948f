"""The only code in vcoder that talks to a browser: a hermetic, contained, fast Chromium pool."""

from vcoder.rendering.types import DomNode, ElementBox, Layout, Rendered, TextBlock

__all__ = ["DomNode", "ElementBox", "Layout", "Rendered", "TextBlock"]
