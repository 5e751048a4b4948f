"""WebGen-Agent's own rules for a Step-GRPO turn (``agent_format: webgen_agent``): what is malformed, what a grade
reads as, and where each grade lands.

Read in WebGen-Agent's public code (github.com/mnluzimu/WebGen-Agent, ``WebGen-RL/verl/workers/``):

- ``agentic/webgen_agent/feedback/file_management.py`` ``create_workspace``: a ``screenshot_validated`` or
  ``finish`` reply longer than 400 characters, or holding a ``boltArtifact``, is badly formatted; so is a reply
  that ``has_repetition`` (``feedback/has_repetition.py``) flags. Its ``has_syntax_error`` check is switched off.
- ``has_repetition``: numbers and colour codes become one token, whitespace collapses, the text is lower-cased;
  every 50-character window is counted, and the reply repeats when the windows seen 3 times or more make at least
  40% of all windows (texts under 100 characters never repeat).
- ``agentic/webgen_agent/generation.py`` ``execute_predictions``: a code-writing turn opens a score entry
  (appearance grade, GUI grade 0); a ``screenshot_validated`` turn puts its GUI grade on the LAST entry (the
  previous code-writing turn's); a badly formatted validated or finish turn adds a copy of that entry marked bad.
  ``reward_manager/webgen.py`` ``WebGenRewardManager``: an entry's reward is ``screenshot + webvoyager`` (the two
  raw grades, 0-5 and 1-5), or -1 when it is badly formatted.
- ``generation.py`` ``_postprocess_responses`` / ``_compose_final_output``: a reply that reaches the 9000-token cap
  ends the trajectory; unless it repeats, the whole trajectory is dropped (its masks zeroed, its scores emptied).
- ``feedback/execute_for_feedback.py`` ``extract_number``: a grade is the number itself, else the first number in
  its text, else 0; ``feedback/get_webvoyager_feedback.py``: the summary's JSON object is the first ``{`` to the
  last ``}``; when the GUI agent's last message says YES the test passed and no suggestions are kept.

vcoder also counts a reply its Bolt parser cannot read (:mod:`vcoder.sites.bolt`) as malformed (the paper's
"malformed output"); WebGen-Agent's loop would run the unchanged project instead.

Example:
    >>> seed_malformed('<boltAction type="finish"/>')
    >>> seed_malformed('<boltAction type="finish"/>' + "x" * 400)
    'a finish reply longer than 400 characters'
    >>> read_grade({"grade": "4/5"}), read_grade({}), read_grade({"grade": 3.5})
    (4, 0, 3.5)
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from numbers import Number
from typing import Any

#: longest finish / screenshot_validated reply that is well formed (``create_workspace``)
SIGNAL_LIMIT = 400
#: ``has_repetition``'s window, repeat count and ratio
WINDOW = 50
REPEATS = 3
RATIO = 0.40

_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}\b")
_RGB = re.compile(r"rgba?\([^)]*\)")
_NUMBER = re.compile(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?")
_FIRST_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_TAG = re.compile(r"<\s*(/?)\s*(boltArtifact|boltAction)\b[^>]*?>")
_SIGNAL = re.compile(r"""boltAction\s+type=["'](screenshot_validated|finish)["']""")


def signal_of(reply: str) -> str | None:
    """``"screenshot_validated"``, ``"finish"`` (the first the reply declares, validated first as the seed checks
    it) or None for a code-writing reply.

    Example:
        >>> signal_of("<boltAction type='screenshot_validated'/>"), signal_of("<boltArtifact>...")
        ('screenshot_validated', None)
    """
    kinds = {m.group(1) for m in _SIGNAL.finditer(reply)}
    for kind in ("screenshot_validated", "finish"):
        if kind in kinds:
            return kind
    return None


def has_repetition(text: str) -> bool:
    """WebGen-Agent's repetition test (see the module docstring).

    Example:
        >>> has_repetition("<div class='card'>item</div>\\n" * 40), has_repetition("a short reply")
        (True, False)
    """
    text = _NUMBER.sub("<VAR>", _RGB.sub("<VAR>", _HEX.sub("<VAR>", text)))
    text = re.sub(r"\s+", " ", text).strip().lower().replace("<|endoftext|>", "")
    if len(text) < 2 * WINDOW:
        return False
    windows = [text[i : i + WINDOW] for i in range(len(text) - WINDOW + 1)]
    repeated = sum(c for c in Counter(windows).values() if c >= REPEATS)
    return repeated / len(windows) >= RATIO


def nesting_error(reply: str) -> str | None:
    """Why the reply's ``<boltArtifact>``/``<boltAction>`` tags are not well nested, or None (the seed's
    ``validate_bolt_markup``: tag boundaries only, self-closing actions count as closed)."""
    stack: list[str] = []
    for match in _TAG.finditer(reply):
        closing, tag = match.groups()
        if match.group(0).rstrip(">").rstrip().endswith("/"):
            continue
        if not closing:
            stack.append(tag)
        elif not stack or stack[-1] != tag:
            return f"</{tag}> does not close {'<' + stack[-1] + '>' if stack else 'anything'}"
        else:
            stack.pop()
    return f"<{stack[-1]}> is never closed" if stack else None


def seed_malformed(reply: str) -> str | None:
    """Why WebGen-Agent's rules make ``reply`` badly formatted (reward -1), or None.

    Checks, in order: a finish / screenshot_validated reply over 400 characters or holding an artifact, then
    repetition, then tag nesting.
    """
    kind = signal_of(reply)
    if kind is not None:
        if len(reply) > SIGNAL_LIMIT:
            return f"a {kind} reply longer than {SIGNAL_LIMIT} characters"
        if "boltArtifact" in reply:
            return f"a {kind} reply that holds a <boltArtifact>"
    if has_repetition(reply):
        return "the reply repeats itself"
    return nesting_error(reply)


def drops_trajectory(reply: str, cut: bool) -> bool:
    """True when a reply cut by its token cap drops its whole trajectory from training (it did not repeat).

    Example:
        >>> drops_trajectory("<boltArtifact><boltAction type='file' filePath='a.ts'>con", cut=True)
        True
        >>> drops_trajectory("x", cut=False)
        False
    """
    return cut and not has_repetition(reply)


def read_grade(value: Any) -> float:
    """A grade as the seed reads it: a dict's ``"grade"``, a number as is, else the first number in the text, else
    0 (``extract_number``)."""
    if isinstance(value, dict):
        value = value.get("grade", 0)
    if isinstance(value, Number) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        match = _FIRST_NUMBER.search(value)
        if match:
            text = match.group(0)
            return int(text) if re.fullmatch(r"[-+]?\d+", text) else float(text)
    return 0


def json_block(text: str | None) -> dict[str, Any]:
    """The JSON object from the first ``{`` to the last ``}`` of a judge's reply; ``{}`` when there is none or it
    does not parse."""
    match = re.search(r"\{.*\}", text or "", flags=re.DOTALL)
    if not match:
        return {}
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class GuiSummary:
    """The LLM's summary of a GUI-agent run: ``grade`` 1-5 (0: unreadable), ``suggestions`` (None: the summary had
    no such field, a failure of the test), ``passed``."""

    grade: float
    suggestions: str | None
    passed: bool


def read_summary(summary: str | None, agent_said_yes: bool) -> GuiSummary:
    """The 1-5 grade and suggestions of the summary LLM's reply (``get_webvoyager_feedback``).

    Example:
        >>> read_summary('ok. {"test_passed": false, "improvement_suggestions": "fix cart", "grade": 3}', False)
        GuiSummary(grade=3, suggestions='fix cart', passed=False)
        >>> read_summary('{"test_passed": false, "improvement_suggestions": "x", "grade": "4"}', True)
        GuiSummary(grade=4, suggestions='', passed=True)
    """
    data = json_block(summary)
    if agent_said_yes:
        data = {**data, "test_passed": True, "improvement_suggestions": ""}
    suggestions = data.get("improvement_suggestions")
    return GuiSummary(
        grade=read_grade(data),
        suggestions=None if suggestions is None else str(suggestions),
        passed=bool(data.get("test_passed", False)),
    )


@dataclass
class SeedLedger:
    """The score entries of one trajectory, kept as ``execute_predictions`` keeps them, and each turn's reward.

    Example:
        >>> ledger = SeedLedger()
        >>> ledger.code_turn(1, screenshot=3, good=True)
        >>> ledger.validated_turn(2, gui=4, good=True)
        >>> ledger.finish_turn(3, good=False)
        >>> ledger.turn_rewards(3)
        [7, None, -1.0]
    """

    entries: list[dict[str, Any]] = field(default_factory=list)
    malformed_reward: float = -1.0
    #: the ablations (``WebGenRewardManagerScreenshot`` / ``...GUIAgent``): a component switched off counts 0
    screenshot_on: bool = True
    gui_on: bool = True

    def code_turn(self, turn: int, *, screenshot: float, good: bool) -> None:
        """A code-writing turn opens an entry: its appearance grade, GUI grade 0."""
        self.entries.append({"turn": turn, "screenshot": screenshot, "gui": 0, "good": good})

    def validated_turn(self, turn: int, *, gui: float, good: bool) -> None:
        """The GUI grade goes to the previous code-writing turn's entry (this turn's own when there is none); a
        badly formatted validated turn adds a bad copy on this turn."""
        if not self.entries:
            self.entries.append({"turn": turn, "screenshot": 0, "gui": 0, "good": True})
        self.entries[-1]["gui"] = gui
        if not good:
            self.entries.append({**self.entries[-1], "turn": turn, "good": False})

    def finish_turn(self, turn: int, *, good: bool) -> None:
        """A finish turn scores nothing, unless badly formatted (-1 on this turn)."""
        if not good:
            base = self.entries[-1] if self.entries else {"screenshot": 0, "gui": 0}
            self.entries.append({**base, "turn": turn, "good": False})

    def reward(self, entry: dict[str, Any]) -> float:
        """``screenshot + gui``, or the malformed reward for a bad entry (``WebGenRewardManager``)."""
        if not entry["good"]:
            return self.malformed_reward
        return (entry["screenshot"] if self.screenshot_on else 0) + (entry["gui"] if self.gui_on else 0)

    def turn_rewards(self, turns: int) -> list[float | None]:
        """Each turn's reward (turns 1..``turns``); None for a turn with no entry (a well-formed finish or
        validated turn: its grade belongs to the code turn before it)."""
        out: list[float | None] = [None] * turns
        for entry in self.entries:
            value = self.reward(entry)
            index = entry["turn"] - 1
            # a bad copy and the entry it copies can share a turn only when that turn had none before
            out[index] = value if out[index] is None or not entry["good"] else out[index]
        return out
