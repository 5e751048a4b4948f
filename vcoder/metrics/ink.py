"""Ink: what a person can see in a screenshot, and whether the page's own content accounts for it.

Ink is a pixel on a sharp left-right colour edge: a channel changes by more than ``INK_CONTRAST`` (24 of 255)
between horizontal neighbours (both pixels of the edge are ink). Glyphs are dense in such edges (3-6 ink pixels per
character and CSS px of font size on every page measured), while a flat area, a smooth gradient or the top and
bottom of a bar have none; an invisible text (transparent, the colour of its background, opacity near 0, clipped,
covered, off the page) leaves none where it sits.

Two uses:

- Text visibility (``visible_ink_box``): a Design2Code text block counts only when its box shows ink spread over
  its width (at least ``MIN_INK_COLUMNS`` of its columns) and in proportion to its text (at least
  ``MIN_INK_PER_CHAR`` x characters x glyph size ink pixels), and when its glyphs are at least ``MIN_TEXT_PX``
  tall (``glyph_size``); its box is then the tight box of that ink, as the official scorer boxes text pixels.
- Ink evidence (``ink_profile``, ``ink_evidence``, ``ink_layout_similarity``): a page's ink is *backed* where its
  visible text, a replaced element (img, svg, video, form controls, icon ``<i>``) or a band of 4 px around the
  left/right edge of any element's box (borders, rounded corners, coloured boxes), or a list item's marker accounts
  for it. Text painted on a
  canvas, or stripes drawn to imitate text, is ink nobody's content backs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcoder.metrics.image import check_screenshot

__all__ = [
    "INK_CONTRAST",
    "MIN_TEXT_PX",
    "InkProfile",
    "glyph_size",
    "ink_evidence",
    "ink_layout_similarity",
    "ink_mask",
    "ink_profile",
    "visible_ink_box",
]

INK_CONTRAST = 24
# glyphs smaller than this (CSS px, device scale 1) cannot be read: 1 px text or a page under scale(0.1)
MIN_TEXT_PX = 6.0
# measured on 718 rendered blocks: >= 5.9 ink columns per character and >= 3.07 ink pixels per character and px of
# glyph size; the thresholds sit well below both so light or thin honest text passes
MIN_INK_COLUMNS = 0.3
MIN_INK_PER_CHAR = 1.0
# an average glyph advances ~0.5 em and a line is ~1.2 em tall: area ~ 0.6 x characters x size^2
_GLYPH_AREA = 0.6
TILES_ACROSS = 64
# elements whose whole box may show ink that no text node explains: images, media, form controls, and <i>, which
# icon fonts fill with pseudo-element glyphs
_REPLACED = frozenset(
    {"img", "svg", "video", "picture", "input", "textarea", "select", "iframe", "object", "embed", "i"}
)
_EDGE_PX = 4
_MARKER_PX = 40


def ink_mask(image: np.ndarray) -> np.ndarray:
    """Ink pixels of an RGB image (see the module docstring): an (H, W) bool array."""
    image = check_screenshot(image)
    import cv2

    out = np.zeros(image.shape[:2], dtype=bool)
    if image.shape[1] < 2:
        return out
    diff = cv2.absdiff(image[:, 1:, :3], image[:, :-1, :3])
    # elementwise over channel views: ~10x faster than reducing over the last axis
    edge = np.maximum(np.maximum(diff[..., 0], diff[..., 1]), diff[..., 2]) > INK_CONTRAST
    out[:, 1:] |= edge
    out[:, :-1] |= edge
    return out


def glyph_size(bbox, n_chars: int, font_size: float) -> float:
    """Estimated rendered glyph size in px: ``sqrt(box area / (0.6 x characters))``, at most the CSS font size.

    The CSS font size does not see transforms, and letter-spacing or a squeezed box can shrink text too; the box
    does, so the smaller of the two is the size a reader gets.
    """
    _, _, w, h = bbox
    if n_chars <= 0 or w <= 0 or h <= 0:
        return 0.0
    size = float(np.sqrt(w * h / (_GLYPH_AREA * n_chars)))
    return min(size, float(font_size)) if font_size > 0 else size


def _clip_box(bbox, shape) -> tuple[int, int, int, int] | None:
    x, y, w, h = bbox
    height, width = shape[:2]
    x0, y0 = max(int(np.floor(x)), 0), max(int(np.floor(y)), 0)
    x1, y1 = min(int(np.ceil(x + w)), width), min(int(np.ceil(y + h)), height)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def visible_ink_box(
    image: np.ndarray, bbox, n_chars: int, size: float, *, ink: np.ndarray | None = None
) -> tuple[float, float, float, float] | None:
    """The tight box ``(x, y, w, h)`` of a text block's ink, or None when the block shows too little to be seen.

    Args:
        image: (H, W, 3) uint8 screenshot.
        bbox: the block's box in document px (``TextBlock.bbox``).
        n_chars: characters of its text (whitespace collapsed).
        size: its glyph size in px (``glyph_size``).
        ink: ``ink_mask(image)`` when the caller has it already (the same result, without recomputing the box's
            ink: an edge belongs to the two pixels it joins, so the page's mask cut to the box is the box's mask).
    """
    box = _clip_box(bbox, image.shape)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    if ink is not None:
        return _ink_box(ink[y0:y1, x0:x1], x0, y0, n_chars, size)
    # one column of context each side, so an edge on the box's border is seen from both of its pixels
    left, right = max(x0 - 1, 0), min(x1 + 1, image.shape[1])
    ink = ink_mask(image[y0:y1, left:right])[:, x0 - left : x0 - left + (x1 - x0)]
    return _ink_box(ink, x0, y0, n_chars, size)


def _ink_box(ink: np.ndarray, x0: int, y0: int, n_chars: int, size: float):
    """``visible_ink_box`` on the ink mask of the block's (clipped) box whose top-left is ``(x0, y0)``."""
    columns = ink.any(axis=0)
    if n_chars <= 0 or columns.sum() < MIN_INK_COLUMNS * ink.shape[1] or ink.sum() < MIN_INK_PER_CHAR * n_chars * size:
        return None
    xs = np.flatnonzero(columns)
    ys = np.flatnonzero(ink.any(axis=1))
    return float(x0 + xs[0]), float(y0 + ys[0]), float(xs[-1] - xs[0] + 1), float(ys[-1] - ys[0] + 1)


