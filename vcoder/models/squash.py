"""The whole-page squash-resize and CLIP normalisation as tensor operations on the model's device.

``vcoder.metrics.clip.squash_to_square`` (OpenCV, one page at a time, on the CPU) is the reference: the area
filter when the page shrinks, the bicubic one when it grows. Here each filter is written as per-axis taps (source
index and weight for every output pixel), the same taps OpenCV computes (``computeResizeAreaTab`` for a true area
resize, the cubic and "area as linear" coefficients of ``resizeGeneric`` otherwise, quantised to 1/2048 as its
8-bit path does), so a page resized here differs from OpenCV's by at most one grey level on a few pixels. On a GPU
this replaces the part that dominated CLIP embedding (> 94% of the time on an H100, measured: the model alone
runs 17x faster than the CPU can resize pages for it). Where a page is smaller than the model's input along some
axis, OpenCV's SIMD code rounds an intermediate sum, so up to ~13% of pixels differ by one grey level there
(measured); pages at least ``size`` pixels on both sides differ on < 0.1% of pixels.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from vcoder.metrics.image import check_screenshot

__all__ = ["axis_taps", "check_pages", "squash_normalise"]

_COEF_SCALE = 2048  # OpenCV's INTER_RESIZE_COEF_SCALE: 8-bit cubic/linear coefficients are multiples of 1/2048
_CUBIC_A = -0.75  # OpenCV's bicubic kernel parameter


def _area_taps(src: int, dst: int) -> list[list[tuple[int, float]]]:
    # exact overlap of each output cell with the source pixels (OpenCV's computeResizeAreaTab, 1e-3 cut-offs kept)
    scale = src / dst
    rows = []
    for d in range(dst):
        f1 = d * scale
        f2 = f1 + scale
        cell = min(scale, src - f1)
        s2 = min(math.floor(f2), src - 1)
        s1 = min(math.ceil(f1), s2)
        taps = []
        if s1 - f1 > 1e-3:
            taps.append((s1 - 1, (s1 - f1) / cell))
        taps.extend((s, 1.0 / cell) for s in range(s1, s2))
        if f2 - s2 > 1e-3:
            taps.append((s2, min(min(f2 - s2, 1.0), cell) / cell))
        rows.append(taps)
    return rows


def _cubic_weights(x: float) -> list[float]:
    a = _CUBIC_A
    w0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    w1 = ((a + 2) * x - (a + 3)) * x * x + 1
    w2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    return [w0, w1, w2, 1.0 - w0 - w1 - w2]


def _generic_taps(src: int, dst: int, mode: str) -> list[list[tuple[int, float]]]:
    # OpenCV's resizeGeneric coefficients: "cubic" (4 taps, replicated border) or "linear_area" (2 taps: what
    # INTER_AREA does when the page grows along some axis); weights are rounded to 1/2048 like its 8-bit path
    scale, inv = src / dst, dst / src
    rows = []
    for d in range(dst):
        if mode == "cubic":
            fx = (d + 0.5) * scale - 0.5
            s = math.floor(fx)
            fx -= s
            weights = _cubic_weights(fx)
            first = s - 1
        else:
            s = math.floor(d * scale)
            fx = (d + 1) - (s + 1) * inv
            fx = 0.0 if fx <= 0 else fx - math.floor(fx)
            if s < 0:
                fx, s = 0.0, 0
            if s >= src - 1:
                fx, s = 0.0, src - 1
            weights = [1.0 - fx, fx]
            first = s
        weights = [round(w * _COEF_SCALE) / _COEF_SCALE for w in weights]
        rows.append([(min(max(first + k, 0), src - 1), w) for k, w in enumerate(weights)])
    return rows


@functools.lru_cache(maxsize=512)
def axis_taps(src: int, dst: int, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Source indices and weights that resize one axis from ``src`` to ``dst`` pixels.

    Args:
        src: input length (>= 1).
        dst: output length (>= 1).
        mode: "area" (OpenCV INTER_AREA, ``src >= dst``), "cubic" (INTER_CUBIC) or "linear_area" (INTER_AREA
            on a page that grows along some axis).

    Returns:
        ``(index, weight)``: (dst, K) int64 and (dst, K) float32; output pixel ``d`` is
        ``sum_k weight[d, k] * input[index[d, k]]`` (unused taps have weight 0).
    """
    if src < 1 or dst < 1:
        raise ValueError(f"axis lengths must be >= 1, got src={src} dst={dst}")
    if mode == "area":
        if src < dst:
            raise ValueError(f"the area filter only shrinks (src={src} < dst={dst}); use 'linear_area' or 'cubic'")
        rows = _area_taps(src, dst)
    elif mode in ("cubic", "linear_area"):
        rows = _generic_taps(src, dst, mode)
    else:
        raise ValueError(f"mode={mode!r} must be 'area', 'cubic' or 'linear_area'")
    width = max(len(r) for r in rows)
    index = np.zeros((dst, width), dtype=np.int64)
    weight = np.zeros((dst, width), dtype=np.float32)
    for d, taps in enumerate(rows):
        for k, (s, w) in enumerate(taps):
            index[d, k], weight[d, k] = s, w
    return index, weight


