"""Parsing of literal VLM replies into actions and scores (pure, fast)."""

from __future__ import annotations

import pytest

from vcoder.gui.actions import ACTIONS
from vcoder.gui.vlm_parse import (
    ParsedAction,
    normalize_action_name,
    normalize_verdict,
    parse_action,
    parse_element,
    parse_score,
)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"action": "click", "element": 3}', ParsedAction("click", element=3)),
        ('```json\n{"action": "click", "element": "[3]"}\n```', ParsedAction("click", element=3)),
        (
            "Sure, I will click it.\n{'action': 'click', 'element': '#12',}\nThat should work.",
            ParsedAction("click", element=12),
        ),
        ('{"action": "tap", "element": "element 7"}', ParsedAction("click", element=7)),
        ('{action: "click", element: 4}', ParsedAction("click", element=4)),
        ('{"action": "click", "element": "Add item"}', ParsedAction("click", element_text="Add item")),
        (
            '{"action": "type", "element": 5, "text": "hello world"}',
            ParsedAction("type", element=5, text="hello world"),
        ),
        ('{"action": "fill", "id": 2, "value": "a@b.c"}', ParsedAction("type", element=2, text="a@b.c")),
        ('{"Action": "Select", "Element": 8, "Option": "Blue"}', ParsedAction("select", element=8, text="Blue")),
        ('{"action": "press", "key": "Enter"}', ParsedAction("press", key="Enter")),
        ('{"action": "scroll", "direction": "UP"}', ParsedAction("scroll", direction="up")),
        ('{"action": "scroll_down"}', ParsedAction("scroll", direction="down")),
        ('{"action": "wait"}', ParsedAction("wait")),
        ('{"action": "go back"}', ParsedAction("back")),
        ('{"action": {"type": "click", "element": 9}}', ParsedAction("click", element=9)),
        (
            '{"action": "answer", "verdict": "yes", "reason": "counter shows 1"}',
            ParsedAction("answer", verdict="YES", reason="counter shows 1"),
        ),
        ('{"action": "finish", "answer": "Partially"}', ParsedAction("answer", verdict="PARTIAL")),
        (
            '{"action": "answer", "reason": "The task failed: nothing happened"}',
            ParsedAction("answer", verdict="NO", reason="The task failed: nothing happened"),
        ),
        ('<think>maybe {"action": "back"}</think>{"action": "click", "element": 1}', ParsedAction("click", element=1)),
        ("Click [3]", ParsedAction("click", element=3)),
        ("Thought: the button is 4.\nAction: Click [4]", ParsedAction("click", element=4)),
        ("Type [5]; hello", ParsedAction("type", element=5, text="hello")),
        ("TYPE 6 'bob'", ParsedAction("type", element=6, text="bob")),
        ("Scroll [WINDOW]; up", ParsedAction("scroll", direction="up")),
        ("Wait", ParsedAction("wait")),
        ("GoBack", ParsedAction("back")),
        ("ANSWER; YES", ParsedAction("answer", verdict="YES", reason="YES")),
        (
            "ANSWER: PARTIAL - the list grew but the counter did not",
            ParsedAction("answer", verdict="PARTIAL", reason="PARTIAL - the list grew but the counter did not"),
        ),
        ("**Action:** click [2]", ParsedAction("click", element=2)),
        ("press Enter", ParsedAction("press", key="Enter")),
        ("click Submit", ParsedAction("click", element_text="Submit")),
    ],
)
def test_parse_action_literal_replies(reply, expected):
    assert parse_action(reply) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [(a, a) for a in ACTIONS]
    + [
        ("Go Back", "back"),
        ("left-click", "click"),
        ("FINAL_ANSWER:", "answer"),
        ("fill in", "type"),
        ("dance", None),
    ],
)
def test_every_action_and_its_synonyms_normalise(name, expected):
    assert normalize_action_name(name) == expected


@pytest.mark.parametrize(
    "reply",
    ["", "   ", "I am not sure what to do here.", "{}", '{"foo": 1}', "{'action': 'dance'}", "{{{{", None, 42],
)
def test_parse_action_returns_none_on_junk(reply):
    assert parse_action(reply) is None


def test_parse_action_survives_random_noise():
    import random

    rng = random.Random(0)
    alphabet = "{}[]\"':;,#0123456789 abcxyzACTIONclicktype\n`"
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        result = parse_action(text)
        assert result is None or result.kind in ACTIONS


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, (3, None)),
        ("3", (3, None)),
        ("[3]", (3, None)),
        ("#3", (3, None)),
        ("element 3", (3, None)),
        ("(3)", (3, None)),
        (3.0, (3, None)),
        (["3"], (3, None)),
        ("Add", (None, "Add")),
        (None, (None, None)),
        (True, (None, None)),
    ],
)
def test_parse_element(value, expected):
    assert parse_element(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("YES", "YES"),
        ("yes.", "YES"),
        ("**PARTIAL**", "PARTIAL"),
        ("no", "NO"),
        ("Pass", "YES"),
        (True, "YES"),
        (False, "NO"),
        ("maybe", None),
        (None, None),
    ],
)
def test_normalize_verdict(value, expected):
    assert normalize_verdict(value) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Score: 4", 4.0),
        ("score:4", 4.0),
        ("4/5", 4.0),
        ("I would give it 3 out of 5.", 3.0),
        ("**4**", 4.0),
        ("The layout is clean. **Score: 3/5**", 3.0),
        ('{"score": 3.5, "reason": "ok"}', 3.5),
        ('```json\n{"Score": "2"}\n```', 2.0),
        ("Rating - 2", 2.0),
        ("Appearance: 5", 5.0),
        ("5", 5.0),
        ("0", 0.0),
        ("<think>Score: 1</think>Final grade: 4", 4.0),
        ("First impression score: 2. After a closer look, Score: 4", 4.0),
        ("The page has 12 buttons and 3 images. Score: 1", 1.0),
    ],
)
def test_parse_score_literal_replies(reply, expected):
    assert parse_score(reply) == expected


@pytest.mark.parametrize(
    "reply",
    ["", "No idea.", "Score: 9", "The page has 12 buttons.", '{"score": 11}', "7/10", None, "Score: -1"],
)
def test_parse_score_returns_none_without_a_valid_grade(reply):
    assert parse_score(reply) is None
