"""The id-named page generator (``vcoder.data.site_kinds.pages``): deterministic pages, valid and consistent test cases, broken variants (pure)."""

from __future__ import annotations

import json
import re

import pytest

from vcoder.data.site_kinds.pages import BROKEN, BUILDERS, KINDS, broken_variants, generate, make_page
from vcoder.gui.policy import parse_cases

CASES_PER_KIND = {"counter": 4, "todo": 5, "form": 5, "tabs": 3, "modal": 4, "accordion": 3}


def test_pages_are_deterministic_and_their_cases_valid():
    assert KINDS == tuple(CASES_PER_KIND) == tuple(BUILDERS)
    for kind in KINDS:
        a, b, c = make_page(kind, 1), make_page(kind, 1), make_page(kind, 2)
        assert a == b and a["html"] != c["html"]
        assert a["kind"] == kind and a["broken"] is None
        cases = parse_cases(a["test_cases"])
        assert len(cases) == CASES_PER_KIND[kind] and all(case.scriptable for case in cases)


def test_generate_cycles_kinds_and_seeds():
    rows = list(generate(12, seed=5))
    assert [r["kind"] for r in rows] == list(KINDS) * 2
    # row i is make_page(kinds[i % 6], seed + i // 6), its cases as a JSON string
    page = make_page("todo", 6)
    assert rows[7] == {
        "html": page["html"],
        "test_cases": json.dumps(page["test_cases"]),
        "instruction": page["instruction"],
        "kind": "todo",
    }
    assert len({r["html"] for r in rows}) == 12


def test_counter_cases_follow_its_instruction():
    page = make_page("counter", 3)
    start, step = map(int, re.search(r"starts at (\d+); a '\+ (\d+)'", page["instruction"]).groups())
    first, minus, both, reset = parse_cases(page["test_cases"])
    assert (first.expect[0].target, first.expect[0].expected) == ("#count", str(start + 3 * step))
    assert minus.expect[0].expected == str(start - step) and both.expect[0].expected == str(start + step)
    assert reset.expect[0].expected == f"reset to {start}"
    assert f"<title>{page['instruction'].split(chr(39))[1]}</title>" in page["html"]


def test_broken_variants():
    assert broken_variants("form") == BROKEN and broken_variants("tabs") == ("handler_removed", "wrong_element")
    assert "<script>" not in make_page("counter", 1, broken="handler_removed")["html"]
    assert "document.querySelector('h1').addEventListener" in make_page("tabs", 1, broken="wrong_element")["html"]
    broken_form = make_page("form", 1, broken="validation_missing")["html"]
    assert "function validate(d) {\n  return {};\n}" in broken_form
    assert "Passwords do not match" in make_page("form", 1)["html"]
    with pytest.raises(ValueError, match="does not apply"):
        make_page("tabs", broken="validation_missing")
    with pytest.raises(ValueError, match="unknown page kind 'carousel'; choose one of counter, todo"):
        make_page("carousel")
