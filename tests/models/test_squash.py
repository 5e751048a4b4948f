"""The tensor squash-resize against OpenCV's (``squash_to_square``, the reference), and its taps' known values."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vcoder.metrics.clip import squash_to_square  # noqa: E402
from vcoder.models.squash import axis_taps, squash_normalise  # noqa: E402

# in grey levels: mean 0 and std 1/255 undo the normalisation
_GREY = dict(mean=(0.0, 0.0, 0.0), std=(1 / 255,) * 3)


def _random(h, w, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


def test_area_taps_known_values():
    index, weight = axis_taps(3, 2, "area")  # each output cell covers 1.5 source pixels
    assert index.tolist() == [[0, 1], [1, 2]]
    assert np.allclose(weight, [[2 / 3, 1 / 3], [1 / 3, 2 / 3]])
    index, weight = axis_taps(4, 2, "area")
    assert index.tolist() == [[0, 1], [2, 3]] and np.allclose(weight, 0.5)


def test_cubic_taps_at_scale_one_copy_the_input_and_clamp_the_border():
    index, weight = axis_taps(5, 5, "cubic")
    assert index[0].tolist() == [0, 0, 1, 2]  # the tap left of pixel 0 replicates the border
    assert np.allclose(weight, [[0.0, 1.0, 0.0, 0.0]] * 5)


@pytest.mark.parametrize(
    "src,dst,mode", [(1552, 224, "area"), (3900, 64, "area"), (30, 224, "cubic"), (100, 224, "linear_area")]
)
def test_taps_weigh_to_one(src, dst, mode):
    index, weight = axis_taps(src, dst, mode)
    assert index.min() >= 0 and index.max() < src
    assert np.allclose(weight.sum(1), 1.0, atol=4 / 2048)  # cubic/linear weights are rounded to 1/2048 each


def test_bad_taps_are_refused():
    with pytest.raises(ValueError, match="only shrinks"):
        axis_taps(10, 20, "area")
    with pytest.raises(ValueError, match="mode="):
        axis_taps(10, 5, "lanczos")
    with pytest.raises(ValueError, match=">= 1"):
        axis_taps(0, 5, "cubic")


@pytest.mark.parametrize(
    "shape,size,share",
    [
        ((720, 1280), 224, 0.001),  # a viewport screenshot: OpenCV's float area path
        ((1552, 1280), 224, 0.001),
        ((3900, 1280), 64, 0.001),
        ((448, 448), 224, 0.0),  # the 2x2 box average (its own rounding)
        ((1344, 1344), 224, 0.0),  # an integer factor
        ((30, 40), 224, 0.06),  # bicubic growth: OpenCV's SIMD rounds an intermediate sum
        ((223, 300), 224, 0.15),  # INTER_AREA on a page that grows along one axis
        ((1, 5), 64, 0.0),
    ],
)
def test_matches_opencv_within_one_grey_level(shape, size, share):
    for image in (_random(*shape), np.indices(shape).sum(0)[..., None].repeat(3, 2).astype(np.uint8)):
        reference = squash_to_square(image, size).astype(np.float32)
        got = squash_normalise([image], size, device="cpu", **_GREY)[0].permute(1, 2, 0).numpy()
        diff = np.abs(got - reference)
        assert diff.max() <= 1.0 + 1e-3
        assert (diff > 0.5).mean() <= share


def test_batch_normalises_like_the_formula_and_keeps_order():
    pages = [_random(720, 1280, seed=1), _random(400, 320, seed=2), _random(720, 1280, seed=3)]
    mean, std = (0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711)
    batch = squash_normalise(pages, 64, mean=mean, std=std, device="cpu")
    assert batch.shape == (3, 3, 64, 64) and batch.dtype == torch.float32
    for k, page in enumerate(pages):
        alone = squash_normalise([page], 64, device="cpu", **_GREY)[0]
        expected = (alone / 255 - torch.tensor(mean).view(3, 1, 1)) / torch.tensor(std).view(3, 1, 1)
        assert torch.allclose(batch[k], expected, atol=1e-5)


def test_bad_pages_are_refused():
    with pytest.raises(ValueError, match=r"images\[1\]"):
        squash_normalise([_random(10, 10), np.zeros((10, 10), np.uint8)], 8, device="cpu", **_GREY)
    with pytest.raises(ValueError, match="size=0"):
        squash_normalise([_random(10, 10)], 0, device="cpu", **_GREY)
