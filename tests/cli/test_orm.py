"""``vcoder orm`` end to end on a small real log: collect, check, train (a few TRL steps), score, report; and the
messages bad input gets."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.inprocess import vcoder as run_vcoder

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def vcoder(*args: str) -> subprocess.CompletedProcess:
    return run_vcoder("orm", *args)  # in this process: one import of torch/transformers, not one per command


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "verdicts.jsonl"
    out = vcoder("collect", "--n", "8", "--kinds", "counter,tabs", "--seed", "3", "--out", str(path))
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["records"] == 8
    return path


@pytest.fixture(scope="module")
def trained(log, tiny_vlm_dir, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("cli") / "orm"
    args = ["--max-steps", "2", "--batch-size", "2", "--holdout", "0.5", "--image-width", "112"]
    out = vcoder(
        "train", "--verdicts", str(log), "--model-name-or-path", str(tiny_vlm_dir), "--out", str(out_dir), *args
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out_dir, json.loads(out.stdout)


@pytest.mark.timeout(1200)
def test_check_train_score_report(log, trained, tmp_path):
    out = vcoder("check", "--verdicts", str(log))
    assert out.returncode == 0 and json.loads(out.stdout)["tasks"] == 3
    model, report = trained
    assert (model / "orm.json").is_file() and json.loads((model / "report.json").read_text()) == report
    assert report["split"]["by"] == "task_id" and report["training"]["steps"] == 2
    assert report["split"]["train_records"] + report["split"]["heldout_records"] == 8
    for view in ("site", "agent"):
        held = report["heldout"][view]
        assert held["n"] == report["split"]["heldout_records"] and held["ece_bins"] == 10
        assert 0.0 <= held["accuracy"] <= 1.0 and held["baseline"]["answer"] in ("YES", "NO")

    task = tmp_path / "task.json"
    from vcoder.data.site_kinds.pages import make_page

    page = make_page("counter", 3)
    task.write_text(json.dumps({"id": "c3", "instruction": page["instruction"], "test_cases": page["test_cases"]}))
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(page["html"])
    out = vcoder("score", "--orm-model", str(model), "--task", str(task), "--site", str(tmp_path / "site"))
    assert out.returncode == 0, out.stderr[-2000:]
    scored = json.loads(out.stdout)
    assert scored["task_id"] == "c3" and 0.0 < scored["p_yes"] < 1.0 and scored["render_error"] is None
    cut = json.loads((model / "orm.json").read_text())["decision_threshold"]  # tuned on the training examples
    assert cut == report["training"]["decision_threshold"] and 0.0 < cut < 1.0
    assert scored["answer"] == ("YES" if scored["p_yes"] >= cut else "NO")

    out = vcoder("report", "--orm-model", str(model), "--verdicts", str(log))
    assert out.returncode == 0, out.stderr[-2000:]
    again = json.loads(out.stdout)
    assert again["heldout"]["site"]["accuracy"] == pytest.approx(report["heldout"]["site"]["accuracy"])


def test_bad_input_gets_a_clear_message(log, tiny_vlm_dir, untrained_orm, tmp_path):
    lines = log.read_text().splitlines()
    bad = json.loads(lines[1])
    del bad["score"]
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([lines[0], json.dumps(bad)] + lines[2:]) + "\n")
    for sub in (["check"], ["train", "--model-name-or-path", str(tiny_vlm_dir), "--out", str(tmp_path / "o")]):
        out = vcoder(*sub, "--verdicts", str(broken))
        assert out.returncode == 2
        assert f"{broken}:2: field 'score' is missing (it must be a number in [0, 1])" in out.stderr

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    out = vcoder(
        "train", "--verdicts", str(empty), "--model-name-or-path", str(tiny_vlm_dir), "--out", str(tmp_path / "o")
    )
    assert out.returncode == 2 and "has no verdicts; fill it with `vcoder orm collect`" in out.stderr

    task = tmp_path / "task.json"
    task.write_text(json.dumps({"instruction": "A counter", "test_cases": []}))
    out = vcoder("score", "--orm-model", str(tiny_vlm_dir), "--task", str(task), "--site", str(tmp_path))
    assert out.returncode == 2 and "is not an ORM: it has no orm.json" in out.stderr
    out = vcoder("report", "--orm-model", str(tiny_vlm_dir), "--verdicts", str(log))
    assert out.returncode == 2 and "is not an ORM" in out.stderr
    # --model, the old name of --model-name-or-path (train) and --orm-model (score, report): one meaning per flag
    out = vcoder("report", "--model", str(tiny_vlm_dir), "--verdicts", str(log))
    assert out.returncode == 2 and "is not an ORM" in out.stderr  # the old flag reached --orm-model
    out = vcoder("report", "--verdicts", str(log))
    assert out.returncode == 2 and "give the ORM folder with --orm-model" in out.stderr
    assert "Traceback" not in out.stderr
    out = vcoder("train", "--verdicts", str(log), "--out", str(tmp_path / "o"))
    assert out.returncode == 2 and "give the base VLM with --model-name-or-path" in out.stderr
    out = vcoder("score", "--orm-model", str(untrained_orm), "--task", str(task), "--site", str(tmp_path))
    assert out.returncode == 2 and "has no index.html (pass the page's .html file instead)" in out.stderr
    task.write_text(json.dumps({"test_cases": []}))
    out = vcoder("score", "--orm-model", str(untrained_orm), "--task", str(task), "--site", str(tmp_path))
    assert out.returncode == 2 and "'instruction' must be a non-empty string" in out.stderr
    out = vcoder(
        "train",
        "--verdicts",
        str(log),
        "--model-name-or-path",
        str(tiny_vlm_dir),
        "--out",
        "o",
        "--views",
        "site,pixels",
    )
    assert out.returncode == 2 and "give one or more of site, agent" in out.stderr
