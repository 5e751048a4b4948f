"""The static imitation of a page under test: what a grader of structured cases must not credit.

:func:`static_imitation` takes a page and its cases, removes every script (``<script>`` elements and inline ``on*``
handlers) and puts a block of static elements at the top of the body holding everything the cases expect that a
static element can show: each expected text, each element named in a visibility expectation (an ARIA role with its
accessible name and states, a label with a field, a text, an id) and each expected field value. Nothing in it
reacts to an action, so a grader that judges what the actions did scores it no higher than the page with its
scripts removed (:func:`strip_scripts`); :mod:`vcoder.gui.scripted` does. Counts and "hidden" expectations are not
imitated (a static block cannot satisfy the conflicting counts of different cases).

Example:
    >>> page = '<body><p id="n">Laps: 8</p><button id="inc">Increase</button><script>inc.onclick = f</script></body>'
    >>> cases = [{"task": "t", "steps": [{"action": "click", "target": "#inc"}],
    ...           "expect": [{"target": "body", "text": "Laps: 11"}, {"target": "#n", "text": "Laps: 11"}]}]
    >>> static_imitation(page, cases)
    '<body><div data-static-imitation><p>Laps: 11</p><div id="n">Laps: 11</div></div><p id="n">Laps: 8</p><button id="inc">Increase</button></body>'
"""

from __future__ import annotations

import html as html_lib
import json
import re
from typing import Any

from vcoder.gui.policy import Expectation, parse_cases

__all__ = ["static_imitation", "strip_scripts"]

_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script\s*>", re.IGNORECASE | re.DOTALL)
_HANDLER = re.compile(r"""\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)
_BODY = re.compile(r"<body\b[^>]*>", re.IGNORECASE)
_ROLE = re.compile(r"^internal:role=([a-z]+)((?:\[[^\]]*\])*)$")
_ATTR = re.compile(r'\[([a-z-]+)=("(?:[^"\\]|\\.)*"[is]?|[^\]]*)\]')
_QUOTED = re.compile(r'^internal:(text|label)=("(?:[^"\\]|\\.)*")[is]?$')
_ID = re.compile(r"^#([A-Za-z][\w-]*)$")
_STATES = {
    "pressed": "aria-pressed",
    "selected": "aria-selected",
    "expanded": "aria-expanded",
    "checked": "aria-checked",
}


def strip_scripts(html: str) -> str:
    """``html`` without ``<script>`` elements and inline ``on*`` event handlers (nothing on the page runs).

    Example:
        >>> strip_scripts('<button onclick="go()">Go</button><script>go = () => 1</script>')
        '<button>Go</button>'
    """
    return _HANDLER.sub("", _SCRIPT.sub("", html))


def static_imitation(html: str, cases: Any) -> str:
    """``html`` with its scripts removed and a static block, first in the body, of what ``cases`` expect.

    Args:
        html: the page (a whole document or a fragment).
        cases: its structured cases (``TestCase`` objects, dicts or a JSON string).

    Returns:
        The imitation page (the block is a ``div`` with the attribute ``data-static-imitation``).
    """
    parts: list[str] = []
    for case in parse_cases(cases):
        for exp in case.expect:
            part = _imitate(exp)
            if part and part not in parts:
                parts.append(part)
    block = "<div data-static-imitation>" + "".join(parts) + "</div>"
    page = strip_scripts(html)
    match = _BODY.search(page)
    return page[: match.end()] + block + page[match.end() :] if match else block + page


def _imitate(exp: Expectation) -> str | None:
    """One static element that meets ``exp`` wherever a first match or any match is read, or None."""
    target = exp.target.strip()
    if exp.kind == "text":
        text = html_lib.escape(str(exp.expected))
        ident = _ID.match(target)
        return f'<div id="{ident.group(1)}">{text}</div>' if ident else f"<p>{text}</p>"
    if exp.kind == "value":
        value = html_lib.escape(str(exp.expected), quote=True)
        field = _field(target, value)
        return field
    if exp.kind == "visible" and exp.expected is True:
        return _visible(target)
    return None


def _field(target: str, value: str) -> str | None:
    quoted = _QUOTED.match(target)
    if quoted and quoted.group(1) == "label":
        return f'<label>{html_lib.escape(json.loads(quoted.group(2)))} <input value="{value}"></label>'
    ident = _ID.match(target)
    return f'<input id="{ident.group(1)}" value="{value}">' if ident else None


def _visible(target: str) -> str | None:
    quoted = _QUOTED.match(target)
    if quoted:
        text = html_lib.escape(json.loads(quoted.group(2)))
        return f"<p>{text}</p>" if quoted.group(1) == "text" else f"<label>{text} <input></label>"
    role = _ROLE.match(target)
    if role:
        attrs, name = [f'role="{role.group(1)}"'], ""
        for key, raw in _ATTR.findall(role.group(2)):
            if key == "name":
                name = html_lib.escape(json.loads(raw.rstrip("is")))
            elif key in _STATES:
                attrs.append(f'{_STATES[key]}="{raw}"')
            elif key == "level":
                attrs.append(f'aria-level="{raw}"')
        return f"<div {' '.join(attrs)}>{name}</div>"
    ident = _ID.match(target)
    return f'<div id="{ident.group(1)}">{ident.group(1)}</div>' if ident else None
