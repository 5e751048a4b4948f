"""Screenshot similarity (SSIM, colour histograms) and blank-page detection.

Size policy (screenshots of two pages rarely have the same size): both images are resized to a common width
(the reference's, or ``width`` when given) keeping their aspect ratio; then the prediction's height is cropped,
or padded with white at the bottom, to the reference's. So a prediction that is too short is compared against
white where the reference has content (it loses), and one that is too long is judged on the part a reader sees
next to the reference. Optional ``scale`` < 1 downsizes both after alignment, for speed.

Whole-image similarity is easy to game: a blank white page scores high against a mostly-white reference. Use
``content_fraction`` / ``is_blank`` / ``content_coverage`` to gate such pages (the reward layer does).

References:
    Wang, Z., Bovik, A. C., Sheikh, H. R., Simoncelli, E. P. "Image quality assessment: from error visibility to
    structural similarity." IEEE TIP 13(4), 2004 (``skimage.metrics.structural_similarity``).
    Swain, M. J., Ballard, D. H. "Color indexing." IJCV 7(1), 1991 (histogram intersection).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "align",
    "check_screenshot",
    "content_coverage",
    "content_fraction",
    "grey_at_width",
    "histogram_similarity",
    "is_blank",
    "ssim",
    "ssim_of_greys",
]

_WINDOW = 7  # SSIM's uniform window (skimage's default)


def check_screenshot(image, name: str = "image") -> np.ndarray:
    """The one check of a screenshot argument: an (H, W, 3|4) uint8 array with at least one pixel.

    Returns:
        Its RGB view (an alpha channel is dropped, nothing is copied).

    Raises:
        ValueError: anything else, naming ``name`` and how to convert a PIL image.
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(
            f"{name} must be an (H, W, 3) uint8 RGB array such as Rendered.image, got {type(image).__name__} with "
            f"shape {getattr(image, 'shape', None)} and dtype {getattr(image, 'dtype', None)}; convert with "
            "np.asarray(pil_image.convert('RGB'))"
        )
    if image.shape[0] == 0 or image.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {image.shape}); a screenshot has at least one pixel")
    return image[..., :3]


def _resize(image: np.ndarray, width: int, height: int) -> np.ndarray:
    import cv2

    if image.shape[1] == width and image.shape[0] == height:
        return image
    shrinking = width < image.shape[1]
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)


