"""Imitation signs a page carries itself: text its HTML writes but nobody can see, and a page stretched tall.

Hidden text (``hidden_text_share``): the characters of the HTML's text that no visible text block of the render shows.
Written text is counted from the HTML (text nodes outside ``head``, ``script``, ``style``, ``template``,
``noscript``, ``textarea`` and ``select``); seen text from the layout's blocks that pass ``vcoder.metrics.ink``'s
visibility test (glyphs at least ``MIN_TEXT_PX``, ink in the box in proportion to the text). Text made transparent,
the colour of its background, 0 px, 1 px, clipped or covered is written and not seen. Text a script adds is seen and
not written: the share never goes below 0. Keeping half of a page's content and hiding the text of the rest keeps
the layout of all of it, so every layout-aware score (positions, SSIM, the ink layout) ranked it above an honest page
that keeps half (measured on the six shapes of ``tests/rewards/test_gaming.py``: ``visual`` 0.53-0.77 against
0.46-0.73, ``position`` 0.58-0.85 against 0.47-0.81) until the rewards used this share.

Stretch (``height_ratio``): how much taller, for its width, a screenshot is than the reference's. A page stretched
far beyond its reference (blank space below, spacing blown up, the body repeated) is not a better copy, but the
whole-image scores crop or squash it and see little of the difference.
"""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np

__all__ = ["hidden_text_share", "height_ratio", "written_text_chars"]

# elements whose text is never page text a reader sees in the document flow
_NOT_TEXT = frozenset({"head", "title", "script", "style", "template", "noscript", "textarea", "select", "option"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.chars = 0

    def handle_starttag(self, tag, attrs):
        if tag in _NOT_TEXT:
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in _NOT_TEXT and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.chars += sum(1 for ch in data if not ch.isspace())


def written_text_chars(html: str) -> int:
    """Non-space characters of the text an HTML document writes in its body (see the module docstring)."""
    if not isinstance(html, str):
        raise TypeError(f"html must be a str, got {type(html).__name__}")
    parser = _Text()
    parser.feed(html)
    parser.close()
    return parser.chars


def _seen_text_chars(layout, image: np.ndarray) -> int:
    from vcoder.metrics.ink import MIN_TEXT_PX, glyph_size, visible_ink_box

    seen = 0
    for block in layout.text_blocks:
        text = " ".join(block.text.split())
        if not text:
            continue
        size = glyph_size(block.bbox, len(text), block.font_size)
        if size >= MIN_TEXT_PX and visible_ink_box(image, block.bbox, len(text), size) is not None:
            seen += len(text) - text.count(" ")
    return seen


def hidden_text_share(html: str, layout, image: np.ndarray) -> float:
    """The share of the text an HTML document writes that its render does not show, in [0, 1].

    Args:
        html: the document.
        layout: its render's ``vcoder.layout.Layout``.
        image: the same render's (H, W, 3) uint8 screenshot.

    Returns:
        ``max(0, 1 - seen / written)`` in characters; 0 for a page that writes no text, and for a render cut short
        (a layout that hit its caps, or a screenshot shorter than the document): not all of its text could be seen.

    Example:
        >>> from vcoder.layout import Layout
        >>> hidden_text_share("<p style='color:transparent'>Hi</p>", Layout(8, 8, ()), np.zeros((8, 8, 3), np.uint8))
        1.0
    """
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.dtype != np.uint8:
        raise ValueError(f"image must be an (H, W, 3) uint8 RGB array, got shape {getattr(image, 'shape', None)}")
    written = written_text_chars(html)
    if written == 0 or layout.dom_truncated or image.shape[0] < layout.height - 1:
        return 0.0
    return float(max(0.0, 1.0 - _seen_text_chars(layout, image) / written))


def height_ratio(ref_shape: tuple[int, ...], page_shape: tuple[int, ...]) -> float:
    """How many times taller, relative to its width, a page's screenshot is than the reference's (``(H, W, ...)``
    shapes), e.g. 2.0 for a page twice as tall at the same width."""
    (rh, rw), (ph, pw) = ref_shape[:2], page_shape[:2]
    if min(rh, rw, ph, pw) <= 0:
        raise ValueError(f"screenshot shapes must be positive, got {ref_shape} and {page_shape}")
    return float((ph / pw) / (rh / rw))
