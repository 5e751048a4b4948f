"""The offline stand-in for the seed's VLM (``vcoder.sites.seed_cases``): blank or not, the 1-5 grade from the
cases' accuracy, the failed cases as suggestions, and the seed's feedback turn built from them."""

from __future__ import annotations

import asyncio
import io
import json

import pytest


def _png(colours: list[tuple[int, int, int]]) -> bytes:
    from PIL import Image

    image = Image.new("RGB", (len(colours), 1))
    for x, colour in enumerate(colours):
        image.putpixel((x, 0), colour)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_a_blank_screenshot_grades_0_and_reads_as_an_error():
    from vcoder.sites.seed_cases import CaseJudge

    judge = CaseJudge(["A counter"])
    blank, shown = _png([(255, 255, 255)] * 3), _png([(255, 255, 255), (0, 0, 0), (255, 255, 255)])
    assert asyncio.run(judge.appearance(blank)) == 0 and asyncio.run(judge.appearance(shown)) == 5
    assert asyncio.run(judge.describe(blank))["is_error"] is True
    assert asyncio.run(judge.describe(shown))["is_error"] is False


def test_the_gui_grade_follows_the_cases_and_lands_in_the_seed_feedback():
    from vcoder.sites.seed_cases import CaseJudge
    from vcoder.sites.seed_feedback import Execution, seed_feedback

    judge = CaseJudge(["A counter"])
    assert asyncio.run(judge.gui_instruction("A counter")) == "A counter"
    assert asyncio.run(judge.gui_instruction("Another request")) is None  # no cases: no GUI test
    half = json.dumps({"accuracy": 0.5, "failed": ["Click Add Expected: It shows 2"]})
    summary = asyncio.run(judge.summarize("A counter", half, False))
    assert summary.grade == 3 and not summary.passed and "Click Add Expected: It shows 2" in summary.suggestions
    passed = asyncio.run(judge.summarize("A counter", json.dumps({"accuracy": 1.0, "failed": []}), True))
    assert passed.grade == 5 and passed.passed and passed.suggestions == ""
    text, has_error = seed_feedback(Execution(screenshot=b"png"), "A counter", gui=summary, validated=True)
    assert "Suggestions from the GUI-agent test" in text and "It shows 2" in text and not has_error


def test_two_tasks_with_one_request_and_other_cases_are_refused():
    from vcoder.sites.records import EpisodeOptions
    from vcoder.sites.seed_cases import case_services

    cases = [{"task": "Click Add", "expected_result": "It shows 1"}]
    other = [{"task": "Click Add", "expected_result": "It shows 2"}]
    tasks = [{"instruction": "A counter", "test_cases": cases}, {"instruction": "A counter", "test_cases": other}]
    options = EpisodeOptions(turn_format="bolt", agent_format="webgen_agent")
    with pytest.raises(ValueError, match="with different cases"):
        case_services(tasks, pool=object(), options=options)
