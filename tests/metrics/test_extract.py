"""extract_html and format_score on literal completions."""

from __future__ import annotations

import pytest

from vcoder.metrics.extract import extract_html, format_score

DOC = "<!DOCTYPE html>\n<html><head><title>t</title></head><body><p>Hi</p></body></html>"


@pytest.mark.parametrize(
    "text",
    [
        f"```html\n{DOC}\n```",
        f"Here you go:\n```html\n{DOC}\n```\nHope this helps!",
        f"```\n{DOC}\n```",
        f"<think>I will write a page with <div> tags.</think>\n```html\n{DOC}\n```",
        f"plan...</think>\n{DOC}",
        f"Sure, here is the page: {DOC} Let me know.",
        f"```python\nprint('<div>')\n```\n```html\n{DOC}\n```",
        f"```HTML\n{DOC}\n```",
        f"```html\n{DOC}\n```\n```html\n<html><body>second</body></html>\n```",
    ],
)
def test_extract_finds_the_document(text):
    assert extract_html(text) == DOC


def test_extract_truncated_outputs():
    cut = "```html\n<!DOCTYPE html>\n<html><body><div>unfinished"
    assert extract_html(cut) == "<!DOCTYPE html>\n<html><body><div>unfinished"
    assert extract_html("<html><body><p>cut") == "<html><body><p>cut"


def test_extract_fragment_and_nothing():
    assert extract_html("Text then <div class='a'>x</div> tail") == "<div class='a'>x</div>"
    assert extract_html("I cannot help with that.") is None
    assert extract_html("") is None
    assert extract_html("```python\nx = 1\n```") is None
    assert extract_html("<think>only thinking <div></div>") is None


def test_extract_rejects_non_str():
    with pytest.raises(TypeError, match="completion"):
        extract_html([{"role": "assistant", "content": DOC}])


def test_format_perfect_outputs_score_one():
    assert format_score(f"```html\n{DOC}\n```", style="fenced") == 1.0
    assert format_score(f"<think>plan</think>\n```html\n{DOC}\n```", style="think") == 1.0
    assert format_score(DOC, style="bare") == 1.0
    for text in (f"```html\n{DOC}\n```", DOC, f"<think>x</think>{DOC}"):
        assert format_score(text, style="any") == 1.0


def test_format_penalises_each_defect():
    good = format_score(f"```html\n{DOC}\n```", style="fenced")
    cases = {
        "bare when fenced asked": DOC,
        "trailing junk": f"```html\n{DOC}\n```\nThis page has a header.",
        "duplicated": f"```html\n{DOC}\n```\n```html\n{DOC}\n```",
        "missing </html>": "```html\n<!DOCTYPE html><html><head></head><body><p>x</p></body>\n```",
        "unclosed fence": f"```html\n{DOC}",
        "no doctype": "```html\n<html><head></head><body><p>x</p></body></html>\n```",
        "no body": "```html\n<!DOCTYPE html><html><head></head><p>x</p></html>\n```",
    }
    for name, text in cases.items():
        assert format_score(text, style="fenced") < good, name
    assert format_score("no html at all", style="fenced") == 0.0
    assert format_score(f"```html\n{DOC}\n```", style="bare") < 1.0
    assert format_score(DOC, style="think") < 1.0


def test_format_graded_and_monotone_in_damage():
    junk = "x" * 50
    scores = [format_score(f"```html\n{DOC}\n```\n" + junk * k, style="fenced") for k in (0, 1, 4, 10)]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]
    dup = [format_score("\n".join([f"```html\n{DOC}\n```"] * k), style="fenced") for k in (1, 2, 3)]
    assert dup[0] > dup[1] > dup[2]
    distinct = {format_score(t, style="fenced") for t in (DOC, f"```html\n{DOC}\n```", "<div>x</div>", "nothing")}
    assert len(distinct) == 4  # graded, not a constant for anything fenced
    assert all(0.0 <= s <= 1.0 for s in distinct)


def test_format_bad_style():
    with pytest.raises(ValueError, match="style='xml'"):
        format_score(DOC, style="xml")
