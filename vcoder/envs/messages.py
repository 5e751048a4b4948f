"""Reading the OpenAI-format messages vcoder's episodes write: a message's text and its images (PNG bytes)."""

from __future__ import annotations

import base64
from typing import Any


def message_text(message: dict[str, Any]) -> str:
    """The text of a message (its text parts joined).

    Example:
        >>> message_text({"role": "user", "content": [{"type": "text", "text": "hi"}]})
        'hi'
    """
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")


def message_images(message: dict[str, Any]) -> list[bytes]:
    """The images of a message's ``image_url`` parts (data URLs) as PNG bytes."""
    content = message.get("content", "")
    if isinstance(content, str):
        return []
    images = []
    for part in content:
        url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
        if url.startswith("data:") and "," in url:
            images.append(base64.b64decode(url.split(",", 1)[1]))
    return images
