"""WebGen-Instruct: the website requests WebGen-RL's Step-GRPO trains on, as site-building task rows WITHOUT tests.

WebGen-RL (the WebGen-Agent repository's ``WebGen-RL/data/webgen-agent_train_step-grpo.jsonl``, Apache-2.0) trains
on 501 requests, 30 per application type. A line has WebGen-Bench's shape, ``{"id", "instruction", "Category",
"application_type", "ui_instruct"}``, but ``ui_instruct`` holds only an empty placeholder case: the seed has no test
cases at training time. An LLM writes one GUI-agent test per task from the instruction while training runs
(:mod:`vcoder.sites.gui_tests`), and a GUI agent carries it out.

Rows: ``{"prompt", "instruction", "id", "test_cases", "category", "application_type"}`` (the columns of
:func:`vcoder.data.load_webgen_bench`), with ``test_cases`` always ``""``. A line whose ``ui_instruct`` carries a
real case is refused: that is a benchmark file (WebGen-Bench's test set has that shape), and training on it goes
through ``dataset: webgen_bench`` and its test-split guard.

Example:
    >>> import json, tempfile, pathlib
    >>> line = {"id": "train_000054", "instruction": "A recycling site.", "application_type": "Internal Tools",
    ...         "Category": {"primary_category": ""}, "ui_instruct": [{"task": "", "expected_result": ""}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "train.jsonl"; _ = path.write_text(json.dumps(line))
    >>> row = load_webgen_instruct(path)[0]
    >>> row["id"], row["application_type"], row["test_cases"], row["prompt"][1]["role"]
    ('train_000054', 'Internal Tools', '', 'user')
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vcoder.data.prompts import make_site_conversation

#: the seed's file name (WebGen-RL/data/ in the WebGen-Agent repository)
FILE_NAME = "webgen-agent_train_step-grpo.jsonl"


def _real_cases(value: Any) -> list[Any]:
    """The entries of ``ui_instruct`` that are more than the seed's empty placeholder."""
    if not isinstance(value, list):
        return [value] if value else []
    return [c for c in value if not isinstance(c, Mapping) or str(c.get("task") or "").strip()]


def instruct_row(record: Any, *, where: str = "task") -> dict[str, Any]:
    """One WebGen-Instruct line as a task row (validated).

    Raises:
        ValueError: not an object, a missing id or instruction, or real test cases (``where`` is named).
    """
    if not isinstance(record, Mapping):
        raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
    instruction, task_id = record.get("instruction"), record.get("id")
    if not isinstance(instruction, str) or not instruction.strip():
        raise ValueError(f"{where}: 'instruction' must be a non-empty string, got {instruction!r:.80}")
    if task_id is None or str(task_id).strip() == "":
        raise ValueError(f"{where}: 'id' is missing (WebGen-Instruct ids look like 'train_000054')")
    if _real_cases(record.get("ui_instruct")):
        raise ValueError(
            f"{where} (id {task_id}) carries test cases in 'ui_instruct': this is a benchmark file, not "
            "WebGen-Instruct; train on it with dataset: webgen_bench (and allow_test_split: true if it is the test set)"
        )
    category = record.get("Category")
    if isinstance(category, Mapping):
        category = category.get("primary_category")
    return {
        "prompt": make_site_conversation(instruction),
        "instruction": instruction.strip(),
        "id": str(task_id).strip(),
        "test_cases": "",
        "category": category.strip() if isinstance(category, str) else "",
        "application_type": str(record.get("application_type") or ""),
    }


def load_webgen_instruct(path: str | Path, *, max_samples: int | None = None) -> list[dict[str, Any]]:
    """Read WebGen-RL's training requests into site-building task rows, in file order.

    Args:
        path: the JSONL file (``webgen-agent_train_step-grpo.jsonl``) or a folder holding it.
        max_samples: keep the first N tasks.

    Returns:
        The rows (see the module docstring); ids are unique.

    Raises:
        FileNotFoundError: no such file (or the folder lacks the seed's file).
        ValueError: a malformed line, real test cases, or a repeated id (the line number is named).
    """
    if max_samples is not None and max_samples < 0:
        raise ValueError(f"max_samples must be >= 0 or None, got {max_samples}")
    source = Path(path)
    if source.is_dir():
        source = source / FILE_NAME
    if not source.is_file():
        raise FileNotFoundError(
            f"WebGen-Instruct file {str(path)!r} does not exist; give the path of WebGen-RL's {FILE_NAME}"
        )
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    with source.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if max_samples is not None and len(rows) >= max_samples:
                break
            if not line.strip():
                continue
            where = f"{source.name} line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where} is not valid JSON ({exc})") from exc
            row = instruct_row(record, where=where)
            if row["id"] in seen:
                raise ValueError(f"{where}: id {row['id']!r} already appeared on line {seen[row['id']]}")
            seen[row["id"]] = number
            rows.append(row)
    return rows
