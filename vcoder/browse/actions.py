"""WebRL's action space, parsed from the policy's text and mapped onto the GUI agent's actions.

WebRL (Qi et al., 2024; VisualAgentBench's WebArena-Lite "WebRL setting") has its policy write one line of
python-style pseudo code per step, optionally after a ``# Element: ...`` comment::

    do(action="Click", element="12")
    do(action="Type", argument="blue mug", element="4")       # "Search" = Type + Enter
    do(action="Select Dropdown Option", argument="VIP", element="7")
    do(action="Scroll Down")  /  do(action="Scroll Up")  /  do(action="Press Enter")  /  do(action="Wait")
    go_backward()
    exit(message="$12.50")                                    # the answer, ends the episode

The line is parsed with :mod:`ast` (keywords with literal values only: nothing is evaluated). ``Hover``,
``Right Click``, ``Switch Tab`` and ``go_forward`` are WebRL's but not offered here: the sites need no hover menus,
open no tabs, and the GUI environment's history moves only back; a policy that writes one gets a failed step with an
error it can read, as it does for any malformed line.

Example:
    >>> parse_action('# Element: the Search box\\ndo(action="Search", argument="mug", element="4")')
    WebAction(name='Search', element=4, argument='mug')
    >>> to_gui(parse_action('exit(message="12")'))
    [Action(kind='answer', target=None, value='12')]
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass

from vcoder.gui.actions import Action

#: WebRL's ``do`` actions offered here, and the functions beside ``do``
DO_ACTIONS = ("Click", "Type", "Search", "Select Dropdown Option", "Scroll Up", "Scroll Down", "Press Enter", "Wait")
CALLS = ("do", "exit", "go_backward")
_NEEDS_ELEMENT = ("Click", "Type", "Search", "Select Dropdown Option")
_NEEDS_ARGUMENT = ("Type", "Search", "Select Dropdown Option")
#: pixels of one Scroll Up / Scroll Down
SCROLL_PX = 600


class ActionParseError(ValueError):
    """The policy's text is not one of WebRL's actions (the message says what was wrong, for its next turn)."""


@dataclass(frozen=True)
class WebAction:
    """One parsed action: ``name`` is a ``DO_ACTIONS`` entry, ``"exit"`` or ``"go_backward"``."""

    name: str
    element: int | None = None
    argument: str | None = None

    def to_text(self) -> str:
        """The action as the policy writes it (what demonstrations hold); strings quoted as JSON strings, which
        Python reads back unchanged."""
        if self.name == "exit":
            return f"exit(message={json.dumps(self.argument or '', ensure_ascii=False)})"
        if self.name == "go_backward":
            return "go_backward()"
        parts = [f'action="{self.name}"']
        if self.argument is not None:
            parts.append(f"argument={json.dumps(self.argument, ensure_ascii=False)}")
        if self.element is not None:
            parts.append(f'element="{self.element}"')
        return f"do({', '.join(parts)})"


def element_comment(text: str) -> str | None:
    """The element named by a ``# Element: ...`` comment line of ``text`` (WebRL's note before an action), else None.

    Example:
        >>> element_comment('# Element: Add to Cart\\ndo(action="Click", element="6")')
        'Add to Cart'
    """
    for line in str(text).strip().splitlines():
        line = line.strip()
        if line.startswith("#") and line[1:].strip().lower().startswith("element:"):
            return line[1:].strip()[len("element:") :].strip()
    return None


def with_comment(line: str, element: str | None) -> str:
    """An action line with WebRL's ``# Element: ...`` comment before it (the line alone for None)."""
    return line if element is None else f"# Element: {' '.join(element.split())}\n{line}"


def action_line(text: str) -> str:
    """The action line of a step's text (its comments left out): what the history of later steps shows."""
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip() and not ln.strip().startswith("#")]
    return lines[-1] if lines else str(text).strip()


def _call(text: str) -> ast.Call:
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if not lines:
        raise ActionParseError('no action: write one line such as do(action="Click", element="3")')
    line = lines[-1].strip("`")
    try:
        node = ast.parse(line, mode="eval").body
    except SyntaxError as exc:
        raise ActionParseError(f"not a function call: {line[:120]!r} ({exc.msg})") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id not in CALLS:
        raise ActionParseError(f"unknown call {line[:120]!r}: use do(...), go_backward() or exit(message=...)")
    return node


def parse_action(text: str) -> WebAction:
    """The action written in ``text`` (its last non-comment line).

    Raises:
        ActionParseError: a malformed line, an unknown action, or a missing element / argument.
    """
    node = _call(text)
    kwargs: dict[str, str] = {}
    for kw in node.keywords:
        if kw.arg is None or not isinstance(kw.value, ast.Constant):
            raise ActionParseError(f"{node.func.id}(...) takes keyword arguments with literal values")
        kwargs[kw.arg] = str(kw.value.value)
    if node.args:
        raise ActionParseError(f"{node.func.id}(...) takes keyword arguments only (action=, argument=, element=)")
    if node.func.id == "exit":
        return WebAction("exit", argument=kwargs.get("message", ""))
    if node.func.id == "go_backward":
        return WebAction("go_backward")
    name = kwargs.get("action")
    if name not in DO_ACTIONS:
        raise ActionParseError(f"unknown action {name!r}; use one of {', '.join(DO_ACTIONS)}")
    element = kwargs.get("element")
    if name in _NEEDS_ELEMENT:
        if element is None or not element.strip().isdigit():
            raise ActionParseError(f'{name} needs element="<id>" (an id from the page), got {element!r}')
    if name in _NEEDS_ARGUMENT and "argument" not in kwargs:
        raise ActionParseError(f'{name} needs argument="..."')
    return WebAction(name, int(element) if element and element.strip().isdigit() else None, kwargs.get("argument"))


def to_gui(action: WebAction) -> list[Action]:
    """The GUI environment's actions that perform ``action`` (``Search`` is a type then an Enter)."""
    n, arg = action.element, action.argument
    table = {
        "Click": [Action("click", n)],
        "Type": [Action("type", n, arg)],
        "Search": [Action("type", n, arg), Action("press", n, "Enter")],
        "Select Dropdown Option": [Action("select", n, arg)],
        "Scroll Down": [Action("scroll", None, str(SCROLL_PX))],
        "Scroll Up": [Action("scroll", None, str(-SCROLL_PX))],
        "Press Enter": [Action("press", None, "Enter")],
        "Wait": [Action("wait", None, "300")],
        "go_backward": [Action("back")],
        "exit": [Action("answer", None, arg or "")],
    }
    return table[action.name]
