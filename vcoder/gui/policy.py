"""Test cases, verdicts and the ``Policy`` interface shared by every GUI agent (scripted or VLM).

A test case follows WebGen-Bench (Lu et al., 2025): ``{"task", "expected_result", "task_category"}``; vcoder adds
optional machine-checkable ``steps`` (Playwright actions) and ``expect`` (assertions) so a deterministic scripted
policy can grade it. A policy carries one case out on a :class:`vcoder.gui.env.GuiEnv` and answers
YES / PARTIAL / NO, scored 1 / 0.5 / 0; a page's score is the mean over its cases.

Example:
    >>> case = TestCase.from_dict({"task": "Click +", "steps": [{"action": "click", "target": "#inc"}],
    ...                            "expect": [{"target": "#count", "text": "1"}]})
    >>> case.steps[0].action, case.expect[0].kind, case.expect[0].expected
    ('click', 'text', '1')
    >>> Verdict.PARTIAL.score
    0.5
"""

from __future__ import annotations

import abc
import enum
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vcoder.gui.env import GuiEnv

#: actions a structured step may take (the env also has ``back`` and ``answer``, which need no selector)
STEP_ACTIONS = ("click", "type", "select", "press", "scroll", "wait")
#: assertion kinds of an ``expect`` entry: exactly one per entry
EXPECT_KINDS = ("text", "value", "visible", "count")


class CaseError(ValueError):
    """A test case that does not follow the schema; the message names the case index and the problem."""


class Verdict(str, enum.Enum):
    """The agent's answer for one case (WebGen-Bench): YES = 1, PARTIAL = 0.5, NO = 0."""

    YES = "YES"
    PARTIAL = "PARTIAL"
    NO = "NO"

    @property
    def score(self) -> float:
        """The verdict as a score in [0, 1]."""
        return {"YES": 1.0, "PARTIAL": 0.5, "NO": 0.0}[self.value]

    @staticmethod
    def parse(text: Any) -> Verdict | None:
        """Read a verdict as a model writes it (``"yes."``, ``"**Partial**"``, ``"pass"``, ``True``); None if there
        is none (the words are :func:`vcoder.gui.vlm_parse.normalize_verdict`'s)."""
        from vcoder.gui.vlm_parse import normalize_verdict

        word = normalize_verdict(text)
        return None if word is None else Verdict(word)


@dataclass(frozen=True)
class Step:
    """One structured action: ``action`` on the element(s) matched by the Playwright selector ``target``.

    Attributes:
        action: one of ``STEP_ACTIONS``.
        target: a Playwright selector (``#email``, ``text=Add``, ``role=button[name="Send"]``); optional for
            ``press`` (keyboard focus), ``scroll`` (the page) and ``wait`` (a pause).
        value: the text to type, the option to select (value or label), the key to press, the pixels to scroll
            or the milliseconds to wait.
    """

    action: str
    target: str | None = None
    value: str | None = None


@dataclass(frozen=True)
class Expectation:
    """One assertion checked after the steps.

    Attributes:
        target: Playwright selector of the element(s) the assertion is about.
        kind: ``text`` (some match contains ``expected``, case-insensitive, whitespace-normalised), ``value``
            (the first match's input value equals ``expected``), ``visible`` (whether the first match is visible
            equals ``expected``; no match counts as not visible) or ``count`` (number of matches equals ``expected``).
        expected: a str for text/value, a bool for visible, an int for count.
    """

    target: str
    kind: str
    expected: str | bool | int


