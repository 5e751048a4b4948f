"""What the browsing task templates share (:mod:`vcoder.browse.generate` lists them): the template's signature, the
evaluators in WebArena's form (``program_html`` on a page, ``string_match`` answers), prices as the shop prints them
and the admin's edit flow as a plan.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from vcoder.browse.tasks import TaskEval

#: a template: ``(rng, site state) -> (intent template, its values, start route, evaluator, scripted plan)``
Make = Callable[[random.Random, dict[str, Any]], tuple[str, dict[str, Any], str, TaskEval, list[dict[str, Any]]]]


def money(cents: int) -> str:
    """A price as the shop prints it.

    Example:
        >>> money(1250)
        '$12.50'
    """
    return f"${cents / 100:.2f}"


def html_eval(url: str, locator: str, **required: Any) -> TaskEval:
    """A ``program_html`` evaluator: ``locator``'s text on ``url`` (``last``: the final page) must hold ``required``."""
    return TaskEval(("program_html",), program_html=({"url": url, "locator": locator, "required_contents": required},))


def string_eval(**answers: Any) -> TaskEval:
    """A ``string_match`` evaluator on the agent's answer (``exact_match``, ``must_include``, ``fuzzy_match``)."""
    return TaskEval(("string_match",), reference_answers=answers)


def edit_plan(section: str, name: str, change: dict[str, Any], save: str) -> list[dict[str, Any]]:
    """The admin's edit flow: open ``section``, press "Edit <name>", make ``change`` in the form, press ``save``."""
    return [
        {"do": "click", "text": section},
        {"do": "click", "text": f"Edit {name}"},
        change,
        {"do": "click", "text": save},
        {"do": "exit", "message": ""},
    ]
