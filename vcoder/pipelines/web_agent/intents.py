"""The text side of WebRL's task writer (:mod:`vcoder.pipelines.web_agent.writer` asks the model): the request's
prompt (WebRL's task-creator ask, with each site described), reading the backticked tasks of a reply, the form two
intents are compared in, and why a written intent is unusable. Pure: no model, no files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: what each site is, for the prompt (WebRL names the website: shopping, reddit, gitlab, ...)
SITE_DESCRIPTIONS = {
    "shop": "an online shop (a product catalogue with search and categories, product pages, a cart, orders)",
    "admin": "a shop's admin panel (tables of products, customers and orders; forms to edit them)",
    "forum": "a discussion forum (forums, posts with votes and comments, user pages)",
    "repo": "a code repository browser (repositories, their files, issues, stars)",
}
#: bounds of a written intent, in characters
MIN_CHARS, MAX_CHARS = 10, 300
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_FENCE_LINE = re.compile(r"^\s*```.*$", re.MULTILINE)
_HEADINGS = ("given task", "created task")


def writing_prompt(site: str, examples: Sequence[str], n: int) -> list[dict[str, str]]:
    """The chat messages of one request: WebRL's task-creator ask for ``site`` with the failed intents as examples."""
    shown = "\n".join(f"- `{' '.join(e.split())}`" for e in examples)
    text = (
        f"You create tasks for an assistant that helps people use a website: {SITE_DESCRIPTIONS[site]}. Write "
        f"{n} new, clear and practical tasks that a person could ask this assistant to do or answer on the website.\n"
        "Take the example tasks below as inspiration: the new tasks belong to the same domain and are of similar "
        "difficulty (slightly easier or harder is fine), but more diverse, with varied phrasing. They must be "
        "reasonable, understandable and realistic. Reuse the names that appear in the examples (products, people, "
        "forums, repositories, numbers) instead of inventing new ones. Do not mention the examples themselves.\n"
        "Write each task on its own line between backticks, like `Add the Red Lamp to the cart`, and nothing else.\n\n"
        f"Example tasks:\n{shown}\n\nNew tasks:"
    )
    return [{"role": "user", "content": text}]


def parse_intents(text: str) -> list[str] | None:
    """The backticked tasks of a reply (fence lines dropped first); None when there are none.

    Example:
        >>> parse_intents("1. `Open the cart`\\n2. `Find the Red Lamp`"), parse_intents("no tasks")
        (['Open the cart', 'Find the Red Lamp'], None)
    """
    spans = [" ".join(s.split()) for s in _BACKTICKED.findall(_FENCE_LINE.sub("", text))]
    spans = [s for s in spans if s]
    return spans or None


def intent_key(intent: str) -> str:
    """The form two intents are compared in: lower case, single spaces, no end punctuation."""
    return " ".join(intent.lower().split()).rstrip(" .!?")


def check_intent(intent: str) -> str | None:
    """Why a written intent is unusable (``too_short``, ``too_long``, ``names_the_prompt``), None when it is usable."""
    if len(intent) < MIN_CHARS:
        return "too_short"
    if len(intent) > MAX_CHARS:
        return "too_long"
    if any(h in intent.lower() for h in _HEADINGS) or "example task" in intent.lower():
        return "names_the_prompt"
    return None