def align(ref: np.ndarray, pred: np.ndarray, *, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bring a prediction screenshot to the reference's frame (see the module's size policy).

    Args:
        ref: reference (H, W, 3) uint8.
        pred: prediction (H', W', 3) uint8.
        width: common width; defaults to the reference's.

    Returns:
        ``(ref, pred)`` with identical shapes.
    """
    ref, pred = check_screenshot(ref, "ref"), check_screenshot(pred, "pred")
    width = int(width or ref.shape[1])
    if width < 1:
        raise ValueError(f"width={width} must be >= 1")
    ref = _resize(ref, width, max(1, round(ref.shape[0] * width / ref.shape[1])))
    pred = _resize(pred, width, max(1, round(pred.shape[0] * width / pred.shape[1])))
    height = ref.shape[0]
    if pred.shape[0] >= height:
        pred = pred[:height]
    else:
        pad = np.full((height - pred.shape[0], width, 3), 255, dtype=np.uint8)
        pred = np.concatenate([pred, pad], axis=0)
    return np.ascontiguousarray(ref), np.ascontiguousarray(pred)


def ssim(ref: np.ndarray, pred: np.ndarray, *, width: int | None = None, scale: float = 1.0) -> float:
    """Grayscale structural similarity of two screenshots, in [0, 1].

    Args:
        ref: reference (H, W, 3) uint8 screenshot.
        pred: prediction screenshot, any size (aligned per the module's size policy).
        width: common width for alignment (default: the reference's).
        scale: extra downscale factor in (0, 1] applied after alignment (0.5 is ~4x faster).

    Returns:
        Mean SSIM (7x7 uniform window, data range 255) clipped to [0, 1].
    """
    if not 0.0 < scale <= 1.0:
        raise ValueError(f"scale={scale} must be in (0, 1]; use 0.5 to compare at half resolution")
    import cv2

    ref, pred = check_screenshot(ref, "ref"), check_screenshot(pred, "pred")
    width = int(width or ref.shape[1])
    if scale == 1.0 and min(width, round(ref.shape[0] * width / ref.shape[1])) >= _WINDOW:
        return ssim_of_greys(grey_at_width(ref, width), grey_at_width(pred, width))
    a, b = align(ref, pred, width=width)
    if scale < 1.0:
        w, h = max(1, round(a.shape[1] * scale)), max(1, round(a.shape[0] * scale))
        a, b = _resize(a, w, h), _resize(b, w, h)
    if min(a.shape[:2]) < _WINDOW:  # SSIM's 7x7 window needs at least 7 pixels each way
        h, w = max(_WINDOW, a.shape[0]), max(_WINDOW, a.shape[1])
        a, b = _resize(a, w, h), _resize(b, w, h)
    return _ssim_grey(cv2.cvtColor(a, cv2.COLOR_RGB2GRAY), cv2.cvtColor(b, cv2.COLOR_RGB2GRAY))


def grey_at_width(image: np.ndarray, width: int) -> np.ndarray:
    """A screenshot as ``ssim`` compares it: resized to ``width`` keeping its aspect ratio, then converted to grey.

    Computed once per page, it serves every comparison at that width (``ssim_of_greys``).

    Args:
        image: (H, W, 3) uint8 screenshot.
        width: the common width (``ssim``'s ``width``).

    Returns:
        (round(H * width / W), width) uint8 grey image.
    """
    import cv2

    image = check_screenshot(image, "image")
    if int(width) < 1:
        raise ValueError(f"width={width} must be >= 1")
    height = max(1, round(image.shape[0] * width / image.shape[1]))
    return cv2.cvtColor(np.ascontiguousarray(_resize(image, int(width), height)), cv2.COLOR_RGB2GRAY)


def ssim_of_greys(ref: np.ndarray, pred: np.ndarray) -> float:
    """``ssim`` of two screenshots given as ``grey_at_width`` images of one width, in [0, 1].

    The prediction is cropped, or padded with white at the bottom, to the reference's height (the module's size
    policy); ``ssim(ref_rgb, pred_rgb, width=w)`` equals ``ssim_of_greys(grey_at_width(ref_rgb, w),
    grey_at_width(pred_rgb, w))`` whenever the reference is at least 7 px tall at that width.
    """
    if ref.ndim != 2 or pred.ndim != 2 or ref.shape[1] != pred.shape[1] or ref.dtype != np.uint8:
        raise ValueError(
            f"expected two uint8 grey images of one width (grey_at_width), got shapes {ref.shape} and {pred.shape}"
        )
    if min(ref.shape) < _WINDOW:
        raise ValueError(f"a grey image of shape {ref.shape} is smaller than SSIM's 7x7 window; use ssim()")
    height = ref.shape[0]
    if pred.shape[0] >= height:
        pred = pred[:height]
    else:
        pred = np.concatenate([pred, np.full((height - pred.shape[0], pred.shape[1]), 255, dtype=np.uint8)])
    return _ssim_grey(ref, pred)


def _box_mean(x: np.ndarray) -> np.ndarray:
    import cv2

    # integer-valued float64 input: every window sum is exact, so the mean is the exact mean rounded once
    return cv2.boxFilter(x, cv2.CV_64F, (_WINDOW, _WINDOW), normalize=False, borderType=cv2.BORDER_REFLECT) / (
        _WINDOW * _WINDOW
    )


def _ssim_grey(a: np.ndarray, b: np.ndarray) -> float:
    """Mean SSIM of two uint8 grey images as ``skimage.metrics.structural_similarity(a, b, data_range=255)``
    computes it (7x7 uniform window, sample covariance, K1=0.01, K2=0.03, the 3 px border left out of the mean),
    with exact window sums (skimage's running means differ from them by rounding only: < 1e-13 on the mean)."""
    x, y = a.astype(np.float64), b.astype(np.float64)
    ux, uy = _box_mean(x), _box_mean(y)
    uxx, uyy, uxy = _box_mean(x * x), _box_mean(y * y), _box_mean(x * y)
    n = _WINDOW * _WINDOW
    cov_norm = n / (n - 1)
    vx = cov_norm * (uxx - ux * ux)
    vy = cov_norm * (uyy - uy * uy)
    vxy = cov_norm * (uxy - ux * uy)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux**2 + uy**2 + c1) * (vx + vy + c2))
    pad = (_WINDOW - 1) // 2
    value = s[pad : s.shape[0] - pad, pad : s.shape[1] - pad].mean(dtype=np.float64)
    return float(min(max(value, 0.0), 1.0))


def histogram_similarity(ref: np.ndarray, pred: np.ndarray, *, bins: int = 8) -> float:
    """Colour histogram intersection of two screenshots, in [0, 1] (sizes may differ; no alignment needed).

    Args:
        ref: reference (H, W, 3) uint8.
        pred: prediction (H', W', 3) uint8.
        bins: bins per RGB channel (bins**3 colour cells).

    Returns:
        ``sum(min(h_ref, h_pred))`` over normalised 3-D colour histograms.
    """
    if not 1 <= bins <= 256:
        raise ValueError(f"bins={bins} must be in [1, 256]")
    ref, pred = check_screenshot(ref, "ref"), check_screenshot(pred, "pred")

    def hist(image: np.ndarray) -> np.ndarray:
        q = (image.reshape(-1, 3).astype(np.int64) * bins) // 256
        counts = np.bincount((q[:, 0] * bins + q[:, 1]) * bins + q[:, 2], minlength=bins**3)
        return counts.astype(np.float64) / counts.sum()

    return float(min(np.minimum(hist(ref), hist(pred)).sum(), 1.0))


def content_fraction(image: np.ndarray, *, tolerance: int = 16) -> float:
    """Fraction of pixels that differ from the page's dominant colour, in [0, 1] (0 for a blank page).

    Args:
        image: (H, W, 3) uint8 screenshot.
        tolerance: largest channel difference still counted as background.

    Returns:
        The fraction of "content" pixels.
    """
    import cv2

    image = np.ascontiguousarray(check_screenshot(image, "image"))
    pixels = image.reshape(-1, 3)
    sample = pixels[:: max(1, len(pixels) // 20_000)].astype(np.int64)  # the mode of a sample is enough
    packed = (sample[:, 0] << 16) | (sample[:, 1] << 8) | sample[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    mode = int(values[np.argmax(counts)])
    # |pixel - background| per channel in uint8 (exact), the channels compared elementwise: ~10x faster than
    # widening to int16 and reducing over the last axis
    diff = cv2.absdiff(image, (float(mode >> 16), float((mode >> 8) & 255), float(mode & 255), 0.0))
    content = np.maximum(np.maximum(diff[..., 0], diff[..., 1]), diff[..., 2]) > tolerance
    return float(np.count_nonzero(content) / content.size)


def is_blank(image: np.ndarray, *, threshold: float = 0.002, tolerance: int = 16) -> bool:
    """True when at most ``threshold`` of the pixels differ from the dominant colour (an empty-looking page)."""
    return content_fraction(image, tolerance=tolerance) <= threshold


def content_coverage(ref: np.ndarray, pred: np.ndarray, *, tolerance: int = 16) -> float:
    """How much of the reference's amount of content the prediction shows, in [0, 1].

    ``min(1, content_fraction(pred) / content_fraction(ref))`` (1 when the reference itself is blank). A reward can
    multiply a whole-image similarity by it so that deleting content never pays.
    """
    cr = content_fraction(ref, tolerance=tolerance)
    cp = content_fraction(pred, tolerance=tolerance)
    if cr <= 0.0:
        return 1.0
    return float(min(1.0, cp / cr))
