"""load_webgen_instruct on WebGen-RL's own training file (../shared/data/webgen_rl/, 501 rows) and on bad lines."""

from __future__ import annotations

import collections
import json
import os

import pytest

from vcoder.data import load_webgen_instruct
from vcoder.data.prompts import make_site_conversation
from vcoder.sites.records import SiteTask

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED_FILE = os.path.join(ROOT, "..", "shared", "data", "webgen_rl", "webgen-agent_train_step-grpo.jsonl")
needs_seed_file = pytest.mark.skipif(
    not os.path.isfile(SEED_FILE), reason=f"WebGen-RL's training file is not beside the checkout ({SEED_FILE})"
)


@needs_seed_file
def test_the_seed_file_loads_as_tasks_without_cases():
    rows = load_webgen_instruct(SEED_FILE)
    assert len(rows) == 501 and len({r["id"] for r in rows}) == 501
    first = rows[0]
    assert first["id"] == "train_000054" and first["application_type"] == "Internal Tools"
    assert first["instruction"].startswith("Please implement a website for intelligent operation")
    assert first["prompt"] == make_site_conversation(first["instruction"])  # the site agent's first request
    assert first["prompt"][1]["content"].endswith("forest green for components.")
    assert all(r["test_cases"] == "" and r["instruction"] and r["application_type"] for r in rows)
    # the README's "30 per application type" holds for most types
    counts = collections.Counter(r["application_type"] for r in rows)
    assert max(counts.values()) == 30 and len(counts) >= 16
    task = SiteTask.from_dict(rows[0])  # what an episode makes of a row
    assert task.test_cases == () and task.id == "train_000054"
    assert [r["id"] for r in load_webgen_instruct(os.path.dirname(SEED_FILE), max_samples=3)] == [
        r["id"] for r in rows[:3]
    ]


def _write(tmp_path, *records):
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def test_bad_lines_name_the_line(tmp_path):
    good = {"id": "a", "instruction": "A site.", "ui_instruct": [{"task": "", "expected_result": ""}]}
    with pytest.raises(ValueError, match="train.jsonl line 2 is not valid JSON"):
        load_webgen_instruct(_write(tmp_path, good, "{oops"))
    with pytest.raises(ValueError, match="line 2: 'instruction' must be a non-empty"):
        load_webgen_instruct(_write(tmp_path, good, {"id": "b", "instruction": " "}))
    with pytest.raises(ValueError, match="line 2: id 'a' already appeared on line 1"):
        load_webgen_instruct(_write(tmp_path, good, good))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_webgen_instruct(tmp_path / "missing.jsonl")


def test_a_benchmark_file_with_cases_is_refused(tmp_path):
    bench = {"id": "000001", "instruction": "A site.", "ui_instruct": [{"task": "Click Add", "expected_result": "x"}]}
    with pytest.raises(ValueError, match="carries test cases.*dataset: webgen_bench"):
        load_webgen_instruct(_write(tmp_path, bench))