@dataclass(frozen=True)
class TestCase:
    """One functional test of a page.

    Attributes:
        task: what to do, in words (what a VLM policy reads).
        expected_result: what should happen, in words.
        task_category: free-form category (``"Functional Testing"``, ``"Data Display"``, ...).
        steps: structured actions for the scripted policy (may be empty).
        expect: structured assertions for the scripted policy (empty for natural-language-only cases).
    """

    __test__ = False  # not a pytest test class

    task: str
    expected_result: str = ""
    task_category: str = ""
    steps: tuple[Step, ...] = ()
    expect: tuple[Expectation, ...] = ()

    @property
    def scriptable(self) -> bool:
        """True when the scripted policy can grade this case (it has at least one expectation)."""
        return bool(self.expect)

    @staticmethod
    def from_dict(data: Any, index: int | None = None) -> TestCase:
        """Validate and build a case from its JSON form.

        Args:
            data: the case dict.
            index: its position in the case list, quoted in error messages.

        Returns:
            The frozen case.

        Raises:
            CaseError: naming the case index and what is wrong.
        """
        where = f"case {index}" if index is not None else "case"
        if not isinstance(data, dict):
            raise CaseError(f"{where}: expected an object like {{'task': ..., 'steps': [...]}}, got {data!r:.80}")
        task = data.get("task")
        if not isinstance(task, str) or not task.strip():
            raise CaseError(f"{where}: 'task' must be a non-empty string, got {task!r:.80}")
        for key in ("expected_result", "task_category"):
            if not isinstance(data.get(key, ""), str):
                raise CaseError(f"{where}: {key!r} must be a string, got {data[key]!r:.80}")
        steps = data.get("steps") or []
        expect = data.get("expect") or []
        if not isinstance(steps, list):
            raise CaseError(f"{where}: 'steps' must be a list of actions, got {type(steps).__name__}")
        if not isinstance(expect, list):
            raise CaseError(f"{where}: 'expect' must be a list of assertions, got {type(expect).__name__}")
        return TestCase(
            task=task.strip(),
            expected_result=data.get("expected_result", ""),
            task_category=data.get("task_category", ""),
            steps=tuple(_step(s, f"{where} step {i}") for i, s in enumerate(steps)),
            expect=tuple(_expectation(e, f"{where} expect {i}") for i, e in enumerate(expect)),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (round-trips through ``from_dict``)."""
        out: dict[str, Any] = {
            "task": self.task,
            "expected_result": self.expected_result,
            "task_category": self.task_category,
        }
        if self.steps:
            out["steps"] = [{k: v for k, v in vars(s).items() if v is not None} for s in self.steps]
        if self.expect:
            out["expect"] = [{"target": e.target, e.kind: e.expected} for e in self.expect]
        return out


def _step(data: Any, where: str) -> Step:
    if not isinstance(data, dict):
        raise CaseError(f"{where}: expected an object like {{'action': 'click', 'target': '#id'}}, got {data!r:.80}")
    action = data.get("action")
    if action not in STEP_ACTIONS:
        raise CaseError(f"{where}: 'action' must be one of {', '.join(STEP_ACTIONS)}, got {action!r}")
    target, value = data.get("target"), data.get("value")
    if target is not None and (not isinstance(target, str) or not target.strip()):
        raise CaseError(f"{where}: 'target' must be a non-empty Playwright selector string, got {target!r:.80}")
    if value is not None and not isinstance(value, (str, int, float)):
        raise CaseError(f"{where}: 'value' must be a string or number, got {value!r:.80}")
    if action in ("click", "type", "select") and target is None:
        raise CaseError(f"{where}: {action!r} needs a 'target' selector (e.g. '#email' or 'text=Add')")
    if action in ("type", "select", "press") and value is None:
        raise CaseError(f"{where}: {action!r} needs a 'value' (the text, option or key)")
    return Step(action=action, target=target, value=None if value is None else str(value))


def _expectation(data: Any, where: str) -> Expectation:
    if not isinstance(data, dict):
        raise CaseError(f"{where}: expected an object like {{'target': '#out', 'text': 'Done'}}, got {data!r:.80}")
    target = data.get("target")
    if not isinstance(target, str) or not target.strip():
        raise CaseError(f"{where}: 'target' must be a non-empty Playwright selector string, got {target!r:.80}")
    # None means absent: Arrow-backed datasets fill every struct field of a column, so missing keys come back None
    kinds = [k for k in EXPECT_KINDS if data.get(k) is not None]
    if len(kinds) != 1:
        raise CaseError(f"{where}: give exactly one of {', '.join(EXPECT_KINDS)}, got {sorted(kinds) or 'none'}")
    kind, expected = kinds[0], data[kinds[0]]
    if kind == "visible" and not isinstance(expected, bool):
        raise CaseError(f"{where}: 'visible' must be true or false, got {expected!r}")
    if kind == "count" and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 0):
        raise CaseError(f"{where}: 'count' must be a non-negative integer, got {expected!r}")
    if kind in ("text", "value"):
        if not isinstance(expected, (str, int, float)) or isinstance(expected, bool):
            raise CaseError(f"{where}: {kind!r} must be a string, got {expected!r:.80}")
        expected = str(expected)
    return Expectation(target=target, kind=kind, expected=expected)


def parse_cases(data: Any) -> list[TestCase]:
    """Validate a list of cases given as dicts, ``TestCase`` objects or a JSON string of the list.

    Args:
        data: a list (or JSON string of a list) of case dicts; a single case dict is accepted too.

    Returns:
        The cases, in order.

    Raises:
        CaseError: on invalid JSON or the first invalid case (its index and the problem).
    """
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise CaseError(f"test cases are not valid JSON ({exc}); give a JSON list of case objects") from exc
    if isinstance(data, (dict, TestCase)):
        data = [data]
    if not isinstance(data, (list, tuple)):
        raise CaseError(f"test cases must be a list of case objects, got {type(data).__name__}")
    return [c if isinstance(c, TestCase) else TestCase.from_dict(c, i) for i, c in enumerate(data)]


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case.

    Attributes:
        task: the case's task text.
        verdict: YES / PARTIAL / NO.
        steps_taken: actions performed on the page.
        error: why the case could not be carried out (step failed, page hung, deadline, ...); None otherwise.
        details: optional per-expectation notes or the agent's final answer, for debugging.
    """

    task: str
    verdict: Verdict
    steps_taken: int = 0
    error: str | None = None
    details: tuple[str, ...] = field(default=(), compare=False)

    @property
    def score(self) -> float:
        return self.verdict.score

    def to_dict(self) -> dict[str, Any]:
        """The CLI/JSON form ``{"task", "verdict", "steps_taken", "error"}``."""
        return {"task": self.task, "verdict": self.verdict.value, "steps_taken": self.steps_taken, "error": self.error}


def mean_score(results: list[CaseResult]) -> float:
    """Mean verdict score (WebGen-Bench accuracy = (YES + 0.5 PARTIAL) / cases); 0.0 for no results."""
    return sum(r.verdict.score for r in results) / len(results) if results else 0.0


class Policy(abc.ABC):
    """Carries out one test case on a live page and answers a verdict.

    Implementations act only through the :class:`~vcoder.gui.env.GuiEnv` they are given (observe, act,
    locators), so step limits, deadlines and hang containment apply to every policy alike. ``run_case`` must not
    raise for anything the page does: a failure is a ``CaseResult`` with verdict NO and an ``error``. The env is
    fresh for every case (a new load of the page), so state never leaks between cases.
    """

    name: str = "policy"

    @abc.abstractmethod
    async def run_case(self, env: GuiEnv, case: TestCase) -> CaseResult:
        """Run ``case`` on ``env`` and return its result (never raises for page behaviour)."""

    def check_case(self, case: TestCase) -> str | None:
        """Why this policy cannot grade ``case`` (e.g. no ``expect`` for the scripted policy), or None if it can."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most policies hold nothing
        """Release anything the policy holds (HTTP clients, ...)."""
