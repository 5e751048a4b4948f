"""``vcoder data trajectories --teacher-base-url``: a loopback teacher answers in Bolt markup over two WebGen-Instruct
tasks; the colour judge (``tests.eval.loop_servers``) grades each step, the filter keeps one trajectory and drops
the other, and the agent SFT's own loader reads the file back."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from tests.eval.loop_servers import Models, bolt_site
from tests.inprocess import vcoder
from vcoder.eval.teacher_trajectories import TeacherFilter
from vcoder.eval.webgen_agent_loop import LoopTrace, Node
from vcoder.pipelines.grpo.agent_sft import trajectory_dataset
from vcoder.sites.records import EpisodeResult, StepRecord

SEED_PROMPT = "You are the seed's site builder. Answer in <boltArtifact> markup.\n"


def instruct_row(task_id: str, instruction: str) -> dict:
    return {
        "id": task_id,
        "instruction": instruction,
        "application_type": "Internal Tools",
        "Category": {"primary_category": ""},
        "ui_instruct": [{"task": "", "expected_result": ""}],
    }


def test_the_filter_rules_one_by_one():
    good = StepRecord(1, False, ("index.html",), 0.8, None, 4.0, None, finish=True)
    bad = StepRecord(2, True, (), None, None, -1.0, "no artifact")
    node = Node(1, 4.0, 0.0, None, False)
    trace = LoopTrace(nodes=[node], chosen=1)
    keep = TeacherFilter()
    assert keep.dropped(EpisodeResult((good,), True, 4.0, ()), trace) is None
    assert keep.dropped(EpisodeResult((good,), False, 4.0, ()), trace).startswith("the teacher did not finish")
    assert TeacherFilter(require_finish=False).dropped(EpisodeResult((good,), False, 4.0, ()), trace) is None
    assert keep.dropped(EpisodeResult((bad, good), True, 4.0, ()), trace) == "malformed reply at step 2"
    assert keep.dropped(EpisodeResult((good,), True, 4.0, (), error="policy failed"), trace).startswith("episode")
    low = LoopTrace(nodes=[Node(1, 2.0, 0.0, None, True)], chosen=1)
    assert "below valid" in keep.dropped(EpisodeResult((good,), True, 2.0, ()), low)


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_teacher_trajectories_kept_dropped_and_read_by_agent_sft(tmp_path):
    tasks = tmp_path / "instruct.jsonl"
    rows = [instruct_row("t-good", "A green page [good]."), instruct_row("t-red", "A red page [red].")]
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "system.txt").write_text(SEED_PROMPT)
    replies = {
        "[good]": [bolt_site("red", "draft"), bolt_site("green", "better"), '<boltAction type="finish"/>'],
        "[red]": [bolt_site("red", "only", finish=True)],
    }
    out = tmp_path / "teacher.jsonl"
    with Models(replies) as server:
        url = server.base_url
        proc = vcoder(
            *("data", "trajectories", "--tasks", str(tasks), "--out", str(out), "--teacher-base-url", url),
            *("--teacher-model", "scripted", "--judge-base-url", url, "--judge-model", "scripted"),
            *("--system-prompt", str(tmp_path / "system.txt"), "--width", "320", "--height", "240"),
        )
        sent = list(server.bodies)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["kept"] == 1 and list(summary["dropped"]) == ["t-red"]
    assert "graded 1" in summary["dropped"]["t-red"]
    meta = [json.loads(line) for line in (tmp_path / "teacher.jsonl.meta.jsonl").read_text().splitlines()]
    assert [(m["id"], m["kept"], m["chosen_step"], m["appearances"]) for m in meta] == [
        ("t-good", True, 3, [1.0, 4.0, 4.0]),
        ("t-red", False, 1, [1.0]),
    ]
    # the teacher saw the seed's prompt and sampled at the seed's temperature
    assert all(b["messages"][0]["content"] == SEED_PROMPT and b["temperature"] == 0.5 for b in sent)
    args = SimpleNamespace(dataset_source=str(out), max_samples=None, dataset_seed=0, allow_test_split=False)
    dataset = trajectory_dataset(args)  # the agent SFT's own loader
    assert len(dataset) == 1
    messages = dataset[0]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert messages[0]["content"] == SEED_PROMPT and messages[1]["content"] == "A green page [good]."
    assert "<boltArtifact" in messages[2]["content"] and messages[-1]["content"] == '<boltAction type="finish"/>'
