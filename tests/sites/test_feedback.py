"""The feedback message: grades, failed cases with reasons, console errors, what was not judged (pure)."""

from __future__ import annotations

import base64
import io

from vcoder.gui.policy import CaseResult, Verdict
from vcoder.layout import Layout, TextBlock
from vcoder.rendering import Rendered
from vcoder.sites.feedback import feedback_message, malformed_feedback, step_feedback
from vcoder.sites.grading import SiteGrades
from vcoder.sites.workspace import Applied


def png(width=800, height=600):
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (255, 0, 0)).save(buf, format="PNG")
    return buf.getvalue()


def rendered(*texts, errors=()):
    blocks = tuple(TextBlock(t, (0, 0, 10, 10), (0, 0, 0), (255, 255, 255), 16.0, 400, "p") for t in texts)
    layout = Layout(width=640, height=400, text_blocks=blocks, elements=(), dom=None)
    return Rendered(ok=True, png=png(), width=640, height=400, layout=layout, console_errors=tuple(errors))


CASES = (
    CaseResult("Click + three times", Verdict.NO, 3, "1 of 1 expectations unmet", ("unmet: #count text='3'",)),
    CaseResult("Open the page", Verdict.YES, 0, None, ("met: #count text='0'",)),
    CaseResult("Add a todo", Verdict.PARTIAL, 4, None, ("answer: PARTIAL the item shows without its date",)),
)


def test_well_formed_turn_feedback():
    grades = SiteGrades(
        screenshot=0.6,
        gui=0.5,
        rendered=rendered("Counter", "0", errors=["Uncaught ReferenceError: inc is not defined"]),
        cases=CASES,
        judge_reply="Plain but tidy.\nScore: 3",
    )
    applied = Applied(written=("index.html", "app.js"), deleted=("old.css",), notes=("gone.js was not in the site",))
    text = step_feedback(
        turn=2, max_turns=5, applied=applied, grades=grades, reward=5.5, expected={"Click + three times": "It shows 3"}
    )
    assert text.splitlines() == [
        "Turn 2 of 5: you wrote index.html, app.js and deleted old.css.",
        "Note: gone.js was not in the site",
        "Appearance: 0.60 (out of 1).",
        "Reviewer: Plain but tidy. Score: 3",
        "Functionality: 0.50 (out of 1): 1 of 3 test cases passed fully.",
        "Failed test cases:",
        "1. Click + three times. Expected: It shows 3. Verdict: NO (1 of 1 expectations unmet; unmet: #count text='3')",
        "2. Add a todo. Verdict: PARTIAL (answer: PARTIAL the item shows without its date)",
        "Console errors (1):",
        "- Uncaught ReferenceError: inc is not defined",
        "Visible text: Counter | 0",
        "Step reward: 5.50.",
        "You have 3 turns left. Fix what failed and send the files you change, or <finish/> if done.",
    ]
    assert "Visible text" not in step_feedback(
        turn=2, max_turns=5, applied=applied, grades=grades, reward=5.5, visible_text=False
    )


def test_components_not_judged_say_why_in_place_of_their_grade():
    grades = SiteGrades(
        screenshot=None,
        gui=None,
        notes=(
            "appearance not judged: no screenshot judge endpoint configured",
            "functionality not judged: the task has no cases",
        ),
        error="the site has no index.html, so nothing could be shown or tested",
    )
    text = step_feedback(turn=5, max_turns=5, applied=Applied(written=("main.html",)), grades=grades, reward=None)
    assert text.splitlines() == [
        "Turn 5 of 5: you wrote main.html.",
        "Problem: the site has no index.html, so nothing could be shown or tested.",
        "Appearance not judged: no screenshot judge endpoint configured.",
        "Functionality not judged: the task has no cases.",
        "Step reward: not judged.",
        "That was your last turn. Fix what failed and send the files you change, or <finish/> if done.",
    ]


def test_malformed_feedback():
    text = malformed_feedback(turn=1, max_turns=2, error="path '../x.html' uses '..'.", penalty=-1.0)
    assert text.splitlines() == [
        "Turn 1 of 2: your reply was rejected and changed nothing: path '../x.html' uses '..'.",
        "Step reward: -1.00.",
        'You have 1 turn left. Reply with whole files as <file path="index.html">...</file>, deletions as '
        '<delete path="old.js"/>, and <finish/> when the site is done.',
    ]


def test_feedback_message_text_or_text_with_a_downscaled_screenshot():
    from PIL import Image

    assert feedback_message("hi") == {"role": "user", "content": "hi"}
    message = feedback_message("hi", png(800, 600), max_image_side=200)
    assert message["role"] == "user" and [p["type"] for p in message["content"]] == ["image_url", "text"]
    data = base64.b64decode(message["content"][0]["image_url"]["url"].split(",", 1)[1])
    assert Image.open(io.BytesIO(data)).size == (200, 150)
