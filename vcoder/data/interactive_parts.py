"""What the interactive page kinds share: the builder contract, the themed vocabulary, step and case constructors.

A builder (:mod:`vcoder.data.interactive_controls`, :mod:`vcoder.data.interactive_widgets`) takes a seeded
``random.Random`` and the broken variant (only ``validation_missing`` changes a builder's output; the other variants
are applied to the script by :func:`vcoder.data.interactive.make_page`) and returns
``(body_html, script_js, cases, instruction_fragment)``. Scripts attach listeners through ``wire(selector, event,
fn)`` and read elements through ``$(selector)`` so ``make_page`` can break the wiring in one place.
"""

from __future__ import annotations

import random

#: what a builder returns: (body HTML, script JS, test cases, instruction fragment)
Built = tuple[str, str, list, str]

WORDS = ("Alpha", "Harbor", "Maple", "Nimbus", "Orbit", "Quartz", "Summit", "Willow", "Ember", "Cobalt")
ITEMS = ("Buy milk", "Call Sam", "Water plants", "Pay rent", "Read a book", "Fix the bike", "Book flights")
TOPICS = (
    ("Overview", "Profile", "Billing", "Security", "Shipping", "Returns", "Pricing", "Support"),
    (
        "Fast delivery in two days.",
        "Plans start at nine dollars.",
        "Two-factor sign-in is on.",
        "Returns are free for a month.",
        "Chat with us around the clock.",
        "Your data stays private.",
        "Invoices are emailed monthly.",
        "Orders ship from three warehouses.",
    ),
)


def pick_topics(rng: random.Random, n: int = 3) -> tuple[list[str], list[str]]:
    """``n`` distinct topics: their names (tab or section titles) and their texts (panel contents)."""
    idx = rng.sample(range(len(TOPICS[0])), n)
    return [TOPICS[0][i] for i in idx], [TOPICS[1][i] for i in idx]


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
