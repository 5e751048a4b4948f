"""The pure CLIP helpers: cosine, text masking, whole-page squashing."""

from __future__ import annotations

import numpy as np
import pytest

from vcoder.metrics.clip import clip_similarities, clip_similarity, mask_text, squash_to_square


def test_cosine_values_and_range():
    assert clip_similarity([1.0, 0.0], [3.0, 0.0]) == 1.0
    assert clip_similarity([1.0, 0.0], [0.0, 2.0]) == 0.0
    assert clip_similarity([1.0, 0.0], [-1.0, 0.0]) == 0.0  # clipped
    assert clip_similarity([1.0, 1.0], [1.0, 0.0]) == pytest.approx(np.sqrt(0.5))
    a = np.random.default_rng(0).normal(size=(5, 16))
    sims = clip_similarities(a, a)
    assert sims.shape == (5,) and np.allclose(sims, 1.0)
    assert clip_similarities(a, a[0]).shape == (5,)


def test_cosine_validation():
    with pytest.raises(ValueError, match="all-zero"):
        clip_similarity([0.0, 0.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="NaN"):
        clip_similarity([np.nan, 1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="do not pair"):
        clip_similarities(np.ones((3, 4)), np.ones((2, 4)))


def test_mask_text_inpaints_boxes_only():
    img = np.full((60, 80, 3), 240, dtype=np.uint8)
    img[20:30, 10:50] = 0  # "text"
    img[50:55, 60:70] = (255, 0, 0)  # an image outside any text box
    out = mask_text(img, [(8, 18, 45, 14)])
    assert out is not img and (img[20:30, 10:50] == 0).all()  # input untouched
    assert np.abs(out[20:30, 10:50].astype(int) - 240).max() < 40  # text gone, background filled in
    assert (out[50:55, 60:70] == (255, 0, 0)).all()
    assert (mask_text(img, []) == img).all()
    assert (mask_text(img, [(-10, -10, 5, 5), (500, 500, 10, 10)]) == img).all()


def test_squash_keeps_the_whole_page():
    page = np.full((3000, 1280, 3), 255, dtype=np.uint8)
    page[:200] = (255, 0, 0)  # header
    page[-200:] = (0, 0, 255)  # footer: a centre crop would drop both
    sq = squash_to_square(page, 224)
    assert sq.shape == (224, 224, 3)
    assert tuple(sq[2, 112]) == (255, 0, 0) and tuple(sq[-3, 112]) == (0, 0, 255)
    assert squash_to_square(np.zeros((10, 10, 3), np.uint8), 64).shape == (64, 64, 3)
    with pytest.raises(ValueError, match="size=0"):
        squash_to_square(page, 0)
