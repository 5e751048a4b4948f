"""The one home of site kinds: site-building tasks a model cannot copy its way through. 21 kinds of small sites, each
with a plain-language request that names no element ids, scripted test cases that find elements as a person would (ARIA
role and accessible name, label, visible text; see :mod:`vcoder.data.site_kinds.base`), a reference solution that
passes them and broken variants that fail them (the ways generated sites fail):

- ``handler_missing``: the page has no script (buttons that do nothing, a form that reloads the page);
- ``wrong_label``: the primary control is named differently from the request ('Create' for 'Add');
- ``broken_markup``: a comment left open before the first control hides the rest of the page and the script.

Tasks are split by CONTENT into train / validation / test (:mod:`vcoder.data.splits`): a task's content
(:func:`content_key`) is what a page must reproduce to pass its cases -- the values the builder drew that the cases
check, never the title, accent colour or font (no case looks at them) and never a case's own input (the text a case
types into a message box: one page passes every such draw). Tasks with the same content share a split, so no test
task can be passed by replaying a training site of its kind. Kinds whose page is the same for every draw (the cases
supply the inputs: :data:`TRAIN_ONLY`) have no content to hold out and are training kinds only.
:func:`kind_tasks` draws a split's tasks by seed, one task per content.

Where things live: :mod:`.base` holds the builder contract (a builder takes a :class:`Ctx` and returns a
:class:`Built`), the locators, steps and expectations every kind uses; the kinds live in the module of their family
(:mod:`.controls`, :mod:`.inputs`, :mod:`.views`, :mod:`.paging`, :mod:`.collections`, :mod:`.records`). **A new
kind** is a builder in its family's module, registered in :data:`BUILDERS` below (and in :data:`TRAIN_ONLY` when one
page passes all its draws). :mod:`.pages` keeps the older, id-named form of 6 kinds (``make_page``: the instruction
names element ids, the page itself is given; ``site_tasks``) byte for byte for the loops and logs made from it; it
takes no new kinds.

Example:
    >>> site = make_site("cart", 3)
    >>> sorted(site) == ["broken", "css", "html", "instruction", "js", "kind", "markup", "test_cases", "title"]
    True
    >>> "id=" in site["instruction"] or "#" in json.dumps(site["test_cases"])
    False
    >>> [r["split"] for r in kind_tasks(2, split="test", kinds=("tabs",))]
    ['test', 'test']
"""

from __future__ import annotations

import json
import random
from typing import Any

from vcoder.data.prompts import make_site_conversation
from vcoder.data.site_kinds import collections, controls, inputs, paging, records, views
from vcoder.data.site_kinds.base import ACCENTS, FONTS, WORDS, Built, Ctx
from vcoder.data.splits import SPLITS as SPLITS
from vcoder.data.splits import check_split, content_split

__all__ = [
    "BROKEN",
    "BUILDERS",
    "EVAL_KINDS",
    "KINDS",
    "SPLITS",
    "STYLES",
    "TRAIN_ONLY",
    "Built",
    "Ctx",
    "content_key",
    "kind_task",
    "kind_tasks",
    "make_site",
    "split_of",
]

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
#: kinds with at most 3 contents (their page passes every draw, or the cases read one drawn value of 3): a held-out
#: task of theirs would be a training task, so every task of theirs is in ``train``
TRAIN_ONLY = ("signup", "rating", "stepper", "theme", "converter", "modal", "timer", "poll")
#: the kinds that have validation and test tasks
EVAL_KINDS = tuple(k for k in KINDS if k not in TRAIN_ONLY)
_CONTROL = ("<button", "<input", "<select", "<textarea", "<a ", "<label", "<form", "<fieldset")
#: seeds tried per requested task before a split is declared too small for a kind
_MAX_TRIES = 400


def _break_markup(body: str) -> str:
    cut = min((i for i in (body.find(tag) for tag in _CONTROL) if i >= 0), default=0)
    return body[:cut] + "<!-- " + body[cut:]


def _draw(kind: str, seed: int, broken: str | None = None) -> tuple[str, str, str, Built]:
    rng = random.Random(f"site:{kind}:{seed}")
    title = f"{rng.choice(WORDS)} {kind.capitalize()}"
    accent, font = rng.choice(ACCENTS), rng.choice(FONTS)
    return title, accent, font, BUILDERS[kind](Ctx(rng, broken))


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
    title, accent, font, built = _draw(kind, seed, broken)
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


