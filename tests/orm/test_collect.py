"""Collecting verdicts: the scripted agent grades working pages high and broken ones low, and the log keeps what
it did and saw."""

from __future__ import annotations

import pytest

from vcoder.data.site_kinds.pages import make_page
from vcoder.orm.collect import DROPPED, collect_verdicts, drop_handler, variants
from vcoder.verdicts.log import read_verdicts


def test_drop_handler_removes_one_wire_line():
    html = make_page("counter", 2)["html"]
    dropped = drop_handler(html, 2)
    assert dropped is not None and dropped.count("\nwire(") == html.count("\nwire(") - 1 == 2
    assert drop_handler(html, 2) == dropped  # seeded
    assert drop_handler(make_page("tabs", 2)["html"], 2) is None  # its handlers are wired in one loop line


def test_variants_keep_a_pages_variants_under_one_task_id():
    rows = list(variants(("counter", "tabs"), range(5, 6)))
    assert [(r["kind"], r["broken"]) for r in rows] == [
        ("counter", None),
        ("counter", "handler_removed"),
        ("counter", "wrong_element"),
        ("counter", DROPPED),
        ("tabs", None),
        ("tabs", "handler_removed"),
        ("tabs", "wrong_element"),
    ]
    assert {r["task_id"] for r in rows} == {"interactive-counter-5", "interactive-tabs-5"}
    assert len({r["instruction"] for r in rows if r["kind"] == "counter"}) == 1


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_collect_writes_graded_records_with_screenshots(tmp_path):
    log = tmp_path / "log" / "verdicts.jsonl"
    summary = collect_verdicts(4, log, seed=7, kinds=("counter",))
    records = read_verdicts(log)
    assert summary["records"] == len(records) == 4
    working, removed, wrong, dropped = records
    assert [r.meta["broken"] for r in records] == [None, "handler_removed", "wrong_element", DROPPED]
    assert working.score == 1.0 and all(c.verdict == "YES" for c in working.cases)
    assert removed.score <= 0.2 and wrong.score <= 0.2 and 0.2 < dropped.score < 1.0
    assert summary["yes_rate"] == 0.5 and summary["by_variant"]["working"] == 1.0
    # what the agent saw: the count changed on the working page, nothing changed on the broken ones
    assert working.cases[0].observed.startswith("shows ") and "no longer" in working.cases[0].observed
    assert all(c.observed == "no visible change" for c in removed.cases[:3])
    assert working.cases[0].trace == ("click #inc", "click #inc", "click #inc")
    for r in records:
        assert (
            r.source == "gui_agent" and r.task_id == "interactive-counter-7" and r.site_html().startswith("<!DOCTYPE")
        )
        assert (log.parent / r.screenshot).is_file() and r.page_text[0].endswith("Counter")
