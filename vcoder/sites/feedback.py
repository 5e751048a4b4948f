"""The feedback message after a turn: what a developer would want to see next (a user turn of the conversation).

A well-formed turn gets its grades (appearance, functionality), the failed test cases with the tester's reason,
the console errors and what could not be judged; an LM policy also gets the page's visible text, a VLM policy the
screenshot as an image content part (a user turn, not a ``tool`` one: some chat templates drop images there).
A malformed turn gets what was wrong and a reminder of the format.

Example:
    >>> malformed_feedback(turn=1, max_turns=3, error="path '../x.html' uses '..'", penalty=-1.0).splitlines()[0]
    "Turn 1 of 3: your reply was rejected and changed nothing: path '../x.html' uses '..'."
"""

from __future__ import annotations

from typing import Any

from vcoder.chat.messages import user_message
from vcoder.images import to_png
from vcoder.sites.grading import SiteGrades
from vcoder.sites.workspace import Applied

MAX_LISTED_CASES = 8
MAX_CONSOLE_ERRORS = 5
MAX_VISIBLE_TEXT = 600
FORMAT_REMINDER = (
    'Reply with whole files as <file path="index.html">...</file>, deletions as <delete path="old.js"/>, '
    "and <finish/> when the site is done."
)
BOLT_REMINDER = (
    'Reply with one <boltArtifact id="..." title="..."> holding <boltAction type="file" filePath="PATH">whole file'
    '</boltAction>, <boltAction type="shell">npm install</boltAction> and <boltAction type="start">npm run dev'
    '</boltAction>; reply <boltAction type="finish"/> when the application is done.'
)
#: what the model writes to be done, per turn format
FINISH_HINT = {"vcoder": "<finish/>", "bolt": '<boltAction type="finish"/>'}


def _score(value: float | None) -> str:
    return "not judged" if value is None else f"{value:.2f} (out of 1)"


def _clip(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _left(turn: int, max_turns: int) -> str:
    left = max_turns - turn
    if left <= 0:
        return "That was your last turn."
    return f"You have {left} turn{'s' if left != 1 else ''} left."


def _case_reason(result) -> str:
    reasons = [d for d in result.details if d.startswith(("unmet", "answer"))]
    parts = [result.error] if result.error else []
    parts += reasons[:3]
    return _clip("; ".join(parts) or "no reason given", 300)


def step_feedback(
    *,
    turn: int,
    max_turns: int,
    applied: Applied,
    grades: SiteGrades,
    reward: float | None,
    expected: dict[str, str] | None = None,
    visible_text: bool = True,
    finish_hint: str = "<finish/>",
) -> str:
    """The feedback text for a well-formed turn.

    Args:
        turn: the turn number (1-based).
        max_turns: the episode's turn budget.
        applied: what the turn changed.
        grades: the site's grades after the turn.
        reward: the step reward (None when nothing could be judged).
        expected: case task -> expected result, to quote next to failed cases.
        visible_text: include the page's visible text (for a policy that does not see the screenshot).
        finish_hint: how the model says it is done (``FINISH_HINT`` of its turn format).
    """
    expected = expected or {}
    changed = f"you wrote {', '.join(applied.written) or 'no files'}"
    if applied.deleted:
        changed += f" and deleted {', '.join(applied.deleted)}"
    lines = [f"Turn {turn} of {max_turns}: {changed}."]
    lines += [f"Note: {note}" for note in applied.notes]
    if grades.error:
        lines.append(f"Problem: {grades.error.rstrip('.')}.")
    notes = list(grades.notes)

    def grade_line(name: str, value: float | None, detail: str = "") -> str:
        said = next((n for n in notes if n.startswith(name.lower())), None)
        if value is None and said is not None:
            notes.remove(said)
            return f"{said[:1].upper()}{said[1:]}."
        return f"{name}: {_score(value)}{detail}."

    lines.append(grade_line("Appearance", grades.screenshot))
    if grades.judge_reply:
        lines.append(f"Reviewer: {_clip(grades.judge_reply, 400)}")
    passed = sum(r.verdict.value == "YES" for r in grades.cases)
    detail = f": {passed} of {len(grades.cases)} test cases passed fully" if grades.cases else ""
    lines.append(grade_line("Functionality", grades.gui, detail))
    lines += [f"{note[:1].upper()}{note[1:]}." for note in notes]
    failed = [r for r in grades.cases if r.verdict.value != "YES"]
    if failed:
        lines.append("Failed test cases:")
        for i, result in enumerate(failed[:MAX_LISTED_CASES], 1):
            want = expected.get(result.task)
            want = f" Expected: {_clip(want, 200)}." if want else ""
            lines.append(
                f"{i}. {_clip(result.task, 200)}.{want} Verdict: {result.verdict.value} ({_case_reason(result)})"
            )
        if len(failed) > MAX_LISTED_CASES:
            lines.append(f"... and {len(failed) - MAX_LISTED_CASES} more.")
    rendered = grades.rendered
    if rendered is not None and rendered.console_errors:
        errors = rendered.console_errors
        lines.append(f"Console errors ({len(errors)}):")
        lines += [f"- {_clip(e, 300)}" for e in errors[:MAX_CONSOLE_ERRORS]]
    if visible_text and rendered is not None and rendered.ok and rendered.layout is not None:
        text = _clip(" | ".join(b.text for b in rendered.layout.text_blocks), MAX_VISIBLE_TEXT)
        lines.append(f"Visible text: {text or '(none: the page shows no text)'}")
    lines.append("Step reward: " + ("not judged." if reward is None else f"{reward:.2f}."))
    lines.append(f"{_left(turn, max_turns)} Fix what failed and send the files you change, or {finish_hint} if done.")
    return "\n".join(lines)


def malformed_feedback(
    *, turn: int, max_turns: int, error: str, penalty: float, reminder: str = FORMAT_REMINDER
) -> str:
    """The feedback text for a malformed turn: what was wrong, that nothing changed, and the format (``reminder``:
    ``FORMAT_REMINDER`` or ``BOLT_REMINDER``)."""
    return "\n".join(
        [
            f"Turn {turn} of {max_turns}: your reply was rejected and changed nothing: {error.rstrip('.')}.",
            f"Step reward: {penalty:.2f}.",
            f"{_left(turn, max_turns)} {reminder}",
        ]
    )


def feedback_message(text: str, screenshot: bytes | None = None, *, max_image_side: int = 1280) -> dict[str, Any]:
    """The feedback as a user message: plain text, or text plus the screenshot as an image part (VLM policies).

    Args:
        text: the feedback text.
        screenshot: the page's PNG, or None for a text-only message.
        max_image_side: the screenshot is downscaled so its longer side is at most this.
    """
    if screenshot is None:
        return {"role": "user", "content": text}
    return user_message(text, images=[to_png(screenshot, max_side=max_image_side)], images_first=True)
