"""The policy's prompt in WebRL's text setting: a system prompt with the functions, then one user turn per step.

WebRL's policy sees the task, its earlier actions and the current page's simplified HTML, and writes one action
(:mod:`vcoder.browse.actions`). Earlier pages are not repeated (WebRL keeps only the current HTML; a long history of
pages would not fit a small model's context), so every step is one self-contained prompt: demonstrations and
replay are per-step samples that match what the policy saw.

A VLM web agent (``gui_policy: text_screenshot``) gets the same turn with the viewport's screenshot before the text,
each in-view element's id drawn on it in a numbered box (the GUI agent's set-of-marks, sent as image content parts
as the VLM GUI agent sends them), and one more paragraph in the system prompt saying so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SYSTEM_PROMPT = """You are a web browsing agent. You get a task, your previous actions and the current web page as \
simplified HTML in which every element you can act on has an id. Answer with ONE line of python-style code using:

do(action, argument, element)
    action: one of "Click", "Type", "Search", "Select Dropdown Option", "Scroll Up", "Scroll Down", "Press Enter", \
"Wait". "Search" types the argument, then presses Enter.
    argument: the text to type, or the option to select (Type, Search, Select Dropdown Option only).
    element: the id of the element to act on (Click, Type, Search, Select Dropdown Option only).
go_backward()
    Go back to the previous page.
exit(message)
    End the task. If the task asks a question, message is the answer; otherwise message may be empty.

Examples:
do(action="Click", element="7")
do(action="Search", argument="blue mug", element="3")
do(action="Select Dropdown Option", argument="VIP", element="12")
exit(message="$12.50")"""


SCREENSHOT_NOTE = """

You also get a screenshot of the part of the page in view. Every element you can act on that is in view has a \
numbered box drawn on it; the number is its id in the HTML."""


def step_prompt(
    intent: str, history: Sequence[str], page: str, *, route: str, screenshot: bytes | None = None
) -> list[dict[str, Any]]:
    """The chat messages of one step: the system prompt and a user turn with the task, the earlier actions (one per
    line, with what went wrong where something did), the current page, and the task again next to the question (a
    small model attends to what is near; the page between can be hundreds of tokens); with ``screenshot`` (PNG bytes,
    the marks drawn), the user turn carries it as an image part before the text and the system prompt says what it
    shows."""
    done = "\n".join(f"Round {i}: {a}" for i, a in enumerate(history)) or "None"
    user = (
        f"Task: {intent}\n\nPrevious actions:\n{done}\n\nCurrent page ({route}):\n{page}\n\n"
        f"Task: {intent}\nRound {len(history)}: your next action?"
    )
    if screenshot is None:
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
    from vcoder.chat.messages import user_message

    return [
        {"role": "system", "content": SYSTEM_PROMPT + SCREENSHOT_NOTE},
        user_message(user, images=[screenshot], images_first=True),
    ]
