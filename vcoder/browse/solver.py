"""Scripted solvers: a generated task's plan played against the observation text, producing WebRL actions.

A plan (the task's ``solution``, written by :mod:`vcoder.browse.generate`) is a list of steps that name elements
by what the page shows, never by id::

    {"do": "click", "text": "Add to Cart"}        {"do": "search", "field": "Search products", "text": "mug"}
    {"do": "type", "field": "Title", "text": "x"} {"do": "select", "field": "Group", "option": "VIP"}
    {"do": "back"}                                {"do": "exit", "message": "$12.50"}

At each step the solver reads the ids from the same observation text the LM policy gets (``<tag id="n" ...>text``),
so its demonstrations are exactly what a policy could have written from what it saw.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from vcoder.browse.actions import WebAction, with_comment

_ELEMENT = re.compile(r'<(\w+) id="(\d+)"[^>]*>(.*?)</\1>')


def element_ids(page: str) -> list[tuple[int, str]]:
    """``(id, text)`` of every interactive element of an observation, in page order."""
    return [(int(m.group(2)), m.group(3).strip()) for m in _ELEMENT.finditer(page)]


def find_element(page: str, text: str) -> int | None:
    """The id of the first element whose text is ``text`` (case-insensitive), else None."""
    want = text.strip().lower()
    for n, shown in element_ids(page):
        if shown.lower() == want:
            return n
    return None


def plan_action(step: dict[str, Any], page: str) -> WebAction:
    """The WebRL action of one plan step on the current page (``exit`` with an explanation when its element is
    missing: a wrong plan ends the episode, and the evaluator fails it)."""
    kind = step["do"]
    if kind == "exit":
        return WebAction("exit", argument=str(step.get("message", "")))
    if kind == "back":
        return WebAction("go_backward")
    label = step["text"] if kind == "click" else step["field"]
    n = find_element(page, label)
    if n is None:
        return WebAction("exit", argument=f"N/A: no element {label!r} on the page")
    if kind == "click":
        return WebAction("Click", n)
    if kind == "select":
        return WebAction("Select Dropdown Option", n, str(step["option"]))
    return WebAction("Search" if kind == "search" else "Type", n, str(step["text"]))


class ScriptedSolver:
    """A policy that plays a plan: one step per call, ``exit`` once the plan is over.

    Args:
        plan: the steps (see the module docstring).
        comment: write WebRL's ``# Element: <the element's text>`` line before an action on an element, so a
            policy trained on the demonstrations names the element before its id.
    """

    name = "scripted"

    def __init__(self, plan: Sequence[dict[str, Any]], *, comment: bool = False) -> None:
        self.plan, self.at, self.comment = list(plan), 0, comment

    async def act(self, messages: list[dict[str, str]]) -> str:
        page = messages[-1]["content"]
        step = self.plan[self.at] if self.at < len(self.plan) else {"do": "exit", "message": ""}
        self.at += 1
        action = plan_action(step, page)
        shown = dict(element_ids(page)).get(action.element) if self.comment and action.element else None
        return with_comment(action.to_text(), shown)
