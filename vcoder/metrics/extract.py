"""Find the HTML in a model's output, and grade how well the output follows the expected format.

``extract_html`` is the single extraction every reward uses, so that format, validity and visual rewards all judge
the same document. It accepts, in order of preference:

1. the first Markdown fence whose language is html/htm/xhtml/xml or empty and whose body looks like HTML
   (an unclosed fence is taken to the end of the text: truncated generations still count);
2. a bare document starting at ``<!DOCTYPE html`` or ``<html`` and ending at the first ``</html>`` after it
   (or at the end of the text when the model was cut off);
3. a bare fragment: from the first known HTML tag to the last ``>``.

``<think>...</think>`` reasoning is removed first (as is everything before a lone ``</think>``, which is what
Qwen3-style chat templates leave when the opening tag is part of the prompt).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FORMAT_STYLES", "extract_html", "format_score", "strip_think"]

FORMAT_STYLES = ("fenced", "think", "bare", "any")

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
# a fence line: ``` (or more backticks) plus an optional language word; the body runs to the next fence or the end
_FENCE = re.compile(r"(?m)^[ \t]*(`{3,})[ \t]*([\w+-]*)[^\n]*\n")
_HTML_LANGS = {"", "html", "htm", "xhtml", "xml", "html5"}
_DOC_START = re.compile(r"<!doctype\s+html|<html[\s>]", re.IGNORECASE)
_DOC_END = re.compile(r"</html\s*>", re.IGNORECASE)
_KNOWN_TAG = re.compile(
    r"<(?:!doctype|html|head|body|title|meta|link|style|script|div|span|p|a|h[1-6]|ul|ol|li|table|tr|td|th|img|"
    r"header|footer|nav|main|section|article|aside|form|input|button|label|select|textarea|br|hr|b|i|strong|em|"
    r"svg|canvas|figure|figcaption|video|iframe|small|pre|code|blockquote)[\s>/]",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Found:
    """Where the HTML was found in the (think-stripped) text."""

    html: str
    kind: str  # "fence" | "document" | "fragment"
    start: int  # start of the container (fence line or first tag) in the stripped text
    end: int  # end of the container (closing fence or </html>) in the stripped text
    closed: bool  # fence closed / </html> present


def strip_think(text: str) -> str:
    """The text without the model's reasoning: ``<think>...</think>`` blocks removed, everything up to a lone
    ``</think>`` dropped (its opening tag was in the prompt, as Qwen3's template puts it), and an unfinished
    trailing ``<think>`` cut off with what follows it.

    Example:
        >>> strip_think("<think>hmm</think>\n<p>hi</p>")
        '\n<p>hi</p>'
    """
    return _split_think(text)[0]


def _split_think(text: str) -> tuple[str, bool]:
    """``strip_think``'s text, and whether a complete think block preceded it."""
    had_think = bool(_THINK_BLOCK.search(text))
    out = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(out))
    if closes:  # lone </think>: the opening tag was in the prompt
        out, had_think = out[closes[-1].end() :], True
    opened = _THINK_OPEN.search(out)
    if opened:  # unclosed <think>: the model never finished thinking; keep what precedes it
        out = out[: opened.start()]
    return out, had_think


def _find(text: str) -> _Found | None:
    fences = list(_FENCE.finditer(text))
    i = 0
    while i < len(fences):
        opening = fences[i]
        closing = next((f for f in fences[i + 1 :] if f.group(1) == opening.group(1) and not f.group(2)), None)
        tail = None
        if closing is None:  # a closing fence may be the last line without a newline
            tail = re.search(rf"(?m)^[ \t]*{opening.group(1)}[ \t]*$", text[opening.end() :])
            body_end = opening.end() + tail.start() if tail else len(text)
            end = opening.end() + tail.end() if tail else len(text)
        else:
            body_end, end = closing.start(), closing.end()
        body = text[opening.end() : body_end]
        if opening.group(2).lower() in _HTML_LANGS and _KNOWN_TAG.search(body):
            return _Found(body.strip(), "fence", opening.start(), end, closing is not None or tail is not None)
        # skip past this fence's body (a non-HTML fence's closing line would otherwise open a new fence)
        i = next((k for k, f in enumerate(fences) if f.start() >= end), len(fences))
    doc = _DOC_START.search(text)
    if doc:
        close = _DOC_END.search(text, doc.start())
        end = close.end() if close else len(text)
        return _Found(text[doc.start() : end].strip(), "document", doc.start(), end, close is not None)
    tag = _KNOWN_TAG.search(text)
    if tag:
        end = text.rfind(">") + 1
        return _Found(text[tag.start() : end].strip(), "fragment", tag.start(), end, True)
    return None


