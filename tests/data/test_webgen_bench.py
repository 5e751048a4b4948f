"""load_webgen_bench: rows written here in WebGen-Bench's JSONL format (the real file is not shipped)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil

import pytest

from vcoder.data import load_webgen_bench
from vcoder.data.prompts import SITE_SYSTEM_PROMPT
from vcoder.gui.policy import parse_cases
from vcoder.sites.records import SiteTask

TASKS = [
    {
        "id": "000001",
        "instruction": "Please implement a recipe website. Use ivory as the background colour.",
        "Category": {"primary_category": "Content Presentation", "subcategories": ["Recipes"]},
        "application_type": "Recipe Sharing Platform",
        "ui_instruct": [
            {
                "task": "Search for 'pasta' in the search bar.",
                "expected_result": "Recipes with pasta are listed.",
                "task_category": {"primary_category": "Functional Testing", "subcategories": ["Search"]},
            },
            {
                "task": "Check the page colours.",
                "expected_result": "The background is ivory.",
                "task_category": {"primary_category": "Design Validation", "subcategories": []},
            },
        ],
    },
    {
        "id": "000002",
        "instruction": "A tip calculator.",
        "Category": {"primary_category": "Tools", "subcategories": []},
        "application_type": "Calculator",
        "ui_instruct": [{"task": "Enter 100 and 15%", "expected_result": "Tip 15", "task_category": "Data"}],
    },
]


def write(path, records, blank=True):
    lines = [json.dumps(r) for r in records]
    path.write_text(("\n\n" if blank else "\n").join(lines) + "\n")
    return path


def test_rows_from_a_jsonl_file(tmp_path):
    rows = load_webgen_bench(write(tmp_path / "test.jsonl", TASKS))
    assert [r["id"] for r in rows] == ["000001", "000002"]
    first = rows[0]
    assert sorted(first) == ["application_type", "category", "id", "instruction", "prompt", "test_cases"]
    assert first["instruction"] == TASKS[0]["instruction"]
    assert first["category"] == "Content Presentation" and first["application_type"] == "Recipe Sharing Platform"
    assert json.loads(first["test_cases"]) == [
        {
            "task": "Search for 'pasta' in the search bar.",
            "expected_result": "Recipes with pasta are listed.",
            "task_category": "Functional Testing",
        },
        {
            "task": "Check the page colours.",
            "expected_result": "The background is ivory.",
            "task_category": "Design Validation",
        },
    ]
    assert first["prompt"] == [
        {"role": "system", "content": SITE_SYSTEM_PROMPT.format(screenshot="")},
        {"role": "user", "content": "Build this website:\n\n" + TASKS[0]["instruction"]},
    ]
    assert json.loads(rows[1]["test_cases"])[0]["task_category"] == "Data"


def test_cases_are_natural_language_cases_the_agents_read(tmp_path):
    row = load_webgen_bench(write(tmp_path / "test.jsonl", TASKS))[0]
    cases = parse_cases(row["test_cases"])
    assert [c.task for c in cases] == ["Search for 'pasta' in the search bar.", "Check the page colours."]
    assert not any(c.scriptable for c in cases)  # a VLM GUI agent runs them
    task = SiteTask.from_dict(row)
    assert task.id == "000001" and len(task.test_cases) == 2 and task.reference is None


def test_folder_source_and_max_samples(tmp_path):
    write(tmp_path / "test.jsonl", TASKS)
    assert [r["id"] for r in load_webgen_bench(tmp_path, max_samples=1)] == ["000001"]
    assert load_webgen_bench(tmp_path, max_samples=0) == []


def test_rows_become_a_dataset(tmp_path):
    from vcoder.data import to_dataset

    rows = load_webgen_bench(write(tmp_path / "test.jsonl", TASKS))
    dataset = to_dataset([{k: v for k, v in r.items() if k != "prompt"} for r in rows])
    assert dataset.num_rows == 2 and dataset[1]["id"] == "000002"


@pytest.mark.parametrize(
    ("record", "says"),
    [
        ({"id": "1", "ui_instruct": []}, "'instruction' must be a non-empty string"),
        ({"instruction": "x"}, "'id' is missing"),
        ({"id": "1", "instruction": "x", "ui_instruct": {"task": "a"}}, "must be a list"),
        ({"id": "1", "instruction": "x", "ui_instruct": [{"expected_result": "b"}]}, "ui_instruct[0] needs"),
        ({"id": "1", "instruction": "x", "ui_instruct": [{"task": "a", "expected_result": 3}]}, "must be a string"),
    ],
)
def test_malformed_records_name_the_line(tmp_path, record, says):
    path = write(tmp_path / "bench.jsonl", [TASKS[1], record], blank=False)
    with pytest.raises(ValueError) as info:
        load_webgen_bench(path)
    assert "bench.jsonl line 2" in str(info.value) and says in str(info.value)


def test_bad_json_and_missing_sources(tmp_path):
    (tmp_path / "t.jsonl").write_text('{"id": "1",\n')
    with pytest.raises(ValueError, match="line 1 is not valid JSON"):
        load_webgen_bench(tmp_path / "t.jsonl")
    with pytest.raises(FileNotFoundError, match="neither an existing"):
        load_webgen_bench(tmp_path / "nope.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no .jsonl file"):
        load_webgen_bench(tmp_path / "empty")


# --- WebGen-Bench's test tasks are refused for training from any path (vcoder.data.bench_guard) ---

REAL_TEST_SET = os.environ.get("VCODER_WEBGEN_BENCH_TEST", "")  # the benchmark's own test.jsonl, where one is at hand


@pytest.fixture
def fixture_digest(tmp_path, monkeypatch):
    """The guard's digest file made from this module's TASKS (the real test set is not shipped), as the shipped one
    is made from the benchmark's file."""
    from vcoder.data import bench_guard

    (tmp_path / "bench").mkdir()
    source = write(tmp_path / "bench" / "test.jsonl", TASKS)
    made = tmp_path / "digest.json"
    with contextlib.redirect_stdout(io.StringIO()) as out:
        bench_guard.main([str(source)])
    made.write_text(out.getvalue())
    monkeypatch.setattr(bench_guard, "DIGEST_FILE", made)
    return made


