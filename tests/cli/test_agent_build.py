"""`vcoder agent build` through the real CLI in a subprocess, against loopback OpenAI-compatible servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from unittest.mock import ANY

import pytest

from tests.servers import ScriptedServer, dead_port
from vcoder.data.site_kinds.pages import make_page

BROKEN = make_page("counter", 1, broken="handler_removed")  # its buttons do nothing
FIXED = make_page("counter", 1)
TASK = {"id": "counter-1", "instruction": FIXED["instruction"], "test_cases": FIXED["test_cases"]}
HOSTILE = '<file path="../../escape.html">pwned</file>\n<file path="index.html">not applied</file>'


def build(*args: str, cwd, timeout: float = 400) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vcoder", "agent", "build", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )


def tree(root) -> list[str]:
    found = []
    for here, dirs, names in os.walk(root):
        found += [os.path.relpath(os.path.join(here, n), root) for n in dirs + names]
    return sorted(found)


def file_reply(html: str) -> str:
    return f'<file path="index.html">\n{html}\n</file>'


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_broken_malformed_fixed_finish(tmp_path):
    (tmp_path / "task.json").write_text(json.dumps(TASK))
    replies = [file_reply(BROKEN["html"]), HOSTILE, file_reply(FIXED["html"]), "<finish/>"]
    with ScriptedServer(replies) as agent, ScriptedServer("Tidy.\nScore: 4") as judge:
        proc = build(
            *("--task", "task.json", "--base-url", agent.base_url, "--model", "scripted", "--out", "out", "--json"),
            *("--judge-url", judge.base_url, "--judge-model", "scripted", "--width", "640", "--height", "400"),
            cwd=tmp_path,
        )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # the broken counter passes no case (after Reset the count shows its start, as before any click: issue 34);
    # the malformed turn changes nothing and scores -1; the finish turn leaves the fixed site as it was
    step = {"turn": 0, "malformed": False, "files": ["index.html"], "screenshot": 0.8, "error": None}
    assert out == {
        "steps": [
            {**step, "turn": 1, "gui": 0.0, "reward": pytest.approx(4.0)},
            {**step, "turn": 2, "malformed": True, "files": [], "screenshot": None, "gui": None, "reward": -1.0}
            | {"error": ANY},
            {**step, "turn": 3, "gui": 1.0, "reward": 9.0},
            {**step, "turn": 4, "files": [], "gui": 1.0, "reward": 9.0},
        ],
        "finished": True,
        "final_reward": 9.0,
        "error": None,
    }
    assert "'..'" in out["steps"][1]["error"]
    assert agent.chat_hits == 4 and judge.chat_hits == 1  # the fixed page looks like the broken one: cached
    steps = {1: "full", 2: "malformed", 3: "full", 4: "full"}
    expected = ["out", "out/episode.json", "task.json"]
    for k, kind in steps.items():
        expected += [f"out/step_{k}", *(f"out/step_{k}/{n}" for n in ("reply.txt", "feedback.md", "step.json"))]
        if kind == "full":
            expected += [f"out/step_{k}/screenshot.png", f"out/step_{k}/site", f"out/step_{k}/site/index.html"]
    assert tree(tmp_path) == sorted(expected)  # nothing written outside DIR
    assert not list(tmp_path.parent.rglob("escape.html"))
    assert (tmp_path / "out/step_3/site/index.html").read_text().strip() == FIXED["html"].strip()
    assert (tmp_path / "out/step_1/screenshot.png").read_bytes()[:4] == b"\x89PNG"
    feedback = (tmp_path / "out/step_1/feedback.md").read_text()
    assert "0 of 4 test cases passed fully" in feedback and "Reviewer: Tidy." in feedback
    assert "rejected and changed nothing" in (tmp_path / "out/step_2/feedback.md").read_text()
    assert json.loads((tmp_path / "out/episode.json").read_text())["task_id"] == "counter-1"


@pytest.mark.timeout(120)
def test_a_policy_server_that_times_out_is_an_infrastructure_failure(tmp_path):
    (tmp_path / "task.json").write_text(json.dumps(TASK))
    with ScriptedServer(file_reply(FIXED["html"]), delay_s=4.0) as slow:
        proc = build(
            *("--task", "task.json", "--base-url", slow.base_url, "--model", "scripted", "--out", "out", "--json"),
            *("--timeout-ms", "1000", "--max-retries", "0"),
            cwd=tmp_path,
        )
    assert proc.returncode == 3, proc.stderr
    out = json.loads(proc.stdout)
    assert out["steps"] == [] and out["final_reward"] is None and not out["finished"]
    assert out["error"].startswith("policy failed on turn 1: RequestFailed") and "timed out" in out["error"]
    assert "infrastructure: policy failed on turn 1" in proc.stderr
    assert tree(tmp_path / "out") == ["episode.json"]


@pytest.mark.parametrize(
    ("task", "extra", "message"),
    [
        ('{"instruction": "x",\n "test_cases": [}', [], "task.json line 2 column 17: Expecting value"),
        ('[{"instruction": "x"}]', [], "must hold one JSON object with 'instruction', got a list"),
        ('{"test_cases": []}', [], "task.json: a site task needs a non-empty instruction"),
        (
            '{"instruction": "x", "test_cases": [{"task": "ok", "expect": [{"target": "h1"}]}]}',
            [],
            "task.json: 'test_cases' case 0 expect 0: give exactly one of text, value, visible, count",
        ),
        (
            '{"id": "1", "instruction": "x", "ui_instruct": [{"expected_result": "y"}]}',
            [],
            "task.json: ui_instruct[0] needs a non-empty 'task' string",
        ),
        (None, ["--judge-url", "http://127.0.0.1:1"], "--judge-base-url and --judge-model go together"),
        (None, ["--max-turns", "0"], "must be >= 1"),
        (None, ["--extra-body", "[1]"], "--extra-body must be a JSON object"),
        (None, [], "--base-url: cannot reach the OpenAI-compatible server"),
    ],
)
def test_usage_and_configuration_errors_exit_2_and_write_nothing(tmp_path, task, extra, message):
    (tmp_path / "task.json").write_text(task if task is not None else json.dumps(TASK))
    url = f"http://127.0.0.1:{dead_port()}"
    proc = build(
        *("--task", "task.json", "--base-url", url, "--model", "m", "--out", "out", "--max-retries", "0", *extra),
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr and proc.stdout == ""
    assert tree(tmp_path) == ["task.json"]
    if "cannot reach" in message:  # how to start a server is part of the message
        assert "vllm serve" in proc.stderr and "nothing was written" in proc.stderr


def test_an_episode_folder_in_use_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    proc = build(
        *("--instruction", "A page", "--base-url", "http://127.0.0.1:1", "--model", "m", "--out", "out"),
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2 and "exists and is not an empty folder" in proc.stderr
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"
