"""The screenshot-to-HTML prompts shared by training and evaluation, and TRL's conversational prompt format.

Training and evaluation must ask the same question: both import :data:`DEFAULT_SYSTEM_PROMPT` and
:data:`DEFAULT_USER_PROMPT` from here (a config may override them, but then for both).
"""

from __future__ import annotations

from typing import Any

DEFAULT_SYSTEM_PROMPT = (
    "You are an expert front-end developer. You turn a screenshot of a web page into one self-contained HTML "
    "file with inline CSS that renders exactly like the screenshot."
)
DEFAULT_USER_PROMPT = (
    "Write the HTML and CSS for this web page screenshot. Use a single <style> block, no external resources, "
    "and reply with the code only."
)


def make_conversation(
    image: Any = None,
    *,
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
    user_prompt: str = DEFAULT_USER_PROMPT,
) -> list[dict[str, Any]]:
    """Build a TRL conversational VLM prompt: an optional system turn and a user turn with image + text.

    Args:
        image: the screenshot to embed in the image block (PIL image, path or URL), or ``None`` for a bare
            ``{"type": "image"}`` placeholder that TRL fills from the dataset's ``image`` column (the form
            dataset rows use).
        system_prompt: text of the system turn; ``None`` or ``""`` leaves the system turn out.
        user_prompt: the instruction that follows the image in the user turn.

    Returns:
        A list of messages ``[{"role": "system", ...}, {"role": "user", "content": [image, text]}]``.

    Example:
        >>> [m["role"] for m in make_conversation()]
        ['system', 'user']
        >>> make_conversation()[1]["content"][0]
        {'type': 'image'}
    """
    if not user_prompt:
        raise ValueError("user_prompt is empty; pass the instruction that asks for the HTML")
    image_block: dict[str, Any] = {"type": "image"}
    if image is not None:
        image_block["image"] = image
    messages: list[dict[str, Any]] = []
    if system_prompt:
        messages.append({"role": "system", "content": [{"type": "text", "text": system_prompt}]})
    messages.append({"role": "user", "content": [image_block, {"type": "text", "text": user_prompt}]})
    return messages
