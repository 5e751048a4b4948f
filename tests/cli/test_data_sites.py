"""`vcoder data site-tasks` and `vcoder data trajectories` end to end (trajectories graded in a real Chromium)."""

from __future__ import annotations

import json

import pytest

from vcoder.cli import main
from vcoder.data.site_kinds import kind_tasks
from vcoder.sites.turns import parse_turn


def test_site_tasks_writes_a_split(tmp_path, capsys):
    out = tmp_path / "test.jsonl"
    assert main(["data", "site-tasks", "--split", "test", "--n", "4", "--kinds", "cart,quiz", "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out) == {"out": str(out), "n": 4, "split": "test"}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    expected = kind_tasks(4, split="test", kinds=("cart", "quiz"))
    assert rows == [{k: v for k, v in r.items() if k != "prompt"} for r in expected]
    # the file is a Step-GRPO task file as it is (`dataset: test.jsonl` in a recipe)
    from vcoder.pipelines.step_grpo.data import local_tasks

    loaded = local_tasks(out)
    assert [(r["id"], r["instruction"], r["test_cases"]) for r in loaded] == [
        (r["id"], r["instruction"], r["test_cases"]) for r in expected
    ]


def test_usage_errors(tmp_path, capsys):
    out = str(tmp_path / "x.jsonl")
    assert main(["data", "site-tasks", "--split", "holdout", "--out", out]) == 2
    assert "unknown split 'holdout'" in capsys.readouterr().out
    assert main(["data", "site-tasks", "--split", "test", "--kinds", "converter", "--out", out]) == 2
    assert "have no test tasks" in capsys.readouterr().out
    assert main(["data", "trajectories", "--tasks", str(tmp_path / "missing.jsonl"), "--out", out]) == 2
    assert "neither a split" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "cart"}\n')
    assert main(["data", "trajectories", "--tasks", str(bad), "--out", out]) == 2
    assert "needs 'kind' and an integer 'seed'" in capsys.readouterr().out
    assert main(["data", "trajectories", "--kinds", "carousel", "--out", out]) == 2
    assert "unknown site kinds" in capsys.readouterr().out


@pytest.mark.browser
def test_trajectories_from_a_task_file(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    assert main(["data", "site-tasks", "--n", "2", "--kinds", "counter,poll", "--out", str(tasks)]) == 0
    capsys.readouterr()
    out = tmp_path / "traj" / "t.jsonl"
    argv = ["data", "trajectories", "--tasks", str(tasks), "--out", str(out), "--flawed-share", "1"]
    argv += ["--expect-timeout-ms", "1000", "--width", "800", "--height", "600"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["written"] == 2 and summary["flawed"] == 2 and summary["dropped"] == [] and summary["turns"] == 6
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for record in records:
        roles = [m["role"] for m in record["messages"]]
        assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
        assert parse_turn(record["messages"][-1]["content"]).finish
    # the agent SFT reader takes the file as it is, every turn kept
    from vcoder.data.trajectories import read_trajectories

    assert read_trajectories(out) == records
    metas = [json.loads(line) for line in (tmp_path / "traj" / "t.jsonl.meta.jsonl").read_text().splitlines()]
    assert [m["kind"] for m in metas] == ["counter", "poll"] and all(m["gui"][-1] == 1.0 for m in metas)
