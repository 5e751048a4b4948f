"""Site-building tasks a model cannot copy its way through: 21 kinds of small interactive sites, each with a
plain-language request that names no element ids, scripted test cases that find elements as a person would (ARIA
role and accessible name, label, visible text; see :mod:`vcoder.data.site_kinds.base`), a reference solution that
passes them and broken variants that fail them (the ways generated sites fail):

- ``handler_missing``: the page has no script (buttons that do nothing, a form that reloads the page);
- ``wrong_label``: the primary control is named differently from the request ('Create' for 'Add');
- ``broken_markup``: a comment left open before the first control hides the rest of the page and the script.

Tasks are split by content into train / validation / held-out (:func:`split_of` hashes the kind and the request),
so the same request can never land in two splits, and :func:`kind_tasks` draws each split's tasks by seed.

Example:
    >>> site = make_site("cart", 3)
    >>> sorted(site) == ["broken", "css", "html", "instruction", "js", "kind", "markup", "test_cases", "title"]
    True
    >>> "id=" in site["instruction"] or "#" in json.dumps(site["test_cases"])
    False
    >>> [r["split"] for r in kind_tasks(2, split="heldout", kinds=("tabs",))]
    ['heldout', 'heldout']
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from vcoder.data.prompts import make_site_conversation
from vcoder.data.site_kinds import collections, controls, inputs, paging, records, views
from vcoder.data.site_kinds.base import Built, Ctx

#: kind -> builder
BUILDERS = {
    "counter": controls.counter,
    "todo": controls.todo,
    "signup": controls.signup,
    "rating": controls.rating,
    "stepper": inputs.stepper,
    "theme": inputs.theme,
    "converter": inputs.converter,
    "message": inputs.message,
    "tabs": views.tabs,
    "modal": views.modal,
    "accordion": views.accordion,
    "navigation": views.navigation,
    "pagination": paging.pagination,
    "chart": paging.chart,
    "timer": paging.timer,
    "search": collections.search,
    "filters": collections.filters,
    "cart": collections.cart,
    "table": records.table,
    "poll": records.poll,
    "quiz": records.quiz,
}
KINDS = tuple(BUILDERS)
BROKEN = ("handler_missing", "wrong_label", "broken_markup")
#: how much style a site carries: ``full`` (a styled card) or ``accent`` (one rule with the accent colour: a page a
#: tiny model writes in a fifth of the tokens; the scripted cases never look at style)
STYLES = ("full", "accent")
#: split -> share of the hash buckets (0..99) it owns, in order
SPLITS = {"train": 80, "validation": 10, "heldout": 10}
_WORDS = ("Alpha", "Harbor", "Maple", "Nimbus", "Orbit", "Quartz", "Summit", "Willow", "Ember", "Cobalt")
_ACCENTS = ("#2563eb", "#16a34a", "#dc2626", "#9333ea", "#ea580c", "#0891b2", "#db2777", "#4f46e5")
_FONTS = ("system-ui, sans-serif", "Georgia, serif", "Verdana, sans-serif", "'Trebuchet MS', sans-serif")
_CONTROL = ("<button", "<input", "<select", "<textarea", "<a ", "<label", "<form", "<fieldset")
#: seeds tried per requested task before a split is declared too small for a kind
_MAX_TRIES = 400


def _break_markup(body: str) -> str:
    cut = min((i for i in (body.find(tag) for tag in _CONTROL) if i >= 0), default=0)
    return body[:cut] + "<!-- " + body[cut:]


def make_site(kind: str, seed: int = 0, *, broken: str | None = None, style: str = "full") -> dict[str, Any]:
    """Build one site task: its request, test cases and the reference solution (or a broken variant of it).

    Args:
        kind: one of ``KINDS``.
        seed: content seed (same seed, same site).
        broken: None for the reference solution, or one of ``BROKEN``.
        style: one of ``STYLES`` (the request, cases and script are the same for both).

    Returns:
        ``{"kind", "broken", "title", "instruction", "test_cases" (list of case dicts), "html" (the whole page),
        "markup", "css", "js"}``; ``markup`` is the page without its style and script, which ``css`` and ``js``
        hold (a site may be written as one file or as index.html + style.css + app.js).

    Raises:
        ValueError: an unknown kind or broken variant (the known ones are named).
    """
    if kind not in BUILDERS:
        raise ValueError(f"unknown site kind {kind!r}; choose among {', '.join(KINDS)}")
    if broken is not None and broken not in BROKEN:
        raise ValueError(f"unknown broken variant {broken!r}; choose among {', '.join(BROKEN)} (or None)")
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}; choose among {', '.join(STYLES)}")
    rng = random.Random(f"site:{kind}:{seed}")
    title = f"{rng.choice(_WORDS)} {kind.capitalize()}"
    accent, font = rng.choice(_ACCENTS), rng.choice(_FONTS)
    built: Built = BUILDERS[kind](Ctx(rng, broken))
    body = _break_markup(built.body) if broken == "broken_markup" else built.body
    js = "" if broken == "handler_missing" else "const $ = s => document.querySelector(s);\n" + built.js + "\n"
    full = (
        f"body{{font-family:{font};background:#f5f5f4;margin:0;padding:32px;color:#1c1917}}\n"
        "main{max-width:600px;margin:auto;background:#fff;border-radius:12px;padding:24px;box-shadow:0 1px 4px #0002}\n"
        f"h1{{color:{accent};margin-top:0}}\nbutton{{background:{accent};color:#fff;border:0;border-radius:6px;"
        "padding:8px 14px;margin:4px 2px;font:inherit;cursor:pointer}\nbutton:disabled{opacity:.45}\n"
        "input,select,textarea{padding:8px;margin:4px 0;font:inherit;border:1px solid #ccc;border-radius:6px}\n"
        "label{display:block;margin-top:8px}\n.error{color:#b91c1c}\n.ok{color:#15803d}\n"
        ".big{font-size:32px;font-weight:700}\n[aria-pressed=true],[aria-selected=true]{outline:3px solid #0006}\n"
    )
    css = (full if style == "full" else f"h1,button{{color:{accent}}}\n") + (built.css + "\n" if built.css else "")
    markup = f"<main><h1>{title}</h1>{body}</main>"
    head = f'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{title}</title>\n'
    html = f"{head}<style>\n{css}</style>\n</head>\n<body>\n{markup}\n"
    html += (f"<script>\n{js}</script>\n" if js else "") + "</body>\n</html>\n"
    instruction = f"A page titled '{title}' {built.request} Use {accent} as the accent colour."
    return {
        "kind": kind,
        "broken": broken,
        "title": title,
        "instruction": instruction,
        "test_cases": built.cases,
        "html": html,
        "markup": markup,
        "css": css,
        "js": js,
    }


def split_of(kind: str, instruction: str) -> str:
    """The split a request belongs to, from a hash of its kind and text (identical requests, one split)."""
    bucket = int(hashlib.sha256(f"{kind}\n{instruction}".encode()).hexdigest()[:8], 16) % 100
    for name, share in SPLITS.items():
        if bucket < share:
            return name
        bucket -= share
    raise AssertionError("SPLITS must cover 100 buckets")


def kind_task(kind: str, seed: int = 0) -> dict[str, Any]:
    """One task row ``{"prompt", "instruction", "id", "test_cases" (JSON string), "kind", "split", "seed"}``."""
    site = make_site(kind, seed)
    return {
        "prompt": make_site_conversation(site["instruction"]),
        "instruction": site["instruction"],
        "id": f"{kind}-{seed}",
        "test_cases": json.dumps(site["test_cases"]),
        "kind": kind,
        "split": split_of(kind, site["instruction"]),
        "seed": seed,
    }


def kind_tasks(
    n: int, seed: int = 0, *, split: str = "train", kinds: tuple[str, ...] | list[str] = KINDS
) -> list[dict[str, Any]]:
    """``n`` distinct tasks of one split, cycling through ``kinds``: each kind's tasks are the first seeds from
    ``seed`` upward whose request falls in ``split`` (deterministic; the splits never share a request).

    Raises:
        ValueError: ``n < 0``, no or unknown kinds, an unknown split, or a kind with too few distinct requests.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose among {', '.join(SPLITS)}")
    kinds = tuple(kinds)
    if not kinds:
        raise ValueError(f"kinds is empty; choose among {', '.join(KINDS)}")
    unknown = [k for k in kinds if k not in BUILDERS]
    if unknown:
        raise ValueError(f"unknown site kinds {unknown}; choose among {', '.join(KINDS)}")
    want = {k: -(-max(n - i, 0) // len(kinds)) for i, k in enumerate(kinds)}
    drawn: dict[str, list[dict[str, Any]]] = {}
    for kind, need in want.items():
        rows, seen, s = [], set(), seed
        while len(rows) < need:
            if s - seed > _MAX_TRIES * need:
                raise ValueError(
                    f"kind {kind!r} has only {len(rows)} distinct {split} requests in seeds {seed}..{s}; ask for fewer"
                )
            row = kind_task(kind, s)
            if row["split"] == split and row["instruction"] not in seen:
                seen.add(row["instruction"])
                rows.append(row)
            s += 1
        drawn[kind] = rows
    return [drawn[kinds[i % len(kinds)]][i // len(kinds)] for i in range(n)]