@dataclass(frozen=True)
class InkProfile:
    """A screenshot's ink counted per square tile (``TILES_ACROSS`` tiles across the page, so tiles of pages of
    different widths line up in normalised coordinates).

    Attributes:
        width: screenshot width in px.
        ink: (rows, cols) float64 ink pixels per tile.
        backed: the same counting only backed ink (equal to ``ink`` when the profile was built without a layout).
    """

    width: int
    ink: np.ndarray
    backed: np.ndarray


def _backing(layout, ink: np.ndarray) -> np.ndarray:
    """Where the page's own content accounts for ink: visible text, replaced elements, element left/right edges."""
    height, width = ink.shape
    mask = np.zeros((height, width), dtype=bool)
    for block in layout.text_blocks:
        n = len(" ".join(block.text.split()))
        size = glyph_size(block.bbox, n, block.font_size)
        box = _clip_box(block.bbox, ink.shape) if size >= MIN_TEXT_PX else None
        if box is None or _ink_box(ink[box[1] : box[3], box[0] : box[2]], box[0], box[1], n, size) is None:
            continue
        mask[max(box[1] - 1, 0) : box[3] + 1, max(box[0] - 1, 0) : box[2] + 1] = True
    for element in layout.elements:
        box = _clip_box(element.bbox, ink.shape)
        if box is None:
            continue
        x0, y0, x1, y1 = box
        if element.tag in _REPLACED:
            mask[y0:y1, x0:x1] = True
        elif element.tag == "li":  # its marker (bullet, number) sits left of its box
            mask[y0:y1, max(x0 - _MARKER_PX, 0) : x0] = True
        for edge in (x0, x1):
            mask[y0:y1, max(edge - _EDGE_PX, 0) : min(edge + _EDGE_PX, width)] = True
    return mask


