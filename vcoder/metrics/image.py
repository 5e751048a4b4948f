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
    "histogram_similarity",
    "is_blank",
    "ssim",
]


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
    from skimage.metrics import structural_similarity

    a, b = align(ref, pred, width=width)
    if scale < 1.0:
        w, h = max(1, round(a.shape[1] * scale)), max(1, round(a.shape[0] * scale))
        a, b = _resize(a, w, h), _resize(b, w, h)
    if min(a.shape[:2]) < 7:  # SSIM's 7x7 window needs at least 7 pixels each way
        h, w = max(7, a.shape[0]), max(7, a.shape[1])
        a, b = _resize(a, w, h), _resize(b, w, h)
    ga = cv2.cvtColor(a, cv2.COLOR_RGB2GRAY)
    gb = cv2.cvtColor(b, cv2.COLOR_RGB2GRAY)
    value = structural_similarity(ga, gb, data_range=255)
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
    image = check_screenshot(image, "image")
    pixels = image.reshape(-1, 3)
    sample = pixels[:: max(1, len(pixels) // 20_000)].astype(np.int64)  # the mode of a sample is enough
    packed = (sample[:, 0] << 16) | (sample[:, 1] << 8) | sample[:, 2]
    values, counts = np.unique(packed, return_counts=True)
    mode = int(values[np.argmax(counts)])
    background = np.array([mode >> 16, (mode >> 8) & 255, mode & 255], dtype=np.int16)
    diff = np.abs(pixels.astype(np.int16) - background).max(axis=1)
    return float((diff > tolerance).mean())


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
