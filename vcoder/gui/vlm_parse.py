"""Parse what a VLM writes into GUI actions and appearance scores, forgivingly.

Models answer in many shapes: a JSON object in a code fence, a JSON-ish dict with single quotes or trailing commas,
a WebVoyager-style line (``Click [3]``, ``Type [5]; hello``, ``ANSWER; YES``), prose around any of these, synonyms
(``tap``, ``fill``, ``finish``), element ids as ``3``, ``"[3]"``, ``"#3"``, ``"element 3"`` or the element's text.
These functions never raise on model output: they return ``None`` when nothing usable is there.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from vcoder.gui.actions import ACTIONS
from vcoder.metrics.extract import strip_think

# the other words models use for the actions (any case; spaces and dashes read as underscores)
_ACTION_SYNONYMS = {
    "click": "tap push toggle check open click_element clickelement press_button left_click",
    "type": "fill input enter_text write type_text typetext fill_in set_text",
    "select": "choose pick select_option dropdown",
    "press": "key keypress press_key hit hotkey",
    "scroll": "scroll_down scroll_up scrolldown scrollup",
    "wait": "sleep pause noop",
    "back": "go_back goback navigate_back return",
    "answer": "finish done stop final final_answer verdict respond conclude submit_answer",
}
_SYNONYMS = {action: action for action in ACTIONS} | {
    word: action for action, words in _ACTION_SYNONYMS.items() for word in words.split()
}
_VERDICT_WORDS = {
    word: verdict
    for verdict, words in {
        "YES": "YES PASS PASSED SUCCESS TRUE SUCCEEDED",
        "PARTIAL": "PARTIAL PARTIALLY PARTLY",
        "NO": "NO FAIL FAILED FAILURE FALSE",
    }.items()
    for word in words.split()
}

_ACTION_KEYS = ("action", "action_type", "act", "name", "command", "operation", "type")
_ELEMENT_KEYS = ("element", "element_id", "id", "index", "target", "mark", "label", "elem", "idx", "ref")
_TEXT_KEYS = ("text", "value", "content", "input", "option", "query")


@dataclass(frozen=True)
class ParsedAction:
    """One parsed GUI action.

    Attributes:
        kind: one of ``ACTIONS``.
        element: the numbered element (mark) the action targets, when given as a number.
        element_text: the target given as text instead of a number (the environment resolves it).
        text: text to type, or the option to select.
        key: key to press (``Enter``, ``Tab``, ...).
        direction: ``down`` or ``up`` for scroll.
        verdict: ``YES`` / ``PARTIAL`` / ``NO`` for answer.
        reason: the model's explanation, when it gave one.
    """

    kind: str
    element: int | None = None
    element_text: str | None = None
    text: str | None = None
    key: str | None = None
    direction: str | None = None
    verdict: str | None = None
    reason: str | None = None


def _balanced_objects(text: str) -> list[str]:
    """Every top-level ``{...}`` substring, outermost first, in order of appearance."""
    found, depth, start, quote = [], 0, -1, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'" and depth:
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                found.append(text[start : i + 1])
    return found


def _loads_lenient(candidate: str) -> dict[str, Any] | None:
    attempts = [candidate]
    fixed = re.sub(r",\s*([}\]])", r"\1", candidate)  # trailing commas
    attempts.append(fixed)
    attempts.append(re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:", r'\1"\2":', fixed))  # bare keys
    for attempt in attempts:
        try:
            value = json.loads(attempt)
        except ValueError:
            try:  # single quotes, True/None
                value = ast.literal_eval(attempt)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
        if isinstance(value, dict):
            return value
    return None


def find_json_object(text: str) -> dict[str, Any] | None:
    """Return the first dict found in ``text``: fenced code first, then any balanced ``{...}``."""
    text = strip_think(text)
    fenced = re.findall(r"```(?:json|JSON|python)?\s*(.*?)```", text, flags=re.S)
    for block in fenced + [text]:
        for candidate in _balanced_objects(block):
            value = _loads_lenient(candidate)
            if value is not None:
                return value
    return None


def normalize_action_name(name: Any) -> str | None:
    """Map an action name or synonym (any case, spaces/dashes) to one of ``ACTIONS``, else None."""
    if not isinstance(name, str):
        return None
    key = re.sub(r"[\s\-]+", "_", name.strip().lower()).strip("_.:;!")
    return _SYNONYMS.get(key)


def normalize_verdict(value: Any) -> str | None:
    """``"yes"``, ``"Yes."``, ``"**PARTIAL**"``, ``"pass"``, ``True`` ... -> ``YES`` / ``PARTIAL`` / ``NO``; else None."""
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if not isinstance(value, str):
        return None
    for word in re.findall(r"[A-Za-z]+", value.upper()):
        if word in _VERDICT_WORDS:
            return _VERDICT_WORDS[word]
    return None


def parse_element(value: Any) -> tuple[int | None, str | None]:
    """An element reference -> (number, None) for ``3``, ``"[3]"``, ``"#3"``, ``"element 3"``; else (None, text)."""
    if isinstance(value, bool) or value is None:
        return None, None
    if isinstance(value, int):
        return value, None
    if isinstance(value, float) and value.is_integer():
        return int(value), None
    if isinstance(value, (list, tuple)) and len(value) == 1:
        return parse_element(value[0])
    text = str(value).strip()
    match = re.fullmatch(r"(?:(?:element|elem|mark|id|index|no\.?|number)\s*)?[\[#(]?\s*(\d+)\s*[\])]?\.?", text, re.I)
    if match:
        return int(match.group(1)), None
    return None, (text.strip("\"'") or None)


def _first(d: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in d and d[key] not in (None, ""):
            return d[key]
    return None


def _from_dict(d: dict[str, Any]) -> ParsedAction | None:
    d = {str(k).strip().lower(): v for k, v in d.items()}
    if isinstance(d.get("action"), dict):  # {"action": {"type": "click", "element": 3}}
        return _from_dict(d["action"])
    name = None
    for key in _ACTION_KEYS:
        name = normalize_action_name(d.get(key))
        if name:
            break
    if name is None:
        return None
    raw_action = str(_first(d, _ACTION_KEYS) or "").lower()
    element, element_text = parse_element(_first(d, _ELEMENT_KEYS))
    text = _first(d, _TEXT_KEYS)
    if name == "answer":
        reason = _first(d, ("reason", "explanation", "rationale", "thought", "because"))
        verdict = normalize_verdict(_first(d, ("verdict", "answer", "result", "outcome", "status", "value", "text")))
        return ParsedAction(
            "answer", verdict=verdict or normalize_verdict(reason or ""), reason=reason and str(reason)
        )
    if name == "press":
        key = _first(d, ("key", "keys", "value", "text"))
        return ParsedAction("press", element=element, element_text=element_text, key=key and str(key))
    if name == "scroll":
        direction = str(_first(d, ("direction", "dir", "value", "text")) or ("up" if "up" in raw_action else "down"))
        return ParsedAction("scroll", direction="up" if "up" in direction.lower() else "down")
    return ParsedAction(name, element=element, element_text=element_text, text=None if text is None else str(text))


_LINE = re.compile(
    r"(?im)^[\s>*`#-]*(?:(?:next\s+)?action\s*(?:\d+)?\s*[:=-]\s*)?\**\s*"
    r"(?P<name>[a-z_][a-z_ ]{1,20}?)\s*\**\s*(?:[:;,(\s]\s*(?P<rest>.*?))?\s*\)?\s*$"
)


def _from_line(text: str) -> ParsedAction | None:
    for match in _LINE.finditer(text):
        name = normalize_action_name(match.group("name"))
        if name is None:
            continue
        rest = (match.group("rest") or "").strip().strip("`*")
        if name == "answer":
            return ParsedAction("answer", verdict=normalize_verdict(rest), reason=rest or None)
        if name == "scroll":
            return ParsedAction("scroll", direction="up" if "up" in (match.group("name") + rest).lower() else "down")
        if name in ("wait", "back"):
            return ParsedAction(name)
        ref = re.match(r"\[?\s*#?(\d+)\s*\]?\s*[;:,]?\s*(.*)", rest)
        if name == "press":
            return ParsedAction("press", key=(ref.group(2) if ref else rest).strip("\"' ") or None)
        if ref:
            extra = ref.group(2).strip().strip("\"'") or None
            return ParsedAction(name, element=int(ref.group(1)), text=extra)
        if rest:
            target, _, extra = rest.partition(";")
            return ParsedAction(
                name, element_text=target.strip().strip("\"'[]") or None, text=extra.strip().strip("\"'") or None
            )
    return None


def parse_action(text: str) -> ParsedAction | None:
    """Parse one action from a model reply; ``None`` when the reply holds no recognisable action.

    Args:
        text: the raw reply.

    Returns:
        The action, or None.

    Example:
        >>> parse_action('Sure! ```json\\n{"action": "click", "element": "[3]"}\\n```')
        ParsedAction(kind='click', element=3, element_text=None, text=None, key=None, direction=None, verdict=None, reason=None)
        >>> parse_action("ANSWER; PARTIAL - the list grew but the counter did not").verdict
        'PARTIAL'
    """
    if not isinstance(text, str) or not text.strip():
        return None
    obj = find_json_object(text)
    if obj is not None:
        action = _from_dict(obj)
        if action is not None:
            return action
    return _from_line(strip_think(text))


def parse_score(text: str, *, max_score: float = 5.0) -> float | None:
    """Find a 0..max_score grade in a judge's reply; ``None`` when there is none.

    Understands ``Score: 4``, ``4/5``, ``**4**``, ``{"score": 3.5}``, ``Rating - 2 out of 5``, and a bare number.
    An explicit ``Score:`` wins over other numbers; the last such match wins (judges reason first, grade last).

    Args:
        text: the raw reply.
        max_score: the top of the scale; values outside [0, max_score] are rejected.

    Returns:
        The grade as a float in [0, max_score], or None.

    Example:
        >>> parse_score("Layout is off. **Score: 3/5**")
        3.0
    """
    if not isinstance(text, str):
        return None
    text = strip_think(text)
    num = r"(\d+(?:\.\d+)?)"
    obj = find_json_object(text)
    if obj is not None:
        lowered = {str(k).lower(): v for k, v in obj.items()}
        for key in ("score", "grade", "rating", "appearance", "appearance_score"):
            value = lowered.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= max_score:
                return float(value)
            if isinstance(value, str) and re.fullmatch(r"\s*" + num + r"\s*(?:/\s*\d+)?\s*", value):
                got = float(re.search(num, value).group(1))
                if 0 <= got <= max_score:
                    return got
    patterns = (
        r"(?:score|grade|rating|rated|appearance)\s*(?:is|of|=|:|-)?\s*[*_`\s]*" + num,
        num + r"\s*(?:/|out\s+of)\s*" + f"{max_score:g}" + r"\b",
        r"\*\*\s*" + num + r"\s*\*\*",
        r"^\s*" + num + r"\s*\.?\s*$",
    )
    for pattern in patterns:
        hits = [float(m) for m in re.findall(pattern, text, flags=re.I | re.M)]
        hits = [h for h in hits if 0 <= h <= max_score]
        if hits:
            return hits[-1]
    return None