def _tiles(mask: np.ndarray, tile: int) -> np.ndarray:
    height, width = mask.shape
    rows, cols = -(-height // tile), -(-width // tile)
    padded = np.zeros((rows * tile, cols * tile), dtype=np.uint8)
    padded[:height, :width] = mask
    # integer counts (exact whatever the summation order): one reshape-sum instead of two reduceat passes
    return padded.reshape(rows, tile, cols, tile).sum(axis=(1, 3), dtype=np.int32).astype(np.float64)


def ink_profile(image: np.ndarray, layout=None, *, mask: np.ndarray | None = None) -> InkProfile:
    """Tile counts of a screenshot's ink, and of its backed ink when the page's ``layout`` is given.

    Args:
        image: (H, W, 3) uint8 screenshot.
        layout: the ``vcoder.layout.Layout`` of the same render (a page); None for a reference known by its image
            (all its ink counts as backed).
        mask: ``ink_mask(image)`` when the caller has it already.
    """
    mask = ink_mask(image) if mask is None else mask
    tile = max(2, round(image.shape[1] / TILES_ACROSS))
    ink = _tiles(mask, tile)
    backed = ink if layout is None else _tiles(mask & _backing(layout, mask), tile)
    return InkProfile(int(image.shape[1]), ink, backed)


def ink_evidence(ref: InkProfile, page: InkProfile) -> float:
    """How much of the reference's ink the page shows, backed by its own content, in [0, 1].

    ``min(E_ref, B_page) / max(E_ref, E_page)`` with E the ink and B the backed ink (page counts scaled to the
    reference's width): a blank page, a canvas drawing, hidden text or coloured bars score near 0; missing half the
    content or repeating it twice score near 0.5. Two pages without ink score 1.
    """
    scale = ref.width / max(page.width, 1)
    e_ref = float(ref.ink.sum())
    e_page, b_page = float(page.ink.sum()) * scale, float(page.backed.sum()) * scale
    if max(e_ref, e_page) <= 0:
        return 1.0
    return float(min(e_ref, b_page) / max(e_ref, e_page))


def _blur(tiles: np.ndarray) -> np.ndarray:
    padded = np.pad(tiles, 1)
    h, w = tiles.shape
    return sum(padded[i : i + h, j : j + w] for i in range(3) for j in range(3))


def _content_rows(tiles: np.ndarray, rows: int | None = None) -> np.ndarray:
    """The tile rows from the first to the last with ink, resampled to ``rows`` rows keeping the ink mass."""
    filled = np.flatnonzero(tiles.sum(axis=1) > 0)
    if filled.size == 0:
        return np.zeros((rows or 0, tiles.shape[1]))
    content = tiles[filled[0] : filled[-1] + 1]
    if rows is None or rows == len(content):
        return content
    cumulative = np.vstack([np.zeros((1, tiles.shape[1])), np.cumsum(content, axis=0)])
    at = np.linspace(0.0, len(content), rows + 1)
    sampled = np.stack(
        [np.interp(at, np.arange(len(content) + 1), cumulative[:, j]) for j in range(tiles.shape[1])], 1
    )
    return np.diff(sampled, axis=0)


def ink_layout_similarity(ref: InkProfile, page: InkProfile) -> float:
    """Whether the page's backed ink lies where the reference's ink lies, in [0, 1].

    Both maps are cut to their content (first to last tile row with ink) and the page's content is resampled to
    the reference's number of rows (keeping its ink), so spacing that grows down the page costs little while a
    page with half the content, twice the content or content in the wrong places compares badly. Then the weighted
    Jaccard ``sum(min) / sum(max)`` of the two maps (page counts scaled to the reference's width), each summed over
    3 x 3 tiles so a shift of a tile or less costs little. Two pages without ink score 1; one without, 0.
    """
    a = _content_rows(ref.ink)
    b = _content_rows(page.backed, len(a) if len(a) else None) * (ref.width / max(page.width, 1))
    if not len(a) or not len(b) or not a.any() or not b.any():
        return 1.0 if not a.any() and not b.any() else 0.0
    cols = max(a.shape[1], b.shape[1])
    a, b = _blur(np.pad(a, ((0, 0), (0, cols - a.shape[1])))), _blur(np.pad(b, ((0, 0), (0, cols - b.shape[1]))))
    return float(np.minimum(a, b).sum() / np.maximum(a, b).sum())