def _mode(height: int, width: int, size: int) -> str:
    # the filter squash_to_square asks OpenCV for, and what OpenCV then does along both axes
    if height * width <= size * size:
        return "cubic"
    if height >= size and width >= size:
        return "area"
    return "linear_area"


@functools.lru_cache(maxsize=512)
def _device_taps(src: int, dst: int, mode: str, device: str):
    import torch

    return tuple(torch.from_numpy(a).to(device) for a in axis_taps(src, dst, mode))


def _resize_axis(x, taps, dim: int):
    # gather the K source lines of every output line, weight them, sum over K
    index, weight = taps
    shape = list(x.shape)
    shape[dim : dim + 1] = list(index.shape)
    gathered = x.index_select(dim, index.reshape(-1)).reshape(shape)
    view = [1] * len(shape)
    view[dim : dim + 2] = list(weight.shape)
    return (gathered * weight.view(view)).sum(dim + 1)


def check_pages(images: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The pages' RGB views; ValueError names the first that is not a screenshot (``check_screenshot``)."""
    return [check_screenshot(image, f"images[{k}]") for k, image in enumerate(images)]


def squash_normalise(images: Sequence[np.ndarray], size: int, *, mean, std, device):
    """Squash whole pages to ``size`` x ``size`` and normalise them for CLIP, on ``device``.

    Equal (to within one grey level before normalisation) to ``squash_to_square`` per page followed by
    ``(x / 255 - mean) / std``. Only the uint8 pages travel to the device.

    Args:
        images: (H, W, 3) uint8 RGB arrays of any sizes.
        size: the model's square input side.
        mean: per-channel mean (3 floats).
        std: per-channel standard deviation (3 floats).
        device: torch device the result lives on (the model's).

    Returns:
        (N, 3, size, size) float32 tensor on ``device``.
    """
    import torch

    if size < 1:
        raise ValueError(f"size={size} must be >= 1")
    images = check_pages(images)
    out = torch.empty((len(images), 3, size, size), dtype=torch.float32, device=device)
    for k, image in enumerate(images):
        # one page at a time: the transient tensors stay ~100 MB even for 4000 px pages (a GPU shared with training)
        height, width = image.shape[:2]
        mode = _mode(height, width, size)
        x = torch.from_numpy(np.ascontiguousarray(image)).to(device).float()
        if mode == "area" and height % size == 0 and width % size == 0:
            # OpenCV's integer-factor box average: an exact sum times 1/area, rounded (halves up in its 2x2 path)
            ky, kx = height // size, width // size
            x = x.view(size, ky, size, kx, 3).sum((1, 3)).mul_(1.0 / (ky * kx))
            x = x.add_(0.5).floor_() if ky == kx == 2 else x.round_()
        else:
            x = _resize_axis(x, _device_taps(height, size, mode, str(device)), 0)
            x = _resize_axis(x, _device_taps(width, size, mode, str(device)), 1).round_()
        out[k] = x.clamp_(0, 255).permute(2, 0, 1)
    mean_t = torch.tensor(mean, dtype=torch.float32, device=device).view(1, 3, 1, 1)
    std_t = torch.tensor(std, dtype=torch.float32, device=device).view(1, 3, 1, 1)
    return out.div_(255.0).sub_(mean_t).div_(std_t)
