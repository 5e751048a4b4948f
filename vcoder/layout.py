"""Layout records of a rendered page: text blocks, element boxes and a compact DOM tree (plain frozen data).

A leaf module: the renderer produces these records and the pure metrics consume them, so both import it and
neither imports the other.

Coordinates are CSS pixels of the rendered document (device scale factor 1, so one CSS pixel is one screenshot
pixel), origin at the top-left of the document, boxes as ``(x, y, width, height)``. Metrics normalise them by the
page size themselves (``Layout.width`` / ``Layout.height``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Box = tuple[float, float, float, float]
RGB = tuple[int, int, int]


@dataclass(frozen=True)
class TextBlock:
    """One Design2Code text block: the text owned by one element of the block tag set.

    A text node belongs to its nearest ancestor among p, h1-h6, div, span, a, b, li, table, td, th, button, footer,
    header, figcaption (text under other tags joins that ancestor's block), as in Si et al. (2024).

    Attributes:
        text: the block's visible text, whitespace collapsed, original case.
        bbox: tight box of the block's rendered text (union of its text ranges' client rects), document coordinates.
        color: computed CSS text colour of the owning element, sRGB 0-255.
        background: effective background colour behind the text (first non-transparent ancestor background,
            white if none), sRGB 0-255.
        font_size: computed font size in CSS px.
        font_weight: computed numeric font weight (400 normal, 700 bold).
        tag: lower-case tag name of the owning element.
    """

    text: str
    bbox: Box
    color: RGB
    background: RGB
    font_size: float
    font_weight: int
    tag: str


@dataclass(frozen=True)
class ElementBox:
    """One rendered element with a non-empty box (document order).

    Attributes:
        tag: lower-case tag name.
        depth: depth below ``<html>`` (``<html>`` is 0, ``<body>`` 1).
        bbox: border box in document coordinates.
    """

    tag: str
    depth: int
    bbox: Box


@dataclass(frozen=True)
class DomNode:
    """A compact DOM tree node: tag and children only (text, attributes and scripts dropped).

    Built by the renderer from the live DOM after scripts ran; capped at ``Layout.max_nodes`` nodes in document
    order (``Layout.dom_truncated`` tells when the cap was hit).
    """

    tag: str
    children: tuple[DomNode, ...] = ()

    def size(self) -> int:
        """Number of nodes in this subtree (iterative: trees can be 50k levels deep)."""
        count, stack = 0, [self]
        while stack:
            node = stack.pop()
            count += 1
            stack.extend(node.children)
        return count


@dataclass(frozen=True)
class Layout:
    """Everything a metric needs about a page's structure, extracted in the same render as the screenshot.

    Attributes:
        width: document width in CSS px (the screenshot's width).
        height: document height in CSS px (the screenshot's height; may be capped by the renderer's max height).
        text_blocks: Design2Code text blocks in document order.
        elements: boxes of rendered elements in document order (capped).
        dom: compact DOM tree rooted at ``<html>``.
        title: ``document.title``.
        dom_truncated: True when the element or DOM caps were hit.
    """

    width: int
    height: int
    text_blocks: tuple[TextBlock, ...] = ()
    elements: tuple[ElementBox, ...] = ()
    dom: DomNode | None = None
    title: str = ""
    dom_truncated: bool = False

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Layout:
        """Rebuild a layout from ``to_dict`` output (e.g. the JSON that ``vcoder render`` writes)."""

        def node(d: Any) -> DomNode:
            # iterative rebuild: recursion would overflow on 50k-deep documents
            if d is None:
                return None  # type: ignore[return-value]
            order, stack = [], [d]
            while stack:
                cur = stack.pop()
                order.append(cur)
                stack.extend(cur.get("children", ()))
            built: dict[int, DomNode] = {}
            for cur in reversed(order):
                kids = tuple(built[id(c)] for c in cur.get("children", ()))
                built[id(cur)] = DomNode(cur["tag"], kids)
            return built[id(d)]

        return Layout(
            width=int(data["width"]),
            height=int(data["height"]),
            text_blocks=tuple(
                TextBlock(
                    text=b["text"],
                    bbox=tuple(b["bbox"]),
                    color=tuple(b["color"]),
                    background=tuple(b["background"]),
                    font_size=float(b["font_size"]),
                    font_weight=int(b["font_weight"]),
                    tag=b["tag"],
                )
                for b in data.get("text_blocks", ())
            ),
            elements=tuple(
                ElementBox(tag=e["tag"], depth=int(e["depth"]), bbox=tuple(e["bbox"]))
                for e in data.get("elements", ())
            ),
            dom=node(data.get("dom")),
            title=data.get("title", ""),
            dom_truncated=bool(data.get("dom_truncated", False)),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists instead of tuples)."""

        def node(n: DomNode | None) -> Any:
            if n is None:
                return None
            out: dict[int, dict] = {}
            order, stack = [], [n]
            while stack:
                cur = stack.pop()
                order.append(cur)
                stack.extend(cur.children)
            for cur in reversed(order):
                out[id(cur)] = {"tag": cur.tag, "children": [out[id(c)] for c in cur.children]}
            return out[id(n)]

        return {
            "width": self.width,
            "height": self.height,
            "title": self.title,
            "dom_truncated": self.dom_truncated,
            "text_blocks": [
                {
                    "text": b.text,
                    "bbox": list(b.bbox),
                    "color": list(b.color),
                    "background": list(b.background),
                    "font_size": b.font_size,
                    "font_weight": b.font_weight,
                    "tag": b.tag,
                }
                for b in self.text_blocks
            ],
            "elements": [{"tag": e.tag, "depth": e.depth, "bbox": list(e.bbox)} for e in self.elements],
            "dom": node(self.dom),
        }
