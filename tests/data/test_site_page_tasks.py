"""site_tasks: instruction-only tasks from the id-named page generator (the model builds the page, not receives it)."""

from __future__ import annotations

import json

import pytest

from vcoder.data import site_tasks
from vcoder.data.site_kinds.pages import KINDS, make_page
from vcoder.gui.policy import parse_cases
from vcoder.sites.records import SiteTask


def test_tasks_cycle_kinds_with_unique_ids_and_no_page():
    rows = site_tasks(8, seed=5)
    assert [r["id"] for r in rows] == [f"{k}-5" for k in KINDS] + ["counter-6", "todo-6"]
    assert all(sorted(r) == ["id", "instruction", "kind", "prompt", "test_cases"] for r in rows)
    page = make_page("counter", 5)
    assert rows[0]["instruction"] == page["instruction"]
    assert page["html"] not in json.dumps(rows)  # the model must build the page


def test_cases_are_structured_and_match_the_generator():
    row = site_tasks(1, seed=2, kinds=("form",))[0]
    assert json.loads(row["test_cases"]) == make_page("form", 2)["test_cases"]
    cases = parse_cases(row["test_cases"])
    assert cases and all(c.scriptable for c in cases)  # the scripted policy grades them offline
    assert SiteTask.from_dict(row).instruction == row["instruction"]


def test_prompt_is_the_site_agents_conversation():
    row = site_tasks(1)[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert "<file path=" in row["prompt"][0]["content"] and row["instruction"] in row["prompt"][1]["content"]


def test_deterministic():
    assert site_tasks(4, seed=1) == site_tasks(4, seed=1)
    assert site_tasks(1, seed=1) != site_tasks(1, seed=2)


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown page kinds"):
        site_tasks(2, kinds=("counter", "carousel"))
    with pytest.raises(ValueError, match="kinds is empty"):
        site_tasks(2, kinds=())
    with pytest.raises(ValueError, match="n must be >= 0"):
        site_tasks(-1)
    assert site_tasks(0) == []