def content_key(kind: str, seed: int = 0) -> str:
    """The content of task ``(kind, seed)``: what a page must reproduce to pass its cases, as canonical JSON.

    It is the builder's declared content (:attr:`Built.key`: the drawn values the page must show, when the cases
    also draw inputs of their own), else the cases' steps and expectations (their wording left out). Title, accent
    colour and font never enter it.

    Example:
        >>> content_key("counter", 1) == content_key("counter", 1) and content_key("counter", 1).startswith("counter:")
        True
    """
    if kind not in BUILDERS:
        raise ValueError(f"unknown site kind {kind!r}; choose among {', '.join(KINDS)}")
    if not isinstance(seed, int):  # split_of(kind, instruction) was the old form: the wording no longer decides
        raise TypeError(f"a task is (kind, seed), got seed {seed!r:.60}; the split is decided by content, not wording")
    built = _draw(kind, seed)[3]
    content = built.key if built.key is not None else [[c.get("steps", []), c["expect"]] for c in built.cases]
    return f"{kind}:{json.dumps(content, sort_keys=True)}"


def split_of(kind: str, seed: int = 0) -> str:
    """The split of task ``(kind, seed)``, from its content alone (the same content, the same split)."""
    return _split(kind, content_key(kind, seed))


def _split(kind: str, key: str) -> str:
    return "train" if kind in TRAIN_ONLY else content_split(key, salt="site_kinds")


def kind_task(kind: str, seed: int = 0) -> dict[str, Any]:
    """One task row ``{"prompt", "instruction", "id", "test_cases" (JSON string), "kind", "split", "seed",
    "content_key"}``."""
    site = make_site(kind, seed)
    key = content_key(kind, seed)
    return {
        "prompt": make_site_conversation(site["instruction"]),
        "instruction": site["instruction"],
        "id": f"{kind}-{seed}",
        "test_cases": json.dumps(site["test_cases"]),
        "kind": kind,
        "split": _split(kind, key),
        "seed": seed,
        "content_key": key,
    }


def kind_tasks(
    n: int, seed: int = 0, *, split: str = "train", kinds: tuple[str, ...] | list[str] | None = None
) -> list[dict[str, Any]]:
    """``n`` tasks of one split, cycling through ``kinds``: each kind's tasks are the first seeds from ``seed`` upward
    whose content falls in ``split``, one task per content (deterministic; the splits never share a content).

    Args:
        n: number of tasks.
        seed: the first seed tried for each kind.
        split: ``train``, ``validation`` or ``test`` (``heldout``, the old name of ``test``, still works).
        kinds: the kinds to cycle through; None: every kind of the split (:data:`EVAL_KINDS` outside ``train``).

    Raises:
        ValueError: ``n < 0``, no or unknown kinds, an unknown split, a train-only kind outside ``train``, or a kind
            with too few contents in the split.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    split = check_split(split)
    kinds = tuple(kinds) if kinds is not None else (KINDS if split == "train" else EVAL_KINDS)
    if not kinds:
        raise ValueError(f"kinds is empty; choose among {', '.join(KINDS)}")
    unknown = [k for k in kinds if k not in BUILDERS]
    if unknown:
        raise ValueError(f"unknown site kinds {unknown}; choose among {', '.join(KINDS)}")
    only = [k for k in kinds if k in TRAIN_ONLY and split != "train"]
    if only:
        raise ValueError(
            f"site kinds {only} have no {split} tasks: one page passes all their tasks, so they are training kinds "
            f"only; choose among {', '.join(EVAL_KINDS)}"
        )
    want = {k: -(-max(n - i, 0) // len(kinds)) for i, k in enumerate(kinds)}
    drawn: dict[str, list[dict[str, Any]]] = {}
    for kind, need in want.items():
        rows, seen, s = [], set(), seed
        while len(rows) < need:
            if s - seed > _MAX_TRIES * need:
                raise ValueError(
                    f"kind {kind!r} has only {len(rows)} distinct {split} contents in seeds {seed}..{s}; ask for fewer"
                )
            row = kind_task(kind, s)
            # one task per content; a train-only kind has one content, so its tasks differ by request and cases
            distinct = row["content_key"] if kind not in TRAIN_ONLY else (row["instruction"], row["test_cases"])
            if row["split"] == split and distinct not in seen:
                seen.add(distinct)
                rows.append(row)
            s += 1
        drawn[kind] = rows
    return [drawn[kinds[i % len(kinds)]][i // len(kinds)] for i in range(n)]
