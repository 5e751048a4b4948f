"""Records as ORM examples: the split by task, the labels and views, and rendering what the log did not keep."""

from __future__ import annotations

import pytest

from vcoder.data.site_kinds.pages import make_page
from vcoder.orm.examples import build_examples, split_by_task
from vcoder.verdicts.records import CaseVerdict, VerdictLogError, VerdictRecord, site_hash


def rec(task: str, score: float, html: str = "<p>hi</p>", **over) -> VerdictRecord:
    files = {"index.html": html}
    fields = dict(
        task_id=task,
        instruction="say hi",
        site_hash=site_hash(files),
        site_files=files,
        score=score,
        source="gui_agent",
        page_text=("hi",),
    )
    return VerdictRecord(**{**fields, **over})


def test_split_by_task_never_separates_a_tasks_records():
    records = [rec(f"t{i % 10}", (i % 3) / 2) for i in range(60)]
    train, held = split_by_task(records, holdout=0.2, seed=1)
    assert len({r.task_id for r in held}) == 2 and len(train) + len(held) == 60
    assert not {r.task_id for r in train} & {r.task_id for r in held}
    assert split_by_task(records, holdout=0.2, seed=1) == (train, held)
    assert split_by_task(records, holdout=0.2, seed=2) != (train, held)
    with pytest.raises(VerdictLogError, match="needs at least 2"):
        split_by_task(records[:1], holdout=0.2)
    with pytest.raises(ValueError, match="holdout must be a fraction"):
        split_by_task(records, holdout=1.0)


def test_views_labels_and_a_missing_site(tmp_path):
    runs = (CaseVerdict("say hi", "YES", None, ("click #hi",), 'shows "hi"'),)
    records = [rec("a", 1.0, cases=runs), rec("b", 0.25)]
    examples = build_examples(records, base_dir=tmp_path, image_width=0)
    assert [(e.task_id, e.view, e.label, e.image) for e in examples] == [
        ("a", "site", 1, None),
        ("a", "agent", 1, None),
        ("b", "site", 0, None),
    ]
    assert 'Agent runs:\n1. click #hi => shows "hi"' in examples[1].text
    assert [e.label for e in build_examples(records, base_dir=tmp_path, threshold=0.2, image_width=0)] == [1, 1, 1]
    gone = rec("c", 0.0, site_files=None, site_dir="nowhere")
    with pytest.raises(VerdictLogError, match="record 0 \\(task 'c'\\): its site is neither inline nor in site_dir"):
        build_examples([gone], base_dir=tmp_path)


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_a_record_without_screenshot_or_text_is_rendered(tmp_path):
    page = make_page("tabs", 1)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(page["html"])
    record = rec("tabs-1", 1.0, html="", site_files=None, site_dir="site", page_text=None)
    (example,) = build_examples([record], base_dir=tmp_path, views=("site",), image_width=200)
    assert example.image.size[0] == 200 and example.image.size[1] == round(720 * 200 / 1280)
    assert "Visible text: " + page["html"].split("<h1>")[1].split("</h1>")[0] in example.text
