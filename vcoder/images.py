"""Image normalisation, defined once: every image form vcoder meets as one PIL image, RGB array or PNG.

Images arrive as PIL images, ``(H, W)``/``(H, W, 3)``/``(H, W, 4)`` arrays, encoded bytes, file paths, or the
``{"bytes": ..., "path": ...}`` cells ``datasets`` stores in parquet. A leaf module: NumPy, Pillow and OpenCV are
imported inside the functions, so importing it costs nothing.
"""

from __future__ import annotations

import io
import os
from typing import Any

__all__ = ["decode_png", "image_size", "resize_to_max_pixels", "to_pil", "to_png", "to_rgb_array"]


def to_pil(image: Any):
    """Any image form as a PIL RGB image.

    Args:
        image: a PIL image, an array (grey, RGB or RGBA, uint8), encoded bytes, a path, or a dataset image cell.

    Raises:
        ValueError: an empty dataset cell or an array that is not an image (the message shows its shape).
    """
    from PIL import Image

    if isinstance(image, dict):
        value = image.get("bytes") or image.get("path")
        if not value:
            raise ValueError("image cell has neither bytes nor path; the dataset's image column is empty")
        image = value
    if isinstance(image, Image.Image):
        return image.convert("RGB")
    if isinstance(image, (bytes, bytearray, memoryview)):
        with Image.open(io.BytesIO(bytes(image))) as img:
            return img.convert("RGB")
    if isinstance(image, (str, os.PathLike)):
        with Image.open(image) as img:
            return img.convert("RGB")
    return Image.fromarray(to_rgb_array(image))


def to_rgb_array(image: Any):
    """Any image form as a contiguous ``(H, W, 3)`` uint8 RGB array (an alpha channel is dropped).

    Raises:
        ValueError: an array that is neither ``(H, W)`` nor ``(H, W, 3|4)``.
    """
    import numpy as np

    if isinstance(image, (dict, bytes, bytearray, memoryview, str, os.PathLike)) or _is_pil(image):
        return np.asarray(to_pil(image))
    arr = np.asarray(image)
    if arr.ndim == 2:
        arr = np.stack([arr] * 3, axis=-1)
    if arr.ndim != 3 or arr.shape[2] not in (3, 4):
        raise ValueError(f"an image array must be (H, W), (H, W, 3) or (H, W, 4); got shape {arr.shape}")
    return np.ascontiguousarray(arr[..., :3].astype(np.uint8, copy=False))


def to_png(image: Any, *, max_side: int | None = None) -> bytes:
    """Any image form as PNG bytes; with ``max_side``, downscaled so its longer side is at most that.

    PNG bytes that need no resizing are returned as they are (no re-encoding).
    """
    if isinstance(image, (bytes, bytearray)) and bytes(image[:4]) == b"\x89PNG" and max_side is None:
        return bytes(image)
    pil = to_pil(image)
    if max_side is not None and max(pil.size) > max_side:
        scale = max_side / max(pil.size)
        pil = pil.resize((max(1, round(pil.width * scale)), max(1, round(pil.height * scale))))
    buf = io.BytesIO()
    pil.save(buf, format="PNG")
    return buf.getvalue()


def decode_png(data: bytes):
    """Encoded image bytes (PNG on the hot path) as an ``(H, W, 3)`` uint8 RGB array.

    OpenCV decodes PNG about twice as fast as Pillow, and every reward decodes each render's screenshot.
    """
    import cv2
    import numpy as np

    buffer = np.frombuffer(data, dtype=np.uint8)
    if hasattr(cv2, "IMREAD_COLOR_RGB"):  # OpenCV >= 4.10 decodes to RGB directly: no channel swap afterwards
        rgb = cv2.imdecode(buffer, cv2.IMREAD_COLOR_RGB)
        return to_rgb_array(data) if rgb is None else rgb
    bgr = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    if bgr is None:  # a format OpenCV does not read
        return to_rgb_array(data)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def image_size(value: Any) -> tuple[int, int]:
    """(width, height) of an image column value, reading only the header where it can."""
    from PIL import Image

    if isinstance(value, Image.Image):
        return value.size
    if isinstance(value, dict):
        value = value.get("bytes") or value.get("path")
    src = io.BytesIO(value) if isinstance(value, (bytes, bytearray)) else value
    with Image.open(src) as img:
        return img.size


def resize_to_max_pixels(image: Any, max_pixels: int | None):
    """A PIL RGB image downscaled (keeping aspect, bicubic as the Qwen processors resize) to at most ``max_pixels``
    pixels; an RGB PIL image that is small enough (or ``max_pixels=None``) is returned as it is, never upscaled."""
    if max_pixels is not None and max_pixels <= 0:
        raise ValueError(f"max_pixels must be positive or None, got {max_pixels}")
    pil = image if _is_pil(image) and image.mode == "RGB" else to_pil(image)
    if max_pixels is None or pil.width * pil.height <= max_pixels:
        return pil
    scale = (max_pixels / (pil.width * pil.height)) ** 0.5
    size = (max(1, int(pil.width * scale)), max(1, int(pil.height * scale)))
    return pil.resize(size, resample=3)


def _is_pil(image: Any) -> bool:
    return type(image).__module__.startswith("PIL.")
