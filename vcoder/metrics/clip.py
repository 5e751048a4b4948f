"""The pure half of CLIP similarity: embedding cosine, text masking and whole-page squashing (no torch here).

Design2Code's CLIP score embeds each page after inpainting its text boxes (so CLIP compares layout and imagery,
not glyphs) and after resizing the whole page to a square; embeddings come from ``vcoder.models.clip.load_clip``.

References:
    Radford, A. et al. "Learning Transferable Visual Models From Natural Language Supervision." ICML 2021.
    Si, C. et al. "Design2Code: How Far Are We From Automating Front-End Engineering?" arXiv:2403.03163 (2024).
    Telea, A. "An Image Inpainting Technique Based on the Fast Marching Method." JGT 9(1), 2004.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from vcoder.metrics.image import check_screenshot

__all__ = ["clip_similarities", "clip_similarity", "mask_text", "squash_to_square"]


def _as_matrix(x, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be an embedding (D,) or a batch (N, D), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or inf; re-embed the image (was the model loaded with weights?)")
    norms = np.linalg.norm(arr, axis=1)
    if (norms == 0).any():
        raise ValueError(f"{name} has an all-zero embedding, which has no direction; it is not a CLIP embedding")
    return arr / norms[:, None]


def clip_similarities(a, b) -> np.ndarray:
    """Row-wise cosine similarity of two embedding batches, each clipped to [0, 1].

    Args:
        a: (N, D) embeddings (need not be normalised).
        b: (N, D) embeddings, paired with ``a`` row by row (or (D,) / (1, D) to compare every row with one).

    Returns:
        (N,) float64 array in [0, 1].
    """
    ma, mb = _as_matrix(a, "a"), _as_matrix(b, "b")
    if ma.shape[1] != mb.shape[1] or (len(ma) != len(mb) and len(mb) != 1):
        raise ValueError(f"embedding shapes {ma.shape} and {mb.shape} do not pair up; embed both with one model")
    return np.clip((ma * mb).sum(axis=1), 0.0, 1.0)


def clip_similarity(a, b) -> float:
    """Cosine similarity of two L2-normalised CLIP embeddings, clipped to [0, 1].

    Args:
        a: (D,) embedding.
        b: (D,) embedding from the same model.

    Returns:
        The similarity in [0, 1] (negative cosines, rare between images, count as 0).

    Example:
        >>> clip_similarity([1.0, 0.0], [2.0, 0.0])
        1.0
    """
    return float(clip_similarities(a, b)[0])


def mask_text(image: np.ndarray, boxes: Iterable[tuple[float, float, float, float]]) -> np.ndarray:
    """Inpaint text boxes away (OpenCV Telea, radius 3), as Design2Code does before CLIP.

    Args:
        image: (H, W, 3) uint8 screenshot.
        boxes: ``(x, y, w, h)`` boxes in pixels (e.g. ``TextBlock.bbox``); parts outside the image are ignored.

    Returns:
        A new (H, W, 3) uint8 image (the input is not modified).
    """
    image = check_screenshot(image)
    import cv2

    height, width = image.shape[:2]
    mask = np.zeros((height, width), dtype=np.uint8)
    for x, y, w, h in boxes:
        x0, y0 = max(int(x), 0), max(int(y), 0)
        x1, y1 = min(int(x + w), width), min(int(y + h), height)
        if x1 > x0 and y1 > y0:
            mask[y0:y1, x0:x1] = 255
    if not mask.any():
        return image.copy()
    return cv2.inpaint(np.ascontiguousarray(image), mask, 3, cv2.INPAINT_TELEA)


def squash_to_square(image: np.ndarray, size: int) -> np.ndarray:
    """Resize the WHOLE page to ``size`` x ``size`` (aspect ratio not kept; never a centre crop).

    A centre crop of a tall page would compare a band in its middle and ignore the header and footer; squashing
    keeps every part of the page in view (Design2Code resizes to a square before CLIP for the same reason).

    Args:
        image: (H, W, 3) uint8.
        size: output side in pixels (the CLIP model's input size, e.g. 224).

    Returns:
        (size, size, 3) uint8.
    """
    if size < 1:
        raise ValueError(f"size={size} must be >= 1")
    image = check_screenshot(image)
    import cv2

    shrinking = image.shape[0] * image.shape[1] > size * size
    return cv2.resize(
        np.ascontiguousarray(image), (size, size), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_CUBIC
    )
