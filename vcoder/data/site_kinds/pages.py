"""Id-named pages: 6 page kinds whose instruction names the element ids their test cases select (``#count``).

The older form of a site kind, kept byte for byte because Step-GRPO's ``dataset: site_tasks``, the curriculum's
Step-GRPO kinds and the ORM's verdict logs (``vcoder orm collect``) are made from it; add new kinds to the request
form (:mod:`vcoder.data.site_kinds`), not here. Six kinds (counter, todo list, signup form with validation, tabs,
modal, accordion), themed from a seed (title, accent colour, labels, items, numbers). Each page comes with the
instruction a model would be given and the scripted test cases that grade it (see :mod:`vcoder.gui.policy`); the
builders (:mod:`.page_controls`: counter, todo, form; :mod:`.page_widgets`: tabs, modal, accordion) follow the
contract of :mod:`vcoder.data.site_kinds.base` and their scripts attach listeners through ``wire(selector, event,
fn)``, so :func:`make_page` can break the wiring in one place. Broken variants reproduce the bugs generated pages
have: ``handler_removed`` (no script: the request form's ``handler_missing``), ``wrong_element`` (listeners attached
to the heading instead of the controls) and ``validation_missing`` (the form accepts anything; form pages only).

:func:`site_task` / :func:`site_tasks` turn a page into an instruction-only task (the model builds the page, not
receives it): ``{"prompt", "instruction", "id", "test_cases" (a JSON string), "kind"}``. These tasks have no
held-out split: any seed trains.

Example:
    >>> page = make_page("counter", seed=3)
    >>> sorted(page) == ["broken", "html", "instruction", "kind", "test_cases"]
    True
    >>> rows = list(generate(4, seed=0)); rows[0]["kind"], isinstance(rows[0]["test_cases"], str)
    ('counter', True)
    >>> rows = site_tasks(3, seed=0)
    >>> [r["id"] for r in rows], "html" in rows[0]
    (['counter-0', 'todo-0', 'form-0'], False)
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from vcoder.data.prompts import make_site_conversation
from vcoder.data.site_kinds import page_controls, page_widgets
from vcoder.data.site_kinds.base import ACCENTS, FONTS, WORDS, Ctx

__all__ = ["BROKEN", "BUILDERS", "KINDS", "broken_variants", "generate", "make_page", "site_task", "site_tasks"]

#: page kind -> builder (the contract is in :mod:`vcoder.data.site_kinds.base`)
BUILDERS = {
    "counter": page_controls.counter,
    "todo": page_controls.todo,
    "form": page_controls.form,
    "tabs": page_widgets.tabs,
    "modal": page_widgets.modal,
    "accordion": page_widgets.accordion,
}
KINDS = tuple(BUILDERS)
BROKEN = ("handler_removed", "wrong_element", "validation_missing")


def broken_variants(kind: str) -> tuple[str, ...]:
    """The broken variants that apply to ``kind`` (``validation_missing`` only to forms)."""
    return BROKEN if kind == "form" else BROKEN[:2]


def make_page(kind: str, seed: int = 0, *, broken: str | None = None) -> dict[str, Any]:
    """Build one id-named page and its test cases.

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
    accent, font = rng.choice(ACCENTS), rng.choice(FONTS)
    built = BUILDERS[kind](Ctx(rng, broken))
    body, js, cases, what = built.body, built.js, built.cases, built.request
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


def site_task(kind: str, seed: int = 0) -> dict[str, Any]:
    """One task: the instruction and test cases of ``make_page(kind, seed)``, without its HTML."""
    page = make_page(kind, seed)
    return {
        "prompt": make_site_conversation(page["instruction"]),
        "instruction": page["instruction"],
        "id": f"{kind}-{seed}",
        "test_cases": json.dumps(page["test_cases"]),
        "kind": kind,
    }


def site_tasks(n: int, seed: int = 0, *, kinds: tuple[str, ...] = KINDS) -> list[dict[str, Any]]:
    """``n`` tasks cycling through ``kinds`` (task ``i`` uses seed ``seed + i // len(kinds)``); ids are unique.

    Raises:
        ValueError: ``n < 0``, no kinds, or an unknown kind (the known ones are named).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if not kinds:
        raise ValueError(f"kinds is empty; choose among {', '.join(KINDS)}")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown page kinds {unknown}; choose among {', '.join(KINDS)}")
    return [site_task(kinds[i % len(kinds)], seed + i // len(kinds)) for i in range(n)]
