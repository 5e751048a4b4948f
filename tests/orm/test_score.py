"""Scoring sites with an ORM in memory (``score_sites``, the API the curriculum uses) and from files
(``score_site``, ``vcoder orm score``): the same prompt, the same P(YES)."""

from __future__ import annotations

import json

import pytest

from vcoder.data.site_kinds.pages import make_page
from vcoder.orm.score import TaskError, score_site, score_sites

pytestmark = pytest.mark.browser


@pytest.mark.timeout(300)
def test_in_memory_and_file_scores_agree(untrained_orm, tmp_path):
    from vcoder.orm.model import OutcomeRewardModel

    working, broken = make_page("counter", 6), make_page("counter", 6, broken="handler_removed")
    task = {"instruction": working["instruction"], "test_cases": working["test_cases"]}
    orm = OutcomeRewardModel.load(untrained_orm, device="cpu")
    probs = score_sites(orm, [task, task, task], [working["html"], broken["html"], ""])
    assert len(probs) == 3 and probs[2] == 0.0  # an empty page does not render: the page's fault
    assert 0.0 < probs[0] < 1.0 and 0.0 < probs[1] < 1.0 and probs[0] != probs[1]
    # a folder path works too, and test cases as a JSON string (the dataset's form)
    as_string = {**task, "test_cases": json.dumps(task["test_cases"])}
    assert score_sites(str(untrained_orm), [as_string], [working["html"]]) == pytest.approx(probs[:1], abs=1e-5)

    (tmp_path / "task.json").write_text(json.dumps({"id": "c6", **task}))
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(working["html"])
    one = score_site(untrained_orm, tmp_path / "task.json", tmp_path / "site", device="cpu")
    assert one["task_id"] == "c6" and one["p_yes"] == pytest.approx(probs[0], abs=1e-5)
    assert one["answer"] == ("YES" if probs[0] >= 0.5 else "NO") and one["render_error"] is None


def test_bad_tasks_are_named(untrained_orm):
    page = make_page("tabs", 1)
    good = {"instruction": page["instruction"], "test_cases": page["test_cases"]}
    with pytest.raises(ValueError, match="2 tasks for 1 sites"):
        score_sites(untrained_orm, [good, good], [page["html"]])
    with pytest.raises(TaskError, match=r"tasks\[1\]: 'instruction' must be a non-empty string"):
        score_sites(untrained_orm, [good, {"instruction": " "}], [page["html"]] * 2)
    with pytest.raises(TaskError, match=r"tasks\[0\]: 'test_cases' must be a list of objects with a 'task'"):
        score_sites(untrained_orm, [{"instruction": "x", "test_cases": [1]}], [page["html"]])


@pytest.mark.timeout(300)
def test_vcoder_orm_score_on_a_site_folder(untrained_orm, tmp_path):
    import subprocess
    import sys

    page = make_page("accordion", 2)
    task = {"id": "acc-2", "instruction": page["instruction"], "test_cases": page["test_cases"]}
    (tmp_path / "task.json").write_text(json.dumps(task))
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(page["html"])
    args = ["--orm-model", str(untrained_orm), "--task", str(tmp_path / "task.json"), "--site", str(tmp_path / "site")]
    out = subprocess.run(
        [sys.executable, "-m", "vcoder", "orm", "score", *args, "--device", "cpu"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    scored = json.loads(out.stdout)  # stdout is the result JSON alone
    expected = score_sites(untrained_orm, [task], [page["html"]])[0]
    assert scored["task_id"] == "acc-2" and scored["p_yes"] == pytest.approx(expected, abs=1e-5)
    assert scored["site"] == str(tmp_path / "site") and scored["render_error"] is None
