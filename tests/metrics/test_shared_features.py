"""The forms the rewards compute once and share give what the one-shot metrics give.

``grey_at_width`` + ``ssim_of_greys`` vs ``ssim`` (and ``ssim`` vs scikit-image, the outside reference),
``content_fraction`` vs its literal definition, a page's ink mask passed in vs recomputed per box, prepared blocks vs
``match_blocks``, Euler tours vs ``dom_similarity``.
"""

from __future__ import annotations

import numpy as np
import pytest

from vcoder.layout import ElementBox, Layout, TextBlock
from vcoder.metrics import (
    content_fraction,
    dom_similarity,
    dom_tokens,
    grey_at_width,
    ink_mask,
    ink_profile,
    match_blocks,
    match_prepared_blocks,
    page_blocks,
    ssim,
    ssim_of_greys,
    tour_similarity,
)
from vcoder.metrics._blocks import prepare_blocks
from vcoder.metrics.ink import visible_ink_box


def _page(seed: int, height: int = 500, width: int = 640) -> tuple[np.ndarray, Layout]:
    """A screenshot with coloured boxes and glyph-like strokes, and a layout naming its text blocks."""
    rng = np.random.default_rng(seed)
    img = np.full((height, width, 3), rng.integers(200, 256, 3), dtype=np.uint8)
    blocks, elements = [], []
    for k in range(8):
        x, y = int(rng.integers(0, width - 200)), int(rng.integers(0, height - 40))
        img[y : y + 30, x : x + 180] = rng.integers(150, 256, 3)
        for c in range(int(rng.integers(12, 22))):
            img[y + 6 : y + 20, x + 4 + 8 * c : x + 6 + 8 * c] = rng.integers(0, 100, 3)
        # some boxes stick out of the page or sit on its edge: the shared mask must agree there too
        box = (float(x) - (k == 0) * 30, float(y), 180.0 + (k == 1) * 900, 30.0)
        blocks.append(TextBlock(f"block {k} " + "word " * k, box, (0, 0, 0), (255, 255, 255), 16.0, 400, "p"))
        elements.append(ElementBox("div" if k % 3 else "li", 2, box))
    return img, Layout(width, height, tuple(blocks), tuple(elements))


def _literal_content_fraction(image: np.ndarray, tolerance: int = 16) -> float:
    pixels = image[..., :3].reshape(-1, 3)
    sample = pixels[:: max(1, len(pixels) // 20_000)].astype(np.int64)
    values, counts = np.unique((sample[:, 0] << 16) | (sample[:, 1] << 8) | sample[:, 2], return_counts=True)
    mode = int(values[np.argmax(counts)])
    background = np.array([mode >> 16, (mode >> 8) & 255, mode & 255], dtype=np.int16)
    return float((np.abs(pixels.astype(np.int16) - background).max(axis=1) > tolerance).mean())


@pytest.mark.parametrize("seed", range(6))
def test_content_fraction_is_its_literal_definition(seed):
    img, _ = _page(seed)
    for view in (img, img[::3, ::3], np.dstack([img, img[..., :1]])):
        for tolerance in (0, 16, 200):
            assert content_fraction(view, tolerance=tolerance) == _literal_content_fraction(view, tolerance)


@pytest.mark.parametrize("width", [320, 640, 97])
def test_ssim_from_greys_equals_ssim_and_scikit_image(width):
    import cv2
    from skimage.metrics import structural_similarity

    from vcoder.metrics.image import align

    for seed in range(4):
        ref, _ = _page(seed)
        pred, _ = _page(seed + 10, height=300 + 150 * seed)  # shorter and taller pages: padded and cropped
        value = ssim(ref, pred, width=width)
        assert ssim_of_greys(grey_at_width(ref, width), grey_at_width(pred, width)) == value
        a, b = align(ref, pred, width=width)
        grey = [cv2.cvtColor(x, cv2.COLOR_RGB2GRAY) for x in (a, b)]
        expected = min(max(structural_similarity(*grey, data_range=255), 0.0), 1.0)
        assert abs(value - expected) <= 1e-12
    with pytest.raises(ValueError, match="window"):
        ssim_of_greys(np.zeros((5, 50), np.uint8), np.zeros((5, 50), np.uint8))


@pytest.mark.parametrize("seed", range(6))
def test_a_pages_ink_mask_passed_in_gives_the_same_boxes_profiles_and_blocks(seed):
    img, layout = _page(seed)
    mask = ink_mask(img)
    for block in layout.text_blocks:
        n = len(block.text)
        assert visible_ink_box(img, block.bbox, n, 10.0, ink=mask) == visible_ink_box(img, block.bbox, n, 10.0)
    for lay in (None, layout):
        a, b = ink_profile(img, lay, mask=mask), ink_profile(img, lay)
        assert np.array_equal(a.ink, b.ink) and np.array_equal(a.backed, b.backed)
    assert prepare_blocks(layout, img, ink=mask) == prepare_blocks(layout, img)
    assert len(prepare_blocks(layout, img)) >= 4  # the pages do have visible blocks


@pytest.mark.parametrize("seed", range(6))
def test_prepared_blocks_match_as_match_blocks_does(seed):
    ref_img, ref = _page(seed)
    pred_img, pred = _page(seed + 1)
    for images in ((ref_img, pred_img), (None, None)):
        expected = match_blocks(ref, pred, ref_image=images[0], pred_image=images[1])
        got = match_prepared_blocks(page_blocks(ref, images[0]), page_blocks(pred, images[1]))
        assert got == expected
    with pytest.raises(ValueError, match="positive size"):
        page_blocks(Layout(0, 10))


def test_tours_give_dom_similarity():
    pages = ["<div><p>a</p><p>b</p></div>", "<div><span>b</span></div>", "", "<ul><li>x<li>y</ul>"]
    for a in pages:
        for b in pages:
            assert tour_similarity(dom_tokens(a), dom_tokens(b)) == dom_similarity(a, b)
