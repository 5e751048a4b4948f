"""load_webgen_bench: rows written here in WebGen-Bench's JSONL format (the real file is not shipped)."""

from __future__ import annotations

import json

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