def extract_html(text: str) -> str | None:
    """Return the HTML document in a model's output, or None when there is none.

    Args:
        text: the raw completion text.

    Returns:
        The HTML (stripped of surrounding whitespace), or None when the text holds nothing that looks like HTML.

    Example:
        >>> extract_html("Sure!\\n```html\\n<html><body>Hi</body></html>\\n```\\nEnjoy.")
        '<html><body>Hi</body></html>'
        >>> extract_html("no markup here") is None
        True
    """
    if not isinstance(text, str):
        raise TypeError(
            f"extract_html expects the completion as a str, got {type(text).__name__}; "
            "for conversational completions pass completion[0]['content']"
        )
    found = _find(strip_think(text))
    return found.html if found and found.html else None


def format_score(text: str, *, style: str = "fenced") -> float:
    """Grade how well an output follows the expected format, in [0, 1] (1 = exactly as asked).

    Starts from 1 and subtracts, then clips to [0, 1]:

    - no HTML at all: score 0;
    - wrong container for ``style`` (0.3): ``fenced`` wants a closed ```html fence; ``think`` wants a complete
      ``<think>...</think>`` before the HTML (fenced or bare); ``bare`` wants the document itself with no fence
      or chatter; ``any`` accepts any of these;
    - missing structure: ``<!DOCTYPE html>`` 0.1, ``<html>`` 0.05, ``<head>`` 0.05, ``<body>`` 0.1;
    - truncation: missing ``</html>`` 0.15, unclosed fence 0.1;
    - duplicated blocks: 0.2 per extra HTML fence or document, at most 0.4;
    - trailing junk after the HTML (chatter after the closing fence / ``</html>``): 0.1 plus up to 0.1 more
      growing with its length (full at 500 characters); leading chatter 0.05 (``bare`` style: 0.15).

    Args:
        text: the raw completion text.
        style: the expected format: "fenced", "think", "bare" or "any".

    Returns:
        The format score in [0, 1].
    """
    if style not in FORMAT_STYLES:
        raise ValueError(
            f"format_score style={style!r} is not one of {FORMAT_STYLES}; pick the format your prompt asks for"
        )
    if not isinstance(text, str):
        raise TypeError(f"format_score expects the completion as a str, got {type(text).__name__}")
    stripped, had_think = _split_think(text)
    found = _find(stripped)
    if found is None or not found.html:
        return 0.0
    html = found.html.lower()
    penalty = 0.0
    is_fence = found.kind == "fence"
    if style == "fenced" and not is_fence:
        penalty += 0.3
    elif style == "think" and not had_think:
        penalty += 0.3
    elif style == "bare" and is_fence:
        penalty += 0.3
    if style == "think" and "<think>" in stripped.lower():
        penalty += 0.1  # a second reasoning block after the answer started
    penalty += 0.1 * ("<!doctype html" not in html)
    penalty += 0.05 * (re.search(r"<html[\s>]", html) is None)
    penalty += 0.05 * (re.search(r"<head[\s>]", html) is None)
    penalty += 0.1 * (re.search(r"<body[\s>]", html) is None)
    penalty += 0.15 * (_DOC_END.search(html) is None)
    if is_fence and not found.closed:
        penalty += 0.1
    lowered = stripped.lower()
    n_docs = max(len(re.findall(r"<!doctype\s+html", lowered)), len(re.findall(r"<html[\s>]", lowered)))
    n_fences = sum(
        1 for m in _FENCE.finditer(stripped) if m.group(2).lower() in _HTML_LANGS - {""}
    )  # bare ``` lines are both openers and closers: count only labelled HTML fences
    extra = max(n_docs - 1, n_fences - 1, 0)
    penalty += min(0.2 * extra, 0.4)
    trailing = stripped[found.end :].strip()
    if trailing:
        penalty += 0.1 + 0.1 * min(len(trailing) / 500.0, 1.0)
    leading = stripped[: found.start].strip()
    if leading:
        penalty += 0.15 if style == "bare" else 0.05
    return float(min(max(1.0 - penalty, 0.0), 1.0))
