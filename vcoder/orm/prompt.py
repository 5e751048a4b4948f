"""What the ORM reads: the task, a compact summary of the page, and (for agent episodes) what the agent did and saw.

WebRL's ORM judges a trajectory from the instruction, the action history and the final page. Here the "trajectory"
is a site plus, when the GUI agent ran it, one brief line per test case: the actions and the page's visible change.
A broken page usually LOOKS like a working one (a dropped ``<script>``, listeners on the wrong element), so the
summary carries what the screenshot cannot show: the visible text, the controls, and the page's script in brief.
The agent's verdicts and reasons are never shown (they are the label).

Prompt (the user turn; the screenshot, when there is one, comes before the text)::

    Task: <instruction>
    Test cases:
    1. <task> -> <expected result>
    Page title: <title>
    Visible text: <text blocks joined by " | ">
    Controls: <tag#id "label">; ...
    Script: <inline scripts, whitespace collapsed> | none
    Agent runs:                                   (only for agent episodes)
    1. <action>, <action> => <visible change>      (numbered as the test cases)
    Build turns:                                  (only when the record has a history)
    1. <turn>
    Does the site do what the task asks? Answer YES or NO.

The answer (the assistant turn) is a single ``YES`` or ``NO`` token.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

PROMPT_VERSION = 1
QUESTION = "Does the site do what the task asks? Answer YES or NO."
#: character budgets of the prompt's parts (the tiny model's context is short; real models read the same)
LIMITS = {"text": 240, "controls": 200, "script": 400, "case": 120, "run": 160, "turn": 160}
_CONTROL_TAGS = ("button", "input", "select", "textarea", "a", "form")


def short(text: Any, limit: int) -> str:
    """One line, at most ``limit`` characters (an ellipsis marks a cut)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Scan(HTMLParser):
    """Collects the title, the controls and the scripts of an HTML document (tolerant of broken markup)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title, self.controls, self.scripts, self.handlers = "", [], [], []
        self._in: str | None = None
        self._open: list[list[str]] = []  # controls whose label text is still being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.handlers += [f"{k} on {tag}" for k in a if k.startswith("on")]
        if tag in ("title", "script", "style"):
            self._in = tag
            if tag == "script" and a.get("src"):
                self.scripts.append(f"[src {a['src']}]")
        if tag in _CONTROL_TAGS:
            name = tag + (f"#{a['id']}" if a.get("id") else "")
            hint = a.get("placeholder") or a.get("aria-label") or a.get("value") or ""
            entry = [name + (f"[{a['type']}]" if tag == "input" and a.get("type") else ""), hint]
            self.controls.append(entry)
            if tag in ("button", "a", "select", "textarea"):
                self._open.append(entry)

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None
        if tag in ("button", "a", "select", "textarea") and self._open:
            self._open.pop()

    @property
    def in_script(self) -> bool:
        return self._in == "script"

    def handle_data(self, data: str) -> None:
        if self._in == "title":
            self.title += data
        elif self._in == "script":
            self.scripts.append(data)
        elif self._in is None and self._open and data.strip():
            self._open[-1][1] = (self._open[-1][1] + " " + data.strip()).strip()


def page_summary(html: str, visible_text: Sequence[str] = ()) -> str:
    """The compact text/DOM summary of a page (four prompt lines).

    Args:
        html: the page source (controls, scripts and the title are read from it).
        visible_text: the rendered page's text blocks, in document order (``Layout.text_blocks`` texts).

    Returns:
        ``Page title / Visible text / Controls / Script`` lines.

    Example:
        >>> print(page_summary('<title>T</title><button id="go">Go</button><script>f()</script>', ["Go"]))
        Page title: T
        Visible text: Go
        Controls: button#go "Go"
        Script: f()
    """
    scan = _Scan()
    try:
        scan.feed(html)
        scan.close()
    except Exception:  # html.parser gives up on some malformed input: summarise what was read
        pass
    if scan.in_script and scan.rawdata:  # a script cut off by the end of the completion: the parser kept it back
        scan.scripts.append(scan.rawdata)
    controls = "; ".join(f'{name} "{short(hint, 40)}"' if hint else name for name, hint in scan.controls)
    code = " ".join(s.strip() for s in scan.scripts if s.strip())
    if scan.handlers:
        code = (code + " [inline handlers: " + ", ".join(sorted(set(scan.handlers))) + "]").strip()
    return "\n".join(
        (
            f"Page title: {short(scan.title, 80) or '(none)'}",
            f"Visible text: {short(' | '.join(t for t in visible_text if str(t).strip()), LIMITS['text']) or '(none)'}",
            f"Controls: {short(controls, LIMITS['controls']) or '(none)'}",
            f"Script: {short(code, LIMITS['script']) or 'none'}",
        )
    )


def text_change(before: str | None, after: str | None, *, limit: int = 120) -> str | None:
    """What the visible text gained and lost between two states, in brief; None when either is unknown.

    Example:
        >>> text_change("Count\\n1", "Count\\n4")
        'shows "4"; no longer "1"'
        >>> text_change("a", "a")
        'no visible change'
    """
    if before is None or after is None:
        return None
    old = Counter(line.strip() for line in before.splitlines() if line.strip())
    new = Counter(line.strip() for line in after.splitlines() if line.strip())
    gained, lost = list((new - old).elements()), list((old - new).elements())
    if not gained and not lost:
        return "no visible change"
    parts = []
    if gained:
        parts.append("shows " + ", ".join(f'"{short(t, 60)}"' for t in gained))
    if lost:
        parts.append("no longer " + ", ".join(f'"{short(t, 60)}"' for t in lost))
    return short("; ".join(parts), limit)


@dataclass(frozen=True)
class AgentRun:
    """One test case as the agent carried it out: the actions in brief and the visible change afterwards."""

    task: str
    trace: tuple[str, ...] = ()
    observed: str | None = None

    def line(self) -> str:
        """``<actions> => <visible change>`` (the case itself is named by its number in the prompt)."""
        actions = ", ".join(self.trace) or "no actions"
        return short(f"{actions} => {self.observed or 'outcome not recorded'}", LIMITS["run"])


def orm_prompt(
    instruction: str,
    test_cases: Sequence[dict[str, Any]],
    summary: str,
    *,
    runs: Sequence[AgentRun] = (),
    history: Sequence[str] = (),
) -> str:
    """The ORM's user text (see the module docstring for the exact layout).

    Args:
        instruction: the task instruction.
        test_cases: case dicts (``task`` and ``expected_result`` are shown; steps and assertions are not).
        summary: :func:`page_summary` of the site.
        runs: the GUI agent's runs of the cases, for agent episodes (empty: judge the site alone).
        history: turns of a site-building episode, in brief.

    Returns:
        The prompt text, ending with the YES/NO question.
    """
    lines = [f"Task: {' '.join(str(instruction).split())}", "Test cases:"]
    for i, case in enumerate(test_cases, 1):
        expected = case.get("expected_result") or ""
        lines.append(short(f"{i}. {case.get('task', '')}" + (f" -> {expected}" if expected else ""), LIMITS["case"]))
    lines.append(summary)
    if runs:
        lines += ["Agent runs:"] + [f"{i}. {run.line()}" for i, run in enumerate(runs, 1)]
    if history:
        lines += ["Build turns:"] + [short(f"{i}. {turn}", LIMITS["turn"]) for i, turn in enumerate(history, 1)]
    lines.append(QUESTION)
    return "\n".join(lines)
