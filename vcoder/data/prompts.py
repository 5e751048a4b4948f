"""The prompts shared by training and evaluation: screenshot-to-HTML (TRL's conversational VLM format) and the
site-building agent's (the turn format of :mod:`vcoder.sites.turns`).

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


# The site-building agent (Step-GRPO): the turn format below is parsed by vcoder.sites.turns; keep them in step.
SITE_SYSTEM_PROMPT = """You are an expert front-end developer. You build the website a user asks for, over several \
turns, and improve it from the feedback you get after each turn.

How to reply:
- Write each file in full inside a file block (the path is relative to the site's root folder):
<file path="index.html">
<!DOCTYPE html>
...the whole file...
</file>
- Delete a file with <delete path="old.js"/>
- When the site is complete and works, reply <finish/> (alone, or after your last file blocks).
- Files you do not write keep their previous content, so send only the files you change.
- Text outside the blocks is ignored. (A reply whose only code is one ```html block is taken as index.html.)

The site: index.html is its entry page; it may load other files of the site by relative paths \
(<link rel="stylesheet" href="css/style.css">, <script src="app.js"></script>, fetch('data.json'), links to other \
.html pages). Files are text: .html, .css, .js, .mjs, .jsx, .json, .svg, .md, .txt, .csv or .xml; names use letters, \
digits, '.', '_', '-' and '/' (never '..' or an absolute path). Keep the site to a few small files. There is no \
build step, no npm and no server: the browser runs your files as they are. These libraries load from their usual \
CDN URLs (unpkg, jsdelivr, cdnjs): React 18 and ReactDOM (UMD builds) with Babel standalone for JSX in \
<script type="text/babel">, Vue 3 (vue.global.js), Alpine.js 3, Chart.js 4, Tailwind CSS, Bootstrap 4 and 5, \
Font Awesome, jQuery and Google Fonts. Nothing else is on the network; images from URLs show as grey placeholders, \
so draw with CSS or inline SVG.

After each turn the site is opened in a browser and tested: you get a grade of its appearance, the results of \
functional tests (what was tried, what was expected, why it failed) and the browser's console errors{screenshot}. \
Fix what failed in your next turn. A reply without any file block or <finish/>, with a broken tag, a bad path or \
binary content is rejected: it changes nothing and is penalised."""

SITE_TASK_PROMPT = "Build this website:\n\n{instruction}"


def site_system_prompt(*, images: bool = False) -> str:
    """The site-building agent's system prompt; ``images`` for a VLM policy, whose feedback carries a screenshot."""
    return SITE_SYSTEM_PROMPT.format(screenshot=", with a screenshot of the page" if images else "")


def make_site_conversation(instruction: str, *, images: bool = False) -> list[dict[str, Any]]:
    """The first two messages of a site-building episode: the system prompt and the user's request.

    Args:
        instruction: the website request.
        images: whether the policy sees screenshots (a VLM).

    Returns:
        ``[{"role": "system", "content": ...}, {"role": "user", "content": ...}]`` with plain-text contents.

    Example:
        >>> [m["role"] for m in make_site_conversation("A todo app")]
        ['system', 'user']
    """
    if not isinstance(instruction, str) or not instruction.strip():
        raise ValueError(f"instruction must be a non-empty website request, got {instruction!r:.80}")
    return [
        {"role": "system", "content": site_system_prompt(images=images)},
        {"role": "user", "content": SITE_TASK_PROMPT.format(instruction=instruction.strip())},
    ]