def _step_rows(dataset, **extra):
    from vcoder.pipelines.step_grpo.args import StepGRPOScriptArguments
    from vcoder.pipelines.step_grpo.data import task_rows

    return task_rows(StepGRPOScriptArguments(dataset=str(dataset), **extra))


def test_the_shipped_digest_is_the_test_set():
    from vcoder.data.bench_guard import DIGEST_FILE

    tasks = json.loads(DIGEST_FILE.read_text())["tasks"]
    assert [t["id"] for t in tasks] == [f"{i:06d}" for i in range(1, 102)]  # 101 tasks
    assert sum(len(t["cases"]) for t in tasks) == 647 and len({t["instruction"] for t in tasks}) == 101


def test_a_copy_under_another_name_and_folder_is_refused(fixture_digest, tmp_path):
    from vcoder.data.bench_guard import BenchTestSplitError

    (tmp_path / "elsewhere" / "deep").mkdir(parents=True)
    copy = write(tmp_path / "elsewhere" / "deep" / "my_tasks.jsonl", TASKS)
    with pytest.raises(BenchTestSplitError) as caught:
        _step_rows(copy)
    message = str(caught.value)
    assert "\n" not in message and "2 of its 2 tasks are WebGen-Bench's TEST tasks" in message
    assert "allow_test_split: true" in message and "my_tasks.jsonl" in message
    assert [r["id"] for r in _step_rows(copy, allow_test_split=True)] == ["000001", "000002"]


def test_copies_in_other_shapes_are_recognised(fixture_digest, tmp_path):
    from vcoder.data.bench_guard import BenchTestSplitError, bench_test_id, refuse_test_split

    first = TASKS[0]
    cases = [{"task": c["task"], "expected_result": c["expected_result"]} for c in first["ui_instruct"]]
    # vcoder's own task shape, ids renamed, the instruction re-spaced and re-cased
    renamed = {"id": "mine-1", "instruction": "  " + first["instruction"].upper() + "\n", "test_cases": cases}
    # the instruction edited, the id and a case kept
    edited = {"id": "000001", "instruction": "A recipe site, please.", "test_cases": json.dumps(cases[:1])}
    # a task of one's own that happens to reuse an id
    own = {"id": "000001", "instruction": "A weather dashboard.", "test_cases": [{"task": "Open it"}]}
    assert [bench_test_id(r) for r in (renamed, edited, own)] == ["000001", "000001", None]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (own, renamed)))
    with pytest.raises(BenchTestSplitError, match="1 of its 2 tasks .* task 2 is test task 000001"):
        _step_rows(path)
    refuse_test_split([own], allow=False, where="x")  # nothing of the benchmark: no error


def test_the_real_test_set_is_refused_from_any_path(tmp_path):
    if not os.path.isfile(REAL_TEST_SET):
        pytest.skip("set VCODER_WEBGEN_BENCH_TEST to WebGen-Bench's test.jsonl to check the shipped digest on it")
    from vcoder.data.bench_guard import BenchTestSplitError

    copy = tmp_path / "notes" / "train_me.jsonl"
    copy.parent.mkdir()
    shutil.copy(REAL_TEST_SET, copy)
    with pytest.raises(BenchTestSplitError, match="101 of its 101 tasks are WebGen-Bench's TEST tasks"):
        _step_rows(copy)
    assert len(_step_rows(copy, allow_test_split=True)) == 101


def test_agent_sft_trajectories_of_test_tasks_are_refused(fixture_digest, tmp_path):
    from vcoder.data.bench_guard import BenchTestSplitError
    from vcoder.data.prompts import make_site_conversation
    from vcoder.pipelines.grpo.agent_sft import trajectory_dataset
    from vcoder.pipelines.grpo.args import VCoderScriptArguments

    reply = {"role": "assistant", "content": '<file path="index.html">\n<p>tip</p>\n</file>\n<finish/>'}
    path = tmp_path / "demos" / "sft.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps({"messages": [*make_site_conversation(TASKS[1]["instruction"]), reply]}) + "\n")
    args = {"dataset": "trajectories", "dataset_source": str(path)}
    with pytest.raises(BenchTestSplitError, match="sft.jsonl'.*1 of its 1 tasks .* test task 000002"):
        trajectory_dataset(VCoderScriptArguments(**args))
    assert len(trajectory_dataset(VCoderScriptArguments(**args, allow_test_split=True))) == 1
