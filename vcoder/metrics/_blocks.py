"""Design2Code block preparation: layout text blocks -> normalised, merged blocks with measured text colours."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from vcoder.layout import Layout
from vcoder.metrics.ink import MIN_TEXT_PX, glyph_size, visible_ink_box

__all__ = ["MergedBlock", "prepare_blocks", "text_color"]

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class MergedBlock:
    """A block as Design2Code scores it.

    Attributes:
        text: lower-cased text, whitespace collapsed (texts of merged blocks joined by a space).
        box: ``(x, y, w, h)`` normalised by the page's own width and height.
        color: text colour, sRGB 0-255 floats.
        sources: indices into ``Layout.text_blocks`` of the blocks merged into this one, in order.
    """

    text: str
    box: tuple[float, float, float, float]
    color: tuple[float, float, float]
    sources: tuple[int, ...]

    @property
    def area(self) -> float:
        return self.box[2] * self.box[3]

    @property
    def center(self) -> tuple[float, float]:
        return self.box[0] + self.box[2] / 2.0, self.box[1] + self.box[3] / 2.0


def _channel_distance(pixels: np.ndarray, color: np.ndarray) -> np.ndarray:
    """Largest channel difference of (N, 3) pixels from a colour (elementwise: much faster than max(axis=1))."""
    d = np.abs(pixels - color)
    return np.maximum(np.maximum(d[:, 0], d[:, 1]), d[:, 2])


def text_color(image: np.ndarray, bbox, background, fallback, *, tolerance: int = 32) -> tuple[float, float, float]:
    """Mean RGB of a block's text pixels in a screenshot.

    Text pixels are the pixels inside ``bbox`` whose largest channel difference from the block's background
    exceeds ``tolerance``; of those, only the core ones (difference >= 60% of the largest in the box) are averaged,
    so anti-aliased glyph edges do not wash the colour out (Design2Code likewise averages the pixels that carry
    the element's exact colour). When more than 70% of the box differs from the CSS background (a background
    image or gradient), the box's most frequent colour is taken as the background instead.

    Args:
        image: (H, W, 3) uint8 screenshot.
        bbox: ``(x, y, w, h)`` in document pixels.
        background: the CSS background colour behind the text (0-255).
        fallback: colour returned when no text pixel is found (the CSS text colour).
        tolerance: smallest channel difference (0-255) counted as text.

    Returns:
        ``(r, g, b)`` floats in [0, 255].
    """
    x, y, w, h = bbox
    height, width = image.shape[:2]
    x0, y0 = max(int(np.floor(x)), 0), max(int(np.floor(y)), 0)
    x1, y1 = min(int(np.ceil(x + w)), width), min(int(np.ceil(y + h)), height)
    if x1 <= x0 or y1 <= y0:
        return tuple(float(c) for c in fallback)
    patch = image[y0:y1, x0:x1].reshape(-1, 3).astype(np.int32)
    dist = _channel_distance(patch, np.asarray(background, dtype=np.int32))
    if (dist > tolerance).mean() > 0.7:
        packed = (patch[:, 0] << 16) | (patch[:, 1] << 8) | patch[:, 2]
        values, counts = np.unique(packed, return_counts=True)
        mode = int(values[np.argmax(counts)])
        dist = _channel_distance(patch, np.array([mode >> 16, (mode >> 8) & 255, mode & 255]))
    peak = dist.max()
    if peak <= tolerance:
        return tuple(float(c) for c in fallback)
    core = patch[dist >= max(0.6 * peak, tolerance + 1)]
    mean = core.astype(np.float64).mean(axis=0)
    return float(mean[0]), float(mean[1]), float(mean[2])


def prepare_blocks(
    layout: Layout, image: np.ndarray | None = None, *, ink: np.ndarray | None = None
) -> list[MergedBlock]:
    """Turn a layout's text blocks into Design2Code blocks: only the text a person can see counts.

    Empty texts and zero-area boxes are dropped, and so is text too small to read (glyphs under ``MIN_TEXT_PX``,
    sized by ``vcoder.metrics.ink.glyph_size``: a 1 px font or a page under ``transform: scale(0.1)``). With the
    screenshot, a block counts only when its box shows ink (``vcoder.metrics.ink.visible_ink_box``: transparent,
    background-coloured, near-zero-opacity, clipped, covered or off-page text shows none), its box becomes the tight
    box of that ink (the official scorer boxes a block by its text pixels) and its colour is measured from the
    pixels (``text_color``). Without the screenshot only the size rule applies, boxes are the layout's and colours
    the CSS ones: visibility cannot be judged from the layout alone.

    Texts are lower-cased with whitespace collapsed; blocks with identical boxes are merged (texts joined with a
    space in document order, colours averaged pairwise in order, as the reference implementation does); boxes are
    normalised by the layout's width and height.

    Args:
        layout: the rendered page's layout.
        image: optional (H, W, 3) uint8 screenshot of the same render.
        ink: ``vcoder.metrics.ink.ink_mask(image)`` when the caller has it already (the same blocks, faster).

    Returns:
        The blocks in document order (a merged block sits at its first member's position).
    """
    by_box: dict[tuple[float, ...], list] = {}
    for k, block in enumerate(layout.text_blocks):
        text = _SPACES.sub(" ", block.text).strip().lower()
        box = tuple(float(v) for v in block.bbox)
        if not text or box[2] <= 0 or box[3] <= 0:
            continue
        size = glyph_size(box, len(text), block.font_size)
        if size < MIN_TEXT_PX:
            continue
        if image is not None:
            box = visible_ink_box(image, box, len(text), size, ink=ink)
            if box is None:
                continue
            color = text_color(image, block.bbox, block.background, block.color)
        else:
            color = tuple(float(c) for c in block.color)
        entry = by_box.get(box)
        if entry is None:
            by_box[box] = [text, color, [k]]
        else:
            entry[0] = f"{entry[0]} {text}"
            entry[1] = tuple((a + b) / 2.0 for a, b in zip(entry[1], color))
            entry[2].append(k)
    sx, sy = 1.0 / layout.width, 1.0 / layout.height
    return [
        MergedBlock(text, (x * sx, y * sy, w * sx, h * sy), color, tuple(src))
        for (x, y, w, h), (text, color, src) in by_box.items()
    ]


def merge_pair(a: MergedBlock, b: MergedBlock) -> MergedBlock:
    """Merge two list-adjacent blocks: texts joined by a space, union box, mean colour."""
    x0, y0 = min(a.box[0], b.box[0]), min(a.box[1], b.box[1])
    x1 = max(a.box[0] + a.box[2], b.box[0] + b.box[2])
    y1 = max(a.box[1] + a.box[3], b.box[1] + b.box[3])
    color = tuple((p + q) / 2.0 for p, q in zip(a.color, b.color))
    return MergedBlock(f"{a.text} {b.text}", (x0, y0, x1 - x0, y1 - y0), color, a.sources + b.sources)
