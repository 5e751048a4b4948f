"""What the site kinds share: person-like locators, steps and expectations, the builder context and the page shell.

A builder takes a :class:`Ctx` (a seeded ``random.Random`` and the broken variant) and returns a :class:`Built`:
the page's body and script (the reference solution), its test cases and the plain-language request. Requests name
no element ids and cases find elements as a person would: by ARIA role and accessible name, by label, by visible
text. The locators are the selectors Playwright's own ``get_by_role`` / ``get_by_label`` / ``get_by_text`` build
(``internal:role=button[name="Add"i]``: case-insensitive, substring), so the scripted policy runs them as they are.
Text a case expects to see is read from the whole page (``body``): it does not matter which element shows it.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

__all__ = [
    "ACCENTS",
    "BODY",
    "FONTS",
    "WORDS",
    "Built",
    "Ctx",
    "by_label",
    "by_role",
    "by_text",
    "click",
    "count",
    "in_",
    "make_case",
    "press",
    "select",
    "shows",
    "type_into",
    "value",
    "visible",
    "wait",
]

#: the whole page: a text expectation on it is met when the visible page text contains the expected text
BODY = "body"
#: the words a title is drawn from (every kind: "<word> <Kind>")
WORDS = ("Alpha", "Harbor", "Maple", "Nimbus", "Orbit", "Quartz", "Summit", "Willow", "Ember", "Cobalt")
#: the accent colours and fonts a page's theme is drawn from (no case looks at them)
ACCENTS = ("#2563eb", "#16a34a", "#dc2626", "#9333ea", "#ea580c", "#0891b2", "#db2777", "#4f46e5")
FONTS = ("system-ui, sans-serif", "Georgia, serif", "Verdana, sans-serif", "'Trebuchet MS', sans-serif")


def _quote(text: str, exact: bool) -> str:
    return json.dumps(text) + ("s" if exact else "i")


def by_role(role: str, name: str | None = None, *, exact: bool = False, **states: bool | int) -> str:
    """Playwright's ``get_by_role(role, name=...)`` as a selector string (hidden elements never match).

    Example:
        >>> by_role("button", "Add", pressed=True)
        'internal:role=button[name="Add"i][pressed=true]'
    """
    out = f"internal:role={role}"
    if name is not None:
        out += f"[name={_quote(name, exact)}]"
    for key, val in states.items():
        out += f"[{key}={str(val).lower() if isinstance(val, bool) else val}]"
    return out


def by_label(text: str, *, exact: bool = False) -> str:
    """Playwright's ``get_by_label``: a form control by its label, ``aria-label`` or ``aria-labelledby`` text."""
    return f"internal:label={_quote(text, exact)}"


def by_text(text: str, *, exact: bool = False) -> str:
    """Playwright's ``get_by_text``: the smallest element whose visible text contains ``text``."""
    return f"internal:text={_quote(text, exact)}"


def in_(container: str, text: str, inner: str) -> str:
    """``inner`` inside the ``container`` element that contains ``text`` (the Add button of the 'Tea' row)."""
    return f"{container} >> internal:has-text={_quote(text, False)} >> {inner}"


def click(target: str) -> dict:
    """A ``click`` step on a Playwright selector."""
    return {"action": "click", "target": target}


def type_into(target: str, value: str) -> dict:
    """A ``type`` step: fill ``value`` into the field ``target``."""
    return {"action": "type", "target": target, "value": value}


def press(target: str, key: str) -> dict:
    """A ``press`` step: press ``key`` (``Enter``, ``Escape``) on ``target``."""
    return {"action": "press", "target": target, "value": key}


def make_case(task: str, expected: str, steps: list, expect: list, category: str = "Functional Testing") -> dict:
    """One test case in the schema of :mod:`vcoder.gui.policy`."""
    return {"task": task, "expected_result": expected, "task_category": category, "steps": steps, "expect": expect}


def select(target: str, option: str) -> dict:
    """A ``select`` step: choose ``option`` (value or label) in the drop-down ``target``."""
    return {"action": "select", "target": target, "value": option}


def wait(ms: int) -> dict:
    """A ``wait`` step: let ``ms`` milliseconds pass (timers)."""
    return {"action": "wait", "value": str(ms)}


def shows(text: str) -> dict:
    """Expect the page's visible text to contain ``text``."""
    return {"target": BODY, "text": text}


def count(target: str, n: int) -> dict:
    """Expect ``n`` elements to match ``target``."""
    return {"target": target, "count": n}


def visible(target: str, yes: bool = True) -> dict:
    """Expect the first match of ``target`` to be visible (or hidden or absent, ``yes=False``)."""
    return {"target": target, "visible": yes}


def value(target: str, text: str) -> dict:
    """Expect the form control ``target`` to hold exactly ``text``."""
    return {"target": target, "value": text}


@dataclass(frozen=True)
class Built:
    """What a builder returns.

    Attributes:
        body: the reference solution's markup (inside ``<main>``, after the title heading).
        js: the reference solution's script.
        cases: the test cases (dicts in the schema of :mod:`vcoder.gui.policy`).
        request: what the page must do, in plain language (no ids), completing "A page titled 'T' ...".
        css: extra CSS of the reference solution.
        key: the task's content (see :func:`vcoder.data.site_kinds.content_key`): the drawn values a page must
            reproduce to pass the cases, when the cases also draw inputs of their own (the text typed into a
            message box) or never look at a drawn value; None: the cases themselves are the content.
    """

    body: str
    js: str
    cases: list[dict]
    request: str
    css: str = ""
    key: tuple | None = None


@dataclass
class Ctx:
    """A builder's inputs: the seeded generator and the broken variant (None for the reference solution).

    ``label(real, decoy)`` is how a builder names its primary control: the ``wrong_label`` variant shows the decoy
    (a name a model might pick instead of the one asked for), every other page the real name.
    """

    rng: random.Random
    broken: str | None = None
    _labelled: list[str] = field(default_factory=list)

    def label(self, real: str, decoy: str) -> str:
        if real.casefold() in decoy.casefold():
            raise ValueError(f"decoy {decoy!r} contains {real!r}: a name lookup would still find it")
        self._labelled.append(real)
        return decoy if self.broken == "wrong_label" and len(self._labelled) == 1 else real
