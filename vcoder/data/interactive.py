"""Deterministic interactive pages with structured test cases: training data for ``gui_agent_reward``.

Six kinds (counter, todo list, signup form with validation, tabs, modal, accordion), themed from a seed (title,
accent colour, labels, items, numbers). Each page comes with the instruction a model would be given and the
scripted test cases that grade it (see :mod:`vcoder.gui.policy`). Broken variants reproduce the bugs generated
pages have: ``handler_removed`` (no script), ``wrong_element`` (listeners attached to the heading instead of the
controls) and ``validation_missing`` (the form accepts anything; form pages only). The builders live in
:mod:`vcoder.data.interactive_controls` (counter, todo, form) and :mod:`vcoder.data.interactive_widgets` (tabs,
modal, accordion); what they share is in :mod:`vcoder.data.interactive_parts`.

Example:
    >>> page = make_page("counter", seed=3)
    >>> sorted(page) == ["broken", "html", "instruction", "kind", "test_cases"]
    True
    >>> rows = list(generate(4, seed=0)); rows[0]["kind"], isinstance(rows[0]["test_cases"], str)
    ('counter', True)
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from vcoder.data import interactive_controls, interactive_widgets
from vcoder.data.interactive_parts import WORDS

#: page kind -> builder (the contract is in :mod:`vcoder.data.interactive_parts`)
BUILDERS = {
    "counter": interactive_controls.counter,
    "todo": interactive_controls.todo,
    "form": interactive_controls.form,
    "tabs": interactive_widgets.tabs,
    "modal": interactive_widgets.modal,
    "accordion": interactive_widgets.accordion,
}
KINDS = tuple(BUILDERS)
BROKEN = ("handler_removed", "wrong_element", "validation_missing")
_ACCENTS = ("#2563eb", "#16a34a", "#dc2626", "#9333ea", "#ea580c", "#0891b2", "#db2777", "#4f46e5")
_FONTS = ("system-ui, sans-serif", "Georgia, serif", "Verdana, sans-serif", "'Trebuchet MS', sans-serif")


def broken_variants(kind: str) -> tuple[str, ...]:
    """The broken variants that apply to ``kind`` (``validation_missing`` only to forms)."""
    return BROKEN if kind == "form" else BROKEN[:2]


def make_page(kind: str, seed: int = 0, *, broken: str | None = None) -> dict[str, Any]:
    """Build one interactive page and its test cases.

    Args:
        kind: one of ``KINDS``.
        seed: theme and content seed (same seed, same page).
        broken: None for the working page, or one of ``broken_variants(kind)``.

    Returns:
        ``{"kind", "broken", "html", "test_cases" (list of case dicts), "instruction"}``.
    """
    if kind not in BUILDERS:
        raise ValueError(f"unknown page kind {kind!r}; choose one of {', '.join(KINDS)}")
    if broken is not None and broken not in broken_variants(kind):
        raise ValueError(f"broken={broken!r} does not apply to {kind!r}; choose one of {broken_variants(kind)}")
    rng = random.Random(f"{kind}:{seed}")
    title = f"{rng.choice(WORDS)} {kind.capitalize()}"
    accent, font = rng.choice(_ACCENTS), rng.choice(_FONTS)
    body, js, cases, what = BUILDERS[kind](rng, broken)
    # wrong_element: every listener lands on the heading, as when a generated script queries the wrong id
    target = "'h1'" if broken == "wrong_element" else "sel"
    script = (
        ""
        if broken == "handler_removed"
        else "<script>\nconst $ = s => document.querySelector(s);\n"
        f"function wire(sel, evt, fn) {{ document.querySelector({target}).addEventListener(evt, fn); }}\n{js}\n</script>"
    )
    css = (
        f"body{{font-family:{font};background:#f5f5f4;margin:0;padding:32px;color:#1c1917}}"
        "main{max-width:560px;margin:auto;background:#fff;border-radius:12px;padding:24px;box-shadow:0 1px 4px #0002}"
        f"h1{{color:{accent};margin-top:0}}button{{background:{accent};color:#fff;border:0;border-radius:6px;"
        "padding:8px 14px;margin:4px 2px;font:inherit;cursor:pointer}input{padding:8px;margin:4px 0;font:inherit;"
        "border:1px solid #ccc;border-radius:6px;display:block}label{display:block;margin-top:8px}"
        ".error{color:#b91c1c;margin:2px 0}.ok{color:#15803d}.big{font-size:48px;font-weight:700}"
        f"[role=tab][aria-selected=true]{{outline:3px solid #0006}}li{{margin:6px 0}}"
    )
    html = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title><style>{css}</style>'
        f"</head>\n<body><main><h1>{title}</h1>{body}</main>\n{script}</body></html>\n"
    )
    instruction = f"Write a single HTML page titled '{title}' (accent colour {accent}) with {what}."
    return {"kind": kind, "broken": broken, "html": html, "test_cases": cases, "instruction": instruction}


def generate(n: int, seed: int = 0, *, kinds: tuple[str, ...] = KINDS) -> Iterator[dict[str, Any]]:
    """Yield ``n`` working pages as dataset rows, cycling through ``kinds``.

    Args:
        n: number of rows.
        seed: base seed (row ``i`` uses ``seed + i // len(kinds)``).
        kinds: page kinds to cycle through.

    Returns:
        Rows ``{"html", "test_cases", "instruction", "kind"}``; ``test_cases`` is a JSON string (Arrow-friendly:
        expectation values mix strings, booleans and integers), which ``gui_agent_reward`` accepts as is.
    """
    for i in range(n):
        kind = kinds[i % len(kinds)]
        page = make_page(kind, seed + i // len(kinds))
        yield {
            "html": page["html"],
            "test_cases": json.dumps(page["test_cases"]),
            "instruction": page["instruction"],
            "kind": kind,
        }
