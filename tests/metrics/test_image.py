"""Screenshot metrics: size policy, SSIM ranges and monotonicity, histograms, blank-page gates."""

from __future__ import annotations

import numpy as np
import pytest

from vcoder.metrics.image import align, content_coverage, content_fraction, histogram_similarity, is_blank, ssim


def _page(height=600, width=400, blocks=8, seed=0):
    rng = np.random.default_rng(seed)
    img = np.full((height, width, 3), 255, dtype=np.uint8)
    for k in range(blocks):
        y = 20 + k * (height - 40) // blocks
        img[y : y + 30, 20 : width - 20] = rng.integers(0, 200, 3)
        img[y + 8 : y + 12, 30 : width // 2] = 0  # a "text" line
    return img


def test_align_policy():
    ref = np.zeros((300, 200, 3), np.uint8)
    short = np.zeros((100, 400, 3), np.uint8)  # half-width scale -> 50 rows, padded with white to 300
    a, b = align(ref, short)
    assert a.shape == b.shape == (300, 200, 3)
    assert (b[:50] == 0).all() and (b[50:] == 255).all()
    tall = np.zeros((1000, 100, 3), np.uint8)  # doubled to 200 wide, 2000 tall, cropped to 300
    assert align(ref, tall)[1].shape == (300, 200, 3)
    assert align(ref, tall, width=100)[0].shape == (150, 100, 3)


def test_ssim_identical_and_range():
    page = _page()
    assert ssim(page, page) == pytest.approx(1.0)
    noise = np.random.default_rng(1).integers(0, 256, page.shape, dtype=np.uint8)
    assert 0.0 <= ssim(page, noise) < 0.2
    assert ssim(page, page, scale=0.5) == pytest.approx(1.0)
    assert ssim(np.zeros((3, 3, 3), np.uint8), np.zeros((6, 6, 3), np.uint8)) == pytest.approx(1.0)  # tiny pages


def test_ssim_falls_with_damage():
    ref = _page()
    scores = []
    for removed in (0, 2, 4, 6, 8):
        pred = ref.copy()
        for k in range(removed):
            y = 20 + k * 560 // 8
            pred[y : y + 30] = 255
        scores.append(ssim(ref, pred))
    assert all(a > b for a, b in zip(scores, scores[1:])), scores


def test_histogram_similarity():
    page = _page()
    assert histogram_similarity(page, page) == pytest.approx(1.0)
    red = np.zeros((10, 10, 3), np.uint8)
    red[..., 0] = 255
    blue = np.zeros((20, 5, 3), np.uint8)
    blue[..., 2] = 255
    assert histogram_similarity(red, blue) == 0.0
    half = np.concatenate([red, red[:, :, ::-1]], axis=0)  # half red, half blue
    assert histogram_similarity(red, half) == pytest.approx(0.5)


def test_blank_page_gates():
    ref = _page(blocks=3)
    blank = np.full_like(ref, 255)
    assert ssim(ref, blank) > 0.5  # why the gate exists: whole-image similarity likes blank pages
    assert is_blank(blank) and not is_blank(ref)
    assert content_fraction(blank) == 0.0 and 0.0 < content_fraction(ref) < 0.5
    assert content_fraction(np.zeros((50, 50, 3), np.uint8)) == 0.0  # any single colour is blank
    assert content_coverage(ref, blank) == 0.0 and content_coverage(ref, ref) == 1.0
    assert content_coverage(blank, ref) == 1.0


def test_validation():
    with pytest.raises(ValueError, match="uint8"):
        ssim(np.zeros((10, 10)), np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="scale=0"):
        ssim(_page(), _page(), scale=0)
    with pytest.raises(ValueError, match="empty"):
        content_fraction(np.zeros((0, 4, 3), np.uint8))
