"""OpenAI chat-message helpers: server URLs, images as base64 PNG data URLs, user turns with image parts."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any


def normalize_base_url(base_url: str) -> str:
    """``http://host:8000``, ``http://host:8000/`` and ``http://host:8000/v1`` all become ``http://host:8000/v1``.

    Args:
        base_url: the server URL as a user typed it.

    Returns:
        The URL ending in ``/v1`` (or in whatever versioned path the user gave), without a trailing slash.
    """
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ValueError(
            f"base_url must start with http:// or https://, got {base_url!r} (e.g. http://127.0.0.1:8000)"
        )
    if url.endswith("/chat/completions"):
        url = url[: -len("/chat/completions")]
    last = url.rsplit("/", 1)[-1]
    if not (last.startswith("v") and last[1:].isdigit()):
        url += "/v1"
    return url


def image_data_url(image: bytes | str | Path | Any) -> str:
    """Encode an image as a base64 PNG ``data:`` URL (the form every OpenAI-compatible VLM server accepts).

    Args:
        image: PNG bytes, a path to an image file, a ``PIL.Image`` or an RGB array; non-PNG inputs are re-encoded.

    Returns:
        ``"data:image/png;base64,..."``.
    """
    from vcoder.images import to_png

    data = to_png(Path(image).read_bytes() if isinstance(image, (str, Path)) else image)
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def user_message(text: str, *, images: list[Any] = (), images_first: bool = False) -> dict[str, Any]:
    """Build a user message with text and images as ``image_url`` content parts.

    Args:
        text: the text part.
        images: PNG bytes / paths / PIL images, sent in order.
        images_first: put the images before the text (some models were trained that way).

    Returns:
        An OpenAI chat message dict.
    """
    image_parts = [{"type": "image_url", "image_url": {"url": image_data_url(img)}} for img in images]
    text_parts = [{"type": "text", "text": text}]
    return {"role": "user", "content": image_parts + text_parts if images_first else text_parts + image_parts}
